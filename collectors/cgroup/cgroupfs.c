/*
 * cgroupfs.c - finding the perf cgroup hierarchy and expanding patterns.
 *
 * Expansion walks the tree one path level at a time with readdir and
 * fnmatch rather than glob(3): cgroup trees only need directories, d_type
 * tells us that without a stat per entry, a vanished directory in the
 * middle of a walk is simply skipped, glob(3) has no "**", and the walk
 * can report every directory it had to read, which is exactly the set of
 * directories to watch with inotify.
 */
#include "autoconf.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/cgroup/cgroupfs.h"
#include "util/mountinfo.h"
#include "util/text.h"

int
cgroupfs_alive(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, "cgroup.procs", &st, 0) == 0;
}

int
cgroupfs_subtree_control(const char *root, char *buf, size_t len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	return text_read_small(path, buf, len);
}

static int
has_opt(const char *opts, const char *want)
{
	size_t n = strlen(want);
	const char *p = opts;

	while ((p = strstr(p, want)) != NULL) {
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

/* cgroupfs_find's look at each mount: the first of each kind. */
struct cg_mounts {
	char v2root[4096], v1root[4096];
};

static int
cg_mount(const struct mountinfo_entry *m, void *arg)
{
	struct cg_mounts *cm = arg;

	if (strcmp(m->fstype, "cgroup2") == 0 && cm->v2root[0] == '\0')
		snprintf(cm->v2root, sizeof(cm->v2root), "%s", m->mountpoint);
	else if (strcmp(m->fstype, "cgroup") == 0 && m->superopts &&
	    has_opt(m->superopts, "perf_event") && cm->v1root[0] == '\0')
		snprintf(cm->v1root, sizeof(cm->v1root), "%s", m->mountpoint);
	return 0;
}

int
cgroupfs_find(const char *mountinfo, char *root, size_t len, int *v2)
{
	struct cg_mounts cm = { "", "" };
	int r;

	if ((r = mountinfo_each(mountinfo, cg_mount, &cm)) < 0)
		return r;
	/* A v1 perf_event mount owns the controller; v2 cannot use it then. */
	if (cm.v1root[0]) {
		snprintf(root, len, "%s", cm.v1root);
		*v2 = 0;
		return 0;
	}
	if (cm.v2root[0]) {
		snprintf(root, len, "%s", cm.v2root);
		*v2 = 1;
		return 0;
	}
	return -ENOENT;
}

int
cgroup_list_add(struct cgroup_list *l, const char *path)
{
	char **tmp, *dup;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		if ((tmp = realloc(l->path, cap * sizeof(*tmp))) == NULL)
			return -ENOMEM;
		l->path = tmp;
		l->cap = cap;
	}
	if ((dup = strdup(path)) == NULL)
		return -ENOMEM;
	l->path[l->nr++] = dup;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
cgroup_list_sort_unique(struct cgroup_list *l)
{
	size_t i, j;

	if (l->nr < 2)
		return;
	qsort(l->path, l->nr, sizeof(*l->path), cmp_str);
	for (i = 1, j = 1; i < l->nr; i++) {
		if (strcmp(l->path[i], l->path[j - 1]) == 0)
			free(l->path[i]);
		else
			l->path[j++] = l->path[i];
	}
	l->nr = j;
}

int
cgroup_list_has(const struct cgroup_list *l, const char *path)
{
	return l->nr && bsearch(&path, l->path, l->nr, sizeof(*l->path),
	    cmp_str) != NULL;
}

/* Length of the first component of s (which does not start with '/'). */
static size_t
comp_len(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash ? (size_t)(slash - s) : strlen(s);
}

static const char *
skip_slashes(const char *s)
{
	while (*s == '/')
		s++;
	return s;
}

/* Match one component of the pattern against one of the path. */
static int
comp_match(const char *pat, size_t plen, const char *name, size_t nlen)
{
	char p[4096], n[4096];

	if (plen >= sizeof(p) || nlen >= sizeof(n))
		return 0;
	memcpy(p, pat, plen);
	p[plen] = '\0';
	memcpy(n, name, nlen);
	n[nlen] = '\0';
	return fnmatch(p, n, FNM_PERIOD) == 0;
}

static int
match_rec(const char *pat, const char *path, unsigned depth_left,
    unsigned limited)
{
	size_t pl, nl;

	pat = skip_slashes(pat);
	path = skip_slashes(path);
	if (*pat == '\0')
		return *path == '\0';
	pl = comp_len(pat);
	if (pl == 2 && pat[0] == '*' && pat[1] == '*') {
		/* Zero levels, or one more level and "**" again. */
		if (match_rec(pat + 2, path, depth_left, limited))
			return 1;
		if (*path == '\0' || (limited && depth_left == 0))
			return 0;
		return match_rec(pat, path + comp_len(path), depth_left - 1,
		    limited);
	}
	if (*path == '\0')
		return 0;
	nl = comp_len(path);
	return comp_match(pat, pl, path, nl) &&
	    match_rec(pat + pl, path + nl, depth_left, limited);
}

int
cgroupfs_match(const char *pattern, const char *path, unsigned max_depth)
{
	return match_rec(pattern, path, max_depth, max_depth != 0);
}

struct walk {
	const char *root;
	unsigned limited;
	struct cgroup_list *out, *dirs;
};

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * rel: the expanded prefix ("" or "/a/b"); rest: what is left to match;
 * dir_known: readdir already said rel is a directory (no stat needed).
 */
static int
walk(struct walk *w, const char *rel, const char *rest, unsigned depth_left,
    int dir_known)
{
	char comp[4096], next[8192], full[8192];
	size_t n;
	DIR *d;
	struct dirent *de;
	int r = 0, globstar;

	rest = skip_slashes(rest);
	if (*rest == '\0') {
		snprintf(full, sizeof(full), "%s%s", w->root, rel);
		if (!dir_known && !is_dir(full))
			return 0;
		return cgroup_list_add(w->out, rel[0] ? rel : "/");
	}
	n = comp_len(rest);
	if (n >= sizeof(comp))
		return -ENAMETOOLONG;
	memcpy(comp, rest, n);
	comp[n] = '\0';
	globstar = strcmp(comp, "**") == 0;
	/* Whatever the component, new children of rel could match it. */
	if (w->dirs && (r = cgroup_list_add(w->dirs, rel[0] ? rel : "/")) < 0)
		return r;
	if (globstar) {
		/* Zero levels first; then every subdirectory, "**" again. */
		if ((r = walk(w, rel, rest + n, depth_left, dir_known)) < 0)
			return r;
		if (w->limited && depth_left == 0)
			return 0;
	} else if (strpbrk(comp, "*?[") == NULL) {
		snprintf(next, sizeof(next), "%s/%s", rel, comp);
		return walk(w, next, rest + n, depth_left, 0);
	}
	snprintf(full, sizeof(full), "%s%s", w->root, rel);
	if ((d = opendir(full)) == NULL)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (!globstar && fnmatch(comp, de->d_name, FNM_PERIOD) != 0)
			continue;
		if (globstar && de->d_name[0] == '.')
			continue;
		snprintf(next, sizeof(next), "%s/%s", rel, de->d_name);
		if (globstar)
			r = walk(w, next, rest, depth_left - 1,
			    de->d_type == DT_DIR);
		else
			r = walk(w, next, rest + n, depth_left,
			    de->d_type == DT_DIR);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int
cgroupfs_expand(const char *root, const char *pattern, unsigned max_depth,
    char *const *exclude, size_t nr_exclude, struct cgroup_list *out,
    struct cgroup_list *dirs)
{
	struct cgroup_list l = { 0, 0, NULL };
	struct walk w = { root, max_depth != 0, &l, dirs };
	size_t i, j, k;
	int r;

	r = walk(&w, "", pattern, max_depth, 0);
	if (r < 0) {
		cgroup_list_free(&l);
		return r;
	}
	cgroup_list_sort_unique(&l);
	for (i = 0, k = 0; i < l.nr; i++) {
		for (j = 0; j < nr_exclude; j++)
			if (cgroupfs_match(exclude[j], l.path[i], 0))
				break;
		if (j < nr_exclude)
			free(l.path[i]);
		else
			l.path[k++] = l.path[i];
	}
	l.nr = k;
	*out = l;
	return 0;
}

void
cgroup_list_free(struct cgroup_list *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nr; i++)
		free(l->path[i]);
	free(l->path);
	l->path = NULL;
	l->nr = l->cap = 0;
}

int
cgroupfs_id(int dirfd, uint64_t *id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h;
	int mnt;

	h.fh.handle_bytes = sizeof(uint64_t);
	if (name_to_handle_at(dirfd, "", &h.fh, &mnt, AT_EMPTY_PATH) < 0)
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EOPNOTSUPP;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}
