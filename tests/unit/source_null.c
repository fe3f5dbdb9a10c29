/*
 * source_null.c - a source kind that counts nothing real: the proof that
 * a kind is one file plus its registration (collectors/collector/
 * source.h), built into the unit tests only, never into the daemon.
 *
 * Its cgroups entries say mode: null.  Each of its sources counts, at
 * every read, step (modes.null.step, 1 unless the config says) times
 * the event's place in its group plus one, with a second of time enabled
 * and running: counts a test can work out from the number of reads.
 * modes.null.runs: 0 makes it a kind that cannot run here, so its
 * entries get what their fallback: asks for (source.c answers for it),
 * as for any kind whose program or device is not there.
 *
 * Like every kind it includes source.h and what it counts with, never
 * the collector's internals, and ends with its description (what a plan
 * may say of it, plan.h) and its struct source_kind.  It holds nothing
 * for a target (no attach hook) and no state of its own, so its sources
 * stay current across a reload.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>

#include "collectors/collector/plan.h"
#include "collectors/collector/source.h"

#define NULL_SECOND 1000000000ULL

struct source_null {
	struct source s;
	uint64_t step;
	size_t *evidx;			/* [s.nr]: 0, 1, ... */
	struct count *now;		/* [s.nr]: what it counted so far */
};

static int
null_read(struct source *s, struct count *out)
{
	struct source_null *n = (struct source_null *)s;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		n->now[i].value += n->step * (i + 1);
		n->now[i].enabled += NULL_SECOND;
		n->now[i].running += NULL_SECOND;
		out[n->evidx[i]] = n->now[i];
	}
	return 0;
}

static void
null_close(struct source *s)
{
	struct source_null *n = (struct source_null *)s;

	free(n->evidx);
	free(n->now);
	free(n);
}

static const struct source_ops null_ops = {
	.read = null_read,
	.close = null_close,
};

/* Its option: modes.null.<key>, as config/ recorded it. */
static uint64_t
null_option(const struct plan *cfg, const char *key)
{
	return plan_mode_option(cfg, "null", key, 1);
}

static int
null_takes(const struct source_ctx *x, const struct plan_target *ct,
    const char **mode)
{
	if (!plan_target_mode_is(ct, "null"))
		return 0;
	if (null_option(x->cfg, "runs")) {
		*mode = "mode null";
		return 1;
	}
	return -EOPNOTSUPP;
}

static int
null_open(const struct source_ctx *x, const struct source_at *at, int cgfd,
    struct source_opened *o, struct source **out)
{
	size_t ne = x->cfg->groups[at->gi].nr_events, i;
	struct source_null *n;

	(void)cgfd;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return -ENOMEM;
	n->evidx = calloc(ne, sizeof(*n->evidx));
	n->now = calloc(ne, sizeof(*n->now));
	if (n->evidx == NULL || n->now == NULL) {
		null_close(&n->s);
		return -ENOMEM;
	}
	for (i = 0; i < ne; i++) {
		n->evidx[i] = i;
		o->err[i] = 0;
	}
	n->s.ops = &null_ops;
	n->s.nr = ne;
	n->s.evidx = n->evidx;
	n->step = null_option(x->cfg, "step");
	*out = &n->s;
	return 0;
}

static const struct plan_kind_option null_options[] = {
	{ "step", NULL, 1, 1000, 1 },
	{ "runs", NULL, 0, 1, 1 },
};

static const struct plan_kind null_desc = {
	.name = "null",
	.falls_back = 1,
	.nr_options = 2,
	.options = null_options,
};

const struct source_kind source_null_kind = {
	.desc = &null_desc,
	.takes = null_takes,
	.open = null_open,
};
