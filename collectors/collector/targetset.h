/*
 * targetset.h - the target set (targetset.c): every target, sorted, what
 * its last pass found and the links a pass works with; the one pass that
 * changes it; the one loop over every instance.  See
 * docs/architecture.md, "Layers and threads".
 */
#ifndef PMU_COLLECTOR_TARGETSET_H
#define PMU_COLLECTOR_TARGETSET_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/collector/departed.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/share.h"
#include "collectors/collector/target.h"

struct asks;
struct cgroot;
struct report;
struct perf_event_attr;
struct plan;

/* The target set, sorted (target_cmp), and what its last pass found. */
struct targetset {
	struct target **v;
	size_t nr;
	uint64_t max_fds;		/* the fd budget */
	size_t matched, counted, skipped;
	size_t skipped_logged;		/* ... as last reported */
	uint64_t remade;		/* cgroups found removed and made
					   again at their path since start,
					   their series gone on */
	struct departed departed;	/* the counts of cgroups gone, kept a
					   while for their path (departed.h) */
	struct shares shares;		/* the delegated subtrees the last
					   pass met (share.h) */
	size_t share_refused;		/* ... their cgroups it refused for
					   the share alone */
	/* What a pass works with, the collector's (it links them once): */
	struct planstate *ps;		/* the running plan and its tables:
					   a rebuild replaces them */
	struct cgroot *cg;		/* found and watched by discovery.c */
	struct inst_ctx ix;		/* what opens an instance */
	const struct report *rp;
};

/*
 * The one way the target set changes, one pass whatever the reason:
 *   START       the first set (nothing to adopt, nothing enabled);
 *   RELOAD      a new plan, cfg (adopting what stays);
 *   CPU_CHANGE  the CPUs changed, cfg is the current plan;
 *   RETRY       instances that stopped counting reopened, the rest kept;
 *   RESCAN      the cgroups changed: new ones opened, gone ones closed.
 * Every reason but RESCAN rebuilds every target (adopting the instances
 * that stay) and restarts the rescan interval.  What to retry or rescan
 * next goes in as, for the schedule (interval.h).  0; out of memory,
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
int targetset_reconcile(struct targetset *set, const struct plan *cfg,
    enum reconcile_reason why, struct asks *as);
void targetset_enable(struct targetset *set);
size_t targetset_fds(const struct targetset *set);	/* perf fds held */
/* Every target freed, and what the set kept of those gone. */
void targetset_fini(struct targetset *set);

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
		    target_is_open((it)->t) && (it)->j < (it)->t->nr_groups;	\
		    (it)->j++)						\
			for ((it)->tg = &(it)->t->groups[(it)->j],	\
			    (it)->k = 0; (it)->k < (it)->tg->cpus.nr &&	\
			    ((it)->in = &(it)->tg->inst[(it)->k]) != NULL;	\
			    (it)->k++)

#endif
