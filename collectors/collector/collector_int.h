/*
 * collector_int.h - the collector as a whole, which nothing outside
 * collectors/collector/ may use: struct collector, whose parts are each
 * owned by one file and declared in that file's header (below), the
 * thread and its requests (collector.c), the log macro every part
 * reports through, and the calls through the source kinds table
 * (source.c), which take the collector whole to make each hook's
 * context.  Every function here runs on the collector thread (or before
 * it starts), which owns every perf fd, every source kind's state,
 * target, instance and CPU map; other threads see only published
 * snapshots and replies to their requests.
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
#include <stdio.h>

#include "collectors/collector/collector.h"
#include "collectors/collector/discovery.h"
#include "collectors/collector/hotplug.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/interval.h"
#include "collectors/collector/source.h"
#include "collectors/collector/targetset.h"
#include "util/clock.h"

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
	struct planstate ps;		/* targetset.h */
	struct cgroot cg;		/* discovery.h */
	struct online online;		/* hotplug.h */
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

/* A reload (cfg) or a failed reload's note (cfg NULL), and the reply. */
struct collector_req {
	const struct plan *cfg;
	int ok;
	double when;
	int done, result;
};

#define REPORT(c, prio, cg, grp, ev, cpu, err, ...)			\
	(c)->o.log((prio), &(const struct log_fields){ (cg), (grp), (ev),	\
	    (cpu), (err) }, __VA_ARGS__)
/* A report about no cgroup, group, event or CPU in particular. */
#define SAY(c, prio, err, ...)						\
	REPORT(c, prio, NULL, NULL, NULL, -1, err, __VA_ARGS__)

/*
 * source.c: every call through source_kinds[] (source.h), hooks a kind
 * leaves NULL skipped, each hook's context made for the call.  The
 * _kinds_ functions ask every kind in turn.
 */
int source_kinds_init(void **kstate);		/* 0 or -ENOMEM */
void source_kinds_fini(void *const *kstate);
size_t source_kinds_fds(const struct collector *c);
int source_kinds_stats(const struct collector *c, struct snapshot *s,
    struct snap_source *out);	/* out[SOURCE_KINDS]: how many filled */
int source_kinds_check_config(const struct collector *c, FILE *out);
/* The entries a pass plans from (source_kinds_begin): for each cgroups
 * entry of the plan, the kind that counts it, its answer, and how it
 * counts in the log's words ("mode perf" by default). */
struct source_entries {
	const struct source_kind **kind;	/* [cfg->nr_targets] */
	enum source_answer *answer;
	const char **mode;
};
/* The start of a pass: every kind told what the cgroups entries matched
 * (matched NULL: none, no cgroup hierarchy; rebuild: see struct
 * source_rescan), then each entry's kind into e.  0 or -ENOMEM. */
int source_kinds_begin(const struct collector *c,
    const struct cgroup_list *matched, int rebuild, struct asks *as,
    struct source_entries *e);
/* 1: room is freed for what had none, at the next collection. */
int source_kinds_tally(const struct collector *c, size_t no_room,
    size_t refused, const char *names);
/* What each kind gathers for its sources before they are read: a
 * collection and a CPU change call it before their read loop. */
void source_kinds_refresh(const struct collector *c);
/* 1 or 0 as a kind says why the target named name is unopened, from
 * what the collector knows of it (why); -1 no kind says. */
int source_check_unopened(const struct collector *c, const char *name,
    enum target_why why, FILE *out);
/* The guess of kind, group gi's, why it never ran on unsched CPUs (cpu
 * one): 1 a problem (said), 0 nothing to say. */
int source_check_unscheduled(const struct collector *c,
    const struct source_kind *kind, size_t gi, size_t unsched, int cpu,
    FILE *out);
/* A target's holds (attached[SOURCE_KINDS]) from the kinds of its groups
 * (used[nused], each once) that attach, for the target cgroup whose
 * directory is cgfd: 0; -ENOSPC no room in one; another -errno.
 * source_detach: every hold released, attached[] emptied. */
int source_attach(const struct collector *c,
    const struct source_kind *const *used, size_t nused,
    struct source_hold **attached, const char *cgroup, int cgfd);
void source_detach(struct source_hold **attached);
/* What kind holds for a target whose kinds hold attached[SOURCE_KINDS]
 * (NULL: nothing), for its instances' sources to open from (at->held). */
const struct source_hold *source_held(struct source_hold *const *attached,
    const struct source_kind *kind);
/* An instance's source (at), of kind: its hook's answer (source_kind.open). */
int source_open(const struct collector *c, const struct source_kind *kind,
    const struct source_at *at, int cgfd, struct source_opened *o,
    struct source **out);
/* May an adopted instance of kind keep s, the kind holding h for its
 * target? */
int source_current(const struct source_kind *kind, const struct source_hold *h,
    const struct source *s);

#endif
