/*
 * planstate.c - the tables made for each plan (planstate.h): each
 * event's attr as the collector opens it, and what the log said of the
 * plan, so that an event the CPU lacks or a pattern that matches nothing
 * is said once per plan, not once per pass.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/plan.h"
#include "collectors/collector/planstate.h"

/* The per-plan tables: attrs per group, what was reported. */
int
planstate_init(struct planstate *ps, const struct plan *cfg)
{
	size_t i, e;

	ps->cfg = cfg;
	ps->attrs = calloc(cfg->nr_groups, sizeof(*ps->attrs));
	ps->ev_logged = calloc(cfg->nr_groups, sizeof(*ps->ev_logged));
	ps->pattern_empty = calloc(cfg->nr_targets + 1, sizeof(int));
	ps->layout_said = calloc(cfg->nr_layouts + 1,
	    sizeof(*ps->layout_said));
	if (!ps->attrs || !ps->ev_logged || !ps->pattern_empty ||
	    !ps->layout_said)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++) {
		size_t ne = cfg->groups[i].nr_events;

		ps->attrs[i] = calloc(ne, sizeof(**ps->attrs));
		ps->ev_logged[i] = calloc(ne, sizeof(**ps->ev_logged));
		if (!ps->attrs[i] || !ps->ev_logged[i])
			return -ENOMEM;
		for (e = 0; e < ne; e++)
			ps->attrs[i][e] = cfg->groups[i].events[e].perf.attr;
	}
	return 0;
}

void
planstate_fini(const struct plan *cfg, struct planstate *ps)
{
	size_t i;

	for (i = 0; cfg && i < cfg->nr_groups; i++) {
		if (ps->attrs)
			free(ps->attrs[i]);
		if (ps->ev_logged)
			free(ps->ev_logged[i]);
	}
	free(ps->attrs);
	free(ps->ev_logged);
	free(ps->pattern_empty);
	free(ps->layout_said);
	memset(ps, 0, sizeof(*ps));
}

/* What was said of a plan, traded between two tables of the same plan. */
static void
planstate_trade_said(struct planstate *a, struct planstate *b)
{
	struct planstate t = *a;

	a->ev_logged = b->ev_logged;
	a->pattern_empty = b->pattern_empty;
	a->layout_said = b->layout_said;
	b->ev_logged = t.ev_logged;
	b->pattern_empty = t.pattern_empty;
	b->layout_said = t.layout_said;
}


/*
 * A rebuild's plan: *cur becomes cfg's tables; of the same plan (a retry,
 * a CPU change) what was said stays said.  The old tables go in *old,
 * freed when the pass is done.
 */
int
planstate_take(struct planstate *cur, const struct plan *cfg,
    struct planstate *old)
{
	struct planstate ps = { 0 };
	int r = planstate_init(&ps, cfg);

	if (r < 0) {
		planstate_fini(cfg, &ps);
		return r;
	}
	*old = *cur;
	if (cfg == cur->cfg)
		planstate_trade_said(&ps, old);
	*cur = ps;
	return 0;
}

/* A rebuild that failed before it took anything over: planstate_take
 * undone, the old tables back in *cur, the new ones in *old to be freed. */
void
planstate_give_back(struct planstate *cur, struct planstate *old)
{
	struct planstate ps = *cur;

	if (old->cfg == cur->cfg)
		planstate_trade_said(&ps, old);	/* as take swapped it */
	*cur = *old;
	*old = ps;
}
