/*
 * interference.c - CPI2 on the node (see interference.h).
 *
 * State: one struct cg per cgroup the group counts, in a dense array
 * indexed by an open-addressing table on a 64-bit hash of the cgroup's
 * path (its labels are read from the snapshot, never copied; two paths
 * of 10,000 share a hash with odds of about 3e-12).  A cgroup absent
 * from a snapshot is removed at once, as the collector closes it.  The
 * ring holds floats, a sample's CPU use and CPI: 60 points of 8 bytes;
 * with the baseline and the counts the struct stays well under the 1 kB
 * a cgroup may cost (bench/interference_bench.c measures it).
 *
 * Everything here runs on one thread at a time: the analysis thread
 * (interference_start) or the caller of interference_feed.  Other threads
 * only offer snapshots, ask for a reload and take the published result,
 * each under the one mutex, which nothing holds while analysing.
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference.h"

/* ---- results -------------------------------------------------------- */

/* The last reference's destructor (util/publish.h). */
static void
result_free(struct publish_ref *ref)
{
	struct interference_result *r = publish_of(ref, struct
	    interference_result, ref);

	if (r->snap)
		snapshot_unref(r->snap);
	free(r->cgroups);
	free(r->suspects);
	free(r);
}

/* An empty result with one reference, the caller's; NULL without
 * memory. */
static struct interference_result *
result_new(void)
{
	struct interference_result *r = calloc(1, sizeof(*r));

	if (r != NULL)
		publish_ref_init(&r->ref, result_free);
	return r;
}

void
interference_result_unref(struct interference_result *r)
{
	if (r != NULL)
		publish_unref(&r->ref);
}

/* ---- state ---------------------------------------------------------- */

enum { CYC, INS, EN };

struct cg {
	uint64_t key;			/* hash of the path */
	uint32_t gen;			/* the snapshot it was last seen in */
	uint32_t row;			/* its first row there */
	double cur[3];			/* that snapshot's sums */
	double last[3];			/* the one before */
	double acc[3];			/* deltas of the sample so far */
	double bmean, bvar;		/* the CPI baseline: mean, variance */
	uint32_t bn;			/* samples in it, up to BASELINE */
	uint64_t bits;			/* outliers, newest sample lowest */
	uint32_t outliers, periods;
	uint8_t have_last, victim, analysed, high;
	float cpu[INTERFERENCE_RING];	/* CPU-s/s per sample */
	float cpi[INTERFERENCE_RING];	/* CPI; NaN: none */
};

struct interference {
	/* Shared with other threads, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct snapshot *pending;
	struct interference_config next;
	int have_next, stop, started;
	pthread_t thread;

	/* The newest result: behind its own lock (util/publish.h). */
	struct publish_slot result;

	/* The analysis thread's alone. */
	struct interference_config cfg;
	struct cg *cgs;
	size_t nr, cap;
	uint32_t *idx;			/* slot -> index + 1; 0: empty */
	size_t mask;			/* idx has mask + 1 slots */
	double *ratio;			/* [nr]: scratch of close_sample */
	size_t ratio_cap;
	uint32_t gen;
	uint64_t last_seq;
	int have_seq;
	double interval_s;		/* the geometry's */
	unsigned per_sample;		/* intervals a sample spans */
	unsigned victim_samples;	/* samples in victim_window */
	unsigned pending_intervals;	/* in the sample being filled */
	uint64_t sample;		/* samples closed */
};

static uint64_t
path_hash(const char *p)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h ? h : 1;
}

/* r in place of the newest result, the caller's reference with it. */
static void
publish(struct interference *ifr, struct interference_result *r)
{
	publish_swap(&ifr->result, &r->ref);
}

/* An empty result: no cgroup analysed (yet). */
static void
publish_empty(struct interference *ifr)
{
	struct interference_result *r = result_new();

	if (r == NULL)
		return;		/* the previous result stays */
	r->enabled = ifr->cfg.enabled;
	publish(ifr, r);
}

static void
state_reset(struct interference *ifr)
{
	free(ifr->cgs);
	free(ifr->idx);
	ifr->cgs = NULL;
	ifr->idx = NULL;
	ifr->nr = ifr->cap = 0;
	ifr->mask = 0;
	ifr->have_seq = 0;
	ifr->interval_s = 0;
	ifr->pending_intervals = 0;
	ifr->sample = 0;
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
	struct cg *c;
	size_t j, k;

	if (ifr->idx) {
		for (j = key & ifr->mask; ifr->idx[j]; j = (j + 1) & ifr->mask)
			if (ifr->cgs[ifr->idx[j] - 1].key == key)
				return &ifr->cgs[ifr->idx[j] - 1];
	}
	if (ifr->nr == ifr->cap) {
		/* By half again: the array is most of a cgroup's bytes. */
		size_t cap = ifr->cap ? ifr->cap + ifr->cap / 2 : 64;

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
	for (k = 0; k < INTERFERENCE_RING; k++)
		c->cpi[k] = NAN;
	for (j = key & ifr->mask; ifr->idx[j]; j = (j + 1) & ifr->mask)
		;
	ifr->idx[j] = (uint32_t)ifr->nr + 1;
	ifr->nr++;
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
		}
	if (n == ifr->nr)
		return;
	ifr->nr = n;
	if (ifr->idx)
		idx_fill(ifr);
}

/* ---- one sample ----------------------------------------------------- */

/* Is a sample of CPU use cpu and CPI cpi analysed?  At the floor or
 * above, with a CPI. */
static int
counts(const struct interference_config *cfg, double cpu, double cpi)
{
	return cpu >= cfg->cpu_floor && isfinite(cpi);
}

/*
 * The baseline: the mean and variance of the cgroup's own CPI samples,
 * as plain running statistics (Welford) over its first BASELINE samples,
 * exponentially weighted with weight 1/BASELINE after.  An outlier enters it with that small weight even
 * while it is young, so that interference does not become the baseline
 * it is measured against, while a lasting change of the cgroup's own
 * (a release) is learnt within about BASELINE samples.
 */
#define BASELINE (6 * INTERFERENCE_RING)

static void
baseline_add(struct cg *c, double x, int outlier)
{
	double d = x - c->bmean, a;

	if (c->bn == 0) {
		c->bmean = x;
		c->bvar = 0;
		c->bn = 1;
		return;
	}
	if (outlier || c->bn >= BASELINE) {
		a = 1.0 / BASELINE;
		c->bmean += a * d;
		c->bvar = (1 - a) * (c->bvar + a * d * d);
		return;
	}
	c->bn++;
	c->bmean += d / c->bn;
	/* The sample variance, n - 1 in the denominator. */
	c->bvar = ((c->bn - 2) * c->bvar + d * (x - c->bmean)) /
	    (c->bn - 1);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Is one of the paths the other's ancestor (or the same)? */
static int
related(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	const char *s = la <= lb ? a : b, *l = la <= lb ? b : a;
	size_t n = la <= lb ? la : lb;

	if (strncmp(s, l, n) != 0)
		return 0;
	return l[n] == '\0' || l[n] == '/' || (n > 0 && s[n - 1] == '/');
}

/* Pearson's r of the victim's CPI (at the slots in at[], with sum sx
 * and sum of squares sxx) with u's CPU use, in one pass; NaN when either
 * did not vary. */
static double
pearson(const struct cg *v, const struct cg *u, const size_t *at, size_t n,
    double sx, double sxx)
{
	double sy = 0, syy = 0, sxy = 0, vx, vy;
	size_t i;

	for (i = 0; i < n; i++) {
		double y = u->cpu[at[i]];

		sy += y;
		syy += y * y;
		sxy += v->cpi[at[i]] * y;
	}
	vx = (double)n * sxx - sx * sx;
	vy = (double)n * syy - sy * sy;
	if (!(vx > 0) || !(vy > 1e-12 * (double)n * syy))
		return NAN;
	return ((double)n * sxy - sx * sy) / sqrt(vx * vy);
}

struct pick {
	size_t cg;
	double r;
};

/*
 * The suspects of victim v: every other cgroup (but its ancestors and
 * descendants, whose use contains its own) whose CPU use over the window
 * correlates with v's CPI above the threshold, the k highest.  *n picks
 * filled, best first.
 */
static void
suspects_of(struct interference *ifr, const struct snapshot *s, size_t v,
    struct pick *best, size_t *n)
{
	const struct interference_config *cfg = &ifr->cfg;
	const struct cg *vc = &ifr->cgs[v];
	size_t at[INTERFERENCE_RING], na = 0, k, j;
	double sx = 0, sxx = 0;
	const char *vpath = s->rows[vc->row].cgroup;

	*n = 0;
	for (k = 0; k < INTERFERENCE_RING; k++)
		if (counts(cfg, vc->cpu[k], vc->cpi[k])) {
			at[na++] = k;
			sx += vc->cpi[k];
			sxx += (double)vc->cpi[k] * vc->cpi[k];
		}
	if (na < INTERFERENCE_MIN_CORRELATED)
		return;
	for (j = 0; j < ifr->nr; j++) {
		double r;

		if (j == v || related(vpath, s->rows[ifr->cgs[j].row].cgroup))
			continue;
		r = pearson(vc, &ifr->cgs[j], at, na, sx, sxx);
		if (!(r > cfg->suspect_threshold))
			continue;
		/* Insert by r, highest first; the first seen wins a tie. */
		for (k = *n; k > 0 && best[k - 1].r < r; k--)
			if (k < cfg->suspects)
				best[k] = best[k - 1];
		if (k < cfg->suspects) {
			best[k].cg = j;
			best[k].r = r;
			if (*n < cfg->suspects)
				(*n)++;
		}
	}
}

static unsigned
outliers_in_window(const struct interference *ifr, const struct cg *c)
{
	uint64_t m = ifr->victim_samples >= 64 ? ~0ULL :
	    (1ULL << ifr->victim_samples) - 1;

	return (unsigned)__builtin_popcountll(c->bits & m);
}

struct vpick {
	size_t cg;
	unsigned outliers;
	double cpu;
};

static int
cmp_vpick(const void *a, const void *b)
{
	const struct vpick *x = a, *y = b;

	if (x->outliers != y->outliers)
		return x->outliers < y->outliers ? 1 : -1;
	return (x->cpu < y->cpu) - (x->cpu > y->cpu);
}

/* The result of the sample just closed, with s for the labels. */
static struct interference_result *
build_result(struct interference *ifr, struct snapshot *s)
{
	struct interference_result *r = result_new();
	struct vpick *vp = NULL;
	struct pick best[INTERFERENCE_MAX_SUSPECTS];
	size_t i, n = 0, nv = 0, k, nb, *pos = NULL;

	if (r == NULL)
		return NULL;
	r->enabled = 1;
	for (i = 0; i < ifr->nr; i++)
		n += ifr->cgs[i].analysed;
	r->cgroups = calloc(n + 1, sizeof(*r->cgroups));
	r->suspects = calloc(INTERFERENCE_MAX_VICTIMS * ifr->cfg.suspects + 1,
	    sizeof(*r->suspects));
	vp = calloc(n + 1, sizeof(*vp));
	pos = calloc(ifr->nr + 1, sizeof(*pos));
	if (!r->cgroups || !r->suspects || !vp || !pos)
		goto fail;
	for (i = 0; i < ifr->nr; i++) {
		const struct cg *c = &ifr->cgs[i];
		struct interference_cgroup *o;

		if (!c->analysed)
			continue;
		pos[i] = r->nr_cgroups;
		o = &r->cgroups[r->nr_cgroups++];
		o->row = &s->rows[c->row];
		o->victim = c->victim;
		o->outliers = c->outliers;
		o->victim_periods = c->periods;
		if (c->victim)
			vp[nv++] = (struct vpick){ i, outliers_in_window(ifr, c),
			    c->cpu[(ifr->sample - 1) % INTERFERENCE_RING] };
	}
	/* The victims with most outliers first, at most MAX_VICTIMS. */
	qsort(vp, nv, sizeof(*vp), cmp_vpick);
	if (nv > INTERFERENCE_MAX_VICTIMS)
		nv = INTERFERENCE_MAX_VICTIMS;
	for (i = 0; i < nv; i++) {
		suspects_of(ifr, s, vp[i].cg, best, &nb);
		for (k = 0; k < nb; k++) {
			struct interference_suspect *o =
			    &r->suspects[r->nr_suspects++];

			o->victim = pos[vp[i].cg];
			o->row = &s->rows[ifr->cgs[best[k].cg].row];
			o->rank = (unsigned)k + 1;
			o->correlation = best[k].r;
		}
	}
	free(vp);
	free(pos);
	snapshot_ref(s);
	r->snap = s;
	return r;
fail:
	free(vp);
	free(pos);
	interference_result_unref(r);
	return NULL;
}

/*
 * Close the sample: each cgroup's CPU use and CPI, its outlier test
 * against its baseline, victims; then the result.  When more than half
 * of the cgroups whose baselines are ready (three at least) are
 * outliers at once, the change is the node's (the clock, an input every
 * workload shares), not a neighbour's doing: none of them counts as an
 * outlier, and every baseline moves with the node at once, scaled by the
 * median of the ready cgroups' CPI over their baselines.
 */
static void
close_sample(struct interference *ifr, struct snapshot *s)
{
	const struct interference_config *cfg = &ifr->cfg;
	double elapsed = ifr->pending_intervals * ifr->interval_s;
	size_t slot = ifr->sample % INTERFERENCE_RING, i;
	size_t ready = 0, high = 0;
	int node_wide;
	struct interference_result *res;

	if (ifr->ratio_cap < ifr->nr) {
		double *p = realloc(ifr->ratio, ifr->nr * sizeof(*p));

		if (p == NULL)
			return;		/* the sample is left open */
		ifr->ratio = p;
		ifr->ratio_cap = ifr->nr;
	}
	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];
		double cpu = c->acc[EN] / elapsed;
		double cpi = c->acc[INS] > 0 && c->acc[CYC] > 0 ?
		    c->acc[CYC] / c->acc[INS] : NAN;

		c->cpu[slot] = (float)cpu;
		c->cpi[slot] = (float)cpi;
		memset(c->acc, 0, sizeof(c->acc));
		c->analysed = counts(cfg, c->cpu[slot], c->cpi[slot]);
		c->high = 0;
		if (!c->analysed || c->bn < INTERFERENCE_MIN_SAMPLES)
			continue;
		ifr->ratio[ready++] = c->cpi[slot] / c->bmean;
		/* sigma at least 1% of the mean: a perfectly steady CPI
		 * does not make every wobble an outlier. */
		if (c->cpi[slot] > c->bmean + cfg->outlier_sigma *
		    fmax(sqrt(c->bvar), 0.01 * c->bmean)) {
			c->high = 1;
			high++;
		}
	}
	node_wide = ready >= 3 && high * 2 > ready;
	if (node_wide) {
		double m;

		qsort(ifr->ratio, ready, sizeof(double), cmp_double);
		m = ready % 2 ? ifr->ratio[ready / 2] :
		    (ifr->ratio[ready / 2 - 1] + ifr->ratio[ready / 2]) / 2;
		for (i = 0; i < ifr->nr; i++) {
			ifr->cgs[i].bmean *= m;
			ifr->cgs[i].bvar *= m * m;
		}
	}
	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];
		int out = c->high && !node_wide, victim;

		if (c->analysed)
			baseline_add(c, c->cpi[slot], out);
		c->bits = (c->bits << 1) | (uint64_t)out;
		c->outliers += (uint32_t)out;
		victim = c->analysed &&
		    outliers_in_window(ifr, c) >= cfg->victim_outliers;
		if (victim && !c->victim)
			c->periods++;
		c->victim = (uint8_t)victim;
	}
	ifr->sample++;
	ifr->pending_intervals = 0;
	if ((res = build_result(ifr, s)) != NULL)
		publish(ifr, res);
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
set_geometry(struct interference *ifr, double interval_s)
{
	double sample_s = (double)ifr->cfg.window_ns / 1e9 / INTERFERENCE_RING;
	double per = floor(sample_s / interval_s + 0.5), vw;

	state_reset(ifr);
	ifr->interval_s = interval_s;
	ifr->per_sample = per < 1 ? 1 : (unsigned)per;
	vw = floor((double)ifr->cfg.victim_window_ns / 1e9 /
	    (ifr->per_sample * interval_s) + 0.5);
	ifr->victim_samples = vw < 1 ? 1 : vw > 64 ? 64 : (unsigned)vw;
}

static void
apply_next(struct interference *ifr)
{
	struct interference_config next;
	int have;

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
	interference_config_fini(&ifr->cfg);
	ifr->cfg = next;
	state_reset(ifr);
	publish_empty(ifr);
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
		set_geometry(ifr, s->interval_s);
	if (ifr->have_seq && s->seq <= ifr->last_seq)
		return;			/* seen already */
	dseq = ifr->have_seq ? (unsigned)(s->seq - ifr->last_seq) : 0;
	ifr->have_seq = 1;
	ifr->last_seq = s->seq;
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
	ifr->pending_intervals += dseq;
	if (ifr->pending_intervals >= ifr->per_sample)
		close_sample(ifr, s);
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
	publish_empty(ifr);
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
	return sizeof(*ifr) + ifr->cap * sizeof(struct cg) +
	    (ifr->idx ? (ifr->mask + 1) * sizeof(*ifr->idx) : 0) +
	    ifr->ratio_cap * sizeof(*ifr->ratio);
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
	free(ifr->ratio);
	pthread_mutex_destroy(&ifr->lock);
	pthread_cond_destroy(&ifr->wake);
	free(ifr);
}
