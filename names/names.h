/*
 * names.h - container ids resolved to the names operators use, read from
 * the container runtimes' own state on the node (no API server, no
 * credentials): Kubernetes namespace, pod, container and pod uid, a
 * Docker or Podman container's name, and its image.
 *
 * One thread, the resolver's own, owns every cache and reads every file.
 * The collector tells it which container ids it counts (names_want: the
 * whole set, handed over by pointer swap whenever it changes) and reads
 * what it learned from the newest published name map (names_map): an
 * immutable, reference-counted, sorted array that a lookup searches
 * without I/O or lock.  Neither side ever waits for the other: a file
 * that is slow to read delays only the next map.
 *
 * The readers (runtime.h) run one at a time on that thread, with bounded
 * work per round; their state changes (absent, unreadable, working) are
 * reported through the log hook once per change.
 */
#ifndef PMU_NAMES_H
#define PMU_NAMES_H

#include <stddef.h>

#include "util/publish.h"

/* The labels a name map gives, in the order series carry them. */
enum names_label {
	NAMES_NAMESPACE,		/* Kubernetes namespace */
	NAMES_POD,			/* Kubernetes pod name */
	NAMES_CONTAINER,		/* container name; "POD": a sandbox */
	NAMES_IMAGE,			/* image reference, as the user gave it */
	NAMES_POD_UID,			/* Kubernetes pod uid */
	NAMES_NR
};

extern const char *const names_label_name[NAMES_NR];

/* The label whose value is looked up. */
#define NAMES_ID_LABEL "container_id"

/* Is id what a runtime names a container by (64 lowercase hex digits)?
 * Only such ids are looked up; they are also safe in a path. */
int names_id_valid(const char *id);

/* What the resolver knows about one id.  v[i] NULL: no such label. */
struct namemap_entry {
	const char *id;
	int found;			/* 0: no runtime knows it (yet) */
	int sandbox;			/* a pod's sandbox (pause) container:
					   the collector leaves its series out */
	const char *v[NAMES_NR];
};

/* An immutable map, sorted by id. */
struct namemap {
	struct publish_ref ref;		/* util/publish.h */
	size_t nr;
	struct namemap_entry *e;
};

/* The entry for id, or NULL if the resolver has not looked it up yet. */
const struct namemap_entry *namemap_find(const struct namemap *m,
    const char *id);
void namemap_unref(struct namemap *m);

/* Priorities as in syslog.h. */
typedef void (*names_log_fn)(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct names_opts {
	const char *rootfs;		/* prefix of the runtimes' paths: "/" */
	names_log_fn log;		/* NULL: silent */
};

struct names;

/* A resolver, its thread not started.  0 or -ENOMEM. */
int names_new(const struct names_opts *o, struct names **out);

/* Start the thread.  0 or -errno. */
int names_start(struct names *n);

/* Stop the thread (if started) and free everything; NULL is fine.  It
 * waits 2 s at most: a thread stuck in a lookup (a hung file system) is
 * left running, with what it uses, for the exiting process to end. */
void names_free(struct names *n);

/*
 * The ids counted now, the whole set (any thread, never blocks for long:
 * one short lock to swap a pointer).  Ids not valid are ignored; ids no
 * longer in the set are forgotten, which is what bounds the memory.
 * 0 or -ENOMEM (the previous set stays).
 */
int names_want(struct names *n, const char *const *ids, size_t nr);

/* The newest map with a reference (namemap_unref it); never NULL. */
struct namemap *names_map(struct names *n);

/*
 * Look id up now, on the calling thread, through every reader (tests and
 * the resolver's round use it).  1 and *e filled (strings owned by the
 * resolver until the next call), 0 when no runtime knows it.
 */
struct names_found;
int names_lookup(struct names *n, const char *id, struct names_found *f);

#endif
