/*
 * runtime.c - what the runtime readers share (runtime.h): the answer filled
 * in, its record's stamp, the files under the root, errors, and the cgroup
 * placement and delegation checks.
 * Design: docs/architecture.md, "names/".
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names/jsonfile.h"
#include "names/runtime.h"
#include "util/inroot.h"
#include "util/utf8.h"

void
names_found_set(struct names_found *f, enum names_label l, const char *s)
{
	size_t n = utf8_prefix(s ? s : "", sizeof(f->v[l]) - 1);

	/* Cut between characters, the bytes kept: the exposition makes
	 * them valid UTF-8 one-to-one, so two names stay two. */
	memcpy(f->v[l], s ? s : "", n);
	f->v[l][n] = '\0';
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
