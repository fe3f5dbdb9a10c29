/*
 * opts.h - what the daemon gives the collector (struct collector_opts,
 * collector.h's): where to read, the log hook, the name resolver and
 * the hook told of each snapshot.  Its own header so that the
 * collector's whole (collector_int.h) holds it without the public API
 * above it.  See docs/architecture.md, "Layers and threads".
 */
#ifndef PMU_COLLECTOR_OPTS_H
#define PMU_COLLECTOR_OPTS_H

#include "util/logfields.h"

struct names;
struct snapshot;

/* Priorities are syslog.h's: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */
typedef log_fields_fn collector_log_fn;

struct collector_opts {
	const char *sysfs;		/* "/sys" unless testing */
	const char *mountinfo;		/* "/proc/self/mountinfo" */
	collector_log_fn log;
	/* "/proc": where to read why perf_event_open refused us (denied.h). */
	const char *procfs;
	/* Container names for targets with a container_id label (NULL:
	 * none): told the ids counted, read from its newest map. */
	struct names *names;
	/* Called on the collector thread after each snapshot is published
	 * (NULL: nothing): a consumer takes its own reference (s stays
	 * valid during the call) and must return at once. */
	void (*published)(void *arg, struct snapshot *s);
	void *published_arg;
};

#endif
