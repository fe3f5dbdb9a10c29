/*
 * planstate.h - what the collector makes for each plan (planstate.c):
 * its events' attrs and what the log said of it.  Made at a rebuild's
 * start (targetset.c), freed with the plan it was made for.  Collector
 * thread only.
 */
#ifndef PMU_COLLECTOR_PLANSTATE_H
#define PMU_COLLECTOR_PLANSTATE_H

#include <stddef.h>

struct perf_event_attr;
struct plan;

/* What the log last said of a layout. */
struct layout_said {
	size_t cgroups;
	const char *mode;		/* static text; NULL: never said */
};

/* What is made for each plan: its attrs, and what was said of it. */
struct planstate {
	const struct plan *cfg;		/* the plan they are made for */
	struct perf_event_attr **attrs;	/* [group][event] */
	int **ev_logged;		/* [group][event]: reported unsupported */
	int *pattern_empty;		/* [cfg target]: reported matching none */
	struct layout_said *layout_said;	/* [cfg layout]: as last said */
};

/*
 * planstate_init: ps's tables for cfg, 0 or -ENOMEM (planstate_fini it
 * either way); planstate_fini frees them (cfg: the plan they were made
 * for; NULL accepted).  planstate_take: a rebuild's tables for cfg in
 * *cur, the old ones in *old (a rebuild of the running plan keeps what
 * was said); 0 or -ENOMEM, nothing changed.  planstate_give_back undoes
 * it, the new tables in *old to be freed.
 */
int planstate_init(struct planstate *ps, const struct plan *cfg);
void planstate_fini(const struct plan *cfg, struct planstate *ps);
int planstate_take(struct planstate *cur, const struct plan *cfg,
    struct planstate *old);
void planstate_give_back(struct planstate *cur, struct planstate *old);

#endif
