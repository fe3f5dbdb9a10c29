/*
 * inroot.h - files opened under a root directory as if it were "/" (the
 * container runtimes' state under --path.rootfs): every link resolves inside
 * the root, no magic link is followed.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_INROOT_H
#define PMU_INROOT_H

#include <sys/stat.h>

/*
 * Open path under rootfd (an O_PATH or O_DIRECTORY fd of the root) with
 * flags (O_CLOEXEC is added; O_PATH, O_DIRECTORY, O_RDONLY, O_NONBLOCK,
 * O_NOCTTY are what the callers use).  The fd, or -errno: -ELOOP or
 * -ENOTDIR for a link the fallback refuses, -EXDEV for a "..".
 */
int inroot_open(int rootfd, const char *path, int flags);

/*
 * Open the regular file at path under rootfd for reading, without
 * blocking and without opening anything else: it is looked up with
 * O_PATH, refused (-EINVAL) unless fstat says it is a regular file (a
 * FIFO or a device is never opened, so never waited on or read), then
 * opened through that very inode (/proc/self/fd) with O_NONBLOCK.  *st
 * is its status.  The fd, or -errno.
 */
int inroot_open_file(int rootfd, const char *path, struct stat *st);

#endif
