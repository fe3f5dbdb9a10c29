/*
 * names_test.c - the container name readers on state files captured from
 * real runtimes and written from their formats (tests/fixtures/names/),
 * broken, oversized and missing files, and the resolver's thread: the
 * ids it is told, the map it publishes, the ids it forgets, the names it
 * refreshes when a record changes (and takes away when the rewritten
 * record places the container elsewhere).  Trust: a name only where the
 * runtime's record puts the container, the sandbox flag only from the
 * runtime's own record, never in a delegated cgroup.  Issue 32's bounds:
 * a list read entry by entry within its limits, a broken containers.json
 * not read again until it changes.
 *
 * One file: one fixture tree (tests/fixtures/names/root), whose
 * containers every case names by the ids and cgroups defined below, the
 * readers' cases and the resolver thread's alike (test_thread's six names
 * are the readers' six); split, those names would move to a header of
 * the test's own that every part includes.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "names/jsonfile.h"
#include "names/names.h"
#include "names/runtime.h"
#include "tests/lib/check.h"

#define CRI_CTR "4e7feab8eafb14e4d6a2a2ab2f92f7ef1ebfa44e754a0b548899c5a15a20789f"
#define CRI_POD "67d1b6990fe1f5eb4c8e8a5e85ab3249fed65f99e2449baf164d161c533b6cf8"
#define PODMAN_ROOTFS "32ab7010fb59bb34f2bb29e479bb574d7f82a8bcd446cfb5aeea7522500241fd"
#define PODMAN_IMG "e792bb9ff139a14576a27d668e6eafdbec83001b4b6a3f160b1337197d1ed308"
#define DOCKER "f31f384749f9115acf01fcf82f5a966b59dcc0a4cbd7c9740888c0bf32aa2bbb"
#define DOCKER_K8S "89016fc1ebe735d5d6bfa8fa9b5c0431890483da9035da7f4031b4fd87aff831"
#define CRIO_CTR "a6096b8f677941d7d2b0a6f0a3939ade48f461e03eb96621e2987a0b7f42afd0"
#define CRIO_POD "a18bfabd3cf1d74d0267b59ef276e9c1c94d4e31a9fb482340d884a4c4275b94"
#define CTD_BAD "b8b5d33623121d4ae77532718c76f026b7b17ee928eac3f12b9abe76e420ce9a"
#define DOCKER_BAD "aceb6eee37f7052929ed385225ab658fa1941f6d890f5b59ff6c40a670d7837a"
/* A Docker container test_refresh moves to another cgroup parent. */
#define MOVED "3333333333333333333333333333333333333333333333333333333333333333"
#define NOBODY "0000000000000000000000000000000000000000000000000000000000000000"
/* Posers: a Podman container annotated as kube-system's CRI-O sandbox,
 * a Docker container labelled as one (and annotated as a CRI sandbox in
 * its moby bundle). */
#define PODMAN_POSER "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"
#define DOCKER_POSER "d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0d0c0"
/* Docker containers named as cri-dockerd names a pod's sandbox and a
 * container of it (docker run --name k8s_...), with the kubelet's labels
 * to match, but not in the pod's cgroup: no CgroupParent. */
#define DOCKER_K8S_NAMED_POD "d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1d0c1"
#define DOCKER_K8S_NAMED_CTR "d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2d0c2"

/* Where the records put them. */
#define CRI_PODCG "/kubepods/besteffort/pod1a2b3c4d-0000-4000-8000-000000000001"
#define CRIO_PODCG "/kubepods.slice/kubepods-besteffort.slice/" \
	"kubepods-besteffort-pod7c4f1a2e_8d3b_4e6f_a1c2_9b8d7e6f5a4b.slice"
#define DOCKER_PODCG "/kubepods.slice/kubepods-besteffort.slice/" \
	"kubepods-besteffort-pod0b7e4e2a_51c4_4f3e_9a3b_2d7c1e5f9a10.slice"
#define CG_CRI_CTR CRI_PODCG "/" CRI_CTR
#define CG_CRI_POD CRI_PODCG "/" CRI_POD
#define CG_PODMAN_ROOTFS "/nmtest/libpod-" PODMAN_ROOTFS
#define CG_PODMAN_IMG "/machine.slice/libpod-" PODMAN_IMG ".scope"
#define CG_DOCKER "/system.slice/docker-" DOCKER ".scope"
#define CG_DOCKER_K8S DOCKER_PODCG "/docker-" DOCKER_K8S ".scope"
#define CG_CRIO_CTR CRIO_PODCG "/crio-" CRIO_CTR ".scope"
#define CG_CRIO_POD CRIO_PODCG "/crio-" CRIO_POD ".scope"
/* A user's own cgroup, named after someone else's container. */
#define USERCG "/user.slice/user-1000.slice/user@1000.service/user.slice/"

/* calloc, failing once on the resolver's thread when armed (the test
 * is linked with -Wl,--wrap=calloc): cache_merge's allocation. */
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
static atomic_int calloc_fail_armed, calloc_failed;
static pthread_t main_thread;

void *
__wrap_calloc(size_t nmemb, size_t size)
{
	int one = 1;

	if (!pthread_equal(pthread_self(), main_thread) &&
	    atomic_compare_exchange_strong(&calloc_fail_armed, &one, 0)) {
		atomic_fetch_add(&calloc_failed, 1);
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

static char root[4096];
static int slash = -1;		/* "/", for jsonfile_read */

static void
expect(struct names *n, const char *id, const char *cg, const char *ns,
    const char *pod, const char *ctr, const char *image, const char *uid)
{
	struct names_found f;

	memset(&f, 0, sizeof(f));
	CHECK(names_lookup(n, id, cg, &f) == 1);
	/* The sandbox (pause) containers are the ones named "POD". */
	CHECK(f.sandbox == (strcmp(ctr, "POD") == 0));
	CHECK_STR(f.v[NAMES_NAMESPACE], ns);
	CHECK_STR(f.v[NAMES_POD], pod);
	CHECK_STR(f.v[NAMES_CONTAINER], ctr);
	CHECK_STR(f.v[NAMES_IMAGE], image);
	CHECK_STR(f.v[NAMES_POD_UID], uid);
}

static void
test_runtimes(void)
{
	struct names_opts o = { root, NULL };
	struct names_found f;
	struct names *n;

	CHECK(names_new(&o, &n) == 0);
	/* containerd 1.6.20, CRI: a container and its sandbox. */
	expect(n, CRI_CTR, CG_CRI_CTR, "shop", "web-7d4b9", "nginx",
	    "localhost/bb:1", "1a2b3c4d-0000-4000-8000-000000000001");
	expect(n, CRI_POD, CG_CRI_POD, "shop", "web-7d4b9", "POD", "",
	    "1a2b3c4d-0000-4000-8000-000000000001");
	/* Podman 4.3.1: run with --rootfs (no image), and from an image. */
	expect(n, PODMAN_ROOTFS, CG_PODMAN_ROOTFS, "", "", "nm-rootfs", "", "");
	expect(n, PODMAN_IMG, CG_PODMAN_IMG, "", "", "nm-img",
	    "localhost/bb:1", "");
	/* Docker: its name without the slash, not the moby bundle; either
	 * cgroup driver's place. */
	expect(n, DOCKER, CG_DOCKER, "", "", "web", "nginx:1.25", "");
	expect(n, DOCKER, "/docker/" DOCKER, "", "", "web", "nginx:1.25", "");
	expect(n, DOCKER_K8S, CG_DOCKER_K8S, "payments", "api-5f7c9-xk2lp",
	    "api",
	    "registry.example.com/payments/api@sha256:4f8e2c1d0b9a8f7e6d5c4b3"
	    "a29180716f5e4d3c2b1a09f8e7d6c5b4a39281706",
	    "0b7e4e2a-51c4-4f3e-9a3b-2d7c1e5f9a10");
	/* CRI-O: annotations, and a sandbox with only the labels string. */
	expect(n, CRIO_CTR, CG_CRIO_CTR, "store", "cache-0", "redis",
	    "docker.io/library/redis:7.2",
	    "7c4f1a2e-8d3b-4e6f-a1c2-9b8d7e6f5a4b");
	expect(n, CRIO_POD, CG_CRIO_POD, "store", "cache-0", "POD",
	    "registry.k8s.io/pause:3.9",
	    "7c4f1a2e-8d3b-4e6f-a1c2-9b8d7e6f5a4b");
	/* A cgroup below the container's own (crun's "container"). */
	expect(n, PODMAN_IMG, CG_PODMAN_IMG "/container", "", "", "nm-img",
	    "localhost/bb:1", "");
	/* Nobody's, broken files, and ids that are no ids. */
	CHECK(names_lookup(n, NOBODY, "/x/" NOBODY, &f) == 0);
	CHECK(names_lookup(n, CTD_BAD, CRI_PODCG "/" CTD_BAD, &f) == 0);
	CHECK(names_lookup(n, DOCKER_BAD, "/docker/" DOCKER_BAD, &f) == 0);
	CHECK(names_lookup(n, "../../../etc/passwd", "/", &f) == 0);
	CHECK(names_lookup(n, CRI_CTR "0", CG_CRI_CTR "0", &f) == 0);
	names_free(n);

	/* A root where no runtime is. */
	o.rootfs = "/nonexistent";
	CHECK(names_new(&o, &n) == 0);
	CHECK(names_lookup(n, CRI_CTR, CG_CRI_CTR, &f) == 0);
	names_free(n);
}

/*
 * Finding 4 of issue 32: the id in a cgroup's name is anyone's.  A
 * user's cgroup named after a container gets none of its names; nor does
 * a cgroup beside the container's own, or above it.
 */
static void
test_placed(void)
{
	static const struct { const char *id, *cg; } wrong[] = {
		{ CRI_CTR, USERCG "libpod-" CRI_CTR ".scope" },
		{ CRI_POD, USERCG "libpod-" CRI_POD ".scope" },
		{ CRIO_CTR, USERCG "libpod-" CRIO_CTR ".scope" },
		{ CRIO_POD, USERCG "libpod-" CRIO_POD ".scope" },
		{ DOCKER_K8S, USERCG "docker-" DOCKER_K8S ".scope" },
		{ PODMAN_IMG, USERCG "libpod-" PODMAN_IMG ".scope" },
		{ PODMAN_IMG, "/machine.slice/libpod-" PODMAN_IMG ".scope2" },
		{ PODMAN_IMG, "/machine.slice" },
		{ CRI_CTR, CRI_PODCG "/" CRI_POD },
		{ DOCKER, "/system.slice/docker-" DOCKER },
		{ DOCKER, USERCG "docker-" DOCKER ".scope" },
	};
	struct names_opts o = { root, NULL };
	struct names_found f;
	struct names *n;
	size_t i;

	CHECK(names_new(&o, &n) == 0);
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		memset(&f, 0, sizeof(f));
		if (names_lookup(n, wrong[i].id, wrong[i].cg, &f) != 0) {
			fprintf(stderr, "named in %s\n", wrong[i].cg);
			CHECK(0);
		}
	}
	names_free(n);
}

/* The OCI cgroupsPath forms, as runc's and crun's drivers expand them. */
static void
test_cgpath(void)
{
	CHECK(names_cgroup_match("kubepods-besteffort-podX.slice:crio:abc",
	    "/kubepods.slice/kubepods-besteffort.slice/"
	    "kubepods-besteffort-podX.slice/crio-abc.scope"));
	CHECK(names_cgroup_match("machine.slice:libpod:abc",
	    "/machine.slice/libpod-abc.scope/container"));
	CHECK(names_cgroup_match("-.slice:docker:abc", "/docker-abc.scope"));
	CHECK(names_cgroup_match(":docker:abc", "/docker-abc.scope"));
	CHECK(names_cgroup_match("/docker/abc", "/docker/abc"));
	CHECK(names_cgroup_match("/docker/abc/", "/docker/abc"));
	CHECK(!names_cgroup_match("/docker/abc", "/docker/abcd"));
	CHECK(!names_cgroup_match("/docker/abc", "/docker"));
	CHECK(!names_cgroup_match("/", "/anything"));
	CHECK(!names_cgroup_match("/a/../b", "/b"));
	CHECK(!names_cgroup_match("/a/../b", "/a/../b"));
	CHECK(!names_cgroup_match("a--b.slice:p:n", "/a.slice/a-.slice"));
	CHECK(!names_cgroup_match("-a.slice:p:n", "/-a.slice/p-n.scope"));
	CHECK(!names_cgroup_match("a/b.slice:p:n", "/a/b.slice/p-n.scope"));
	CHECK(!names_cgroup_match("a.slice:p:../n", "/a.slice/p-../n.scope"));
	CHECK(!names_cgroup_match("a.slice:p:n:x", "/a.slice/p-n:x.scope"));
	CHECK(!names_cgroup_match("relative/path", "/relative/path"));
	CHECK(!names_cgroup_match("", "/"));
}

/* The rest of both k8s_ names: pod, namespace, uid, attempt. */
#define K8S_POSED "coredns-5d78c9869d-abcde_kube-system_" \
	"11111111-2222-4333-8444-555555555555_0"

/*
 * The sandbox flag only from the runtime that owns the container: labels
 * and annotations a container sets on itself do not hide it, nor give it
 * a pod's names.
 */
static void
test_sandbox_trust(void)
{
	struct names_opts o = { root, NULL };
	struct names_found f;
	struct names *n;
	void *d;

	CHECK(names_new(&o, &n) == 0);
	/* podman run --annotation io.kubernetes.cri-o.ContainerType=sandbox
	 * --annotation io.kubernetes.pod.namespace=kube-system ...: its
	 * index entry is Podman's. */
	expect(n, PODMAN_POSER, "/machine.slice/libpod-" PODMAN_POSER ".scope",
	    "", "", "poser", "localhost/bb:1", "");
	/* docker run --label io.kubernetes.docker.type=podsandbox --label
	 * io.kubernetes.pod.namespace=kube-system ... --annotation
	 * io.kubernetes.cri.container-type=sandbox: not cri-dockerd's. */
	expect(n, DOCKER_POSER, "/system.slice/docker-" DOCKER_POSER ".scope",
	    "", "", "poser", "busybox:1.36", "");
	/* cri-dockerd's name and labels, each matching the other, but not
	 * the pod's CgroupParent: anyone may choose a name.  A container:
	 * no Kubernetes labels, only its Docker name. */
	expect(n, DOCKER_K8S_NAMED_CTR, "/system.slice/docker-"
	    DOCKER_K8S_NAMED_CTR ".scope", "", "", "k8s_coredns_" K8S_POSED,
	    "busybox:1.36", "");
	/* A sandbox: not hidden as one (expect wants the flag only for a
	 * container named "POD"). */
	expect(n, DOCKER_K8S_NAMED_POD, "/system.slice/docker-"
	    DOCKER_K8S_NAMED_POD ".scope", "", "", "k8s_POD_" K8S_POSED,
	    "busybox:1.36", "");
	names_free(n);

	/* containerd reads the CRI plugin's namespace only: the poser's
	 * moby bundle, annotated as a CRI sandbox, is not its. */
	CHECK(rt_containerd_ops.open(root, &d) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_containerd_ops.find(d, DOCKER_POSER, &f) == -ENOENT);
	CHECK(f.sandbox == 0);
	rt_containerd_ops.close(d);
}

/*
 * A cgroup in a subtree chowned to a user (as systemd delegates one) is
 * delegated, and so is anything below it; the root's own are not; what
 * cannot be looked at counts as delegated (never hidden).
 */
static void
test_delegated(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", path[4200];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "cd %s && mkdir -p a.slice/b.scope "
	    "u.slice/user@1.service/x.scope && chown -R 65534 "
	    "u.slice/user@1.service", dir);
	CHECK(system(path) == 0);
	CHECK(names_delegated(dir, "/a.slice/b.scope") == 0);
	CHECK(names_delegated(dir, "/a.slice") == 0);
	CHECK(names_delegated(dir, "/") == 0);
	CHECK(names_delegated(dir, "/u.slice") == 0);
	CHECK(names_delegated(dir, "/u.slice/user@1.service") == 1);
	CHECK(names_delegated(dir, "/u.slice/user@1.service/x.scope") == 1);
	CHECK(names_delegated(dir, "/nonexistent") == 1);
	CHECK(names_delegated(NULL, "/a.slice") == 1);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/* Finding 6: a broken index in the first <driver>-containers directory
 * does not hide the next one's containers. */
static void
test_index_broken(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", croot[64], path[4200];
	struct names_opts no = { croot, NULL };
	struct names_found f;
	struct names *n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(croot, sizeof(croot), "%s/root", dir);
	snprintf(path, sizeof(path), "cd %s && S=root/var/lib/containers/"
	    "storage && mkdir -p $S/aaa-containers $S/zzz-containers/"
	    PODMAN_IMG "/userdata && echo '[{\"id\":' > "
	    "$S/aaa-containers/containers.json && echo '[{\"id\":\""
	    PODMAN_IMG "\",\"names\":[\"second\"]}]' > "
	    "$S/zzz-containers/containers.json && echo '{\"linux\":"
	    "{\"cgroupsPath\":\"/p/" PODMAN_IMG "\"}}' > "
	    "$S/zzz-containers/" PODMAN_IMG "/userdata/config.json", dir);
	CHECK(system(path) == 0);
	CHECK(names_new(&no, &n) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(names_lookup(n, PODMAN_IMG, "/p/" PODMAN_IMG, &f) == 1);
	CHECK_STR(f.v[NAMES_CONTAINER], "second");
	names_free(n);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/* Each reader's own verdict on the broken files. */
static void
test_errors(void)
{
	struct names_found f;
	void *d;

	CHECK(rt_containerd_ops.open(root, &d) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_containerd_ops.find(d, CTD_BAD, &f) == -EBADMSG);
	CHECK_CONTAINS(f.err, CTD_BAD "/config.json: not valid JSON");
	CHECK(rt_containerd_ops.find(d, NOBODY, &f) == -ENOENT);
	/* Docker's bundle in moby carries no CRI annotations: not ours. */
	CHECK(rt_containerd_ops.find(d, DOCKER, &f) == -ENOENT);
	rt_containerd_ops.close(d);

	CHECK(rt_docker_ops.open(root, &d) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_docker_ops.find(d, DOCKER_BAD, &f) == -EBADMSG);
	CHECK_CONTAINS(f.err, "config.v2.json: not valid JSON");
	CHECK(rt_docker_ops.find(d, NOBODY, &f) == -ENOENT);
	rt_docker_ops.close(d);

	CHECK(rt_storage_ops.open("/nonexistent", &d) == 0);
	CHECK(rt_storage_ops.find(d, NOBODY, &f) == -ENOENT);
	rt_storage_ops.close(d);
}

/* A label slot holds valid UTF-8, cut between characters: json-c hands
 * over whatever bytes a runtime's file holds. */
static void
test_found_set(void)
{
	struct names_found f;
	char name[512];
	size_t i, n = 0;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < 200; i++)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "é");
	names_found_set(&f, NAMES_CONTAINER, name);
	CHECK(strlen(f.v[NAMES_CONTAINER]) == 254);
	CHECK(strncmp(f.v[NAMES_CONTAINER], name, 254) == 0);
	names_found_set(&f, NAMES_CONTAINER, "/bad\xff\xfe");
	CHECK_STR(f.v[NAMES_CONTAINER], "/bad\xff\xfe");
	names_found_set(&f, NAMES_IMAGE, NULL);
	CHECK_STR(f.v[NAMES_IMAGE], "");
}

static void
write_file(const char *path, const char *s, size_t repeat, const char *end)
{
	FILE *fp = fopen(path, "w");
	size_t i;

	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	for (i = 0; i < repeat; i++)
		fputs(s, fp);
	fputs(end, fp);
	fclose(fp);
}

/* Bounds: size, depth, one value only, not a regular file. */
static void
test_jsonfile(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", path[4200];
	struct json_object *o = NULL;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/big.json", dir);
	write_file(path, "{\"a\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"},", 40000,
	    "");
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == -EFBIG);
	snprintf(path, sizeof(path), "%s/deep.json", dir);
	write_file(path, "[", 100, "");
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == -EBADMSG);
	snprintf(path, sizeof(path), "%s/two.json", dir);
	write_file(path, "{} {}", 1, "\n");
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == -EBADMSG);
	snprintf(path, sizeof(path), "%s/empty.json", dir);
	write_file(path, "", 1, "");
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == -EBADMSG);
	snprintf(path, sizeof(path), "%s/ok.json", dir);
	write_file(path, "{\"k\": {\"s\": \"v\", \"e\": \"\", \"n\": 1}}", 1, "\n");
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == 0);
	CHECK_STR(jsonfile_str(jsonfile_obj(o, "k"), "s"), "v");
	CHECK(jsonfile_str(jsonfile_obj(o, "k"), "e") == NULL);
	CHECK(jsonfile_str(jsonfile_obj(o, "k"), "n") == NULL);
	CHECK(jsonfile_obj(o, "nope") == NULL);
	json_object_put(o);
	CHECK(jsonfile_read(slash, dir, JSONFILE_SMALL, &o, NULL) == -EINVAL);
	CHECK(jsonfile_read(slash, "/nonexistent.json", 10, &o, NULL) == -ENOENT);

	/* An oversized config.json: the container keeps its id only. */
	{
		char croot[64], cmd[8600];
		struct names_opts no = { croot, NULL };
		struct names_found f;
		struct names *n;
		FILE *fp;
		size_t i;

		snprintf(croot, sizeof(croot), "%s/root", dir);
		snprintf(path, sizeof(path), "%s/var/lib/docker/containers/"
		    NOBODY, croot);
		snprintf(cmd, sizeof(cmd), "mkdir -p %s", path);
		CHECK(system(cmd) == 0);
		strcat(path, "/config.v2.json");
		if ((fp = fopen(path, "w")) != NULL) {
			fputs("{\"Name\":\"/big\",\"Config\":{\"Env\":[", fp);
			for (i = 0; i < 70000; i++)
				fputs("\"A=xxxxxxxxxx\",", fp);
			fputs("\"B=1\"]}}", fp);
			fclose(fp);
		}
		CHECK(names_new(&no, &n) == 0);
		CHECK(names_lookup(n, NOBODY, "/docker/" NOBODY, &f) == 0);
		names_free(n);
	}
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

static int
count_entry(struct json_object *e, void *arg)
{
	(void)e;
	++*(size_t *)arg;
	return 0;
}

/* A list entry by entry: what it hands over, and where it stops. */
static void
test_array(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", path[4200];
	struct json_object *o = NULL;
	size_t n;
	FILE *fp;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/a.json", dir);
	write_file(path, " [ {\"id\":\"x\"} ,[1,2], \"s\",12 ,{}\n]\n", 1, "");
	n = 0;
	CHECK(jsonfile_read_array(slash, path, JSONFILE_LARGE, count_entry,
	    &n, NULL) == 0);
	CHECK(n == 5);
	write_file(path, "[]", 1, "");
	n = 0;
	CHECK(jsonfile_read_array(slash, path, 10, count_entry, &n, NULL) ==
	    0 && n == 0);
	/* Broken after two entries: both handed over, then the error. */
	write_file(path, "[{},{},{", 1, "");
	n = 0;
	CHECK(jsonfile_read_array(slash, path, 10, count_entry, &n, NULL) ==
	    -EBADMSG && n == 2);
	write_file(path, "[{},{}] x", 1, "");
	CHECK(jsonfile_read_array(slash, path, 10, count_entry, &n, NULL) ==
	    -EBADMSG);
	write_file(path, "[{},,{}]", 1, "");
	CHECK(jsonfile_read_array(slash, path, 10, count_entry, &n, NULL) ==
	    -EBADMSG);
	write_file(path, "{\"a\":1}", 1, "");
	CHECK(jsonfile_read_array(slash, path, 10, count_entry, &n, NULL) ==
	    -EPROTO);
	write_file(path, "", 1, "");
	CHECK(jsonfile_read_array(slash, path, 10, count_entry, &n, NULL) ==
	    -EBADMSG);
	/* 2 M empty objects (6 MB: ~1.5 GB as one json-c tree): refused at
	 * the entry limit, one entry's tree at a time. */
	write_file(path, "[", 1, "");
	if ((fp = fopen(path, "a")) != NULL) {
		for (n = 0; n < 2 * 1024 * 1024; n++)
			fputs("{},", fp);
		fputs("{}]", fp);
		fclose(fp);
	}
	n = 0;
	CHECK(jsonfile_read_array(slash, path, JSONFILE_LARGE, count_entry,
	    &n, NULL) == -E2BIG);
	CHECK(n == JSONFILE_ENTRIES);
	/* One entry of 1 MB: refused once JSONFILE_ENTRY bytes are read. */
	write_file(path, "[{\"a\":[", 1, "");
	if ((fp = fopen(path, "a")) != NULL) {
		for (n = 0; n < 350000; n++)
			fputs("{},", fp);
		fputs("{}]}]", fp);
		fclose(fp);
	}
	n = 0;
	CHECK(jsonfile_read_array(slash, path, JSONFILE_LARGE, count_entry,
	    &n, NULL) == -E2BIG);
	CHECK(n == 0);
	/* The same in a config file: too many values, before parsing. */
	write_file(path, "[{},", 40000, "{}]");
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == -E2BIG);
	/* Braces and commas in strings are no values. */
	write_file(path, "[", 1, "");
	if ((fp = fopen(path, "a")) != NULL) {
		for (n = 0; n < 8000; n++)
			fputs("\"{},{},{},{},{},{},{},\\\"[{}\",", fp);
		fputs("1]", fp);
		fclose(fp);
	}
	CHECK(jsonfile_read(slash, path, JSONFILE_SMALL, &o, NULL) == 0);
	json_object_put(o);
	CHECK(jsonfile_values("[\"a,\\\"[\",{}]", 12) == 4);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/* mkdir -p of the directory of path. */
static void
mkdirs(const char *path)
{
	char cmd[4300];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CHECK(system(cmd) == 0);
}

/*
 * A broken containers.json is read once per change, not at each lookup:
 * rewritten in place, valid, with its size, inode and mtime kept, it is
 * still the broken one; with a new mtime it is read again.  Docker's
 * containers are named meanwhile.
 */
static void
test_failure_cache(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", croot[64], path[4200],
	    dpath[4200];
	struct names_opts no = { croot, NULL };
	const char *valid = "[{\"id\":\"" PODMAN_IMG "\",\"names\":[\"pm\"]}]";
	struct timespec ts[2];
	struct names_found f;
	struct names *n;
	struct stat st;
	char broken[256];
	void *d;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(croot, sizeof(croot), "%s/root", dir);
	snprintf(path, sizeof(path), "%s/var/lib/containers/storage/"
	    "overlay-containers/containers.json", croot);
	mkdirs(path);
	snprintf(broken, sizeof(broken), "%s", valid);
	broken[strlen(broken) - 1] = ' ';	/* no closing ']' */
	write_file(path, broken, 1, "");
	snprintf(dpath, sizeof(dpath), "%s/var/lib/docker/containers/" DOCKER
	    "/config.v2.json", croot);
	mkdirs(dpath);
	write_file(dpath, "{\"ID\":\"" DOCKER "\",\"Name\":\"/dk\"}", 1, "");

	CHECK(rt_storage_ops.open(croot, &d) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_storage_ops.find(d, PODMAN_IMG, &f) == -EBADMSG);
	CHECK_CONTAINS(f.err, "containers.json: not valid JSON");
	CHECK(stat(path, &st) == 0);
	/* Valid now, in place: same inode and size, the mtime put back. */
	write_file(path, valid, 1, "");
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_storage_ops.find(d, PODMAN_IMG, &f) == -EBADMSG);
	CHECK_CONTAINS(f.err, "containers.json: not valid JSON");
	memset(&f, 0, sizeof(f));
	CHECK(rt_storage_ops.find(d, DOCKER, &f) == -EBADMSG);
	/* A change it can see: read again. */
	ts[1].tv_nsec = (ts[1].tv_nsec + 1) % 1000000000L;
	CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_storage_ops.find(d, PODMAN_IMG, &f) == 0);
	CHECK_STR(f.v[NAMES_CONTAINER], "pm");
	CHECK_CONTAINS(f.src, "containers.json");
	rt_storage_ops.close(d);

	/* Broken again: Docker's containers are named all the same. */
	write_file(path, broken, 1, "");
	CHECK(names_new(&no, &n) == 0);
	CHECK(names_lookup(n, DOCKER, "/docker/" DOCKER, &f) == 1);
	CHECK_STR(f.v[NAMES_CONTAINER], "dk");
	CHECK(names_lookup(n, PODMAN_IMG, "/pm/" PODMAN_IMG, &f) == 0);
	names_free(n);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/* The map's name for (id, cg), waited for (at most 30 s) until it is
 * want (NULL: until the pair is in the map, not found, unnamed). */
static int
wait_name(struct names *n, const char *id, const char *cg,
    const char *want)
{
	const struct namemap_entry *e;
	struct namemap *m;
	int i, same = 0;

	for (i = 0; i < 3000 && !same; i++) {
		m = names_map(n);
		e = namemap_find(m, id, cg);
		if (want == NULL)
			same = e && !e->found &&
			    e->v[NAMES_CONTAINER] == NULL;
		else
			same = e && e->v[NAMES_CONTAINER] &&
			    strcmp(e->v[NAMES_CONTAINER], want) == 0;
		namemap_unref(m);
		if (!same)
			usleep(10000);
	}
	return same;
}

/* Write dir/<docker's>/id/file: s, by rename as the engine does. */
static void
docker_put(const char *croot, const char *id, const char *file,
    const char *s)
{
	char path[4200], tmp[4300];

	snprintf(path, sizeof(path), "%s/var/lib/docker/containers/%s/%s",
	    croot, id, file);
	mkdirs(path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	write_file(tmp, s, 1, "");
	CHECK(rename(tmp, path) == 0);
}

/*
 * A renamed container gets its new name: Docker rewrites config.v2.json
 * by rename, and the resolver, which stat()s each name's record every
 * 10 s, looks the container up again.  Podman's rename rewrites
 * containers.json the same way.  A container whose rewritten record
 * places it elsewhere (a new CgroupParent) loses its names in the
 * cgroup it was named in: the id there is no longer the record's.
 */
static void
test_refresh(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", croot[64], path[4200],
	    tmp[4300], spath[4200];
	struct names_opts no = { croot, NULL };
	const char *ids[] = { DOCKER, PODMAN_IMG, MOVED };
	const char *cgs[] = { "/docker/" DOCKER, "/pm/" PODMAN_IMG,
	    "/docker/" MOVED };
	struct names *n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(croot, sizeof(croot), "%s/root", dir);
	docker_put(croot, DOCKER, "config.v2.json", "{\"ID\":\"" DOCKER
	    "\",\"Name\":\"/old\"}");
	docker_put(croot, MOVED, "config.v2.json", "{\"ID\":\"" MOVED
	    "\",\"Name\":\"/mover\"}");
	snprintf(spath, sizeof(spath), "%s/var/lib/containers/storage/"
	    "overlay-containers/containers.json", croot);
	mkdirs(spath);
	write_file(spath, "[{\"id\":\"" PODMAN_IMG "\",\"names\":[\"pm-old\"]}]",
	    1, "");
	/* Where Podman's record puts it: its config.json. */
	snprintf(tmp, sizeof(tmp), "%s/var/lib/containers/storage/"
	    "overlay-containers/" PODMAN_IMG "/userdata/config.json", croot);
	mkdirs(tmp);
	write_file(tmp, "{\"linux\":{\"cgroupsPath\":\"/pm/" PODMAN_IMG
	    "\"}}", 1, "");
	CHECK(names_new(&no, &n) == 0);
	CHECK(names_start(n) == 0);
	CHECK(names_want(n, NULL, ids, cgs, 3) == 0);
	CHECK(wait_name(n, DOCKER, cgs[0], "old"));
	CHECK(wait_name(n, PODMAN_IMG, cgs[1], "pm-old"));
	CHECK(wait_name(n, MOVED, cgs[2], "mover"));
	docker_put(croot, MOVED, "hostconfig.json",
	    "{\"CgroupParent\":\"/elsewhere\"}");
	docker_put(croot, MOVED, "config.v2.json", "{\"ID\":\"" MOVED
	    "\",\"Name\":\"/mover\",\"Config\":{}}");
	docker_put(croot, DOCKER, "config.v2.json", "{\"ID\":\"" DOCKER
	    "\",\"Name\":\"/new-name\"}");
	snprintf(tmp, sizeof(tmp), "%s.tmp", spath);
	write_file(tmp, "[{\"id\":\"" PODMAN_IMG "\",\"names\":[\"pm-new\"]}]",
	    1, "");
	CHECK(rename(tmp, spath) == 0);
	CHECK(wait_name(n, DOCKER, cgs[0], "new-name"));
	CHECK(wait_name(n, PODMAN_IMG, cgs[1], "pm-new"));
	CHECK(wait_name(n, MOVED, cgs[2], NULL));
	names_free(n);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/*
 * A tenant names its cgroups after a real container (issue 50: its id is
 * in /proc/<pid>/cgroup) and makes them again and again: each is said,
 * but at warn only the first 3 a minute, the rest at debug, so the log
 * does not grow by a line at each (350 a minute, seen).
 */
static unsigned misplaced_said[8];

static void
count_misplaced(int prio, const char *fmt, ...)
{
	if (strstr(fmt, "carries the id of") && prio >= 0 && prio < 8)
		__atomic_add_fetch(&misplaced_said[prio], 1, __ATOMIC_SEQ_CST);
}

static unsigned
said_at(int prio)
{
	return __atomic_load_n(&misplaced_said[prio], __ATOMIC_SEQ_CST);
}

static void
test_misplaced_flood(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", croot[64], path[4200];
	struct names_opts no = { croot, count_misplaced };
	const char *ids[20];
	char cgbuf[20][128];
	const char *cgs[20];
	struct names *n;
	int i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(croot, sizeof(croot), "%s/root", dir);
	docker_put(croot, DOCKER, "config.v2.json", "{\"ID\":\"" DOCKER
	    "\",\"Name\":\"/web\"}");
	for (i = 0; i < 20; i++) {
		snprintf(cgbuf[i], sizeof(cgbuf[i]), "/user.slice/t%d/docker-"
		    DOCKER ".scope", i);
		ids[i] = DOCKER;
		cgs[i] = cgbuf[i];
	}
	CHECK(names_new(&no, &n) == 0);
	CHECK(names_start(n) == 0);
	CHECK(names_want(n, NULL, ids, cgs, 20) == 0);
	for (i = 0; i < 3000 && said_at(4) + said_at(7) < 20; i++)
		usleep(10000);
	CHECK(said_at(4) == 3 && said_at(7) == 17);
	for (i = 0; i < 20; i++)
		CHECK(wait_name(n, DOCKER, cgs[i], NULL));
	names_free(n);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/*
 * A cgroup that appears before its runtime's record, the common race at
 * a container's start: its id, looked up in vain at first, is looked up
 * again (after 2 s, then less often) and named once the record is
 * there.  Never looked up again, the container kept only its id.  And a
 * runtime that starts after the daemon (at boot, after a restart):
 * runtimes are probed again every 10 s, so its containers are named;
 * probed once, none of them ever was.  Waited for by wait_name (30 s),
 * the names come within about 14 s (the retries at 2, 6 and 14 s).
 */
static void
test_late_record(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", croot[64], path[4200];
	struct names_opts no = { croot, NULL };
	const char *ids[] = { MOVED };
	const char *cgs[] = { "/docker/" MOVED };
	struct names *n;
	int late_runtime;

	for (late_runtime = 0; late_runtime < 2; late_runtime++) {
		CHECK(mkdtemp(strcpy(dir, "/tmp/names_test.XXXXXX")) != NULL);
		snprintf(croot, sizeof(croot), "%s/root", dir);
		snprintf(path, sizeof(path), "%s/var/lib", croot);
		mkdirs(path);
		/* Docker running already, with a container of its own. */
		if (!late_runtime)
			docker_put(croot, DOCKER, "config.v2.json",
			    "{\"ID\":\"" DOCKER "\",\"Name\":\"/old\"}");
		CHECK(names_new(&no, &n) == 0);
		CHECK(names_start(n) == 0);
		CHECK(names_want(n, NULL, ids, cgs, 1) == 0);
		CHECK(wait_name(n, MOVED, cgs[0], NULL));
		docker_put(croot, MOVED, "config.v2.json", "{\"ID\":\"" MOVED
		    "\",\"Name\":\"/late\"}");
		CHECK(wait_name(n, MOVED, cgs[0], "late"));
		names_free(n);
		snprintf(path, sizeof(path), "rm -rf %s", dir);
		CHECK(system(path) == 0);
	}
}

/*
 * Hostile state: a FIFO as a config file (refused, never opened: the
 * lookup does not block), a device (refused, not opened), a container
 * directory linked out of the root (not read), and the absolute link a
 * host may have (/var/lib/docker -> /data/docker), which resolves in
 * the root.
 */
static void
test_hostile(void)
{
	char dir[] = "/tmp/names_test.XXXXXX", croot[64], path[4200];
	struct names_opts no = { croot, NULL };
	struct names_found f;
	struct names *n;
	void *d;

#define ID(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
	c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
	CHECK(mkdtemp(dir) != NULL);
	snprintf(croot, sizeof(croot), "%s/root", dir);
	snprintf(path, sizeof(path), "cd %s && mkdir -p outside/" ID("a")
	    " root/data/docker/containers/" ID("b")
	    " root/data/docker/containers/" ID("c")
	    " root/data/docker/containers/" ID("d")
	    " root/var/lib && ln -s /data/docker root/var/lib/docker &&"
	    " ln -s %s/outside/" ID("a") " root/data/docker/containers/"
	    ID("a") " && mkfifo root/data/docker/containers/" ID("b")
	    "/config.v2.json && mknod root/data/docker/containers/" ID("d")
	    "/config.v2.json c 240 99", dir, dir);
	CHECK(system(path) == 0);
	snprintf(path, sizeof(path), "%s/outside/" ID("a") "/config.v2.json",
	    dir);
	write_file(path, "{\"Name\":\"/read-from-outside-rootfs\"}", 1, "");
	snprintf(path, sizeof(path), "%s/data/docker/containers/" ID("c")
	    "/config.v2.json", croot);
	write_file(path, "{\"ID\":\"" ID("c") "\",\"Name\":\"/web\","
	    "\"Config\":{\"Image\":\"i:1\"}}", 1, "");

	CHECK(rt_docker_ops.open(croot, &d) == 0);
	memset(&f, 0, sizeof(f));
	CHECK(rt_docker_ops.find(d, ID("a"), &f) == -ENOENT);
	memset(&f, 0, sizeof(f));
	CHECK(rt_docker_ops.find(d, ID("b"), &f) == -EINVAL);
	CHECK_CONTAINS(f.err, ID("b") "/config.v2.json: not a regular file");
	memset(&f, 0, sizeof(f));
	CHECK(rt_docker_ops.find(d, ID("d"), &f) == -EINVAL);
	CHECK_CONTAINS(f.err, ID("d") "/config.v2.json: not a regular file");
	memset(&f, 0, sizeof(f));
	CHECK(rt_docker_ops.find(d, ID("c"), &f) == 0);
	CHECK_STR(f.v[NAMES_CONTAINER], "web");
	rt_docker_ops.close(d);

	CHECK(names_new(&no, &n) == 0);
	CHECK(names_lookup(n, ID("a"), "/docker/" ID("a"), &f) == 0);
	CHECK(names_lookup(n, ID("b"), "/docker/" ID("b"), &f) == 0);
	CHECK(names_lookup(n, ID("c"), "/docker/" ID("c"), &f) == 1);
	CHECK_STR(f.v[NAMES_IMAGE], "i:1");
	names_free(n);
#undef ID
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

static struct namemap *
wait_map(struct names *n, size_t nr)
{
	struct namemap *m;
	int i;

	for (i = 0; i < 500; i++) {
		m = names_map(n);
		if (m->nr == nr)
			return m;
		namemap_unref(m);
		usleep(10000);
	}
	return NULL;
}

/* The map n publishes once it holds (id, cgroup), within 5 s; NULL if
 * it never does. */
static struct namemap *
wait_entry(struct names *n, const char *id, const char *cgroup)
{
	struct namemap *m;
	int i;

	for (i = 0; i < 500; i++) {
		m = names_map(n);
		if (namemap_find(m, id, cgroup) != NULL)
			return m;
		namemap_unref(m);
		usleep(10000);
	}
	return NULL;
}

/*
 * test_thread's first map, of six of the seven pairs it told: the CRI
 * container named, its pod's sandbox known as one (so that the
 * collector shows its series apart), podman's container named, an id no
 * runtime knows in the map but not found, "not-an-id" left out, and the
 * user's cgroups named after the pod's neither named nor hidden.
 */
static void
check_six_names(const struct namemap *m)
{
	const struct namemap_entry *e;

	CHECK((e = namemap_find(m, CRI_CTR, CG_CRI_CTR)) != NULL && e->found);
	CHECK_STR(e ? e->v[NAMES_POD] : NULL, "web-7d4b9");
	CHECK(e && !e->sandbox);
	CHECK((e = namemap_find(m, CRI_POD, CG_CRI_POD)) != NULL &&
	    e->found && e->sandbox);
	CHECK((e = namemap_find(m, PODMAN_IMG, CG_PODMAN_IMG)) != NULL &&
	    e->found);
	CHECK(e && !e->sandbox);
	CHECK_STR(e ? e->v[NAMES_CONTAINER] : NULL, "nm-img");
	CHECK(e && e->v[NAMES_NAMESPACE] == NULL);
	CHECK((e = namemap_find(m, NOBODY, "/n/" NOBODY)) != NULL &&
	    !e->found);
	CHECK(namemap_find(m, "not-an-id", "/x") == NULL);
	CHECK((e = namemap_find(m, CRI_POD, USERCG "libpod-" CRI_POD
	    ".scope")) != NULL && !e->found && !e->sandbox);
	CHECK(e && e->v[NAMES_POD] == NULL);
	CHECK((e = namemap_find(m, CRI_CTR, USERCG "libpod-" CRI_CTR
	    ".scope")) != NULL && !e->found);
	CHECK(e && e->v[NAMES_NAMESPACE] == NULL);
	CHECK(namemap_find(m, CRI_CTR, "/elsewhere") == NULL);
}

/*
 * The thread: told (id, cgroup) pairs, it publishes their names; told
 * fewer, it forgets.  A sandbox is one only in a cgroup no user was
 * delegated; a user's cgroup named after a container is not it.
 */
static void
test_thread(void)
{
	struct names_opts o = { root, NULL };
	const char *ids[] = { CRI_CTR, PODMAN_IMG, NOBODY, CRI_POD,
	    "not-an-id", CRI_POD, CRI_CTR };
	const char *cgs[] = { CG_CRI_CTR, CG_PODMAN_IMG, "/n/" NOBODY,
	    CG_CRI_POD, "/x", USERCG "libpod-" CRI_POD ".scope",
	    USERCG "libpod-" CRI_CTR ".scope" };
	char dir[] = "/tmp/names_test.XXXXXX", path[4200];
	const struct namemap_entry *e;
	struct namemap *m;
	struct names *n;

	/* A cgroup tree: the user's part chowned to it, as systemd's. */
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "cd %s && mkdir -p .%s .%s .%s "
	    ".%slibpod-%s.scope .%slibpod-%s.scope && chown -R 65534 "
	    "user.slice/user-1000.slice", dir, CG_CRI_CTR, CG_CRI_POD,
	    CG_PODMAN_IMG, USERCG, CRI_POD, USERCG, CRI_CTR);
	CHECK(system(path) == 0);

	CHECK(names_new(&o, &n) == 0);
	m = names_map(n);
	CHECK(m != NULL && m->nr == 0);
	namemap_unref(m);
	CHECK(names_start(n) == 0);
	CHECK(names_want(n, dir, ids, cgs, 7) == 0);
	CHECK((m = wait_map(n, 6)) != NULL);
	if (m) {
		check_six_names(m);
		namemap_unref(m);
	}
	CHECK(names_want(n, dir, ids + 1, cgs + 1, 1) == 0);
	m = wait_map(n, 1);
	CHECK(m != NULL && namemap_find(m, PODMAN_IMG, CG_PODMAN_IMG) !=
	    NULL && namemap_find(m, CRI_CTR, CG_CRI_CTR) == NULL);
	/* Its names came from the cache, which holds them in the map
	 * before, freed since: copied, not lost. */
	e = m ? namemap_find(m, PODMAN_IMG, CG_PODMAN_IMG) : NULL;
	CHECK_STR(e ? e->v[NAMES_CONTAINER] : NULL, "nm-img");
	namemap_unref(m);

	/* The sandbox's own cgroup chowned to a user (delegated, as runc
	 * does for a user-namespaced pod): never hidden. */
	snprintf(path, sizeof(path), "chown 65534 %s%s", dir, CG_CRI_POD);
	CHECK(system(path) == 0);
	CHECK(names_want(n, dir, ids + 3, cgs + 3, 1) == 0);
	m = wait_entry(n, CRI_POD, CG_CRI_POD);
	e = m ? namemap_find(m, CRI_POD, CG_CRI_POD) : NULL;
	CHECK(e && e->found && !e->sandbox);
	namemap_unref(m);
	names_free(n);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

/*
 * Finding 6: a set the resolver runs out of memory merging is not lost
 * (the collector tells a set once): it is merged when memory is back.
 */
static void
test_merge_oom(void)
{
	struct names_opts o = { root, NULL };
	const char *ids[] = { CRI_CTR };
	const char *cgs[] = { CG_CRI_CTR };
	const struct namemap_entry *e;
	struct namemap *m;
	struct names *n;
	int i;

	CHECK(names_new(&o, &n) == 0);
	CHECK(names_start(n) == 0);
	atomic_store(&calloc_failed, 0);
	atomic_store(&calloc_fail_armed, 1);
	CHECK(names_want(n, NULL, ids, cgs, 1) == 0);
	for (i = 0; i < 500 && atomic_load(&calloc_failed) == 0; i++)
		usleep(10000);
	CHECK(atomic_load(&calloc_failed) == 1);
	m = wait_map(n, 1);
	e = m ? namemap_find(m, CRI_CTR, CG_CRI_CTR) : NULL;
	CHECK(e && e->found);
	CHECK_STR(e ? e->v[NAMES_CONTAINER] : NULL, "nginx");
	namemap_unref(m);
	names_free(n);
}

/*
 * A record one runtime cannot read, of a container the runtimes after it
 * do not know: the line says the first one's words (before: each reader
 * after it started from a clean record, and the line said "container
 * names: ; container <id> keeps only its id").
 */
static char kept_line[1024];
static atomic_int kept_said;

static void
catch_kept(int prio, const char *fmt, ...)
{
	va_list ap;

	(void)prio;
	if (strstr(fmt, "keeps only its id") == NULL ||
	    atomic_load(&kept_said))
		return;
	va_start(ap, fmt);
	vsnprintf(kept_line, sizeof(kept_line), fmt, ap);
	va_end(ap);
	atomic_store(&kept_said, 1);
}

static void
test_error_said(void)
{
	struct names_opts no = { root, catch_kept };
	const char *ids[] = { CTD_BAD };
	const char *cgs[] = { CRI_PODCG "/" CTD_BAD };
	struct names *n;
	int i;

	CHECK(names_new(&no, &n) == 0);
	CHECK(names_start(n) == 0);
	CHECK(names_want(n, NULL, ids, cgs, 1) == 0);
	for (i = 0; i < 3000 && !atomic_load(&kept_said); i++)
		usleep(10000);
	CHECK(atomic_load(&kept_said));
	CHECK_CONTAINS(kept_line, CTD_BAD "/config.json: not valid JSON");
	CHECK(strstr(kept_line, "names: ;") == NULL);
	names_free(n);

	/* One runtime's record unreadable, another's names it: named, and
	 * nothing said (before: "container names: ; container <id> keeps
	 * only its id", neither true). */
	{
		char dir[] = "/tmp/names_test.XXXXXX", croot[64],
		    path[4200];
		struct names_opts o2 = { croot, catch_kept };
		const char *cg2[] = { CG_DOCKER };
		const char *id2[] = { DOCKER };

		CHECK(mkdtemp(dir) != NULL);
		snprintf(croot, sizeof(croot), "%s/root", dir);
		snprintf(path, sizeof(path), "%s/run/containerd/"
		    "io.containerd.runtime.v2.task/k8s.io/" DOCKER
		    "/config.json", croot);
		mkdirs(path);
		write_file(path, "[[[", 1, "");
		docker_put(croot, DOCKER, "config.v2.json", "{\"ID\":\""
		    DOCKER "\",\"Name\":\"/web\"}");
		atomic_store(&kept_said, 0);
		CHECK(names_new(&o2, &n) == 0);
		CHECK(names_start(n) == 0);
		CHECK(names_want(n, NULL, id2, cg2, 1) == 0);
		CHECK(wait_name(n, DOCKER, cg2[0], "web"));
		CHECK(!atomic_load(&kept_said));
		names_free(n);
		snprintf(path, sizeof(path), "rm -rf %s", dir);
		CHECK(system(path) == 0);
	}
}

int
main(void)
{
	const char *srcdir = getenv("srcdir");

	snprintf(root, sizeof(root), "%s/tests/fixtures/names/root",
	    srcdir ? srcdir : ".");
	slash = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(slash >= 0);
	main_thread = pthread_self();
	test_runtimes();
	test_placed();
	test_cgpath();
	test_sandbox_trust();
	test_delegated();
	test_index_broken();
	test_merge_oom();
	test_errors();
	test_found_set();
	test_jsonfile();
	test_array();
	test_failure_cache();
	test_hostile();
	test_thread();
	test_refresh();
	test_misplaced_flood();
	test_late_record();
	test_error_said();
	return CHECK_DONE();
}
