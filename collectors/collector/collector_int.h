/*
 * collector_int.h - the collector whole (struct collector), which only
 * the files at the top of the folder see: probe.c, collector.c,
 * interval.c and snapbuild.c (layering.test rule 4 has snapbuild take
 * it, const).  Each part is owned by the file its comment names and
 * declared in that file's header; the files below take the part they
 * use, or a small context the caller makes, never the collector.  The
 * shape of the data is drawn in docs/architecture.md, "Layers and threads".
 */
#ifndef PMU_COLLECTOR_INT_H
#define PMU_COLLECTOR_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/collector/asks.h"
#include "collectors/collector/cgroot.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/online.h"
#include "collectors/collector/opts.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/report.h"
#include "collectors/collector/snapshot.h"
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

/* When the next collection rebuilds, retries or rescans; the timer. */
struct schedule {
	uint64_t last_rescan_ns;
	struct asks asks;
	unsigned soon_tries;		/* retries soon since the CPU change */
	int timerfd;			/* -1 until armed */
	uint64_t interval_ns;		/* armed at; 0: not armed */
	uint64_t next_ns;		/* its next expiry (CLOCK_MONOTONIC) */
	uint64_t began_ns;		/* when the collection under way
					   began: its timer's expiry, or its
					   tend's start; 0: none under way */
	uint64_t missed;		/* expiries with no collection of
					   their own: the collector was late */
};

/* Collections so far. */
struct collection {
	uint64_t seq;
	atomic_uint_fast64_t heartbeat;
	uint64_t names_told;		/* a hash of the container ids last
					   told the name resolver */
	size_t names_told_nr;
};

/*
 * The collector: each part owned by the file its comment names, all on
 * the collector thread but the requests' lock and the heartbeat.
 */
struct collector {
	struct collector_opts o;	/* as given (collector.c) */
	struct report rep;		/* o.log, for each file (report.h) */
	struct planstate ps;		/* the running plan (ps.cfg) and its
					   tables: targetset.c's passes */
	struct cgroot cg;		/* discovery.c */
	struct online online;		/* hotplug.c */
	struct kinds kinds;		/* each kind's state (source.c) */
	struct said said;		/* instance.c */
	struct targetset set;		/* targetset.c */
	struct schedule sched;		/* interval.c's alone */
	struct collection col;		/* interval.c */
	struct snapshot_slot slot;	/* the published one (interval.c) */
	struct thread th;		/* collector.c */
};

#endif
