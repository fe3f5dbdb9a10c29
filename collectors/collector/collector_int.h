/*
 * collector_int.h - what the files of collectors/collector/ share, and
 * nothing outside that folder may use.  Every function here runs on the
 * collector thread (or before it starts), which owns every perf fd, every
 * source kind's state, target, instance and CPU map; other threads see
 * only published snapshots and replies to their requests.
 *
 * Shape of the data:
 *
 *   collector
 *     target[]            system-wide (cgroup == NULL) or one cgroup
 *       tgroup[]          one plan group counted on this target
 *         inst[]          the group on one CPU: a source (source.h)
 *                         and its accumulators
 */
#ifndef PMU_COLLECTOR_INT_H
#define PMU_COLLECTOR_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/cgroup/cgwatch.h"
#include "collectors/collector/collector.h"
#include "collectors/collector/source.h"
#include "collectors/perf/cpumap.h"
#include "collectors/perf/group.h"
#include "collectors/perf/scale.h"
#include "util/clock.h"

enum inst_state { INST_OK, INST_CLOSED, INST_BROKEN };

/* One group on one CPU for one target: a source and its accumulators. */
struct inst {
	int cpu;
	enum inst_state state;
	struct source *src;		/* NULL unless INST_OK */
	int *err;			/* [nr_events] 0, or why it is out */
	struct count *prev;		/* [nr_events] last reading */
	struct count *cur;		/* [nr_events] scratch */
	struct scaled *acc;		/* [nr_events] */
	uint64_t enabled_ns, running_ns;	/* sums of deltas */
	uint64_t prev_enabled, prev_running;
	uint64_t last_de, last_dr;	/* the last interval's deltas */
	int no_perf_cgroup;		/* failed: the cgroup, not the events */
};

struct tgroup {
	size_t gi;			/* index into cfg->groups */
	int per_cpu;
	const struct source_kind *kind;	/* how its instances count */
	struct cpumap cpus;
	struct inst *inst;		/* [cpus.nr] */
	struct scaled *gone;		/* [nr_events] summed cgroup series:
					   the counts of CPUs gone offline */
	uint64_t gone_enabled_ns, gone_running_ns;
	struct inst *off;		/* [nr_off] per-CPU series: closed
					   instances keeping the counts of
					   CPUs gone offline, taken over when
					   they come back (instance.c) */
	size_t nr_off;
	int unscheduled;		/* reported as never scheduled */
};

struct target {
	char *cgroup;			/* NULL: system-wide */
	size_t nr_groups, cap_groups;
	struct tgroup *groups;
	uint32_t *at;			/* [at_mask + 1]: position + 1 in
					   groups of each gi, 0 empty; NULL
					   for a few groups (target.c) */
	size_t at_mask;
	size_t nr_labels;		/* from relabel rules */
	char **lname, **lvalue;
	int seen;			/* rescan mark */
	int opened;			/* instances exist */
	int skipped;			/* over the fd budget */
	int no_room;			/* a source kind had no room for it */
	int refused;			/* an entry's kind cannot run and its
					   fallback refuses (source.h) */
	int names_held;			/* held out of a snapshot once, for
					   its container's names (snapbuild.c) */
	int skip_asked;			/* ... skips: not counted, as asked */
	size_t deleg;			/* the length of the prefix of cgroup
					   naming its delegated subtree
					   (cgroupfs_delegated), 0: none */
	int deleg_known;		/* deleg was looked up */
	int share_refused;		/* its subtree had its share, or it
					   gave its room to a cgroup not
					   delegated (targetset.c) */
	struct source_hold *attached[SOURCE_KINDS];	/* what each kind's
					   attach left (source.h) */
};

/*
 * A rebuild's old targets, whose instances the new ones adopt (targetset.c):
 * handed down the calls that open the new set, never kept.  NULL where no
 * rebuild is under way.
 */
struct adopt {
	struct target **old;		/* sorted (target_cmp) */
	size_t nr;
	const struct plan *cfg;		/* the plan they were built from */
};

/*
 * What the passes that open (a build or a rescan of the target set) and
 * the reads found for the schedule to do.  The schedule hands its own to
 * each pass as an argument; only those passes, the reads (interval.c)
 * and a kind's hook (source_retry_soon) set a field, and only the
 * schedule reads or clears one.
 */
struct asks {
	int retry;			/* instances failed: reopen them at
					   the next rescan */
	int retry_soon;			/* ... on a CPU just online (ENODEV):
					   at the next collection */
	int rescan_soon;		/* a cgroup came or went, a kind has
					   room again: rescan at the next
					   collection */
};

/* When the next collection rebuilds, retries or rescans (interval.c). */
struct schedule {
	uint64_t last_rescan_ns;
	struct asks asks;
	unsigned soon_tries;		/* retries soon since the CPU change */
};

/* What the log last said of a layout (targetset.c). */
struct layout_said {
	size_t cgroups;
	const char *mode;		/* static text; NULL: never said */
};

/* The cgroup hierarchy with the perf_event controller, found once
 * (collector.c), and the inotify watch on where matches appear
 * (discovery.c). */
struct cgroot {
	char path[4096];
	int v2, found;
	struct cgwatch *watch;		/* NULL without inotify */
	int logged_watch;
	size_t skipped[CGROUP_SKIP_REASONS];	/* subtrees the last pass's
					   walks left out, by reason (as
					   the log last said too) */
};

/* The online CPUs, and the file that tells when they change (hotplug.c). */
struct online {
	struct cpumap map;
	int fd;				/* <sysfs>/devices/system/cpu/online */
	char text[256];
};

/* What is made for each plan: its attrs, and what was said of it
 * (targetset.c). */
struct planstate {
	struct perf_event_attr **attrs;	/* [group][event] */
	int **ev_logged;		/* [group][event]: reported unsupported */
	int *pattern_empty;		/* [cfg target]: reported matching none */
	struct layout_said *layout_said;	/* [cfg layout]: as last said */
};

/* The target set (targetset.c), sorted (target_cmp), and what its last
 * pass found. */
/* A delegated subtree's share of what a pass opens (share.c): its
 * cgroups counted, and those in the set not counted (for the share, or
 * for want of room). */
struct share {
	char *subtree;			/* its root, from the cgroup root */
	size_t counted, refused;
};

struct shares {
	struct share *v;		/* in the order first met */
	size_t nr;
};

struct targetset {
	struct target **v;
	size_t nr;
	uint64_t max_fds;		/* the fd budget */
	size_t matched, counted, skipped;
	size_t skipped_logged;		/* ... as last reported */
	struct shares shares;		/* the delegated subtrees the last
					   pass met */
	size_t share_refused;		/* ... their cgroups it refused for
					   the share alone */
};

/* What the log says once (instance.c). */
struct said {
	int emfile, no_perf_cgroup;
	enum denied_cause denied;	/* the first EACCES/EPERM, explained */
};

/* Collections so far (interval.c). */
struct collection {
	uint64_t seq;
	atomic_uint_fast64_t heartbeat;
	uint64_t names_told;		/* a hash of the container ids last
					   told the name resolver */
	size_t names_told_nr;
};

/* The thread, and the requests other threads make of it (collector.c):
 * one at a time. */
struct thread {
	pthread_t id;
	int started;
	int stopfd, timerfd;
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
	const struct plan *cfg;
	struct collector_opts o;
	struct planstate ps;
	struct cgroot cg;
	struct online online;
	struct targetset set;
	struct schedule sched;		/* interval.c's alone */
	struct collection col;
	struct said said;
	/* Each source kind's own state (source.h); only the kind reads
	 * past its head (the fds it holds).  What its hooks see of the
	 * collector is made for each call (source.c). */
	void *kstate[SOURCE_KINDS];
	struct snapshot_slot slot;
	struct thread th;
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

/* Order: the system-wide target first, then cgroups by path. */
static inline int
target_cmp(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a;
	const struct target *y = *(struct target *const *)b;

	if (x->cgroup == NULL || y->cgroup == NULL)
		return (x->cgroup != NULL) - (y->cgroup != NULL);
	return strcmp(x->cgroup, y->cgroup);
}

/* The target for cgroup (NULL: system-wide) in v, sorted (target_cmp),
 * by binary search; NULL if none. */
static inline struct target *
target_find(struct target *const *v, size_t n, const char *cgroup)
{
	struct target key = { .cgroup = (char *)cgroup }, *kp = &key;
	struct target *const *f;

	f = n ? bsearch(&kp, v, n, sizeof(*v), target_cmp) : NULL;
	return f ? *f : NULL;
}

static inline const char *
target_name(const struct target *t)
{
	return t->cgroup ? t->cgroup : "system-wide";
}

/* instance.c */
int inst_take(struct collector *c, const struct adopt *ad, struct target *t,
    struct tgroup *tg, size_t j, int cgfd, struct asks *as);
void inst_fini(struct inst *in);
void inst_close(struct inst *in, enum inst_state state);
int inst_read(struct inst *in);
int inst_carry_gone(struct collector *c, const struct adopt *ad,
    const struct target *t, struct tgroup *tg);

/* target.c */
void target_free(struct target *t);
struct target *target_new(const char *cgroup);
int target_plan_cpus(struct collector *c, struct target *t,
    const struct plan_target *ct);
int target_plan_entry(struct collector *c, struct target *t,
    const struct plan_target *ct, const struct source_kind *kind,
    enum source_answer a);
long target_open(struct collector *c, struct target *t,
    const struct adopt *ad, struct asks *as, size_t budget, int enable);
size_t target_fds(const struct target *t);	/* perf fds it holds */
void target_enable(struct target *t);
void target_close(struct target *t);
void target_retire(struct target *t);

/*
 * targetset.c: the one way the target set changes, one pass whatever
 * the reason:
 *   START       the first set (nothing to adopt, nothing enabled);
 *   RELOAD      a new plan, cfg (adopting what stays);
 *   CPU_CHANGE  the CPUs changed, cfg is the current plan;
 *   RETRY       instances that stopped counting reopened, the rest kept;
 *   RESCAN      the cgroups changed: new ones opened, gone ones closed.
 * Every reason but RESCAN rebuilds every target (adopting the instances
 * that stay) and restarts the rescan interval.  What to retry or rescan
 * next goes in as, for the schedule (interval.c).  0; out of memory,
 * -ECANCELED when nothing changed (the running plan and set kept: a
 * rescan, or a rebuild that had taken no instance over yet), -ENOMEM
 * when a rebuild's new set runs (usable: what did not open waits for the
 * next rescan, which also plans the cgroups not yet in it).
 */
enum reconcile_reason {
	RECONCILE_START,
	RECONCILE_RELOAD,
	RECONCILE_CPU_CHANGE,
	RECONCILE_RETRY,
	RECONCILE_RESCAN,
};
/*
 * The one read loop: it->in, every instance of every group it->tg of
 * every opened target it->t of the set s, in the targets' order.  A
 * collection (interval.c) reads them all with it and a CPU change
 * (hotplug.c) the ones on CPUs gone, one last time, each calling what it
 * does per instance directly, after the kinds' refresh
 * (source_kinds_refresh).
 */
struct inst_iter {
	size_t i, j, k;
	struct target *t;
	struct tgroup *tg;
	struct inst *in;
};
#define TARGETSET_FOREACH_INST(s, it)					\
	for ((it)->i = 0; (it)->i < (s)->nr; (it)->i++)			\
		for ((it)->t = (s)->v[(it)->i], (it)->j = 0;		\
		    (it)->t->opened && (it)->j < (it)->t->nr_groups;	\
		    (it)->j++)						\
			for ((it)->tg = &(it)->t->groups[(it)->j],	\
			    (it)->k = 0; (it)->k < (it)->tg->cpus.nr &&	\
			    ((it)->in = &(it)->tg->inst[(it)->k]) != NULL;	\
			    (it)->k++)
int targetset_reconcile(struct collector *c, const struct plan *cfg,
    enum reconcile_reason why, struct asks *as);
void targetset_enable(struct collector *c);
size_t targetset_fds(const struct collector *c);	/* perf fds held */
void planstate_fini(const struct plan *cfg, struct planstate *ps);

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
/* 1 or 0 as its kind says why t is unopened; -1 no kind says. */
int source_check_unopened(const struct collector *c, const struct target *t,
    FILE *out);
/* Its kind's guess why tg never ran on unsched CPUs (cpu one): 1 a
 * problem (said), 0 nothing to say. */
int source_check_unscheduled(const struct collector *c, const struct tgroup *tg,
    size_t unsched, int cpu, FILE *out);
int source_attach(const struct collector *c, struct target *t, int cgfd);
void source_detach(struct target *t);
int source_open(const struct collector *c, struct target *t,
    struct tgroup *tg, struct inst *in, int cgfd, struct source **out);
int source_current(const struct target *t, const struct tgroup *tg,
    const struct source *s);	/* may an adopted instance keep s? */

/*
 * share.c: each delegated subtree's share of one pass (see its header).
 * shares_begin: every cgroup target of v (the next set) looked up once
 * (is it delegated, and where), its subtree's counted ones counted, its
 * share_refused cleared; 0 or -ENOMEM.  shares_admit: 1 when t may be
 * opened, 0 when its subtree has its share or it gave its room up in
 * this pass (t->share_refused).  shares_opened: t was.  shares_evict:
 * the last opened delegated target of v closed for for_whom, which found
 * no room; 1 with the perf fds it held in *fds, 0 when there is none.
 * shares_end: the pass's shares become the set's, the changes said.
 */
int shares_begin(const struct collector *c, struct target *const *v, size_t n,
    struct shares *sh);
int shares_admit(const struct collector *c, struct shares *sh,
    struct target *t);
void shares_opened(struct shares *sh, const struct target *t);
int shares_evict(const struct collector *c, struct shares *sh,
    struct target *const *v, size_t n, const struct target *for_whom,
    size_t *fds);
void shares_end(struct collector *c, struct shares *sh);
void shares_free(struct shares *sh);

/*
 * cgnews.c: the cgroups a pass began counting (came) and those gone,
 * said one info line per subtree at cgnews_say (each by name at debug),
 * which frees n too.  cgnews_add: 0, or -ENOMEM with the change said at
 * once instead.
 */
struct cgnews_sub;
struct cgnews {
	struct cgnews_sub *v;
	size_t nr;
};
int cgnews_add(struct collector *c, struct cgnews *n, const struct target *t,
    int came);
void cgnews_say(struct collector *c, struct cgnews *n);
void cgnews_free(struct cgnews *n);

/* interval.c: a cgroup came or went (inotify): rescan at the next collection. */
void interval_cgroups_changed(struct collector *c);

/* hotplug.c */
void hotplug_open(struct collector *c);
int hotplug_changed(struct collector *c);

/*
 * discovery.c: the cgroup hierarchy and the inotify watch made when a
 * new plan (new_plan) first names cgroups, the cgroups each cgroups:
 * entry matches into lists[]
 * (cfg->nr_targets + 1 of them, the caller's), the inotify watch set on
 * where matches can appear, and the wanted set into w (wanted.h).  1;
 * 0 when there is nothing to match (no entry names cgroups, or no
 * cgroup hierarchy); -ENOMEM.
 */
struct wanted;
int discovery_expand(struct collector *c, int new_plan,
    struct cgroup_list *lists, struct wanted *w);

#endif
