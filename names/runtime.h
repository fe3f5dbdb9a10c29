/*
 * runtime.h - the readers of the container runtimes' on-disk state, one file
 * each (rt_*.c), behind one ops table that the resolver calls in order; what a
 * reader returns and trusts.
 * Design: docs/containers.md, "Whose names"; docs/architecture.md, "names/".
 */
#ifndef PMU_RUNTIME_H
#define PMU_RUNTIME_H

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "names/names_types.h"

/* Which file a record was read from, as far as a change shows: a
 * runtime rewrites its state files by rename (a new inode). */
struct rt_stamp {
	struct timespec mtime;
	off_t size;
	ino_t ino;
};

#define NAMES_CGPATHS 2

struct names_found {
	char v[NAMES_NR][256];		/* "": no such label */
	int sandbox;			/* a pod's sandbox (pause) container */
	/* Where the runtime's record puts the container's cgroup, as OCI
	 * linux.cgroupsPath says it: "slice:prefix:name" (systemd) or
	 * "/a/b" (cgroupfs); two when the record leaves the cgroup
	 * driver open (Docker); "": no place. */
	char cgpath[NAMES_CGPATHS][512];
	char err[512];			/* why, when a reader fails */
	/* The file the names came from (a path in the root; "": none)
	 * and its stamp then: when the stamp changes, the container is
	 * looked up again (a renamed container gets its new name). */
	char src[256];
	struct rt_stamp stamp;
};

struct rt_ops {
	const char *name;		/* for logs: "containerd (CRI)" */
	/* A reader's state over rootfs ("/" or --path.rootfs).  -ENOMEM. */
	int (*open)(const char *rootfs, void **data);
	void (*close)(void *data);
	/*
	 * Is the runtime here: 0 (its state directory is readable),
	 * -ENOENT (absent) or -errno; where in where.
	 */
	int (*probe)(void *data, char *where, size_t len);
	int (*find)(void *data, const char *id, struct names_found *f);
};

extern const struct rt_ops rt_containerd_ops, rt_storage_ops, rt_docker_ops;

/*
 * Where a reader reads: the root, as a path for messages and as an fd
 * that every file and directory is opened under (util/inroot.h), so
 * that no link in the runtimes' state leads out of --path.rootfs.
 */
struct rt_root {
	char root[4096];
	int fd;				/* -1 until it could be opened */
};
void rt_root_init(struct rt_root *d, const char *rootfs);
void rt_root_fini(struct rt_root *d);
/* The state of a reader that keeps nothing but where the root is
 * (containerd, Docker): its open and close. */
int rt_root_open(const char *rootfs, void **data);
void rt_root_close(void *data);

/* Parse path (in the root) as jsonfile_read does. */
int rt_json(struct rt_root *d, const char *path, size_t max,
    struct json_object **out, struct stat *st);
/* Read path (in the root), a JSON array, entry by entry, as
 * jsonfile_read_array does. */
int rt_json_array(struct rt_root *d, const char *path, size_t max,
    int (*each)(struct json_object *entry, void *arg), void *arg,
    struct stat *st);
/* The directory at path (in the root), or NULL with errno set. */
DIR *rt_opendir(struct rt_root *d, const char *path);
/* The status of path (in the root; a link in the root resolves in it).
 * 0 or -errno. */
int rt_stat(struct rt_root *d, const char *path, struct stat *st);

/* Copy s (may be NULL) into a label slot, cut between characters; ""
 * for NULL.  Its bytes are kept as they are (json-c passes any bytes):
 * the exposition's label writer makes them valid UTF-8 one-to-one. */
void names_found_set(struct names_found *f, enum names_label l,
    const char *s);

/* The stamp of st; is st's file still the one of s? */
void rt_stamp_of(struct rt_stamp *s, const struct stat *st);
int rt_stamp_same(const struct rt_stamp *s, const struct stat *st);
/* The names in f came from path (in the root), whose status was st. */
void rt_record(struct names_found *f, const char *path,
    const struct stat *st);

/* Add a place the record puts the container (OCI cgroupsPath form;
 * ignored when too long or when both slots are taken). */
void names_found_cgpath(struct names_found *f, const char *cgpath);

/*
 * Does cgpath (OCI linux.cgroupsPath: "slice:prefix:name" as runc's and
 * crun's systemd driver expand it, or an absolute cgroupfs path) place a
 * container at cgroup ("/a/b" from the cgroup mount) or at a cgroup that
 * holds it?  1 or 0 (malformed: 0).
 */
int names_cgroup_match(const char *cgpath, const char *cgroup);

/*
 * Is cgroup (under the mount cgroot) in a subtree delegated to a user:
 * it, or a cgroup above it, owned by someone other than the mount's
 * owner (systemd chowns a delegated cgroup to its user; so does runc
 * for a user-namespaced container)?  1, 0, or 1 when it cannot tell
 * (cgroot NULL, a stat failing): such a cgroup is never hidden.
 */
int names_delegated(const char *cgroot, const char *cgroup);

/* Say in f->err why path (in d's root) failed (r: -errno); return r. */
int rt_fail(struct names_found *f, const struct rt_root *d,
    const char *path, int r);

/* "<rootfs><path>" into buf without a doubled "/".  -ENAMETOOLONG. */
int rt_path(char *buf, size_t len, const char *rootfs, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
