/*
 * rt_docker.c - Docker Engine containers, named from the file the engine
 * keeps each one's configuration in and reloads at its own start:
 * /var/lib/docker/containers/<id>/config.v2.json (moby's container
 * package, Container.ToDisk): "Name" ("/web": the leading slash is
 * Docker's) and "Config": {"Image": the reference it was run from,
 * "Labels": ...}.  Containers that cri-dockerd made for a kubelet carry
 * the kubelet's labels there (io.kubernetes.pod.name, .namespace, .uid,
 * io.kubernetes.container.name, io.kubernetes.docker.type podsandbox or
 * container), and get the Kubernetes names from them.
 *
 * Only the default data root is read (a daemon.json "data-root" elsewhere
 * is not followed; --path.rootfs still applies).
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

static int
dk_lookup(void *data, const char *id, struct names_found *f)
{
	struct rt_root *d = data;
	struct json_object *o, *cfg, *labels;
	const char *name, *type;
	char path[256];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), DOCKER "/%s/config.v2.json", id);
	if ((r = rt_json(d, path, JSONFILE_SMALL, &o, &st)) < 0) {
		if (r != -ENOENT)
			rt_fail(f, d, path, r);
		return r;
	}
	cfg = jsonfile_obj(o, "Config");
	labels = jsonfile_obj(cfg, "Labels");
	names_found_set(f, NAMES_IMAGE, jsonfile_str(cfg, "Image"));
	if (jsonfile_str(labels, "io.kubernetes.pod.name")) {
		type = jsonfile_str(labels, "io.kubernetes.docker.type");
		f->sandbox = type && strcmp(type, "podsandbox") == 0;
		names_found_set(f, NAMES_NAMESPACE, jsonfile_str(labels,
		    "io.kubernetes.pod.namespace"));
		names_found_set(f, NAMES_POD, jsonfile_str(labels,
		    "io.kubernetes.pod.name"));
		names_found_set(f, NAMES_POD_UID, jsonfile_str(labels,
		    "io.kubernetes.pod.uid"));
		names_found_set(f, NAMES_CONTAINER, f->sandbox ? "POD" :
		    jsonfile_str(labels, "io.kubernetes.container.name"));
	} else if ((name = jsonfile_str(o, "Name")) != NULL)
		names_found_set(f, NAMES_CONTAINER, name + (name[0] == '/'));
	rt_record(f, path, &st);
	json_object_put(o);
	return 0;
}

const struct rt_ops rt_docker_ops = {
	.name = "Docker",
	.open = rt_root_open,
	.close = rt_root_close,
	.probe = dk_probe,
	.lookup = dk_lookup,
};
