/*
 * cgroupfs.c - finding the perf cgroup hierarchy, opening and reading a
 * cgroup's directory and files below it without links, and the cgroup lists
 * and the pure pattern matcher that cgroupfs_walk.c and the config share.
 * Design: docs/architecture.md, "collectors/cgroup/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/cgroup/cgroupfs.h"
#include "util/mountinfo.h"

/* The flags every cgroup file is opened with: never through a link
 * (cgroupfs has none; a tenant could put one elsewhere), never waiting
 * (a FIFO cannot be in cgroupfs, but a path may not be cgroupfs). */
#define CG_OPEN (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

int
cgroupfs_ino(int dirfd, uint64_t *id)
{
	struct stat st;

	if (fstat(dirfd, &st) < 0)
		return -errno;
	*id = (uint64_t)st.st_ino;
	return 0;
}

int
cgroupfs_alive(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, "cgroup.procs", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode);
}

/*
 * The small text file name in the directory dirfd into buf (len bytes,
 * NUL-terminated, trailing space cut), once it is seen to be a regular
 * file.  0 or -errno (-EINVAL: not a regular file, or not text).
 */
static int
read_small_at(int dirfd, const char *name, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	if ((fd = openat(dirfd, name, O_RDONLY | CG_OPEN)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if ((n = read(fd, buf, len - 1)) < 0)
		r = -errno;
	else {
		buf[n] = '\0';
		if (strlen(buf) != (size_t)n)
			r = -EINVAL;	/* a NUL inside: not a text file */
		while (n > 0 && isspace((unsigned char)buf[n - 1]))
			buf[--n] = '\0';
	}
	close(fd);
	return r;
}

int
cgroupfs_subtree_control(const char *root, char *buf, size_t len)
{
	int fd, r;

	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	r = read_small_at(fd, "cgroup.subtree_control", buf, len);
	close(fd);
	return r;
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
cgroup_list_add_id(struct cgroup_list *l, const char *path, uint64_t id)
{
	char **tmp, *dup;
	uint64_t *ids;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		if ((tmp = realloc(l->path, cap * sizeof(*tmp))) == NULL)
			return -ENOMEM;
		l->path = tmp;
		if ((ids = realloc(l->id, cap * sizeof(*ids))) == NULL)
			return -ENOMEM;
		l->id = ids;
		l->cap = cap;
	}
	if ((dup = strdup(path)) == NULL)
		return -ENOMEM;
	l->id[l->nr] = id;
	l->path[l->nr++] = dup;
	return 0;
}

int
cgroup_list_add(struct cgroup_list *l, const char *path)
{
	return cgroup_list_add_id(l, path, 0);
}

/* A path and its id, sorted together. */
struct path_id {
	char *path;
	uint64_t id;
};

static int
cmp_path_id(const void *a, const void *b)
{
	return strcmp(((const struct path_id *)a)->path,
	    ((const struct path_id *)b)->path);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort l by path, each id moving with its path (a list of no ids, as
 * a list of directories to watch, without allocating).  0 or -ENOMEM. */
static int
sort_paths(struct cgroup_list *l)
{
	struct path_id *v;
	size_t i;

	for (i = 0; i < l->nr && l->id[i] == 0; i++)
		;
	if (i == l->nr) {
		qsort(l->path, l->nr, sizeof(*l->path), cmp_str);
		return 0;
	}
	if ((v = malloc(l->nr * sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++)
		v[i] = (struct path_id){ l->path[i], l->id[i] };
	qsort(v, l->nr, sizeof(*v), cmp_path_id);
	for (i = 0; i < l->nr; i++) {
		l->path[i] = v[i].path;
		l->id[i] = v[i].id;
	}
	free(v);
	return 0;
}

int
cgroup_list_sort_unique(struct cgroup_list *l)
{
	size_t i, j;

	if (l->nr < 2)
		return 0;
	if (sort_paths(l) < 0)
		return -ENOMEM;
	for (i = 1, j = 1; i < l->nr; i++) {
		if (strcmp(l->path[i], l->path[j - 1]) == 0)
			free(l->path[i]);
		else {
			l->id[j] = l->id[i];
			l->path[j++] = l->path[i];
		}
	}
	l->nr = j;
	return 0;
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

/*
 * Down from root to path one component at a time, never through a link,
 * the last opened with flags (the others O_PATH); *deleg, when not NULL,
 * as cgroupfs_delegated says.  An fd or -errno.
 */
static int
descend(const char *root, const char *path, int flags, size_t *deleg)
{
	const char *p = path, *name;
	char comp[256];
	struct stat st;
	uid_t owner;
	size_t n;
	int fd, next;

	if (deleg)
		*deleg = 0;
	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	/* The root's owner is who owns what is not delegated: root, or
	 * whom a user namespace maps it to. */
	if (fstat(fd, &st) < 0)
		goto fail;
	owner = st.st_uid;
	while (*(p = skip_slashes(p)) != '\0') {
		name = p;
		n = comp_len(p);
		p += n;
		if (n >= sizeof(comp)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, name, n);
		comp[n] = '\0';
		next = openat(fd, comp, (*skip_slashes(p) ? O_PATH : flags) |
		    O_DIRECTORY | CG_OPEN);
		close(fd);
		if ((fd = next) < 0 || fstat(fd, &st) < 0)
			goto fail;
		if (deleg && *deleg == 0 && st.st_uid != owner)
			*deleg = (size_t)(p - path);
	}
	return fd;
fail:
	next = -errno;
	if (fd >= 0)
		close(fd);
	return next;
}

int
cgroupfs_delegated(const char *root, const char *path, size_t *len)
{
	int fd = descend(root, path, O_PATH, len);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int
cgroupfs_open_dir(const char *root, const char *path)
{
	int fd = descend(root, path, O_RDONLY, NULL);

	/* The root itself ("/"): opened as it is, for reading. */
	if (fd >= 0 && *skip_slashes(path) == '\0') {
		close(fd);
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	return fd;
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
	free(l->id);
	l->path = NULL;
	l->id = NULL;
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
