/*
 * rt_docker.c - Docker Engine containers, named from config.v2.json and
 * hostconfig.json; Kubernetes names only for cri-dockerd's records.
 * Design: docs/containers.md, "Whose names"; docs/architecture.md, "names/".
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names/jsonfile.h"
#include "names/runtime.h"

#define DOCKER "/var/lib/docker/containers"

static int
dk_probe(void *data, char *where, size_t len)
{
	struct rt_root *d = data;
	DIR *ds;

	if (rt_path(where, len, d->root, DOCKER) < 0)
		return -ENAMETOOLONG;
	if ((ds = rt_opendir(d, DOCKER)) == NULL)
		return -errno;
	closedir(ds);
	return 0;
}

/* Is parent the kubelet's cgroup for the pod uid: ".../pod<uid>"
 * (cgroupfs) or "...-pod<uid, '-' as '_'>.slice" (systemd)? */
static int
dk_pod_parent(const char *parent, const char *uid)
{
	const char *p = strrchr(parent, '/');
	char want[128];
	size_t i, n;

	if (uid == NULL || strlen(uid) + 10 >= sizeof(want))
		return 0;
	if (p != NULL)
		return strncmp(p + 1, "pod", 3) == 0 && strcmp(p + 4, uid) == 0;
	n = (size_t)snprintf(want, sizeof(want), "-pod%s.slice", uid);
	for (i = 4; i < n; i++)
		if (want[i] == '-')
			want[i] = '_';
	i = strlen(parent);
	return i > n && strchr(parent, '/') == NULL &&
	    strcmp(parent + i - n, want) == 0;
}

/* Is name cri-dockerd's "/k8s_<ctr>_<pod>_<ns>_<uid>_<attempt>"? */
static int
dk_kube_name(const char *name, const char *ctr, const char *pod,
    const char *ns, const char *uid)
{
	char want[1024];
	size_t n;

	if (!name || !ctr || !pod || !ns || !uid)
		return 0;
	n = (size_t)snprintf(want, sizeof(want), "/k8s_%s_%s_%s_%s_", ctr, pod,
	    ns, uid);
	if (n >= sizeof(want) || strncmp(name, want, n) != 0 ||
	    name[n] == '\0')
		return 0;
	return strspn(name + n, "0123456789") == strlen(name + n);
}

static int
dk_lookup(void *data, const char *id, struct names_found *f)
{
	struct rt_root *d = data;
	struct json_object *o, *cfg, *labels, *hc = NULL;
	const char *name, *type, *parent = NULL, *rid, *pod, *ns, *uid, *ctr;
	char path[256], cg[512];
	struct stat st;
	int r, kube;

	snprintf(path, sizeof(path), DOCKER "/%s/config.v2.json", id);
	if ((r = rt_json(d, path, JSONFILE_SMALL, &o, &st)) < 0) {
		if (r != -ENOENT)
			rt_fail(f, d, path, r);
		return r;
	}
	if ((rid = jsonfile_str(o, "ID")) == NULL || strcmp(rid, id) != 0) {
		json_object_put(o);
		return rt_fail(f, d, path, -EPROTO);
	}
	/* The record a rename rewrites (f is only used on success). */
	rt_record(f, path, &st);
	snprintf(path, sizeof(path), DOCKER "/%s/hostconfig.json", id);
	if ((r = rt_json(d, path, JSONFILE_SMALL, &hc, NULL)) == 0)
		parent = jsonfile_str(hc, "CgroupParent");
	else if (r != -ENOENT) {
		json_object_put(o);
		return rt_fail(f, d, path, r);
	}
	/* Where the engine puts it, with either cgroup driver. */
	if (parent == NULL || (strlen(parent) > 6 &&
	    strcmp(parent + strlen(parent) - 6, ".slice") == 0)) {
		snprintf(cg, sizeof(cg), "%s:docker:%s", parent ? parent :
		    "system.slice", id);
		names_found_cgpath(f, cg);
	}
	snprintf(cg, sizeof(cg), "%s%s/%s", parent && parent[0] == '/' ? "" :
	    "/", parent ? parent : "docker", id);
	names_found_cgpath(f, cg);

	cfg = jsonfile_obj(o, "Config");
	labels = jsonfile_obj(cfg, "Labels");
	name = jsonfile_str(o, "Name");
	names_found_set(f, NAMES_IMAGE, jsonfile_str(cfg, "Image"));
	pod = jsonfile_str(labels, "io.kubernetes.pod.name");
	ns = jsonfile_str(labels, "io.kubernetes.pod.namespace");
	uid = jsonfile_str(labels, "io.kubernetes.pod.uid");
	type = jsonfile_str(labels, "io.kubernetes.docker.type");
	f->sandbox = type && strcmp(type, "podsandbox") == 0;
	ctr = f->sandbox ? "POD" : jsonfile_str(labels,
	    "io.kubernetes.container.name");
	/* The kubelet's labels count only on cri-dockerd's record. */
	kube = pod && parent && dk_pod_parent(parent, uid) &&
	    dk_kube_name(name, ctr, pod, ns, uid);
	if (kube) {
		names_found_set(f, NAMES_NAMESPACE, ns);
		names_found_set(f, NAMES_POD, pod);
		names_found_set(f, NAMES_POD_UID, uid);
		names_found_set(f, NAMES_CONTAINER, ctr);
	} else {
		f->sandbox = 0;
		if (name != NULL)
			names_found_set(f, NAMES_CONTAINER, name + (name[0] ==
			    '/'));
	}
	json_object_put(hc);
	json_object_put(o);
	return 0;
}

const struct rt_ops rt_docker_ops = {
	.name = "Docker",
	.open = rt_root_open,
	.close = rt_root_close,
	.probe = dk_probe,
	.find = dk_lookup,
};
