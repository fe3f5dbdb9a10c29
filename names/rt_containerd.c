/*
 * rt_containerd.c - containerd's CRI containers (namespace k8s.io only), named
 * from the OCI bundle containerd writes for every task.
 * Design: docs/containers.md, "Where they are read", "Whose names".
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names/jsonfile.h"
#include "names/runtime.h"

#define TASKS "io.containerd.runtime.v2.task"

static const char *const states[] = { "/run/containerd", "/run/k3s/containerd" };
#define NSTATES (sizeof(states) / sizeof(states[0]))

static int
ctd_probe(void *data, char *where, size_t len)
{
	struct rt_root *d = data;
	char path[256];
	size_t i;
	int r = -ENOENT;
	DIR *dir;

	for (i = 0; i < NSTATES; i++) {
		snprintf(path, sizeof(path), "%s/" TASKS, states[i]);
		if ((dir = rt_opendir(d, path)) != NULL) {
			closedir(dir);
			rt_path(where, len, d->root, "%s", path);
			return 0;
		}
		if (errno != ENOENT && r == -ENOENT) {
			r = -errno;
			rt_path(where, len, d->root, "%s", path);
		}
	}
	if (r == -ENOENT)
		rt_path(where, len, d->root, "%s/" TASKS, states[0]);
	return r;
}

/* Name f from one bundle's config.json; -ENOENT: not a CRI container. */
static int
ctd_bundle(struct rt_root *d, const char *path, struct names_found *f)
{
	struct json_object *o, *an;
	const char *type;
	struct stat st;
	int r;

	if ((r = rt_json(d, path, JSONFILE_SMALL, &o, &st)) < 0) {
		if (r != -ENOENT)
			rt_fail(f, d, path, r);
		return r;
	}
	an = jsonfile_obj(o, "annotations");
	type = jsonfile_str(an, "io.kubernetes.cri.container-type");
	if (type == NULL) {
		json_object_put(o);
		return -ENOENT;
	}
	names_found_cgpath(f, jsonfile_str(jsonfile_obj(o, "linux"),
	    "cgroupsPath"));
	f->sandbox = strcmp(type, "sandbox") == 0;
	names_found_set(f, NAMES_NAMESPACE,
	    jsonfile_str(an, "io.kubernetes.cri.sandbox-namespace"));
	names_found_set(f, NAMES_POD,
	    jsonfile_str(an, "io.kubernetes.cri.sandbox-name"));
	names_found_set(f, NAMES_POD_UID,
	    jsonfile_str(an, "io.kubernetes.cri.sandbox-uid"));
	names_found_set(f, NAMES_CONTAINER, f->sandbox ? "POD" :
	    jsonfile_str(an, "io.kubernetes.cri.container-name"));
	names_found_set(f, NAMES_IMAGE,
	    jsonfile_str(an, "io.kubernetes.cri.image-name"));
	rt_record(f, path, &st);
	json_object_put(o);
	return 0;
}

static int
ctd_lookup(void *data, const char *id, struct names_found *f)
{
	struct rt_root *d = data;
	char path[256];
	size_t i;
	int r, err = -ENOENT;

	for (i = 0; i < NSTATES; i++) {
		/* The CRI plugin's namespace, and no other. */
		snprintf(path, sizeof(path), "%s/" TASKS "/k8s.io/%s/config.json",
		    states[i], id);
		if ((r = ctd_bundle(d, path, f)) == 0)
			return 0;
		if (r != -ENOENT)
			err = r;
	}
	return err;
}

const struct rt_ops rt_containerd_ops = {
	.name = "containerd (CRI)",
	.open = rt_root_open,
	.close = rt_root_close,
	.probe = ctd_probe,
	.find = ctd_lookup,
};
