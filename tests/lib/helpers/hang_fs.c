/*
 * hang_fs.c - a file system whose reads never return, as a hard NFS
 * mount's do when its server is gone: the one thing O_NONBLOCK and a
 * regular-file check cannot guard against.  For tests/integration/tenant.test, which
 * puts a runtime's state file on it and checks that SIGTERM still ends
 * the daemon's work in time.
 *
 *   hang_fs DIR FILE
 *
 * mounts a FUSE file system at DIR (root only; no libfuse: the kernel's
 * protocol, <linux/fuse.h>, over /dev/fuse) holding one regular file
 * FILE of 16 bytes whose lookups, attributes and opens are answered and
 * whose reads are not.  Prints "ready" once the kernel's INIT is
 * answered; runs until killed (the kernel then fails whatever waits:
 * ENOTCONN), or until the file system is unmounted.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fuse.h>

static int fd;

static void
reply(uint64_t unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header h = { sizeof(h) + len, -error, unique };
	char buf[sizeof(h) + 256];

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), arg, len);
	if (write(fd, buf, sizeof(h) + len) < 0 && errno != ENOENT)
		perror("hang_fs: write");
}

static void
attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == FUSE_ROOT_ID ? S_IFDIR | 0555 : S_IFREG | 0444;
	a->nlink = node == FUSE_ROOT_ID ? 2 : 1;
	a->size = node == FUSE_ROOT_ID ? 0 : 16;
	a->blksize = 4096;
}

/* /dev/fuse, mounted at dir: 0, or -1 said. */
static int
mount_fuse(const char *dir)
{
	char opts[128];

	if ((fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0) {
		perror("hang_fs: /dev/fuse");
		return -1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,"
	    "group_id=0", fd);
	if (mount("hang_fs", dir, "fuse.hang_fs", MS_NOSUID | MS_NODEV,
	    opts) < 0) {
		perror("hang_fs: mount");
		return -1;
	}
	return 0;
}

/* The kernel's INIT: our version, then "ready". */
static void
answer_init(const struct fuse_in_header *in, const struct fuse_init_in *ii)
{
	struct fuse_init_out io;

	memset(&io, 0, sizeof(io));
	io.major = FUSE_KERNEL_VERSION;
	io.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
	    ii->minor : FUSE_KERNEL_MINOR_VERSION;
	io.max_readahead = ii->max_readahead;
	io.max_write = 4096;
	reply(in->unique, 0, &io, sizeof(io));
	printf("ready\n");
	fflush(stdout);
}

/* Only file, in the root, is there: node 2. */
static void
answer_lookup(const struct fuse_in_header *in, const char *name,
    const char *file)
{
	struct fuse_entry_out eo;

	if (in->nodeid != FUSE_ROOT_ID || strcmp(name, file) != 0) {
		reply(in->unique, ENOENT, NULL, 0);
		return;
	}
	memset(&eo, 0, sizeof(eo));
	eo.nodeid = 2;
	eo.entry_valid = eo.attr_valid = 3600;
	attr(&eo.attr, 2);
	reply(in->unique, 0, &eo, sizeof(eo));
}

static void
answer_getattr(const struct fuse_in_header *in)
{
	struct fuse_attr_out ao;

	memset(&ao, 0, sizeof(ao));
	ao.attr_valid = 3600;
	attr(&ao.attr, in->nodeid);
	reply(in->unique, 0, &ao, sizeof(ao));
}

/* One request: answered, unless it is a read.  1 after DESTROY. */
static int
answer(const struct fuse_in_header *in, const char *file)
{
	const void *arg = in + 1;
	struct fuse_open_out oo;

	switch (in->opcode) {
	case FUSE_INIT:
		answer_init(in, arg);
		break;
	case FUSE_LOOKUP:
		answer_lookup(in, arg, file);
		break;
	case FUSE_GETATTR:
		answer_getattr(in);
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		memset(&oo, 0, sizeof(oo));
		reply(in->unique, 0, &oo, sizeof(oo));
		break;
	case FUSE_READ:
	case FUSE_INTERRUPT:
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		break;		/* never answered; no answer expected */
	case FUSE_DESTROY:
		reply(in->unique, 0, NULL, 0);
		return 1;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		reply(in->unique, 0, NULL, 0);
		break;
	default:
		reply(in->unique, ENOSYS, NULL, 0);
		break;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: hang_fs DIR FILE\n");
		return 2;
	}
	if (mount_fuse(argv[1]) < 0)
		return 1;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0)
			break;		/* ENODEV: unmounted */
		if (answer((const struct fuse_in_header *)buf, argv[2]))
			return 0;
	}
	return 0;
}
