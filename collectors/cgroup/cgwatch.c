/*
 * cgwatch.c - inotify watches over cgroup directories (cgwatch.h), an array
 * sorted by path, updated by one merge.
 * Design: docs/architecture.md, "collectors/cgroup/".
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "collectors/cgroup/cgwatch.h"

struct watch {
	char *path;
	int wd;
};

struct cgwatch {
	int fd;
	size_t nr;
	struct watch *w;
};

/* Directories only, never through a link (a tenant's, in its subtree). */
#define CGWATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
	IN_ONLYDIR | IN_DONT_FOLLOW)

int
cgwatch_new(struct cgwatch **out)
{
	struct cgwatch *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return -ENOMEM;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		int r = -errno;

		free(w);
		return r;
	}
	*out = w;
	return 0;
}

int
cgwatch_fd(const struct cgwatch *w)
{
	return w->fd;
}

int
cgwatch_set(struct cgwatch *w, const char *root,
    const struct cgroup_list *dirs)
{
	struct watch *nw;
	char full[8192];
	size_t i = 0, j = 0, n = 0;
	int r = 0, c, wd;

	nw = calloc(dirs->nr + 1, sizeof(*nw));
	if (nw == NULL)
		return -ENOMEM;
	while (i < w->nr || j < dirs->nr) {
		if (i == w->nr)
			c = 1;
		else if (j == dirs->nr)
			c = -1;
		else
			c = strcmp(w->w[i].path, dirs->path[j]);
		if (c < 0) {		/* no longer wanted */
			inotify_rm_watch(w->fd, w->w[i].wd);
			free(w->w[i].path);
			i++;
			continue;
		}
		if (c == 0) {		/* kept */
			nw[n++] = w->w[i];
			i++;
			j++;
			continue;
		}
		/* new */
		snprintf(full, sizeof(full), "%s%s", root,
		    strcmp(dirs->path[j], "/") == 0 ? "" : dirs->path[j]);
		wd = inotify_add_watch(w->fd, full, CGWATCH_MASK);
		if (wd < 0) {
			if (errno == ENOSPC)
				r = -ENOSPC;
			else if (errno != ENOENT && errno != ENOTDIR && r == 0)
				r = -errno;
		} else if ((nw[n].path = strdup(dirs->path[j])) != NULL) {
			nw[n++].wd = wd;
		} else {
			inotify_rm_watch(w->fd, wd);
			r = -ENOMEM;
		}
		j++;
	}
	free(w->w);
	w->w = nw;
	w->nr = n;
	return r;
}

int
cgwatch_drain(struct cgwatch *w)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;
	int changed = 0;

	for (;;) {
		n = read(w->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EAGAIN)
				return changed;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return changed;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW)
				changed = 1;
			else if ((ev->mask & IN_ISDIR) && (ev->mask &
			    (IN_CREATE | IN_DELETE | IN_MOVED_FROM |
			    IN_MOVED_TO)))
				changed = 1;
		}
	}
}

void
cgwatch_free(struct cgwatch *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->nr; i++)
		free(w->w[i].path);
	free(w->w);
	close(w->fd);
	free(w);
}
