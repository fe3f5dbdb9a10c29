/*
 * names_fuzz.c - libFuzzer target for the runtime readers' JSON (issue
 * 32): the input's first byte picks which state file of a fake root it
 * becomes, the rest is the file:
 *
 *   0  Docker's config.v2.json                         (rt_docker.c)
 *   1  a containerd bundle's config.json               (rt_containerd.c)
 *   2  a containers/storage userdata/config.json       (rt_storage.c, CRI-O)
 *   3  containers/storage's containers.json            (rt_storage.c, Podman;
 *                                                        jsonfile_read_array)
 *   4  Docker's hostconfig.json                        (rt_docker.c)
 *
 * The other files hold what makes the reader of the chosen one go on
 * to it (a Docker record with its ID, an index entry of CRI-O's), or
 * are absent.
 * Every reader then looks up the container whose files those are, twice
 * (the second from containers.json's cached index, or its cached
 * failure), and the resolver's names_lookup once.  Whatever it reads,
 * a label found must be shorter than its slot and cut between
 * characters (its bytes are kept, invalid ones too: the exposition
 * repairs them one-to-one, daemon/expo/expo_buf.c), and an
 * error must say where: otherwise the target aborts, which the fuzzer
 * reports.  The root is a directory of this process's own, removed at
 * exit.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/names.h"
#include "names/runtime.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The Podman container of tests/fixtures/names, for its seeds. */
#define ID "e792bb9ff139a14576a27d668e6eafdbec83001b4b6a3f160b1337197d1ed308"

static const char *const files[] = {
	"var/lib/docker/containers/" ID "/config.v2.json",
	"run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID "/config.json",
	"var/lib/containers/storage/overlay-containers/" ID "/userdata/config.json",
	"var/lib/containers/storage/overlay-containers/containers.json",
	"var/lib/docker/containers/" ID "/hostconfig.json",
};
/* What each file holds when the input is another's (NULL: absent). */
static const char *const base[] = {
	"{\"ID\":\"" ID "\",\"Name\":\"/k8s_c_p_ns_u_0\",\"Config\":"
	    "{\"Labels\":{\"io.kubernetes.pod.name\":\"p\","
	    "\"io.kubernetes.pod.namespace\":\"ns\","
	    "\"io.kubernetes.pod.uid\":\"u\","
	    "\"io.kubernetes.container.name\":\"c\"}}}",
	NULL,
	NULL,
	"[{\"id\":\"" ID "\",\"names\":[\"n\"],\"metadata\":"
	    "\"{\\\"pod-name\\\":\\\"p\\\",\\\"pod-id\\\":\\\"" ID "\\\"}\"}]",
	NULL,
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static char root[64];
static struct names *res;

static void
unload(void)
{
	char cmd[128];

	names_free(res);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		fprintf(stderr, "names_fuzz: could not remove %s\n", root);
}

static void
setup(void)
{
	struct names_opts o = { root, NULL };
	char cmd[1024];
	size_t i;

	snprintf(root, sizeof(root), "%s/names_fuzz.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (strlen(root) >= sizeof(root) - 1 || mkdtemp(root) == NULL)
		abort();
	for (i = 0; i < NFILES; i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s/%s)\"",
		    root, files[i]);
		if (system(cmd) != 0)
			abort();
	}
	if (names_new(&o, &res) < 0)
		abort();
	atexit(unload);
}

/* What a reader said must be usable as it is. */
static void
check(const struct names_found *f, int r)
{
	size_t k, n;

	if (r < 0 && r != -ENOENT && f->err[0] == '\0')
		abort();		/* an error that says nowhere */
	if (r != 0)
		return;
	for (k = 0; k < NAMES_NR; k++) {
		n = strlen(f->v[k]);
		if (n >= sizeof(f->v[k]))
			abort();
		if (utf8_prefix(f->v[k], n) != n)
			abort();	/* cut inside a character */
	}
}

static void
run(const struct rt_ops *ops)
{
	struct names_found f;
	void *d;
	int i, r;

	if (ops->open(root, &d) < 0)
		abort();
	for (i = 0; i < 2; i++) {
		memset(&f, 0, sizeof(f));
		r = ops->find(d, ID, &f);
		check(&f, r);
	}
	ops->close(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct names_found f;
	char path[256];
	size_t i;
	int fd;

	if (res == NULL)
		setup();
	if (size == 0)
		return 0;
	for (i = 0; i < NFILES; i++) {
		const char *b = i == data[0] % NFILES ? (const char *)data + 1 :
		    base[i];
		size_t n = i == data[0] % NFILES ? size - 1 : b ? strlen(b) : 0;

		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		if (b == NULL) {
			unlink(path);
			continue;
		}
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
		    write(fd, b, n) != (ssize_t)n)
			abort();
		close(fd);
	}
	run(&rt_docker_ops);
	run(&rt_containerd_ops);
	run(&rt_storage_ops);
	memset(&f, 0, sizeof(f));
	check(&f, names_lookup(res, ID, "/docker/" ID, &f) == 1 ? 0 :
	    -ENOENT);
	return 0;
}
