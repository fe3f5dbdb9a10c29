/*
 * rt_storage.c - containers kept by containers/storage: CRI-O's and
 * Podman's.  Both keep a container's OCI config.json in
 * <graphroot>/<driver>-containers/<id>/userdata/ (CRI-O also under its
 * runroot, /run/containers/storage), and storage's own index of
 * containers, <driver>-containers/containers.json, with each one's names
 * and a metadata string (JSON again) that the tool that made it fills.
 *
 * What is trusted.  The index decides whose a container is, because
 * only the tool writes the metadata: CRI-O's (cri-o's storage.
 * RuntimeContainerMetadata) carries "pod-name" and "pod-id", and "pod":
 * true (or a pod-id that is the container's own id) for a pod's
 * infrastructure (sandbox) container; Podman's never has them.  A
 * config.json's annotations are not enough: `podman run --annotation
 * io.kubernetes.cri-o.ContainerType=sandbox --annotation
 * io.kubernetes.pod.namespace=kube-system` writes them too.  So:
 *   - CRI-O's: the Kubernetes names from its config.json annotations
 *     (io.kubernetes.pod.name, .namespace, .uid, io.kubernetes.container.
 *     name, else the io.kubernetes.cri-o.Labels string; .ImageName),
 *     which CRI-O writes after a pod's own; the sandbox flag from the
 *     metadata;
 *   - anything else (Podman's, Buildah's): its first name, the image-name
 *     in its metadata; never Kubernetes names, never a sandbox;
 *   - either: where its cgroup is, from config.json's linux.cgroupsPath.
 *
 * containers.json lists every container, so it is parsed once and kept
 * until its mtime, size or inode changes: a round of lookups costs one
 * stat() of it.  A broken index in one <driver>-containers directory
 * does not hide the others'.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "names/jsonfile.h"
#include "names/runtime.h"

#define GRAPHROOT "/var/lib/containers/storage"
#define RUNROOT "/run/containers/storage"
#define MAX_DRIVERS 4

/* One driver's containers.json, as last parsed. */
struct index {
	char dir[64];			/* "overlay-containers" */
	struct json_object *list;	/* NULL: not read (yet) */
	struct timespec mtime;
	off_t size;
	ino_t ino;
};

struct storage {
	struct rt_root root;
	struct index idx[MAX_DRIVERS];
	size_t nr_idx;
};

static int
st_open(const char *rootfs, void **data)
{
	struct storage *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -ENOMEM;
	rt_root_init(&d->root, rootfs);
	*data = d;
	return 0;
}

static void
st_close(void *data)
{
	struct storage *d = data;
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nr_idx; i++)
		json_object_put(d->idx[i].list);
	rt_root_fini(&d->root);
	free(d);
}

static int
index_cmp(const void *a, const void *b)
{
	return strcmp(((const struct index *)a)->dir,
	    ((const struct index *)b)->dir);
}

/* The <driver>-containers directories under the graph root, kept. */
static int
st_drivers(struct storage *d)
{
	struct dirent *de;
	size_t i, n;
	DIR *ds;

	if ((ds = rt_opendir(&d->root, GRAPHROOT)) == NULL)
		return -errno;
	while ((de = readdir(ds)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 11 || n >= sizeof(d->idx[0].dir) ||
		    strcmp(de->d_name + n - 11, "-containers") != 0)
			continue;
		for (i = 0; i < d->nr_idx; i++)
			if (strcmp(d->idx[i].dir, de->d_name) == 0)
				break;
		if (i == d->nr_idx && d->nr_idx < MAX_DRIVERS)
			memcpy(d->idx[d->nr_idx++].dir, de->d_name, n + 1);
	}
	closedir(ds);
	/* By name, whatever order the directory lists them in. */
	qsort(d->idx, d->nr_idx, sizeof(d->idx[0]), index_cmp);
	return 0;
}

static int
st_probe(void *data, char *where, size_t len)
{
	struct storage *d = data;

	rt_path(where, len, d->root.root, GRAPHROOT);
	return st_drivers(d);
}

/* CRI-O's names from its config.json's annotations (f->sandbox set
 * from the index already); -ENOENT: no pod name there. */
static int
st_crio(struct json_object *an, struct names_found *f)
{
	struct json_object *labels = NULL;
	const char *s, *pod, *ns, *uid, *ctr;

	pod = jsonfile_str(an, "io.kubernetes.pod.name");
	ns = jsonfile_str(an, "io.kubernetes.pod.namespace");
	uid = jsonfile_str(an, "io.kubernetes.pod.uid");
	ctr = jsonfile_str(an, "io.kubernetes.container.name");
	/* The same labels, as one JSON string: where only that is set. */
	if ((pod == NULL || ns == NULL) &&
	    (s = jsonfile_str(an, "io.kubernetes.cri-o.Labels")) != NULL &&
	    strlen(s) < JSONFILE_SMALL &&
	    (labels = json_tokener_parse(s)) != NULL) {
		pod = pod ? pod : jsonfile_str(labels, "io.kubernetes.pod.name");
		ns = ns ? ns : jsonfile_str(labels,
		    "io.kubernetes.pod.namespace");
		uid = uid ? uid : jsonfile_str(labels, "io.kubernetes.pod.uid");
		ctr = ctr ? ctr : jsonfile_str(labels,
		    "io.kubernetes.container.name");
	}
	if (pod == NULL) {
		json_object_put(labels);
		return -ENOENT;
	}
	names_found_set(f, NAMES_NAMESPACE, ns);
	names_found_set(f, NAMES_POD, pod);
	names_found_set(f, NAMES_POD_UID, uid);
	names_found_set(f, NAMES_CONTAINER, f->sandbox ? "POD" : ctr);
	names_found_set(f, NAMES_IMAGE,
	    jsonfile_str(an, "io.kubernetes.cri-o.ImageName"));
	json_object_put(labels);
	return 0;
}

/* The index of idx, parsed again only when the file changed. */
static int
st_index(struct storage *d, struct index *x, struct names_found *f)
{
	char path[256];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), GRAPHROOT "/%s/containers.json", x->dir);
	if ((r = rt_stat(&d->root, path, &st)) < 0)
		return r;
	if (x->list && st.st_mtim.tv_sec == x->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == x->mtime.tv_nsec &&
	    st.st_size == x->size && st.st_ino == x->ino)
		return 0;
	json_object_put(x->list);
	x->list = NULL;
	if ((r = rt_json(&d->root, path, JSONFILE_LARGE, &x->list, &st)) < 0)
		return rt_fail(f, &d->root, path, r);
	if (!json_object_is_type(x->list, json_type_array)) {
		json_object_put(x->list);
		x->list = NULL;
		return rt_fail(f, &d->root, path, -EPROTO);
	}
	x->mtime = st.st_mtim;
	x->size = st.st_size;
	x->ino = st.st_ino;
	return 0;
}

/*
 * id's entry in the index of x: its names and whose it is (*crio; CRI-O
 * knows the sandbox, f->sandbox).  -ENOENT when it is not there.
 */
static int
st_entry(struct storage *d, struct index *x, const char *id,
    struct names_found *f, int *crio)
{
	struct json_object *c, *names, *meta = NULL, *pod;
	const char *s, *podid;
	size_t i, n;
	int r;

	*crio = 0;
	if ((r = st_index(d, x, f)) < 0)
		return r;
	n = json_object_array_length(x->list);
	for (i = 0; i < n; i++) {
		c = json_object_array_get_idx(x->list, i);
		if ((s = jsonfile_str(c, "id")) && strcmp(s, id) == 0)
			break;
	}
	if (i == n)
		return -ENOENT;
	if (json_object_object_get_ex(c, "names", &names) &&
	    json_object_is_type(names, json_type_array) &&
	    json_object_array_length(names) > 0 &&
	    json_object_is_type(json_object_array_get_idx(names, 0),
	    json_type_string))
		names_found_set(f, NAMES_CONTAINER, json_object_get_string(
		    json_object_array_get_idx(names, 0)));
	if ((s = jsonfile_str(c, "metadata")) != NULL &&
	    strlen(s) < JSONFILE_SMALL && (meta = json_tokener_parse(s)))
		names_found_set(f, NAMES_IMAGE, jsonfile_str(meta,
		    "image-name"));
	podid = jsonfile_str(meta, "pod-id");
	*crio = jsonfile_str(meta, "pod-name") != NULL && podid != NULL;
	f->sandbox = *crio && (strcmp(podid, id) == 0 ||
	    (json_object_object_get_ex(meta, "pod", &pod) &&
	    json_object_is_type(pod, json_type_boolean) &&
	    json_object_get_boolean(pod)));
	json_object_put(meta);
	return 0;
}

static int
st_lookup(void *data, const char *id, struct names_found *f)
{
	static const char *const roots[] = { GRAPHROOT, RUNROOT };
	struct storage *d = data;
	struct json_object *o;
	char path[256];
	size_t i, j;
	int r, crio, err = -ENOENT;

	if ((r = st_drivers(d)) < 0)
		return r;
	for (i = 0; i < d->nr_idx; i++) {
		/* A broken index here does not hide the next driver's. */
		if ((r = st_entry(d, &d->idx[i], id, f, &crio)) < 0) {
			if (r != -ENOENT)
				err = r;
			continue;
		}
		for (j = 0; j < 2; j++) {
			snprintf(path, sizeof(path),
			    "%s/%s/%s/userdata/config.json", roots[j],
			    d->idx[i].dir, id);
			r = rt_json(&d->root, path, JSONFILE_SMALL, &o, NULL);
			if (r == -ENOENT)
				continue;
			if (r < 0)
				return rt_fail(f, &d->root, path, r);
			names_found_cgpath(f, jsonfile_str(jsonfile_obj(o,
			    "linux"), "cgroupsPath"));
			if (crio)
				st_crio(jsonfile_obj(o, "annotations"), f);
			json_object_put(o);
			break;
		}
		return 0;
	}
	return err;
}

const struct rt_ops rt_storage_ops = {
	.name = "containers/storage (CRI-O, Podman)",
	.open = st_open,
	.close = st_close,
	.probe = st_probe,
	.lookup = st_lookup,
};
