/*
 * interference.c - CPI2 on the node (interference.h): the thread, the table of
 * cgroups, each snapshot's deltas and a sample's close.
 * Design: docs/interference.md; docs/architecture.md, "analysis/".
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference.h"
#include "analysis/interference_int.h"

/* ---- state ---------------------------------------------------------- */

/* The key of a path's first n bytes (never 0: 0 marks no key). */
static uint64_t
path_hash_n(const char *p, size_t n)
{
	uint64_t h = ifr_hash(IFR_HASH0, p, n);

	return h ? h : 1;
}

static uint64_t
path_hash(const char *p)
{
	return path_hash_n(p, strlen(p));
}

static void
state_reset(struct interference *ifr)
{
	size_t i;

	for (i = 0; i < ifr->nr; i++)
		suspects_forget(&ifr->cgs[i]);
	free(ifr->cgs);
	free(ifr->idx);
	ifr->cgs = NULL;
	ifr->idx = NULL;
	ifr->nr = ifr->cap = 0;
	ifr->mask = 0;
	ifr->have_seq = 0;
	ifr->interval_s = ifr->sample_s = 0;
	ifr->pending_intervals = 0;
	ifr->pending_s = 0;
	ifr->sample = 0;
	ifr->containing = 0;
}

/* Every cgroup entered again in the index as it is. */
static void
idx_fill(struct interference *ifr)
{
	size_t i, j;

	memset(ifr->idx, 0, (ifr->mask + 1) * sizeof(*ifr->idx));
	for (i = 0; i < ifr->nr; i++) {
		for (j = ifr->cgs[i].key & ifr->mask; ifr->idx[j];
		    j = (j + 1) & ifr->mask)
			;
		ifr->idx[j] = (uint32_t)i + 1;
	}
}

static int
idx_grow(struct interference *ifr, size_t slots)
{
	uint32_t *idx = calloc(slots, sizeof(*idx));

	if (idx == NULL)
		return -ENOMEM;
	free(ifr->idx);
	ifr->idx = idx;
	ifr->mask = slots - 1;
	idx_fill(ifr);
	return 0;
}

/* The cgroup of key, added when new; NULL on ENOMEM. */
static struct cg *
cg_get(struct interference *ifr, uint64_t key)
{
	struct cg *c = ifr_find(ifr, key);
	size_t j, k;

	if (c != NULL)
		return c;
	if (ifr->nr == ifr->cap) {
		/* By a quarter: the array is most of a cgroup's bytes. */
		size_t cap = ifr->cap ? ifr->cap + ifr->cap / 4 : 64;

		if ((c = realloc(ifr->cgs, cap * sizeof(*c))) == NULL)
			return NULL;
		ifr->cgs = c;
		ifr->cap = cap;
	}
	if (ifr->idx == NULL || (ifr->nr + 1) * 2 > ifr->mask + 1) {
		if (idx_grow(ifr, ifr->idx ? (ifr->mask + 1) * 2 : 128) < 0)
			return NULL;
	}
	c = &ifr->cgs[ifr->nr];
	memset(c, 0, sizeof(*c));
	c->key = key;
	c->prev = NAN;
	for (k = 0; k < INTERFERENCE_RING; k++)
		c->x[k] = NAN;
	for (j = key & ifr->mask; ifr->idx[j]; j = (j + 1) & ifr->mask)
		;
	ifr->idx[j] = (uint32_t)ifr->nr + 1;
	ifr->nr++;
	ifr->members_changed = 1;
	return c;
}

/* Drop the cgroups not seen in generation gen; the index is rebuilt. */
static void
cg_sweep(struct interference *ifr, uint32_t gen)
{
	size_t i, n = 0;

	for (i = 0; i < ifr->nr; i++)
		if (ifr->cgs[i].gen == gen) {
			if (n != i)
				ifr->cgs[n] = ifr->cgs[i];
			n++;
		} else
			suspects_forget(&ifr->cgs[i]);
	if (n == ifr->nr)
		return;
	ifr->nr = n;
	ifr->members_changed = 1;
	if (ifr->idx)
		idx_fill(ifr);
}

/*
 * Which cgroups are judged: the most specific counted ones, those with no
 * tracked cgroup below them (a container rather than its pod, a service
 * rather than its slice).  Each cgroup marks every ancestor it has in the
 * table, by the hash of each prefix of its path ending before a '/' (and
 * "/", the root); found again only when the members changed.
 */
static void
find_leaves(struct interference *ifr, const struct snapshot *s)
{
	size_t i;

	for (i = 0; i < ifr->nr; i++)
		ifr->cgs[i].leaf = 1;
	for (i = 0; i < ifr->nr; i++) {
		const char *p = s->rows[ifr->cgs[i].row].cgroup, *q;
		struct cg *a;

		for (q = p; *q; q++) {
			size_t len = q == p ? 1 : (size_t)(q - p);

			if (*q != '/' || (q == p && q[1] == '\0'))
				continue;
			a = ifr_find(ifr, path_hash_n(p, len));
			if (a != NULL && a != &ifr->cgs[i])
				a->leaf = 0;
		}
	}
	ifr->containing = 0;
	for (i = 0; i < ifr->nr; i++)
		ifr->containing += !ifr->cgs[i].leaf;
	ifr->members_changed = 0;
}

/* ---- one sample ----------------------------------------------------- */

/* Room for the sample's scratch: 5 doubles a cgroup and a ring's. */
static int
scratch_fit(struct interference *ifr)
{
	double *p;

	if (ifr->scratch_cap >= ifr->nr && ifr->scratch != NULL)
		return 0;
	p = realloc(ifr->scratch, (5 * ifr->nr + INTERFERENCE_RING) *
	    sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	ifr->scratch = p;
	ifr->scratch_cap = ifr->nr;
	return 0;
}

/* The clean baselines detect.c proposed, each taken where a neighbour
 * explains the cgroup's CPI over the ring (detect.c, suspects.c): a
 * clean part from below where any does, a line where one of the
 * neighbours whose use varied most does and the line's CPI at its least
 * is clearly below the baseline; an offer not taken from a baseline of a
 * whole ring's samples or more makes detect.c look less often (a younger
 * one's test had few). */
static void
take_clean(struct interference *ifr)
{
	size_t i, j;
	int prepared = 0;

	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];

		if (!c->proposed)
			continue;
		if (!prepared)
			suspects_prepare(ifr, ifr->scratch);
		prepared = 1;
		if (suspects_explain(ifr, i, ifr->scratch,
		    c->proposed == OFFER_FIT, &j) &&
		    (c->proposed == OFFER_CLEAN || detect_fit_clean(&ifr->cfg,
		    c, &ifr->cgs[j], ifr->sample)))
			detect_take_clean(c);
		else if (c->bn >= INTERFERENCE_RING)
			detect_clean_missed(c);
		c->proposed = 0;
	}
}

/*
 * Close the sample: each cgroup's CPU use and CPI into its ring, judged
 * against its baseline with the node's common mode out (detect.c); a
 * judged cgroup is a victim with victim_outliers samples in alarm within
 * victim_window; a victim's suspects are found when the result is built
 * (suspects.c).
 */
static void
close_sample(struct interference *ifr, struct snapshot *s)
{
	const struct interference_config *cfg = &ifr->cfg;
	double elapsed = ifr->pending_s;
	size_t slot = ifr->sample % INTERFERENCE_RING, i;
	struct interference_result *res;

	if (scratch_fit(ifr) < 0)
		return;		/* the sample is left open */
	if (ifr->members_changed)
		find_leaves(ifr, s);
	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];

		c->cpu[slot] = (float)(c->acc[EN] / elapsed);
		c->x[slot] = c->acc[INS] > 0 && c->acc[CYC] > 0 ?
		    (float)(c->acc[CYC] / c->acc[INS]) : NAN;
		memset(c->acc, 0, sizeof(c->acc));
		c->analysed = (uint8_t)ifr_counts(cfg, c->cpu[slot],
		    c->x[slot]);
	}
	detect_sample(ifr, slot, ifr->scratch);
	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];
		int victim;

		c->bits = (c->bits << 1) | c->high;
		c->outliers += c->high;
		victim = c->analysed && c->leaf &&
		    result_outliers(ifr, c) >= cfg->victim_outliers;
		c->fresh = victim && !c->victim;
		c->periods += c->fresh;
		if (!victim)
			suspects_forget(c);
		c->victim = (uint8_t)victim;
	}
	ifr->sample++;
	take_clean(ifr);
	ifr->pending_intervals = 0;
	ifr->pending_s = 0;
	if ((res = result_build(ifr, s)) != NULL)
		result_publish(ifr, res);
}

/* ---- one snapshot --------------------------------------------------- */

/* Index of event name in row r, or -1. */
static int
event_at(const struct snap_row *r, const char *name)
{
	size_t e;

	for (e = 0; e < r->nr_events; e++)
		if (r->counted[e] && strcmp(r->events[e], name) == 0)
			return (int)e;
	return -1;
}

static void
apply_next(struct interference *ifr)
{
	struct interference_config next;
	int have, keep;

	pthread_mutex_lock(&ifr->lock);
	have = ifr->have_next;
	next = ifr->next;
	ifr->have_next = 0;
	memset(&ifr->next, 0, sizeof(ifr->next));
	pthread_mutex_unlock(&ifr->lock);
	if (!have)
		return;
	if (interference_config_same(&ifr->cfg, &next)) {
		interference_config_fini(&next);
		return;
	}
	keep = interference_config_keeps(&ifr->cfg, &next);
	interference_config_fini(&ifr->cfg);
	ifr->cfg = next;
	if (keep) {
		if (ifr->interval_s > 0)
			reload_geometry(ifr, ifr->interval_s);
		return;
	}
	state_reset(ifr);
	result_publish_empty(ifr);
}

/* Each cgroup's counts since the last snapshot into its sample. */
static void
take_deltas(struct interference *ifr, unsigned dseq)
{
	size_t i;

	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];
		double d[3];
		int k, back = 0;

		for (k = 0; k < 3; k++) {
			d[k] = c->cur[k] - c->last[k];
			back |= d[k] < 0;
		}
		/* New, or its counts restarted (a reload reopened the
		 * group): from the next snapshot on. */
		if (c->have_last && !back && dseq > 0)
			for (k = 0; k < 3; k++)
				c->acc[k] += d[k];
		memcpy(c->last, c->cur, sizeof(c->last));
		c->have_last = 1;
	}
}

/*
 * Whether the sample being filled is over: after its intervals, or once
 * the time they should have taken has passed (to within half an
 * interval).  A collector that runs late on a loaded node (seen: every
 * other interval missed) must not make a sample longer than the window
 * says, or a minute's window longer than a minute.
 */
static int
sample_due(const struct interference *ifr)
{
	return ifr->pending_intervals >= ifr->geo.per_sample ||
	    (ifr->pending_intervals > 0 &&
	    ifr->pending_s + ifr->interval_s / 2 >= ifr->sample_s);
}

void
interference_feed(struct interference *ifr, struct snapshot *s)
{
	const struct interference_config *cfg = &ifr->cfg;
	unsigned dseq;
	size_t i;
	uint32_t gen;

	apply_next(ifr);
	if (!cfg->enabled || cfg->group == NULL || cfg->cycles == NULL ||
	    cfg->instructions == NULL || s->interval_s <= 0)
		return;
	if (s->interval_s != ifr->interval_s)
		reload_geometry(ifr, s->interval_s);
	if (ifr->have_seq && s->seq <= ifr->last_seq)
		return;			/* seen already */
	dseq = ifr->have_seq ? (unsigned)(s->seq - ifr->last_seq) : 0;
	/* What really elapsed since the last snapshot analysed, however
	 * many collections and whatever their intervals. */
	if (dseq > 0 && s->began_ns > ifr->last_began_ns)
		ifr->pending_s += (double)(s->began_ns - ifr->last_began_ns) /
		    1e9;
	ifr->have_seq = 1;
	ifr->last_seq = s->seq;
	ifr->last_began_ns = s->began_ns;
	gen = ++ifr->gen;

	/* This snapshot's sums per cgroup: rows of the group, over CPUs
	 * (per_cpu) and core PMUs (hybrid). */
	for (i = 0; i < s->nr_rows; i++) {
		const struct snap_row *r = &s->rows[i];
		struct cg *c;
		int ec, ei;

		if (r->cgroup == NULL || strcmp(r->group, cfg->group) != 0 ||
		    (ec = event_at(r, cfg->cycles)) < 0 ||
		    (ei = event_at(r, cfg->instructions)) < 0)
			continue;
		if ((c = cg_get(ifr, path_hash(r->cgroup))) == NULL)
			return;		/* ENOMEM: try at the next */
		if (c->gen == 0 && ifr->state_path != NULL) {
			/* New: its baseline from the state file. */
			c->workload = state_workload(r);
			state_restore(ifr, c);
		}
		if (c->gen != gen) {
			c->gen = gen;
			c->row = (uint32_t)i;
			memset(c->cur, 0, sizeof(c->cur));
		}
		c->cur[CYC] += r->values[ec];
		c->cur[INS] += r->values[ei];
		c->cur[EN] += r->enabled_s;
	}
	cg_sweep(ifr, gen);
	take_deltas(ifr, dseq);
	ifr->pending_intervals += dseq;
	if (sample_due(ifr)) {
		close_sample(ifr, s);
		state_tick(ifr, s->began_ns);
	}
}

/* ---- the thread ----------------------------------------------------- */

static void *
run(void *arg)
{
	struct interference *ifr = arg;
	struct snapshot *s;

	for (;;) {
		pthread_mutex_lock(&ifr->lock);
		while (!ifr->stop && ifr->pending == NULL && !ifr->have_next)
			pthread_cond_wait(&ifr->wake, &ifr->lock);
		if (ifr->stop) {
			pthread_mutex_unlock(&ifr->lock);
			interference_state_save(ifr);
			return NULL;
		}
		s = ifr->pending;
		ifr->pending = NULL;
		pthread_mutex_unlock(&ifr->lock);
		if (s) {
			interference_feed(ifr, s);
			snapshot_unref(s);
		} else
			apply_next(ifr);
	}
}

int
interference_new(const struct interference_config *cfg,
    struct interference **out)
{
	struct interference *ifr = calloc(1, sizeof(*ifr));

	if (ifr == NULL)
		return -ENOMEM;
	if (interference_config_copy(&ifr->cfg, cfg) < 0) {
		free(ifr);
		return -ENOMEM;
	}
	pthread_mutex_init(&ifr->lock, NULL);
	publish_slot_init(&ifr->result, NULL);
	pthread_cond_init(&ifr->wake, NULL);
	result_publish_empty(ifr);
	*out = ifr;
	return 0;
}

int
interference_start(struct interference *ifr)
{
	int r = pthread_create(&ifr->thread, NULL, run, ifr);

	if (r != 0)
		return -r;
	ifr->started = 1;
	return 0;
}

void
interference_offer(struct interference *ifr, struct snapshot *s)
{
	struct snapshot *old;

	snapshot_ref(s);
	pthread_mutex_lock(&ifr->lock);
	old = ifr->pending;
	ifr->pending = s;
	pthread_cond_signal(&ifr->wake);
	pthread_mutex_unlock(&ifr->lock);
	if (old)
		snapshot_unref(old);
}

int
interference_reload(struct interference *ifr,
    const struct interference_config *cfg)
{
	struct interference_config copy, old;

	if (interference_config_copy(&copy, cfg) < 0)
		return -ENOMEM;
	pthread_mutex_lock(&ifr->lock);
	old = ifr->next;
	ifr->next = copy;
	ifr->have_next = 1;
	pthread_cond_signal(&ifr->wake);
	pthread_mutex_unlock(&ifr->lock);
	interference_config_fini(&old);
	return 0;
}

struct interference_result *
interference_result(struct interference *ifr)
{
	struct publish_ref *r = publish_get(&ifr->result);

	return r ? publish_of(r, struct interference_result, ref) : NULL;
}

size_t
interference_state_bytes(const struct interference *ifr)
{
	size_t i, held = 0;

	for (i = 0; i < ifr->nr; i++)
		held += ifr->cgs[i].nheld * sizeof(struct held);
	return held + sizeof(*ifr) + ifr->cap * sizeof(struct cg) +
	    (ifr->idx ? (ifr->mask + 1) * sizeof(*ifr->idx) : 0) +
	    (ifr->scratch ? (5 * ifr->scratch_cap + INTERFERENCE_RING) *
	    sizeof(*ifr->scratch) : 0);
}

size_t
interference_tracked(const struct interference *ifr)
{
	return ifr->nr;
}

void
interference_free(struct interference *ifr)
{
	if (ifr == NULL)
		return;
	if (ifr->started) {
		pthread_mutex_lock(&ifr->lock);
		ifr->stop = 1;
		pthread_cond_signal(&ifr->wake);
		pthread_mutex_unlock(&ifr->lock);
		pthread_join(ifr->thread, NULL);
	}
	if (ifr->pending)
		snapshot_unref(ifr->pending);
	publish_slot_fini(&ifr->result);
	interference_config_fini(&ifr->next);
	interference_config_fini(&ifr->cfg);
	state_reset(ifr);
	state_forget(ifr);
	free(ifr->state_path);
	free(ifr->scratch);
	pthread_mutex_destroy(&ifr->lock);
	pthread_cond_destroy(&ifr->wake);
	free(ifr);
}
