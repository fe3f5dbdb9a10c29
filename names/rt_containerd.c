/*
 * rt_containerd.c - containerd's CRI containers, named from the OCI
 * bundle containerd writes for every task before it starts it:
 * <state>/io.containerd.runtime.v2.task/<namespace>/<id>/config.json.
 * Its annotations are the CRI plugin's (containerd's pkg/cri/annotations):
 * io.kubernetes.cri.container-type (sandbox or container), the pod's
 * sandbox-name, -namespace and -uid, the container-name and image-name.
 * Tasks without them (ctr, Docker's moby namespace) are not ours: Docker
 * names its own in rt_docker.c.
 *
 * The state directory is containerd's default, /run/containerd, or k3s's
 * /run/k3s/containerd; the namespaces under it are listed at each lookup
 * (a handful of entries), k8s.io first.
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
	char dir[256], path[256 + 512];
	struct dirent *de;
	size_t i;
	int r, err = -ENOENT;
	DIR *ds;

	for (i = 0; i < NSTATES; i++) {
		snprintf(dir, sizeof(dir), "%s/" TASKS, states[i]);
		/* The kubelet's namespace first: one open in most cases. */
		snprintf(path, sizeof(path), "%s/k8s.io/%s/config.json", dir,
		    id);
		if ((r = ctd_bundle(d, path, f)) != -ENOENT)
			return r;
		if ((ds = rt_opendir(d, dir)) == NULL)
			continue;
		while ((de = readdir(ds)) != NULL) {
			if (de->d_name[0] == '.' ||
			    strcmp(de->d_name, "k8s.io") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/config.json",
			    dir, de->d_name, id);
			if ((r = ctd_bundle(d, path, f)) == 0) {
				closedir(ds);
				return 0;
			}
			if (r != -ENOENT)
				err = r;
		}
		closedir(ds);
	}
	return err;
}

const struct rt_ops rt_containerd_ops = {
	.name = "containerd (CRI)",
	.open = rt_root_open,
	.close = rt_root_close,
	.probe = ctd_probe,
	.lookup = ctd_lookup,
};
