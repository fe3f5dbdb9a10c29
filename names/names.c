/*
 * names.c - the resolver (see names.h): its thread, its cache, the map it
 * publishes, and what the readers share.
 *
 * The cache is an array of entries sorted by (id, cgroup), owned by the
 * thread.  A round takes the newest set of wanted (id, cgroup) pairs (the
 * collector hands over a whole set, and only when it changed), keeps the
 * entries still wanted and forgets the rest, then looks up what it has
 * not looked up yet, and
 * again what no runtime knew, with a back-off (2 s doubling to 5 min):
 * a runtime that starts after the daemon is noticed then.  A round looks
 * up at most ROUND_LOOKUPS ids and stops after ROUND_NS; the rest waits
 * for the next round, which follows at once.  A name found is checked
 * again every REFRESH_NS: the file it came from (names_found.src) is
 * stat()ed, and when its mtime, size or inode changed (a renamed
 * container's record is rewritten) the id is looked up again.  At most
 * REFRESH_CHECKS such stat()s a round, and rounds of checks alone come
 * REFRESH_PAUSE_NS apart: bounded work per interval whatever the number
 * of containers.  When anything changed, a new map is built and
 * published by pointer swap (util/publish.h); the cache's names then
 * point into it (cache_share), so that each is held once.
 *
 * Trust: a cgroup's name is anyone's to choose (a user makes
 * ".../user.slice/libpod-<any id>.scope" in the subtree systemd
 * delegated to it).  So an entry is found only when the runtime's record
 * places the container in that cgroup (names_cgroup_match), and is a
 * sandbox, which the collector shows apart, only when its runtime says so
 * and no user was delegated the cgroup (names_delegated).
 *
 * Logging, through the hook: each reader's state (its runtime absent,
 * unreadable, present; slow) once per change, and a file that cannot be
 * read or parsed once per container.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "names/jsonfile.h"
#include "names/runtime.h"
#include "util/inroot.h"
#include "util/clock.h"
#include "util/utf8.h"

#define ROUND_LOOKUPS 64
#define ROUND_NS 100000000ULL		/* 100 ms */
#define SLOW_NS 500000000ULL		/* one lookup this long: slow */
#define PROBE_NS 10000000000ULL		/* runtimes probed at most every 10 s */
#define RETRY_MIN_NS 2000000000ULL
#define RETRY_MAX_NS 300000000000ULL
#define MAX_IDS 65536			/* the most ids kept */
#define REFRESH_NS 10000000000ULL	/* a name's record checked this often */
#define REFRESH_CHECKS 256		/* at most so many a round */
#define REFRESH_PAUSE_NS 100000000ULL	/* between rounds of checks */
#define STOP_S 2			/* names_free waits this long */

const char *const names_label_name[NAMES_NR] = {
	[NAMES_NAMESPACE] = "namespace",
	[NAMES_POD] = "pod",
	[NAMES_CONTAINER] = "container",
	[NAMES_IMAGE] = "image",
	[NAMES_POD_UID] = "pod_uid",
};

static const struct rt_ops *const readers[] = {
	&rt_containerd_ops, &rt_storage_ops, &rt_docker_ops,
};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

/* A wanted pair: a container id and the cgroup it was read from. */
struct want {
	char *id, *cgroup;
};

/* One id in one cgroup, as the thread knows it. */
struct centry {
	char *id;
	char *cgroup;
	int looked;			/* looked up at least once */
	int found;
	int sandbox;
	int delegated;			/* names_delegated, at the first lookup */
	int misplaced_logged;		/* "not where its record says", said */
	int owned;			/* v malloc'd (new), else in n->map */
	char *v[NAMES_NR];
	uint64_t retry_ns;		/* not found: look again then */
	unsigned tries;
	int logged;			/* its file's error was reported */
	char *src;			/* found: the record's path, or NULL */
	struct rt_stamp stamp;		/* and its stamp then */
	uint64_t check_ns;		/* found: check the record then */
};

struct reader {
	const struct rt_ops *ops;
	void *data;
	int state;			/* 1: not probed yet; 0 or -errno */
	int slow;
	char where[512];
};

struct names {
	struct names_opts o;
	char rootfs[4096];
	struct reader rd[NREADERS];
	struct rt_root root;		/* for the records' stat() */
	uint64_t probed_ns;
	int probed;

	/* Owned by the thread. */
	struct centry *cache;
	size_t nr_cache;
	struct names_found found;	/* scratch */
	char cgroot[4096];		/* the mount of the set merged; "": none */

	/* Shared: guarded by lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	struct want *want;		/* the newest set, not taken yet */
	size_t nr_want;
	int have_want;
	char want_cgroot[4096];

	struct publish_slot map;	/* the newest map (util/publish.h) */

	pthread_t thread;
	int started;
	int logged_cap;
};

/* ---- what readers share ------------------------------------------- */

void
names_found_set(struct names_found *f, enum names_label l, const char *s)
{
	utf8_copy(f->v[l], sizeof(f->v[l]), s ? s : "");
}

void
rt_stamp_of(struct rt_stamp *s, const struct stat *st)
{
	s->mtime = st->st_mtim;
	s->size = st->st_size;
	s->ino = st->st_ino;
}

int
rt_stamp_same(const struct rt_stamp *s, const struct stat *st)
{
	return s->mtime.tv_sec == st->st_mtim.tv_sec &&
	    s->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	    s->size == st->st_size && s->ino == st->st_ino;
}

void
rt_record(struct names_found *f, const char *path, const struct stat *st)
{
	/* A path too long to keep is not watched: it is never cut. */
	if (strlen(path) >= sizeof(f->src))
		return;
	memcpy(f->src, path, strlen(path) + 1);
	rt_stamp_of(&f->stamp, st);
}

void
names_found_cgpath(struct names_found *f, const char *cgpath)
{
	size_t k;

	if (cgpath == NULL || strlen(cgpath) >= sizeof(f->cgpath[0]))
		return;
	for (k = 0; k < NAMES_CGPATHS; k++)
		if (f->cgpath[k][0] == '\0') {
			strcpy(f->cgpath[k], cgpath);
			return;
		}
}

/*
 * systemd's cgroup for a slice unit: "a-b-c.slice" is
 * /a.slice/a-b.slice/a-b-c.slice, "" and "-.slice" the root ("").
 * -EINVAL for a name systemd would refuse.
 */
static int
slice_path(char *buf, size_t len, const char *slice, size_t n)
{
	size_t i, k = 0;

	buf[0] = '\0';
	if (n == 0 || (n == 7 && memcmp(slice, "-.slice", 7) == 0))
		return 0;
	if (n <= 6 || memcmp(slice + n - 6, ".slice", 6) != 0)
		return -EINVAL;
	n -= 6;
	if (slice[0] == '-' || slice[n - 1] == '-' ||
	    memchr(slice, '/', n) != NULL)
		return -EINVAL;
	for (i = 0; i <= n; i++) {
		if (i < n && slice[i] != '-')
			continue;
		if (i < n && slice[i + 1] == '-')
			return -EINVAL;
		if (k + i + 8 > len)
			return -ENAMETOOLONG;
		buf[k++] = '/';
		memcpy(buf + k, slice, i);
		memcpy(buf + k + i, ".slice", 6);
		k += i + 6;
	}
	buf[k] = '\0';
	return 0;
}

/* The cgroup (from the mount) that an OCI cgroupsPath names, as runc
 * and crun make it.  0 or -EINVAL. */
static int
cgpath_expand(char *buf, size_t len, const char *cgpath)
{
	const char *c1, *c2, *p, *name;
	size_t k, n;
	int r;

	if (cgpath[0] == '/') {
		/* cgroupfs: an absolute path, no "." or ".." in it. */
		for (p = cgpath; *p; p += n) {
			while (*p == '/')
				p++;
			n = strcspn(p, "/");
			if ((n == 1 && p[0] == '.') ||
			    (n == 2 && p[0] == '.' && p[1] == '.'))
				return -EINVAL;
		}
		n = strlen(cgpath);
		while (n > 0 && cgpath[n - 1] == '/')
			n--;
		if (n == 0 || n >= len)
			return -EINVAL;
		memcpy(buf, cgpath, n);
		buf[n] = '\0';
		return 0;
	}
	/* systemd: "slice:prefix:name", the unit "prefix-name.scope". */
	if ((c1 = strchr(cgpath, ':')) == NULL ||
	    (c2 = strchr(c1 + 1, ':')) == NULL || strchr(c2 + 1, ':') ||
	    memchr(c1, '/', (size_t)(c2 - c1)) != NULL)
		return -EINVAL;
	name = c2 + 1;
	if (name[0] == '\0' || strchr(name, '/') ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	if ((r = slice_path(buf, len, cgpath, (size_t)(c1 - cgpath))) < 0)
		return r;
	k = strlen(buf);
	n = strlen(name);
	if (n > 6 && strcmp(name + n - 6, ".slice") == 0)
		r = snprintf(buf + k, len - k, "/%s", name);
	else
		r = snprintf(buf + k, len - k, "/%.*s%s%s.scope",
		    (int)(c2 - c1 - 1), c1 + 1, c2 > c1 + 1 ? "-" : "", name);
	return r < 0 || (size_t)r >= len - k ? -EINVAL : 0;
}

int
names_cgroup_match(const char *cgpath, const char *cgroup)
{
	char want[4096];
	size_t n;

	if (cgroup == NULL || cgpath_expand(want, sizeof(want), cgpath) < 0)
		return 0;
	n = strlen(want);
	return strncmp(cgroup, want, n) == 0 &&
	    (cgroup[n] == '\0' || cgroup[n] == '/');
}

/* Does f (a reader's answer) place the container at cgroup? */
static int
found_placed(const struct names_found *f, const char *cgroup)
{
	size_t k;

	for (k = 0; k < NAMES_CGPATHS; k++)
		if (f->cgpath[k][0] && names_cgroup_match(f->cgpath[k],
		    cgroup))
			return 1;
	return 0;
}

int
names_delegated(const char *cgroot, const char *cgroup)
{
	char path[4096];
	struct stat st;
	uid_t owner;
	size_t i, n;
	int rfd, r = 1;

	if (cgroot == NULL || cgroot[0] == '\0' || cgroup[0] != '/' ||
	    (n = strlen(cgroup)) >= sizeof(path))
		return 1;
	if ((rfd = open(cgroot, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 1;
	if (fstat(rfd, &st) < 0)
		goto out;
	owner = st.st_uid;
	/* Each cgroup from the top down to cgroup itself. */
	memcpy(path, cgroup + 1, n);
	for (i = 0; i < n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		if (i == 0)
			continue;
		path[i] = '\0';
		if (fstatat(rfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_uid != owner)
			goto out;
		path[i] = i + 1 < n ? '/' : '\0';
	}
	r = 0;
out:
	close(rfd);
	return r;
}

int
rt_fail(struct names_found *f, const struct rt_root *d, const char *path,
    int r)
{
	char full[4096];

	if (rt_path(full, sizeof(full), d->root, "%s", path) < 0)
		snprintf(full, sizeof(full), "%s", path);
	snprintf(f->err, sizeof(f->err), "%.*s: %s", (int)utf8_prefix(full,
	    400), full,
	    r == -EINVAL ? "not a regular file" : r == -EBADMSG ? "not valid JSON" : r == -EFBIG ?
	    "larger than the limit" : r == -EPROTO ? "not the layout expected" :
	    r == -E2BIG ? "more values or entries than the limit" :
	    strerror(-r));
	return r;
}

void
rt_root_init(struct rt_root *d, const char *rootfs)
{
	snprintf(d->root, sizeof(d->root), "%s", rootfs);
	d->fd = -1;
}

void
rt_root_fini(struct rt_root *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* The root's fd, opened at first use (the root may come later). */
static int
rt_root_fd(struct rt_root *d)
{
	if (d->fd < 0 && (d->fd = open(d->root, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -errno;
	return d->fd;
}

int
rt_root_open(const char *rootfs, void **data)
{
	struct rt_root *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -ENOMEM;
	rt_root_init(d, rootfs);
	*data = d;
	return 0;
}

void
rt_root_close(void *data)
{
	if (data)
		rt_root_fini(data);
	free(data);
}

int
rt_json(struct rt_root *d, const char *path, size_t max,
    struct json_object **out, struct stat *st)
{
	int fd;

	if ((fd = rt_root_fd(d)) < 0)
		return fd;
	return jsonfile_read(fd, path, max, out, st);
}

int
rt_json_array(struct rt_root *d, const char *path, size_t max,
    int (*each)(struct json_object *entry, void *arg), void *arg,
    struct stat *st)
{
	int fd;

	if ((fd = rt_root_fd(d)) < 0)
		return fd;
	return jsonfile_read_array(fd, path, max, each, arg, st);
}

DIR *
rt_opendir(struct rt_root *d, const char *path)
{
	DIR *ds;
	int rfd, fd;

	if ((rfd = rt_root_fd(d)) < 0) {
		errno = -rfd;
		return NULL;
	}
	if ((fd = inroot_open(rfd, path, O_RDONLY | O_DIRECTORY |
	    O_NONBLOCK)) < 0) {
		errno = -fd;
		return NULL;
	}
	if ((ds = fdopendir(fd)) == NULL) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return ds;
}

int
rt_stat(struct rt_root *d, const char *path, struct stat *st)
{
	int rfd, fd, r = 0;

	if ((rfd = rt_root_fd(d)) < 0)
		return rfd;
	if ((fd = inroot_open(rfd, path, O_PATH)) < 0)
		return fd;
	if (fstat(fd, st) < 0)
		r = -errno;
	close(fd);
	return r;
}

int
rt_path(char *buf, size_t len, const char *rootfs, const char *fmt, ...)
{
	size_t n = strlen(rootfs);
	va_list ap;
	int m;

	while (n > 0 && rootfs[n - 1] == '/')
		n--;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, rootfs, n);
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

int
names_id_valid(const char *id)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return id[64] == '\0';
}

/* ---- the map ------------------------------------------------------ */

static int
pair_cmp(const char *ida, const char *cga, const char *idb, const char *cgb)
{
	int r = strcmp(ida, idb);

	return r ? r : strcmp(cga, cgb);
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct namemap_entry *x = a, *y = b;

	return pair_cmp(x->id, x->cgroup, y->id, y->cgroup);
}

const struct namemap_entry *
namemap_find(const struct namemap *m, const char *id, const char *cgroup)
{
	struct namemap_entry key = { .id = id, .cgroup = cgroup };

	if (m == NULL || m->nr == 0 || cgroup == NULL)
		return NULL;
	return bsearch(&key, m->e, m->nr, sizeof(*m->e), entry_cmp);
}

void
namemap_unref(struct namemap *m)
{
	if (m != NULL)
		publish_unref(&m->ref);
}

/* The last reference's destructor: a map is one block. */
static void
namemap_free(struct publish_ref *r)
{
	free(publish_of(r, struct namemap, ref));
}

/* One block: the header, the entries, then their strings. */
static struct namemap *
namemap_build(const struct centry *c, size_t nr)
{
	struct namemap *m;
	size_t i, k, n = 0, bytes = 0;
	char *p;

	for (i = 0; i < nr; i++) {
		if (!c[i].looked)
			continue;
		n++;
		bytes += strlen(c[i].id) + strlen(c[i].cgroup) + 2;
		for (k = 0; k < NAMES_NR; k++)
			bytes += c[i].v[k] ? strlen(c[i].v[k]) + 1 : 0;
	}
	m = malloc(sizeof(*m) + n * sizeof(*m->e) + bytes);
	if (m == NULL)
		return NULL;
	publish_ref_init(&m->ref, namemap_free);
	m->nr = 0;
	m->e = (struct namemap_entry *)(m + 1);
	p = (char *)(m->e + n);
	for (i = 0; i < nr; i++) {
		struct namemap_entry *e;

		if (!c[i].looked)
			continue;
		e = &m->e[m->nr++];
		e->id = p;
		p = stpcpy(p, c[i].id) + 1;
		e->cgroup = p;
		p = stpcpy(p, c[i].cgroup) + 1;
		e->found = c[i].found;
		e->sandbox = c[i].sandbox;
		for (k = 0; k < NAMES_NR; k++) {
			e->v[k] = NULL;
			if (c[i].v[k]) {
				e->v[k] = p;
				p = stpcpy(p, c[i].v[k]) + 1;
			}
		}
	}
	return m;
}

struct namemap *
names_map(struct names *n)
{
	struct publish_ref *r = publish_get(&n->map);

	return r ? publish_of(r, struct namemap, ref) : NULL;
}

/* ---- the cache ---------------------------------------------------- */

static void
centry_clear(struct centry *e)
{
	size_t k;

	for (k = 0; k < NAMES_NR; k++) {
		if (e->owned)
			free(e->v[k]);
		e->v[k] = NULL;
	}
	e->owned = 0;
}

/*
 * The cache's names, once in the map m just built from it, point into m
 * (whose reference the slot n->map keeps): each name is held once,
 * not once in the cache and once in the map.  m's entries are the
 * looked-up cache entries, in the same order.
 */
static void
cache_share(struct names *n, const struct namemap *m)
{
	size_t i, j = 0, k;

	for (i = 0; i < n->nr_cache; i++) {
		struct centry *e = &n->cache[i];

		if (!e->looked)
			continue;
		for (k = 0; k < NAMES_NR; k++) {
			if (e->owned)
				free(e->v[k]);
			e->v[k] = (char *)m->e[j].v[k];
		}
		e->owned = 0;
		j++;
	}
}

static int
want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return pair_cmp(x->id, x->cgroup, y->id, y->cgroup);
}

static void
want_free(struct want *w, size_t nr)
{
	size_t i;

	for (i = 0; w && i < nr; i++) {
		free(w[i].id);
		free(w[i].cgroup);
	}
	free(w);
}

static void
centry_free(struct centry *e)
{
	centry_clear(e);
	free(e->src);
	free(e->id);
	free(e->cgroup);
}

/*
 * Make the cache hold exactly the pairs in want (sorted here; the
 * strings are taken over and want freed).  1 if an entry went, 0, or
 * -ENOMEM: the cache unchanged, want left to the caller, whole.
 */
static int
cache_merge(struct names *n, struct want *want, size_t nr)
{
	struct centry *next;
	size_t i, j = 0, k = 0, gone = 0;

	qsort(want, nr, sizeof(*want), want_cmp);
	if ((next = calloc(nr + 1, sizeof(*next))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct want *w = &want[i];

		if (k > 0 && pair_cmp(next[k - 1].id, next[k - 1].cgroup,
		    w->id, w->cgroup) == 0) {
			free(w->id);
			free(w->cgroup);
			continue;
		}
		while (j < n->nr_cache && pair_cmp(n->cache[j].id,
		    n->cache[j].cgroup, w->id, w->cgroup) < 0) {
			centry_free(&n->cache[j++]);
			gone++;
		}
		if (j < n->nr_cache && pair_cmp(n->cache[j].id,
		    n->cache[j].cgroup, w->id, w->cgroup) == 0) {
			next[k++] = n->cache[j++];
			free(w->id);
			free(w->cgroup);
		} else
			next[k++] = (struct centry){ .id = w->id,
			    .cgroup = w->cgroup };
	}
	for (; j < n->nr_cache; j++) {
		centry_free(&n->cache[j]);
		gone++;
	}
	free(want);
	free(n->cache);
	n->cache = next;
	n->nr_cache = k;
	return gone > 0;
}

/* ---- looking up --------------------------------------------------- */

#define LOG(n, prio, ...) do {						\
	if ((n)->o.log)							\
		(n)->o.log((prio), __VA_ARGS__);			\
} while (0)

/* Each reader's runtime: here or not, said once per change. */
static void
probe_all(struct names *n)
{
	char where[512];
	size_t i;
	int r;

	for (i = 0; i < NREADERS; i++) {
		struct reader *rd = &n->rd[i];

		where[0] = '\0';
		r = rd->ops->probe(rd->data, where, sizeof(where));
		if (r == rd->state)
			continue;
		if (r == 0)
			LOG(n, 6, "container names: reading %s state in %s",
			    rd->ops->name, where);
		else if (r == -ENOENT)
			LOG(n, 6, "container names: no "
			    "%s state here (%s absent)%s", rd->ops->name,
			    where, rd->state == 1 ? "" : ": its containers "
			    "keep only their ids");
		else
			LOG(n, 4, "container names: %s state unreadable: "
			    "%s: %s; its containers keep only their ids",
			    rd->ops->name, where, strerror(-r));
		rd->state = r;
		snprintf(rd->where, sizeof(rd->where), "%s", where);
	}
}

/* Every reader present, in order, until one knows id: 1, or 0. */
static int
lookup_id(struct names *n, const char *id, struct names_found *f,
    int *err, int probed)
{
	uint64_t t0, dt;
	size_t i;
	int r;

	*err = 0;
	for (i = 0; i < NREADERS; i++) {
		struct reader *rd = &n->rd[i];

		if (probed && rd->state != 0)
			continue;
		memset(f, 0, sizeof(*f));
		t0 = mono_ns();
		r = rd->ops->find(rd->data, id, f);
		dt = mono_ns() - t0;
		if (probed && (dt >= SLOW_NS) != rd->slow) {
			rd->slow = dt >= SLOW_NS;
			if (rd->slow)
				LOG(n, 4, "container names: reading %s state "
				    "is slow (%.1fs for one container); "
				    "names may come late", rd->ops->name,
				    (double)dt / 1e9);
			else
				LOG(n, 6, "container names: reading %s state "
				    "is fast again", rd->ops->name);
		}
		if (r == 0)
			return 1;
		if (r != -ENOENT && *err == 0)
			*err = r;	/* f->err says where */
	}
	return 0;
}

int
names_lookup(struct names *n, const char *id, const char *cgroup,
    struct names_found *f)
{
	int err;

	if (!names_id_valid(id))
		return 0;
	return lookup_id(n, id, f, &err, 0) && found_placed(f, cgroup);
}

/* Has the record e's names came from changed since (or gone)? */
static int
record_changed(struct names *n, const struct centry *e)
{
	struct stat st;

	if (e->src == NULL)
		return 0;		/* nothing to watch */
	return rt_stat(&n->root, e->src, &st) < 0 ||
	    !rt_stamp_same(&e->stamp, &st);
}

/* Do f's names differ from e's? */
static int
names_differ(const struct centry *e, const struct names_found *f)
{
	size_t k;

	if (e->sandbox != (f->sandbox && !e->delegated))
		return 1;
	for (k = 0; k < NAMES_NR; k++)
		if (strcmp(e->v[k] ? e->v[k] : "", f->v[k]) != 0)
			return 1;
	return 0;
}

/* Make *next_ns at most t. */
static void
due_by(uint64_t *next_ns, uint64_t t)
{
	if (t < *next_ns)
		*next_ns = t;
}

/* Look e up now, and keep what its runtime's record says: 1 if its
 * names changed.  *now: the clock after the lookup. */
static int
resolve_one(struct names *n, struct centry *e, uint64_t *now,
    uint64_t *next_ns)
{
	struct names_found *f = &n->found;
	uint64_t backoff;
	int changed = 0, hit, err, misplaced;
	size_t k;

	if (!n->probed || *now - n->probed_ns >= PROBE_NS) {
		probe_all(n);
		n->probed = 1;
		n->probed_ns = *now;
	}
	if (!e->looked)
		e->delegated = names_delegated(n->cgroot, e->cgroup);
	hit = lookup_id(n, e->id, f, &err, 1);
	*now = mono_ns();
	if (err && !e->logged) {
		e->logged = 1;
		LOG(n, 4, "container names: %s; container %.12s keeps only "
		    "its id", f->err, e->id);
	}
	/* The id is in the cgroup's name, which anyone may choose; the
	 * runtime's record says where the container is. */
	misplaced = hit && !found_placed(f, e->cgroup);
	if (misplaced) {
		hit = 0;
		if (!e->misplaced_logged++)
			LOG(n, 4, "container names: cgroup %s carries the id "
			    "of container %.12s, which its runtime places "
			    "elsewhere (%s): not named", e->cgroup, e->id,
			    f->cgpath[0][0] ? f->cgpath[0] :
			    "no cgroup in its record");
	}
	if (!hit && e->found && !misplaced) {
		/* Its record is gone or unreadable now: the names stay
		 * (the container is going, or being rewritten) and the
		 * record is checked again later. */
		due_by(next_ns, e->check_ns);
		return 0;
	}
	if (!hit && e->found) {
		/* Its record places it elsewhere now: unnamed. */
		centry_clear(e);
		e->found = e->sandbox = 0;
		changed = 1;
	}
	if (!hit) {
		backoff = RETRY_MIN_NS << (e->tries < 8 ? e->tries : 8);
		e->retry_ns = *now + (backoff < RETRY_MAX_NS ? backoff :
		    RETRY_MAX_NS);
		e->tries++;
		due_by(next_ns, e->retry_ns);
		changed |= !e->looked;
		e->looked = 1;
		return changed;
	}
	free(e->src);
	e->src = f->src[0] ? strdup(f->src) : NULL;
	e->stamp = f->stamp;
	e->check_ns = *now + REFRESH_NS;
	due_by(next_ns, e->check_ns);
	if (e->found && !names_differ(e, f))
		return 0;	/* rewritten, same names */
	centry_clear(e);
	e->owned = 1;
	for (k = 0; k < NAMES_NR; k++)
		if (f->v[k][0] && (e->v[k] = strdup(f->v[k])) == NULL)
			break;	/* ENOMEM: fewer labels */
	/* Never hidden in a subtree a user was delegated. */
	e->sandbox = f->sandbox && !e->delegated;
	e->looked = e->found = 1;
	return 1;
}

/* Look up what is due, within the round's budget.  1 if the map
 * changes; *next_ns: when the next retry or check is due (0: at
 * once). */
static int
resolve_due(struct names *n, uint64_t *next_ns)
{
	uint64_t t0 = mono_ns(), now = t0;
	size_t i, done = 0, checks = 0;
	int changed = 0;

	*next_ns = UINT64_MAX;
	for (i = 0; i < n->nr_cache; i++) {
		struct centry *e = &n->cache[i];

		if (e->looked && !e->found && e->retry_ns > now) {
			due_by(next_ns, e->retry_ns);
			continue;
		}
		if (e->found && e->check_ns > now) {
			due_by(next_ns, e->check_ns);
			continue;
		}
		if (done >= ROUND_LOOKUPS || now - t0 >= ROUND_NS) {
			*next_ns = 0;
			break;
		}
		if (e->found) {
			/* Due for a check: the record's stat(), bounded. */
			if (checks >= REFRESH_CHECKS) {
				due_by(next_ns, now + REFRESH_PAUSE_NS);
				continue;
			}
			checks++;
			e->check_ns = now + REFRESH_NS;
			if (!record_changed(n, e)) {
				due_by(next_ns, e->check_ns);
				continue;
			}
		}
		done++;
		changed |= resolve_one(n, e, &now, next_ns);
	}
	return changed;
}

/* ---- the thread --------------------------------------------------- */

/* With n->lock held: wait until asked to stop, given a new set, or due
 * (next_ns).  Woken by names_want; at the latest once a minute. */
static void
names_wait(struct names *n, uint64_t *next_ns)
{
	struct timespec until;
	uint64_t now;

	while (!n->stop && !n->have_want && *next_ns > mono_ns()) {
		now = mono_ns();
		if (*next_ns - now > 60000000000ULL)
			*next_ns = now + 60000000000ULL;
		until.tv_sec = (time_t)(*next_ns / 1000000000ULL);
		until.tv_nsec = (long)(*next_ns % 1000000000ULL);
		pthread_cond_timedwait(&n->wake, &n->lock, &until);
	}
}

static void *
names_main(void *arg)
{
	struct names *n = arg;
	uint64_t next_ns = UINT64_MAX;
	struct namemap *m;
	struct want *want, *held = NULL;
	size_t nr, nr_held = 0;
	char cgroot[4096], held_root[4096];
	int changed, have, r;

	for (;;) {
		pthread_mutex_lock(&n->lock);
		names_wait(n, &next_ns);
		if (n->stop) {
			pthread_mutex_unlock(&n->lock);
			break;
		}
		want = n->want;
		nr = n->nr_want;
		have = n->have_want;
		memcpy(cgroot, n->want_cgroot, sizeof(cgroot));
		n->want = NULL;
		n->nr_want = 0;
		n->have_want = 0;
		pthread_mutex_unlock(&n->lock);

		/* A set that could not be merged is merged now, unless a
		 * newer one came. */
		if (held && have)
			want_free(held, nr_held);
		else if (held) {
			want = held;
			nr = nr_held;
			memcpy(cgroot, held_root, sizeof(cgroot));
			have = 1;
		}
		held = NULL;
		changed = 0;
		if (have) {
			if (nr > MAX_IDS) {
				if (!n->logged_cap++)
					LOG(n, 4, "container names: %zu "
					    "containers; names are kept for "
					    "%d of them", nr, MAX_IDS);
				while (nr > MAX_IDS) {
					nr--;
					free(want[nr].id);
					free(want[nr].cgroup);
				}
			}
			if ((r = cache_merge(n, want, nr)) == -ENOMEM) {
				/* Kept, not lost: the collector told it
				 * once and will not again. */
				held = want;
				nr_held = nr;
				memcpy(held_root, cgroot, sizeof(held_root));
			} else {
				memcpy(n->cgroot, cgroot, sizeof(n->cgroot));
				changed = r > 0;
			}
		}
		changed |= resolve_due(n, &next_ns);
		if (changed && (m = namemap_build(n->cache, n->nr_cache))) {
			cache_share(n, m);
			publish_swap(&n->map, &m->ref);
		} else if (changed)
			next_ns = 0;	/* ENOMEM: build it again soon */
		if (held && next_ns > mono_ns() + ROUND_NS)
			next_ns = mono_ns() + ROUND_NS;
	}
	want_free(held, nr_held);
	return NULL;
}

/* ---- public ------------------------------------------------------- */

int
names_new(const struct names_opts *o, struct names **out)
{
	pthread_condattr_t ca;
	struct namemap *m;
	struct names *n;
	size_t i;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return -ENOMEM;
	n->o = *o;
	snprintf(n->rootfs, sizeof(n->rootfs), "%s", o->rootfs ? o->rootfs :
	    "/");
	n->o.rootfs = n->rootfs;
	rt_root_init(&n->root, n->rootfs);
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		free(n);
		return -ENOMEM;
	}
	publish_ref_init(&m->ref, namemap_free);
	publish_slot_init(&n->map, &m->ref);
	pthread_mutex_init(&n->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->wake, &ca);
	pthread_condattr_destroy(&ca);
	for (i = 0; i < NREADERS; i++) {
		n->rd[i].ops = readers[i];
		n->rd[i].state = 1;
		if (readers[i]->open(n->rootfs, &n->rd[i].data) < 0) {
			names_free(n);
			return -ENOMEM;
		}
	}
	*out = n;
	return 0;
}

int
names_start(struct names *n)
{
	int r;

	if ((r = pthread_create(&n->thread, NULL, names_main, n)) != 0)
		return -r;
	n->started = 1;
	return 0;
}

void
names_free(struct names *n)
{
	size_t i;

	if (n == NULL)
		return;
	if (n->started) {
		struct timespec until;

		pthread_mutex_lock(&n->lock);
		n->stop = 1;
		pthread_cond_signal(&n->wake);
		pthread_mutex_unlock(&n->lock);
		/*
		 * A lookup may hang in the kernel (a hung network file
		 * system): shutdown does not wait for it.  The thread is
		 * left with everything it uses, which the exiting process
		 * takes with it.
		 */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += STOP_S;
		if (pthread_timedjoin_np(n->thread, NULL, &until) != 0) {
			LOG(n, 4, "container names: a lookup did not end "
			    "within %ds; not waiting for it", STOP_S);
			pthread_detach(n->thread);
			return;
		}
	}
	for (i = 0; i < NREADERS; i++)
		if (n->rd[i].ops && n->rd[i].data)
			n->rd[i].ops->close(n->rd[i].data);
	for (i = 0; i < n->nr_cache; i++)
		centry_free(&n->cache[i]);
	free(n->cache);
	rt_root_fini(&n->root);
	want_free(n->want, n->nr_want);
	publish_slot_fini(&n->map);
	pthread_cond_destroy(&n->wake);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

int
names_want(struct names *n, const char *cgroot, const char *const *ids,
    const char *const *cgroups, size_t nr)
{
	struct want *set, *old;
	size_t i, k = 0, nold;

	if ((set = calloc(nr + 1, sizeof(*set))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!names_id_valid(ids[i]) || cgroups[i] == NULL)
			continue;
		set[k].id = strdup(ids[i]);
		set[k].cgroup = strdup(cgroups[i]);
		k++;
		if (set[k - 1].id == NULL || set[k - 1].cgroup == NULL) {
			want_free(set, k);
			return -ENOMEM;
		}
	}
	pthread_mutex_lock(&n->lock);
	old = n->want;
	nold = n->nr_want;
	n->want = set;
	n->nr_want = k;
	n->have_want = 1;
	snprintf(n->want_cgroot, sizeof(n->want_cgroot), "%s",
	    cgroot ? cgroot : "");
	pthread_cond_signal(&n->wake);
	pthread_mutex_unlock(&n->lock);
	want_free(old, nold);
	return 0;
}
