/*
 * source.c - the kinds table, source_kinds[] (source.h), the kinds'
 * state (struct kinds) and the one file that calls through the table,
 * each hook handed a context made for that call.  See
 * docs/architecture.md, "Layers and threads".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/asks.h"
#include "collectors/collector/cgroot.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/source.h"

/*
 * The product's kinds, by index (kinds.state[k], a target's attached[k]):
 * perf first, as the one that takes what no other kind claims
 * (kind_for).  A new kind of the product is one line here and its file
 * (HACKING.md, "Adding a source kind"); a kind built beside it (a
 * test's) is added by source_kind_add, into the slots left.
 */
#define PRODUCT_KINDS(X) \
	X(source_perf_kind, "perf") \
	X(source_bpf_kind, "bpf")

#define KIND_DECLARE(k, mode) extern const struct source_kind k;
#define KIND_ENTRY(k, mode) &k,
#define KIND_UNAVAILABLE(k, mode) { "mode perf: mode " mode \
	" is not available", "not counted: mode " mode " is not available" },
PRODUCT_KINDS(KIND_DECLARE)
const struct source_kind *source_kinds[SOURCE_KINDS] = {
	PRODUCT_KINDS(KIND_ENTRY)
};

/* What an entry of each kind is said to be when the kind cannot run
 * (source_fallback): counted in perf mode, or not counted.  A test's
 * kind's, made by source_kind_add. */
static const char *unavailable[SOURCE_KINDS][2] = {
	PRODUCT_KINDS(KIND_UNAVAILABLE)
};
#define KIND_NAME_MAX 32
static char added_texts[SOURCE_KINDS][2][KIND_NAME_MAX + 40];

/* The kinds in the table: they fill it from the first slot. */
static size_t
nkinds(void)
{
	size_t n = 0;

	while (n < SOURCE_KINDS && source_kinds[n])
		n++;
	return n;
}

int
source_kind_add(const struct source_kind *k)
{
	size_t n = nkinds();

	if (plan_kind_named(k->desc->name) != NULL)
		return -EEXIST;
	if (n == SOURCE_KINDS || strlen(k->desc->name) > KIND_NAME_MAX)
		return -ENOSPC;
	snprintf(added_texts[n][0], sizeof(added_texts[n][0]),
	    "mode perf: mode %s is not available", k->desc->name);
	snprintf(added_texts[n][1], sizeof(added_texts[n][1]),
	    "not counted: mode %s is not available", k->desc->name);
	unavailable[n][0] = added_texts[n][0];
	unavailable[n][1] = added_texts[n][1];
	source_kinds[n] = k;
	return 0;
}

/* Kind k's index in the table; it is there (a group's kind is). */
static size_t
kind_index(const struct source_kind *k)
{
	size_t i = 0;

	while (source_kinds[i] != k)
		i++;
	return i;
}

const struct plan_kind *
plan_kind_at(size_t i)
{
	return i < nkinds() ? source_kinds[i]->desc : NULL;
}

const struct plan_kind *
plan_kind_named(const char *name)
{
	size_t i;

	for (i = 0; i < nkinds(); i++)
		if (strcmp(source_kinds[i]->desc->name, name) == 0)
			return source_kinds[i]->desc;
	return NULL;
}

/* What kind i's hooks see in one call; as: where a retry is asked
 * (NULL: the hook called asks none). */
static struct source_ctx
ctx_of(const struct kinds *ks, size_t i, struct asks *as)
{
	return (struct source_ctx){ ks->ps->cfg, ks->ps->attrs,
	    ks->ps->ev_logged, ks->online, ks->cg->found ? ks->cg->path : NULL,
	    ks->cg->v2, ks->state[i], ks->rp->log,
	    as ? &as->retry_soon : NULL };
}

/* ---- the kinds' own state ---------------------------------------- */

/* Each kind's state: zeroed, state_size bytes, beginning with its head
 * (struct source_state); none for a kind without. */
int
source_kinds_init(void **kstate)
{
	size_t i;

	for (i = 0; i < nkinds(); i++)
		if (source_kinds[i]->state_size && (kstate[i] = calloc(1,
		    source_kinds[i]->state_size)) == NULL)
			return -ENOMEM;
	return 0;
}

/* What each state holds, given back by its kind, then the state. */
void
source_kinds_fini(void *const *kstate)
{
	size_t i;

	for (i = 0; i < nkinds(); i++) {
		if (kstate[i] && source_kinds[i]->fini)
			source_kinds[i]->fini(kstate[i]);
		free(kstate[i]);
	}
}

size_t
source_kinds_fds(const struct kinds *ks)
{
	size_t i, n = 0;

	for (i = 0; i < nkinds(); i++)
		if (ks->state[i])
			n += ((const struct source_state *)ks->state[i])->fds;
	return n;
}

int
source_kinds_stats(const struct kinds *ks, struct snapshot *s,
    struct snap_source *out)
{
	size_t i;

	for (i = 0; i < nkinds(); i++) {
		out[i].kind = source_kinds[i]->desc->name;
		if (source_kinds[i]->stats &&
		    source_kinds[i]->stats(ks->state[i], s, &out[i]) < 0)
			return -ENOMEM;
	}
	return (int)i;
}

int
source_kinds_check_config(const struct kinds *ks, FILE *out)
{
	size_t i;
	int problems = 0;

	for (i = 0; i < nkinds(); i++) {
		struct source_ctx x = ctx_of(ks, i, NULL);

		if (source_kinds[i]->check && source_kinds[i]->check->line)
			problems += source_kinds[i]->check->line(&x, out);
	}
	return problems;
}

/* ---- cgroups entries --------------------------------------------- */

/*
 * What an entry of kind gets when the kind cannot run, as its fallback:
 * asks: counted by another kind (perf: TARGET_COUNTED), refused or
 * skipped; *mode saying so.
 */
static enum target_why
source_fallback(const struct source_kind *kind, const struct plan_target *ct,
    const char **mode)
{
	const char *const *t = unavailable[kind_index(kind)];

	*mode = t[ct->fallback == PLAN_FALLBACK_PERF ? 0 : 1];
	if (ct->fallback == PLAN_FALLBACK_REFUSE)
		return TARGET_REFUSED;
	if (ct->fallback == PLAN_FALLBACK_SKIP)
		return TARGET_SKIP_ASKED;
	return TARGET_COUNTED;
}

/* The kind that counts ct (see source_kind.takes), in *declined what its
 * fallback: declined (TARGET_COUNTED: nothing), and in *mode the first
 * mode a kind asked gave ("mode perf" if none). */
static const struct source_kind *
kind_for(const struct kinds *ks, const struct plan_target *ct,
    enum target_why *declined, const char **mode)
{
	const struct source_kind *kind = NULL;
	const char *m;
	size_t k;
	int r = 0;

	*declined = TARGET_COUNTED;
	*mode = NULL;
	for (k = nkinds(); k-- > 0 && r == 0; ) {
		struct source_ctx x = ctx_of(ks, k, NULL);

		kind = source_kinds[k];
		m = NULL;
		r = kind->takes ? kind->takes(&x, ct, &m) : 1;
		/* fallback: perf leaves it to the kinds below. */
		if (r < 0 && (*declined = source_fallback(kind, ct, &m)) ==
		    TARGET_COUNTED)
			r = 0;
		if (*mode == NULL)
			*mode = m;
	}
	if (*mode == NULL)
		*mode = "mode perf";
	return kind;
}

/* A rescan's start: every kind builds for what it matched. */
int
source_kinds_begin(const struct kinds *ks,
    const struct cgroup_list *matched, int rebuild, struct asks *as,
    struct source_entries *e)
{
	const struct source_rescan start = { 0, matched, rebuild, 0, 0, NULL };
	size_t i;
	int r;

	for (i = 0; i < nkinds(); i++) {
		struct source_ctx x = ctx_of(ks, i, as);

		if (source_kinds[i]->rescan &&
		    (r = source_kinds[i]->rescan(&x, &start)) < 0)
			return r;
	}
	for (i = 0; i < ks->ps->cfg->nr_targets; i++) {
		const struct plan_target *ct = &ks->ps->cfg->targets[i];

		if (ct->kind != PLAN_TARGET_CGROUP)
			continue;
		e->kind[i] = kind_for(ks, ct, &e->declined[i], &e->mode[i]);
	}
	return 0;
}

/* Its end: every kind says what it left out. */
int
source_kinds_tally(const struct kinds *ks, size_t no_room,
    size_t refused, const char *names)
{
	const struct source_rescan done = { 1, NULL, 0, no_room, refused,
	    names };
	size_t i;
	int soon = 0;

	for (i = 0; i < nkinds(); i++) {
		struct source_ctx x = ctx_of(ks, i, NULL);

		if (source_kinds[i]->rescan)
			soon |= source_kinds[i]->rescan(&x, &done);
	}
	return soon;
}

void
source_kinds_refresh(const struct kinds *ks)
{
	size_t i;

	for (i = 0; i < nkinds(); i++) {
		struct source_ctx x = ctx_of(ks, i, NULL);

		if (source_kinds[i]->refresh)
			source_kinds[i]->refresh(&x);
	}
}

/* ---- targets ----------------------------------------------------- */

int
source_check_unopened(const struct kinds *ks, const char *name,
    enum target_why why, FILE *out)
{
	size_t k;
	int r;

	for (k = 0; k < nkinds(); k++) {
		struct source_ctx x = ctx_of(ks, k, NULL);

		if (source_kinds[k]->check && source_kinds[k]->check->unopened &&
		    (r = source_kinds[k]->check->unopened(&x, name, why,
		    out)) >= 0)
			return r;
	}
	return -1;
}

int
source_check_unscheduled(const struct kinds *ks,
    const struct source_kind *kind, size_t gi, size_t unsched, int cpu,
    FILE *out)
{
	struct source_ctx x = ctx_of(ks, kind_index(kind), NULL);

	if (kind->check == NULL || kind->check->unscheduled == NULL)
		return 0;
	return kind->check->unscheduled(&x, gi, unsched, cpu, out);
}

/* In the table's order, each kind of used[nused] that attaches and
 * holds nothing for the target yet. */
int
source_attach(const struct kinds *ks, const struct source_kind *const *used,
    size_t nused, struct source_hold **attached, const char *cgroup, int cgfd)
{
	size_t i, k;
	int r;

	for (k = 0; k < nkinds(); k++) {
		const struct source_kind *kind = source_kinds[k];
		struct source_ctx x = ctx_of(ks, k, NULL);

		if (kind->attach == NULL || attached[k])
			continue;
		for (i = 0; i < nused; i++)
			if (used[i] == kind)
				break;
		if (i < nused &&
		    (r = kind->attach(&x, cgroup, cgfd, &attached[k])) < 0) {
			return r;
		}
	}
	return 0;
}

/* What the kinds hold for a target goes with it, each by its own ops. */
void
source_detach(struct source_hold **attached)
{
	size_t i;

	for (i = 0; i < nkinds(); i++)
		if (attached[i]) {
			attached[i]->ops->release(attached[i]);
			attached[i] = NULL;
		}
}

/* ---- instances --------------------------------------------------- */

/* What kind holds for a target, in its holds attached[SOURCE_KINDS]. */
const struct source_hold *
source_held(struct source_hold *const *attached, const struct source_kind *kind)
{
	return attached[kind_index(kind)];
}

int
source_open(const struct kinds *ks, const struct source_kind *kind,
    const struct source_at *at, int cgfd, struct source_opened *o,
    struct source **out)
{
	struct source_ctx x = ctx_of(ks, kind_index(kind), NULL);

	return kind->open(&x, at, cgfd, o, out);
}

/* A kind that attaches nothing opens sources that stay current; else
 * what it holds for the target (h) says (nothing held: not current). */
int
source_current(const struct source_kind *kind, const struct source_hold *h,
    const struct source *s)
{
	if (kind->attach == NULL)
		return 1;
	return h != NULL && h->ops->current(h, s);
}
