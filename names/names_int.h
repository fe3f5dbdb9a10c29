/*
 * names_int.h - what the resolver's two files share (names.c,
 * names_resolve.c): struct names and its cache's entries; only names/names*.c
 * include it.
 * Design: docs/architecture.md, "names/".
 */
#ifndef PMU_NAMES_INT_H
#define PMU_NAMES_INT_H

#include <pthread.h>
#include <stdint.h>
#include <syslog.h>

#include "names/names_types.h"
#include "names/runtime.h"
#include "util/publish.h"

#define ROUND_NS 100000000ULL		/* 100 ms */
#define NREADERS 3			/* names.c's readers[] */

/* A message through the resolver's hook; prio is syslog.h's (LOG_WARNING,
 * LOG_INFO, LOG_DEBUG). */
#define LOG(n, prio, ...) do {						\
	if ((n)->o.log)							\
		(n)->o.log((prio), __VA_ARGS__);			\
} while (0)

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
	/* Cgroups carrying the id of a container placed elsewhere, as
	 * said at warn in the current minute, and at debug past the
	 * first MISPLACED_WARNS (names_resolve.c): anyone may name a
	 * cgroup after a container. */
	uint64_t misplaced_window_ns;
	unsigned misplaced_warned, misplaced_quiet;
};

void names_resolve_clear(struct centry *e);
int names_resolve_due(struct names *n, uint64_t *next_ns);

#endif
