/*
 * rt_storage.c - containers kept by containers/storage (CRI-O's and Podman's):
 * the index containers.json decides whose a container is, config.json says the
 * rest.
 * Design: docs/containers.md, "Whose names"; docs/architecture.md, "names/".
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "names/jsonfile.h"
#include "names/runtime.h"
#include "util/utf8.h"

#define GRAPHROOT "/var/lib/containers/storage"
#define RUNROOT "/run/containers/storage"
#define MAX_DRIVERS 4

/* One container in an index: offsets in its pool, 0 for "". */
struct entry {
	unsigned char id[32];
	uint32_t name, image;
	unsigned char crio;		/* CRI-O's (its metadata says a pod) */
	unsigned char sandbox;		/* and its pod's sandbox */
};

/* One driver's containers.json, as last read. */
struct index {
	char dir[64];			/* "overlay-containers" */
	int read;			/* read once: stamp and err hold */
	int err;			/* 0, or why it could not be read */
	struct rt_stamp stamp;
	struct entry *e;		/* sorted by id */
	size_t nr, cap;
	char *pool;			/* the names, NUL-terminated */
	size_t used, size;
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
	for (i = 0; i < d->nr_idx; i++) {
		free(d->idx[i].e);
		free(d->idx[i].pool);
	}
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
	    jsonfile_values(s, strlen(s)) <= JSONFILE_VALUES &&
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

/* id (64 hex digits) as 32 bytes; -ENOENT when it is no id. */
static int
id_bytes(const char *id, unsigned char *out)
{
	size_t i;
	int hi, lo;

	if (!names_id_valid(id))
		return -ENOENT;
	for (i = 0; i < 32; i++) {
		hi = id[2 * i] <= '9' ? id[2 * i] - '0' : id[2 * i] - 'a' + 10;
		lo = id[2 * i + 1] <= '9' ? id[2 * i + 1] - '0' :
		    id[2 * i + 1] - 'a' + 10;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* s (may be NULL) cut as a label is (between characters, its bytes
 * kept: the exposition repairs them one-to-one), into x's pool: its
 * offset, 0 for "" (the pool's first byte), or -ENOMEM. */
static int64_t
pool_add(struct index *x, const char *s)
{
	char v[256];
	size_t n = utf8_prefix(s ? s : "", sizeof(v) - 1);
	char *p;

	if (n == 0)
		return 0;
	if (x->used + n + 1 > x->size) {
		size_t size = x->size ? x->size * 2 : 4096;

		while (size < x->used + n + 1)
			size *= 2;
		if ((p = realloc(x->pool, size)) == NULL)
			return -ENOMEM;
		if (x->size == 0)
			p[x->used++] = '\0';
		x->pool = p;
		x->size = size;
	}
	memcpy(v, s, n);
	v[n] = '\0';
	memcpy(x->pool + x->used, v, n + 1);
	x->used += n + 1;
	return (int64_t)(x->used - n - 1);
}

/* One entry of containers.json into the index being built (arg). */
static int
index_add(struct json_object *c, void *arg)
{
	struct index *x = arg;
	struct json_object *names, *meta = NULL, *pod;
	const char *s, *id, *podid, *name = NULL;
	struct entry *e;
	int64_t a, b;

	if ((id = jsonfile_str(c, "id")) == NULL || !names_id_valid(id))
		return 0;		/* not a container we can name */
	if (x->nr == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 64;

		if ((e = realloc(x->e, cap * sizeof(*e))) == NULL)
			return -ENOMEM;
		x->e = e;
		x->cap = cap;
	}
	e = &x->e[x->nr];
	id_bytes(id, e->id);
	if (json_object_object_get_ex(c, "names", &names) &&
	    json_object_is_type(names, json_type_array) &&
	    json_object_array_length(names) > 0 &&
	    json_object_is_type(json_object_array_get_idx(names, 0),
	    json_type_string))
		name = json_object_get_string(json_object_array_get_idx(names,
		    0));
	/* Podman's metadata, a JSON string in the entry: bounded by it. */
	if ((s = jsonfile_str(c, "metadata")) != NULL &&
	    jsonfile_values(s, strlen(s)) <= JSONFILE_VALUES)
		meta = json_tokener_parse(s);
	a = pool_add(x, name);
	b = a < 0 ? a : pool_add(x, jsonfile_str(meta, "image-name"));
	/* CRI-O's metadata names the pod; a sandbox is its own pod. */
	podid = jsonfile_str(meta, "pod-id");
	e->crio = jsonfile_str(meta, "pod-name") != NULL && podid != NULL;
	e->sandbox = e->crio && (strcmp(podid, id) == 0 ||
	    (json_object_object_get_ex(meta, "pod", &pod) &&
	    json_object_is_type(pod, json_type_boolean) &&
	    json_object_get_boolean(pod)));
	json_object_put(meta);
	if (a < 0 || b < 0)
		return -ENOMEM;
	e->name = (uint32_t)a;
	e->image = (uint32_t)b;
	x->nr++;
	return 0;
}

static int
entry_cmp(const void *a, const void *b)
{
	return memcmp(((const struct entry *)a)->id,
	    ((const struct entry *)b)->id, 32);
}

/*
 * The index of x, read again only when the file changed; a file that
 * could not be read is not read again either until it changes (its
 * error is returned, with the path, at each lookup).
 */
static int
st_index(struct storage *d, struct index *x, char *path, size_t len,
    struct names_found *f)
{
	struct index next = { .e = NULL };
	struct stat st;
	int r;

	snprintf(path, len, GRAPHROOT "/%s/containers.json", x->dir);
	r = rt_stat(&d->root, path, &st);
	if (r == 0 && x->read && rt_stamp_same(&x->stamp, &st))
		return x->err ? rt_fail(f, &d->root, path, x->err) : 0;
	/* Changed or gone: what was kept goes. */
	free(x->e);
	free(x->pool);
	x->e = NULL;
	x->pool = NULL;
	x->nr = x->cap = x->used = x->size = 0;
	x->read = 0;
	if (r < 0)
		return r;
	x->read = 1;
	rt_stamp_of(&x->stamp, &st);
	if ((r = rt_json_array(&d->root, path, JSONFILE_LARGE, index_add,
	    &next, &st)) < 0) {
		free(next.e);
		free(next.pool);
		x->err = r;
		return rt_fail(f, &d->root, path, r);
	}
	if (next.nr > 1)
		qsort(next.e, next.nr, sizeof(*next.e), entry_cmp);
	x->e = next.e;
	x->nr = next.nr;
	x->cap = next.cap;
	x->pool = next.pool;
	x->used = next.used;
	x->size = next.size;
	x->err = 0;
	rt_stamp_of(&x->stamp, &st);
	return 0;
}

/*
 * id's entry in the index of x: its names and whose it is (*crio; CRI-O
 * knows the sandbox, f->sandbox), and containers.json as its record.
 * -ENOENT when it is not there.
 */
static int
st_entry(struct storage *d, struct index *x, const char *id,
    struct names_found *f, int *crio)
{
	struct entry key, *e;
	char path[256];
	struct stat st;
	int r;

	*crio = 0;
	if ((r = st_index(d, x, path, sizeof(path), f)) < 0)
		return r;
	if (x->nr == 0 || id_bytes(id, key.id) < 0 ||
	    (e = bsearch(&key, x->e, x->nr,
	    sizeof(*x->e), entry_cmp)) == NULL)
		return -ENOENT;
	names_found_set(f, NAMES_CONTAINER, e->name ? x->pool + e->name :
	    NULL);
	names_found_set(f, NAMES_IMAGE, e->image ? x->pool + e->image : NULL);
	*crio = e->crio;
	f->sandbox = e->sandbox;
	st.st_mtim = x->stamp.mtime;
	st.st_size = x->stamp.size;
	st.st_ino = x->stamp.ino;
	rt_record(f, path, &st);
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
	.find = st_lookup,
};
