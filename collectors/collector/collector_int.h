/*
 * collector_int.h - the collector as a whole, which nothing outside
 * collectors/collector/ may use: struct collector, whose parts are each
 * owned by one file and declared in that file's header (below), the
 * thread (its requests are collector.c's own) and the log macro every
 * part reports through.  Every function here runs on the collector
 * thread (or before it starts), which owns every perf fd, every source
 * kind's state, target, instance and CPU map; other threads see only
 * published snapshots and replies to their requests.
 *
 * Shape of the data (the one drawing of it; the files point here):
 *
 *   collector
 *     set: target[]       system-wide (cgroup == NULL) or one cgroup
 *                         (targetset.h, target.h)
 *       tgroup[]          one plan group counted on this target
 *         inst[]          the group on one CPU: its source (a perf
 *                         group, or what another kind gives it,
 *                         source.h) and its accumulators (instance.h)
 */
#ifndef PMU_COLLECTOR_INT_H
#define PMU_COLLECTOR_INT_H

#include <pthread.h>

#include "collectors/collector/collector.h"
#include "collectors/collector/discovery.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/interval.h"
#include "collectors/collector/online.h"
#include "collectors/collector/report.h"
#include "collectors/collector/source.h"
#include "collectors/collector/targetset.h"

struct collector_req;

/* The thread, and the requests other threads make of it (collector.c):
 * one at a time. */
struct thread {
	pthread_t id;
	int started;
	int stopfd;
	int reqfd;			/* eventfd: a request is pending */
	pthread_mutex_t lock;		/* guards req and its reply */
	pthread_cond_t done;
	struct collector_req *req;
	int reload_ok;			/* the last reload worked */
	double reload_success_s;
};

/*
 * The collector: each part owned by the file its comment names, all on
 * the collector thread but the requests' lock and the heartbeat.
 */
struct collector {
	const struct plan *cfg;		/* the running plan (targetset.c) */
	struct collector_opts o;	/* as given (collector.c) */
	struct report rep;		/* o.log, for each file (report.h) */
	struct planstate ps;		/* targetset.h */
	struct cgroot cg;		/* discovery.h */
	struct online online;		/* online.h */
	struct targetset set;		/* targetset.h */
	struct schedule sched;		/* interval.c's alone (interval.h) */
	struct collection col;		/* interval.h */
	struct said said;		/* instance.h */
	/* Each source kind's own state (source.h); only the kind reads
	 * past its head (the fds it holds).  What its hooks see of the
	 * collector is made for each call (source.c). */
	void *kstate[SOURCE_KINDS];
	struct snapshot_slot slot;	/* the published one (interval.c) */
	struct thread th;		/* collector.c */
};

#endif
