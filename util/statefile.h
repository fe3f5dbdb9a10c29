/*
 * statefile.h - a small file of the daemon's own state that outlives it (the
 * analysis's baselines), written whole or not at all, read back only when it
 * is certainly the daemon's own, whole and of the version asked.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_STATEFILE_H
#define PMU_STATEFILE_H

#include <stddef.h>
#include <stdint.h>

#define STATEFILE_MAGIC_LEN 8

/*
 * Write payload (len bytes) to path under magic (STATEFILE_MAGIC_LEN
 * bytes) and version: to a new file beside it (mode 0600), synced, then
 * renamed over path, so a reader sees the old file or the new one whole,
 * and a crash leaves one of them.  The directory must not be writable by
 * anyone but this user (or root): -EPERM, naming nothing written.  0 or
 * -errno.
 */
int statefile_write(const char *path, const char *magic, uint32_t version,
    const void *payload, size_t len);

/*
 * Read path's payload, at most max bytes, into *out (malloc'd; *len its
 * length), when the file is a regular file this user owns that no one
 * else can write, under magic and of version.  0; -ENOENT (none: start
 * afresh); -ELOOP (a link), -EINVAL (not a regular file: a FIFO, a
 * device), -EPERM (another user's, or writable by others), -EFBIG (over
 * max), -EBADMSG (truncated, or its CRC does not match: corrupt),
 * -EPROTO (another magic or version), -ENOMEM, -EIO.  Never blocks.
 */
int statefile_read(const char *path, const char *magic, uint32_t version,
    size_t max, void **out, size_t *len);

/* What statefile_read's error means, for a one-line log. */
const char *statefile_strerror(int r);

#endif
