/*
 * cgroupfs_walk.c - expanding a cgroup path pattern into the cgroups it names
 * (cgroupfs_expand), and the directories it read: those to watch.
 * Hand-written: glob(3) has no "**" and cannot say which directories it read.
 * Design: docs/architecture.md, "collectors/cgroup/".
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/cgroup/cgroupfs.h"

/*
 * The walk.  Directories are opened relative to their parent's fd
 * (openat), so no path length limits how deep it goes; the path it keeps
 * beside them is the name it reports, bounded (CGROUPFS_PATH_MAX).  It
 * does not recurse: the directories being read sit on an explicit stack
 * of frames on the heap, at most WALK_FRAMES of them, whatever a tenant
 * nests.  Each frame reads one directory for one pattern component; a
 * literal component is opened directly, without reading its parent.
 */
#define WALK_FRAMES 256
/* Delegated subtrees put aside in one walk; past it, left out (cap). */
#define WALK_DEFERRED 1024

/* A delegated subtree's root, met and put aside: walked last. */
struct deferred {
	int fd;
	size_t len, ci;
	unsigned depth_left;
	uint64_t ino;
	char *path;
};

struct frame {
	DIR *d;
	size_t len;			/* of the directory's path in w->path */
	size_t ci;			/* the pattern component it reads for */
	unsigned depth_left;		/* levels "**" may still span */
	int capped;			/* "**" at its depth: subdirectories
					   are counted, not read */
};

struct walk {
	int limited;
	size_t max_dirs, nr_dirs;	/* directories opened, and the cap */
	size_t cap;			/* the cap now: max_dirs, or where a
					   delegated subtree's share ends */
	size_t deleg_dirs;		/* a subtree's share at most (0: any) */
	uid_t owner;			/* the root's: who is not a tenant */
	int in_deleg;			/* walking a subtree put aside */
	int met_deleg;			/* open_child met a subtree's root */
	struct deferred *dv;		/* subtrees put aside */
	size_t nd;
	char **comp;			/* the pattern's components */
	size_t ncomp;
	struct cgroup_list *out, *dirs;
	struct cgroup_skips *sk;
	size_t room;			/* the longest path below the root */
	char path[CGROUPFS_PATH_MAX];	/* "" or "/a/b" */
	uint64_t ino;			/* the inode of the directory at
					   path: its cgroup id (cgroupfs.h) */
	struct frame st[WALK_FRAMES];
	size_t nr;
};

static const char *const skip_reason[CGROUP_SKIP_REASONS] = {
	[CGROUP_SKIP_UNREADABLE] = "unreadable",
	[CGROUP_SKIP_TOO_LONG] = "path_too_long",
	[CGROUP_SKIP_DEPTH] = "depth",
	[CGROUP_SKIP_CAP] = "entry_cap",
};

const char *
cgroup_skip_reason(enum cgroup_skip why)
{
	return skip_reason[why];
}

/* The subtree at w->path (name appended at len when not NULL) is left
 * out for why: counted, and the first one named. */
static void
skip(struct walk *w, enum cgroup_skip why, size_t len, const char *name)
{
	struct cgroup_skips *sk = w->sk;

	if (sk == NULL || sk->n[why]++)
		return;
	snprintf(sk->first[why], sizeof(sk->first[why]), "%.*s%s%s",
	    (int)len, w->path, name ? "/" : "", name ? name : "");
	if (sk->first[why][0] == '\0')
		snprintf(sk->first[why], sizeof(sk->first[why]), "/");
}

static const char *
rel(const struct walk *w)
{
	return w->path[0] ? w->path : "/";
}

static int
is_globstar(const char *comp)
{
	return strcmp(comp, "**") == 0;
}

/*
 * Open name in the directory parent, as a directory, never through a
 * link and never blocking; its path is w->path extended by name (the
 * caller's len, set to the new length).  -1 when it is no directory, is
 * gone, or is skipped (counted): its subtree is left out alone.
 */
static int
open_child(struct walk *w, int parent, const char *name, size_t *len)
{
	size_t n = strlen(name);
	struct stat st;
	int fd;

	if (*len + 1 + n > w->room) {
		skip(w, CGROUP_SKIP_TOO_LONG, *len, name);
		return -1;
	}
	if (w->cap && w->nr_dirs >= w->cap) {
		skip(w, CGROUP_SKIP_CAP, *len, name);
		return -1;
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		/* Not there (any more), or no directory: no cgroup. */
		if (fd < 0 && errno != ENOENT && errno != ENOTDIR &&
		    errno != ELOOP && errno != ENAMETOOLONG)
			skip(w, CGROUP_SKIP_UNREADABLE, *len, name);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A tenant's root, met while walking what is not delegated: put
	 * aside by the caller (defer), not counted yet. */
	w->met_deleg = !w->in_deleg && st.st_uid != w->owner;
	w->nr_dirs += !w->met_deleg;
	w->ino = (uint64_t)st.st_ino;
	w->path[(*len)++] = '/';
	memcpy(w->path + *len, name, n + 1);
	*len += n;
	return fd;
}

/*
 * A literal prefix that does not exist (yet): its directories are still
 * where new children could appear, as far as the pattern stays literal.
 */
static int
watch_missing(struct walk *w, size_t len, size_t ci)
{
	size_t n;
	int r;

	for (; ci < w->ncomp && w->dirs; ci++) {
		w->path[len] = '\0';
		if ((r = cgroup_list_add(w->dirs, rel(w))) < 0)
			return r;
		n = strlen(w->comp[ci]);
		if (strpbrk(w->comp[ci], "*?[") || len + 1 + n > w->room)
			break;
		w->path[len++] = '/';
		memcpy(w->path + len, w->comp[ci], n + 1);
		len += n;
	}
	return 0;
}

/*
 * The delegated subtree at w->path (len long, open on fd), to be reached
 * with component ci and depth_left: put aside for after the rest, fd
 * kept.  0 or -ENOMEM.
 */
static int
defer(struct walk *w, int fd, size_t len, size_t ci, unsigned depth_left)
{
	struct deferred *d;

	w->met_deleg = 0;
	if (w->nd == WALK_DEFERRED) {
		close(fd);
		skip(w, CGROUP_SKIP_CAP, len, NULL);
		return 0;
	}
	if (w->nd % 16 == 0) {
		d = realloc(w->dv, (w->nd + 16) * sizeof(*d));
		if (d == NULL)
			goto fail;
		w->dv = d;
	}
	d = &w->dv[w->nd];
	if ((d->path = strndup(w->path, len)) == NULL)
		goto fail;
	d->fd = fd;
	d->len = len;
	d->ci = ci;
	d->depth_left = depth_left;
	d->ino = w->ino;
	w->nd++;
	return 0;
fail:
	close(fd);
	return -ENOMEM;
}

/* A frame to read the directory fd for component ci; fd is closed on
 * failure.  0 or -ENOMEM. */
static int
push(struct walk *w, int fd, size_t len, size_t ci, unsigned depth_left,
    int capped)
{
	DIR *d;

	if (w->nr == WALK_FRAMES) {
		close(fd);
		skip(w, CGROUP_SKIP_DEPTH, len, NULL);
		return 0;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -ENOMEM;
	}
	w->st[w->nr++] = (struct frame){ d, len, ci, depth_left, capped };
	return 0;
}

/*
 * The directory fd (open on w->path, len long) reached with component
 * ci left to match: a match at the pattern's end, literal components
 * opened at once, a wildcard's directory pushed to be read, and for
 * "**" both its children (pushed) and the zero-level alternative (on a
 * second fd).  fd is consumed.  0 or -ENOMEM.
 */
static int
visit(struct walk *w, int fd, size_t len, size_t ci, unsigned depth_left)
{
	int child, r;

	for (;;) {
		w->path[len] = '\0';
		if (ci == w->ncomp) {
			close(fd);
			return cgroup_list_add_id(w->out, rel(w), w->ino);
		}
		/* Whatever the component, new children here could match. */
		if (w->dirs && (r = cgroup_list_add(w->dirs, rel(w))) < 0)
			goto fail;
		if (is_globstar(w->comp[ci])) {
			child = openat(fd, ".", O_RDONLY | O_DIRECTORY |
			    O_NONBLOCK | O_CLOEXEC);
			if ((r = push(w, fd, len, ci, depth_left,
			    w->limited && depth_left == 0)) < 0) {
				if (child >= 0)
					close(child);
				return r;
			}
			if ((fd = child) < 0)
				return 0;	/* gone meanwhile */
			ci++;
			continue;
		}
		if (strpbrk(w->comp[ci], "*?["))
			return push(w, fd, len, ci, depth_left, 0);
		child = open_child(w, fd, w->comp[ci], &len);
		close(fd);
		if (child < 0)
			return watch_missing(w, len, ci);
		if (w->met_deleg)
			return defer(w, child, len, ci + 1, depth_left);
		fd = child;
		ci++;
	}
fail:
	close(fd);
	return r;
}

/* Does the entry name a subdirectory the frame's component could take? */
static int
candidate(const struct walk *w, const struct frame *f,
    const struct dirent *de)
{
	const char *comp = w->comp[f->ci];

	if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
		return 0;
	if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
	    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
		return 0;
	if (is_globstar(comp))
		return de->d_name[0] != '.';
	return fnmatch(comp, de->d_name, FNM_PERIOD) == 0;
}

/* The next entry of the top frame: a child visited, or the frame done.
 * 0 or -ENOMEM. */
static int
step(struct walk *w)
{
	struct frame *f = &w->st[w->nr - 1];
	struct dirent *de;
	size_t len = f->len;
	int fd, glob;

	errno = 0;
	if ((de = readdir(f->d)) == NULL) {
		if (errno && errno != ENOENT)
			skip(w, CGROUP_SKIP_UNREADABLE, f->len, NULL);
		closedir(f->d);
		w->nr--;
		return 0;
	}
	if (!candidate(w, f, de))
		return 0;
	if (f->capped) {
		/* A subdirectory below what "**" may span: one skip for the
		 * whole subtree, and nothing more read here. */
		skip(w, CGROUP_SKIP_DEPTH, f->len, NULL);
		closedir(f->d);
		w->nr--;
		return 0;
	}
	w->path[len] = '\0';
	if ((fd = open_child(w, dirfd(f->d), de->d_name, &len)) < 0)
		return 0;
	glob = is_globstar(w->comp[f->ci]);
	return (w->met_deleg ? defer : visit)(w, fd, len,
	    glob ? f->ci : f->ci + 1, glob ? f->depth_left - 1 : f->depth_left);
}

/* The pattern split into its components (in *buf, to be freed). */
static int
split(struct walk *w, const char *pattern, char **buf)
{
	char *p, *save = NULL;
	size_t n = 1;

	for (p = (char *)pattern; *p; p++)
		n += *p == '/';
	if ((*buf = strdup(pattern)) == NULL ||
	    (w->comp = calloc(n, sizeof(*w->comp))) == NULL)
		return -ENOMEM;
	for (p = strtok_r(*buf, "/", &save); p; p = strtok_r(NULL, "/", &save))
		w->comp[w->ncomp++] = p;
	return 0;
}

/* Read until the stack is empty.  0 or -ENOMEM. */
static int
run(struct walk *w, int r)
{
	while (r == 0 && w->nr)
		r = step(w);
	while (w->nr)
		closedir(w->st[--w->nr].d);
	return r;
}

/*
 * The delegated subtrees put aside, in the order met, each with its
 * share: the directories left under the cap divided by the subtrees
 * still to walk (what one leaves goes to those after), at most
 * deleg_dirs, its root included.  0 or -ENOMEM.
 */
static int
walk_deferred(struct walk *w)
{
	size_t i, share;
	int r = 0;

	w->in_deleg = 1;
	for (i = 0; i < w->nd; i++) {
		struct deferred *d = &w->dv[i];

		share = w->max_dirs ? (w->max_dirs - w->nr_dirs) / (w->nd - i) :
		    SIZE_MAX;
		if (w->deleg_dirs && share > w->deleg_dirs)
			share = w->deleg_dirs;
		memcpy(w->path, d->path, d->len + 1);
		if (r < 0 || share == 0) {
			if (r == 0)
				skip(w, CGROUP_SKIP_CAP, d->len, NULL);
			close(d->fd);
		} else {
			w->cap = share == SIZE_MAX ? 0 : w->nr_dirs + share;
			w->nr_dirs++;
			w->ino = d->ino;
			r = run(w, visit(w, d->fd, d->len, d->ci,
			    d->depth_left));
		}
		free(d->path);
	}
	free(w->dv);
	w->dv = NULL;
	w->nd = 0;
	return r;
}

/* Every match of w's pattern below root into w->out: what is not
 * delegated first, then each delegated subtree.  0 or -errno. */
static int
walk(struct walk *w, const char *root, unsigned max_depth)
{
	struct stat st;
	int fd, r;

	w->room = sizeof(w->path) - 1;
	if (strlen(root) < w->room)
		w->room -= strlen(root);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if (fstat(fd, &st) == 0) {
		w->ino = (uint64_t)st.st_ino;
		w->owner = st.st_uid;
	}
	w->cap = w->max_dirs;
	r = run(w, visit(w, fd, 0, 0, max_depth));
	return walk_deferred(w) < 0 ? -ENOMEM : r;
}

/* Leave out of l what matches one of the exclude patterns. */
static void
exclude_matches(struct cgroup_list *l, char *const *exclude,
    size_t nr_exclude)
{
	size_t i, j, k;

	for (i = 0, k = 0; i < l->nr; i++) {
		for (j = 0; j < nr_exclude; j++)
			if (cgroupfs_match(exclude[j], l->path[i], 0))
				break;
		if (j < nr_exclude)
			free(l->path[i]);
		else {
			l->id[k] = l->id[i];
			l->path[k++] = l->path[i];
		}
	}
	l->nr = k;
}

int
cgroupfs_expand(const char *root, const char *pattern, unsigned max_depth,
    size_t max_dirs, char *const *exclude, size_t nr_exclude,
    struct cgroup_list *out, struct cgroup_list *dirs,
    struct cgroup_skips *sk)
{
	return cgroupfs_expand_fair(root, pattern, max_depth, max_dirs, 0,
	    exclude, nr_exclude, out, dirs, sk);
}

int
cgroupfs_expand_fair(const char *root, const char *pattern,
    unsigned max_depth, size_t max_dirs, size_t deleg_dirs,
    char *const *exclude, size_t nr_exclude, struct cgroup_list *out,
    struct cgroup_list *dirs, struct cgroup_skips *sk)
{
	struct cgroup_list l = { 0, 0, NULL, NULL };
	struct walk *w;
	char *buf = NULL;
	int r;

	if (sk)
		memset(sk, 0, sizeof(*sk));
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return -ENOMEM;
	w->limited = max_depth != 0;
	w->max_dirs = max_dirs;
	w->deleg_dirs = deleg_dirs;
	w->out = &l;
	w->dirs = dirs;
	w->sk = sk;
	if ((r = split(w, pattern, &buf)) == 0)
		r = walk(w, root, max_depth);
	free(w->comp);
	free(w);
	free(buf);
	if (r < 0) {
		cgroup_list_free(&l);
		return r;
	}
	if (cgroup_list_sort_unique(&l) < 0) {
		cgroup_list_free(&l);
		return -ENOMEM;
	}
	exclude_matches(&l, exclude, nr_exclude);
	*out = l;
	return 0;
}
