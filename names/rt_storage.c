/*
 * rt_storage.c - containers kept by containers/storage: CRI-O's and
 * Podman's.  Both keep a container's OCI config.json in
 * <graphroot>/<driver>-containers/<id>/userdata/ (CRI-O also under its
 * runroot, /run/containers/storage), and storage's own index of
 * containers, <driver>-containers/containers.json, with each one's names
 * and a metadata string (JSON again) that Podman fills with the image
 * name it was run from.
 *
 * CRI-O copies the kubelet's labels into the annotations
 * (io.kubernetes.pod.name, .namespace, .uid, io.kubernetes.container.name)
 * beside its own (io.kubernetes.cri-o.ContainerType, .ImageName; the
 * labels again as one JSON string in io.kubernetes.cri-o.Labels); a
 * config.json with a pod name is CRI-O's.  Anything else in the index is
 * Podman's (or Buildah's): its first name is the container's name.
 *
 * containers.json lists every container, so it is parsed once and kept
 * until its mtime, size or inode changes: a round of lookups costs one
 * stat() of it.
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
	return 0;
}

static int
st_probe(void *data, char *where, size_t len)
{
	struct storage *d = data;

	rt_path(where, len, d->root.root, GRAPHROOT);
	return st_drivers(d);
}

/* CRI-O's names from a config.json's annotations; -ENOENT: not CRI-O. */
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
	s = jsonfile_str(an, "io.kubernetes.cri-o.ContainerType");
	f->sandbox = s && strcmp(s, "sandbox") == 0;
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

/* Podman's names for id from the index: -ENOENT when it is not there. */
static int
st_podman(struct storage *d, struct index *x, const char *id,
    struct names_found *f)
{
	struct json_object *c, *names, *meta = NULL;
	const char *s;
	size_t i, n;
	int r;

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
	int r, err = -ENOENT;

	if ((r = st_drivers(d)) < 0)
		return r;
	for (i = 0; i < d->nr_idx; i++) {
		for (j = 0; j < 2; j++) {
			snprintf(path, sizeof(path),
			    "%s/%s/%s/userdata/config.json", roots[j],
			    d->idx[i].dir, id);
			r = rt_json(&d->root, path, JSONFILE_SMALL, &o, NULL);
			if (r == -ENOENT)
				continue;
			if (r < 0) {
				rt_fail(f, &d->root, path, r);
				err = r;
				continue;
			}
			r = st_crio(jsonfile_obj(o, "annotations"), f);
			json_object_put(o);
			if (r == 0)
				return 0;
			break;
		}
		if ((r = st_podman(d, &d->idx[i], id, f)) != -ENOENT)
			return r;
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
