/*
 * inroot.c - opening under a root (inroot.h): openat2, or a walk one component
 * at a time where the kernel lacks it.
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "util/inroot.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static atomic_int no_openat2;

/*
 * Without openat2: each component opened with O_NOFOLLOW from the one
 * before, so no link is followed at all (an intermediate link fails
 * O_DIRECTORY with ENOTDIR, a last one O_NOFOLLOW with ELOOP, or with
 * O_PATH opens the link itself, which is no regular file).
 */
static int
inroot_walk(int rootfd, const char *path, int flags)
{
	char comp[256];
	const char *p = path, *end;
	size_t n;
	int fd, next;

	if ((fd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (;;) {
		while (*p == '/')
			p++;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		while (end && end[1] == '/')
			end++;
		if (end && end[1] == '\0')
			end = NULL;	/* "a/b/": b is the last */
		if (n >= sizeof(comp)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (strcmp(comp, "..") == 0) {
			close(fd);
			return -EXDEV;
		}
		if (end == NULL)
			break;
		if (n > 0 && strcmp(comp, ".") != 0) {
			next = openat(fd, comp, O_PATH | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			close(fd);
			if (next < 0)
				return -errno;
			fd = next;
		}
		p = end + 1;
	}
	next = openat(fd, n ? comp : ".", flags | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	return next < 0 ? -errno : next;
}

int
inroot_open(int rootfd, const char *path, int flags)
{
	struct open_how how;
	long fd;

	if (!atomic_load_explicit(&no_openat2, memory_order_relaxed)) {
		memset(&how, 0, sizeof(how));
		how.flags = (unsigned long long)(flags | O_CLOEXEC);
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		do
			fd = syscall(SYS_openat2, rootfd, path, &how,
			    sizeof(how));
		while (fd < 0 && (errno == EINTR || errno == EAGAIN));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		atomic_store_explicit(&no_openat2, 1, memory_order_relaxed);
	}
	return inroot_walk(rootfd, path, flags);
}

int
inroot_open_file(int rootfd, const char *path, struct stat *st)
{
	char proc[64];
	struct stat st2;
	int pfd, fd, r;

	if ((pfd = inroot_open(rootfd, path, O_PATH)) < 0)
		return pfd;
	if (fstat(pfd, st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st->st_mode)) {
		r = -EINVAL;
		goto out;
	}
	/* The inode just checked, not the path again (it may have been
	 * swapped since); without /proc, the path, and the inode compared. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = inroot_open(rootfd, path, O_RDONLY | O_NONBLOCK |
		    O_NOCTTY);
	else if (fd < 0)
		fd = -errno;
	if (fd < 0) {
		r = fd;
		goto out;
	}
	if (fstat(fd, &st2) < 0 || !S_ISREG(st2.st_mode) ||
	    st2.st_dev != st->st_dev || st2.st_ino != st->st_ino) {
		close(fd);
		r = -EINVAL;
		goto out;
	}
	r = fd;
out:
	close(pfd);
	return r;
}
