/*
 * tracefs.c - finding tracefs and reading tracepoint ids (tracefs.h).
 * Design: docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events/tracefs.h"
#include "util/mountinfo.h"
#include "util/text.h"

/* tracefs_find's look at each mount: tracefs, else debugfs's tracing/. */
struct trace_mounts {
	char tracefs[4096], debugfs[4096];
};

static int
trace_mount(const struct mountinfo_entry *m, void *arg)
{
	struct trace_mounts *tm = arg;

	if (strcmp(m->fstype, "tracefs") == 0) {
		snprintf(tm->tracefs, sizeof(tm->tracefs), "%s", m->mountpoint);
		return 1;
	}
	if (strcmp(m->fstype, "debugfs") == 0 && tm->debugfs[0] == '\0')
		snprintf(tm->debugfs, sizeof(tm->debugfs), "%s/tracing",
		    m->mountpoint);
	return 0;
}

int
tracefs_find(const char *mountinfo, char *root, size_t len)
{
	struct trace_mounts tm = { "", "" };
	int r;

	if ((r = mountinfo_each(mountinfo, trace_mount, &tm)) < 0)
		return r;
	if (tm.tracefs[0]) {
		snprintf(root, len, "%s", tm.tracefs);
		return 0;
	}
	if (tm.debugfs[0]) {
		snprintf(root, len, "%s", tm.debugfs);
		return 0;
	}
	return -ENOENT;
}

static int
valid_name(const char *s)
{
	if (*s == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' &&
		    *s != '.')
			return 0;
	return 1;
}

int
tracefs_event_id(const char *root, const char *sys, const char *name,
    uint64_t *id)
{
	char path[4096], buf[64], *end;
	unsigned long long v;
	int r;

	if (!valid_name(sys) || !valid_name(name))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	if ((r = text_read_small(path, buf, sizeof(buf))) < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	*id = v;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
tracefs_subsystems(const char *root, void (*fn)(const char *, void *),
    void *arg)
{
	char path[4096], **v = NULL, **tmp;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int r = 0;

	snprintf(path, sizeof(path), "%s/events", root);
	if ((d = opendir(path)) == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((tmp = realloc(v, cap * sizeof(*v))) == NULL) {
				r = -ENOMEM;
				break;
			}
			v = tmp;
		}
		if ((v[n] = strdup(de->d_name)) == NULL) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (r == 0) {
		qsort(v, n, sizeof(*v), cmp_str);
		for (i = 0; i < n; i++)
			fn(v[i], arg);
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}
