/*
 * statefile.c - the daemon's own state file (statefile.h): the envelope
 * written beside the file and renamed over it, read back only when safe.
 * Hand-written: a few system calls in the order that makes them safe, which no
 * library of Debian's does as one.
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/statefile.h"

#define HEADER (STATEFILE_MAGIC_LEN + 4 + 8 + 4)

static void
put_le(unsigned char *p, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t
get_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint32_t
crc_of(const void *p, size_t len)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const unsigned char *b = p;

	while (len > 0) {
		uInt n = len > 1U << 30 ? 1U << 30 : (uInt)len;

		c = crc32(c, b, n);
		b += n;
		len -= n;
	}
	return (uint32_t)c;
}

/* Is the file (or directory) st only this user's (or root's) to write? */
static int
ours(const struct stat *st)
{
	return (st->st_uid == geteuid() || st->st_uid == 0) &&
	    !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int
write_all(int fd, const void *p, size_t len)
{
	const char *b = p;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, b, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory of path, opened, when only this user can write it. */
static int
open_dir(const char *path)
{
	char buf[PATH_MAX];
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	fd = open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !ours(&st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int
statefile_write(const char *path, const char *magic, uint32_t version,
    const void *payload, size_t len)
{
	unsigned char h[HEADER];
	char tmp[PATH_MAX];
	int dfd, fd, r;

	if ((dfd = open_dir(path)) < 0)
		return dfd;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >=
	    sizeof(tmp)) {
		close(dfd);
		return -ENAMETOOLONG;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	memcpy(h, magic, STATEFILE_MAGIC_LEN);
	put_le(h + STATEFILE_MAGIC_LEN, version, 4);
	put_le(h + STATEFILE_MAGIC_LEN + 4, len, 8);
	put_le(h + STATEFILE_MAGIC_LEN + 12, crc_of(payload, len), 4);
	if ((r = fchmod(fd, 0600) < 0 ? -errno : 0) == 0 &&
	    (r = write_all(fd, h, sizeof(h))) == 0 &&
	    (r = write_all(fd, payload, len)) == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void)unlink(tmp);
	else
		(void)fsync(dfd);	/* the rename itself, on disk */
	close(dfd);
	return r;
}

/* The file at path opened for reading as statefile_read allows. */
static int
open_own(const char *path, size_t max, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		r = -errno;
	else if (!S_ISREG(st->st_mode))
		r = -EINVAL;
	else if (!ours(st))
		r = -EPERM;
	else if ((uint64_t)st->st_size > (uint64_t)max + HEADER)
		r = -EFBIG;
	else
		return fd;
	close(fd);
	return r;
}

/* Read exactly len bytes, or -EBADMSG when the file ends first. */
static int
read_all(int fd, void *p, size_t len)
{
	char *b = p;
	ssize_t n;

	while (len > 0) {
		if ((n = read(fd, b, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -EIO;
		}
		if (n == 0)
			return -EBADMSG;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int
statefile_read(const char *path, const char *magic, uint32_t version,
    size_t max, void **out, size_t *len)
{
	unsigned char h[HEADER];
	struct stat st;
	uint64_t n;
	void *buf = NULL;
	int fd, r;

	if ((fd = open_own(path, max, &st)) < 0)
		return fd;
	if ((r = read_all(fd, h, sizeof(h))) < 0)
		goto out;
	n = get_le(h + STATEFILE_MAGIC_LEN + 4, 8);
	if (memcmp(h, magic, STATEFILE_MAGIC_LEN) != 0 ||
	    get_le(h + STATEFILE_MAGIC_LEN, 4) != version)
		r = -EPROTO;
	else if (n > max)
		r = -EFBIG;
	else if (n != (uint64_t)st.st_size - HEADER)
		r = -EBADMSG;
	else if ((buf = malloc(n ? n : 1)) == NULL)
		r = -ENOMEM;
	else if ((r = read_all(fd, buf, n)) == 0 &&
	    crc_of(buf, n) != get_le(h + STATEFILE_MAGIC_LEN + 12, 4))
		r = -EBADMSG;
out:
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	*len = n;
	return 0;
}

const char *
statefile_strerror(int r)
{
	switch (r) {
	case -ELOOP:
		return "a symbolic link, not the daemon's file";
	case -EINVAL:
		return "not a regular file";
	case -EPERM:
		return "another user's, or writable by others";
	case -EFBIG:
		return "larger than the state can be";
	case -EBADMSG:
		return "truncated or corrupt (its CRC does not match)";
	case -EPROTO:
		return "not this version's state";
	default:
		return strerror(-r);
	}
}
