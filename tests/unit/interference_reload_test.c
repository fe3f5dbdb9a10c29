/*
 * interference_reload_test.c - what a reload or a new interval keeps
 * (analysis/reload.c), at its edge, on a generated trace whose answer is
 * known: a victim whose CPI rises with one neighbour's bursts, two
 * decoys and a steady cgroup (tests/lib/ifr_trace.h).  Two analyses are
 * fed the same snapshots; one of them is reloaded, or sees the interval
 * change, in the middle of the bursts.
 *
 * - A reload that changes no count read (cpu_floor here, with no cgroup
 *   between the two floors) changes no result at all: every result after
 *   it is the other analysis's, victim for victim and suspect for
 *   suspect.
 * - A new window (a sample of 2 s where it was 1 s), and a new interval
 *   (3 s where it was 1 s: a sample spans one interval either way),
 *   resample the rings: the victim is analysed in every result after,
 *   and flagged with its antagonist at rank 1 within one window, then
 *   in most of its results.
 * - The conversion itself: a point of 2 s the mean of the two of 1 s it
 *   spans, CPI over those that had one; a point of 0.5 s its 1 s point;
 *   points older than the old ring reached empty; the alarm bits and the
 *   onset at the same ages.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reload.c"	/* its statics: the conversion */
#include "tests/lib/ifr_trace.h"
#include "tests/lib/check.h"

#define START 200		/* the antagonist's first burst */
#define CHANGE 400		/* the reload, or the new interval */

struct burst {
	int on, left;
};

/* One interval of the trace at second t. */
static void
trace_step(struct node *n, struct burst *b, double t)
{
	if (t >= START && b->left-- <= 0) {
		b->on = !b->on;
		b->left = 5 + (int)(uniform() * 15);
	}
	n->cpu[0] = 1.0;
	n->cpu[1] = b->on ? 2.0 : 0.05;
	n->cpu[2] = 0.3 + uniform() * 1.5;
	n->cpu[3] = uniform() < 0.5 ? 0.3 : 1.8;
	n->cpu[4] = 0.8;
	n->cpu[5] = 0.1;		/* under both floors */
	n->cpi[0] = noisy(1.0 + 0.6 * n->cpu[1] / 2.0);
	n->cpi[1] = noisy(2.0);
	n->cpi[2] = noisy(1.5);
	n->cpi[3] = noisy(0.8);
	n->cpi[4] = noisy(1.2);
	n->cpi[5] = noisy(3.0);
}

static void
node_init(struct node *n)
{
	static const char *const p[] = { "/v", "/a", "/d1", "/d2", "/b",
		"/low" };
	size_t i;

	memset(n, 0, sizeof(*n));
	n->nr = 6;
	for (i = 0; i < n->nr; i++)
		n->path[i] = p[i];
	ifr_rng = 0x5eed49;
}

/* Do two results say the same, cgroup for cgroup, suspect for suspect? */
static int
same_result(const struct interference_result *a,
    const struct interference_result *b)
{
	size_t i;

	if (a == NULL || b == NULL || a->nr_cgroups != b->nr_cgroups ||
	    a->nr_suspects != b->nr_suspects)
		return 0;
	for (i = 0; i < a->nr_cgroups; i++)
		if (strcmp(a->cgroups[i].row->cgroup,
		    b->cgroups[i].row->cgroup) != 0 ||
		    a->cgroups[i].victim != b->cgroups[i].victim ||
		    a->cgroups[i].outliers != b->cgroups[i].outliers)
			return 0;
	for (i = 0; i < a->nr_suspects; i++)
		if (a->suspects[i].victim != b->suspects[i].victim ||
		    a->suspects[i].rank != b->suspects[i].rank ||
		    a->suspects[i].correlation != b->suspects[i].correlation ||
		    strcmp(a->suspects[i].row->cgroup,
		    b->suspects[i].row->cgroup) != 0)
			return 0;
	return 1;
}

/* A non-geometry reload: the same results as without it. */
static void
test_floor_reload(void)
{
	static struct node n;
	struct interference_config c = cfg_small(), c2;
	struct interference *a = analysis(&c), *b = analysis(&c);
	struct burst bu = { 0, 0 };
	int t, differ = 0, flagged = 0;

	node_init(&n);
	c2 = c;
	c2.cpu_floor = 0.2;
	for (t = 0; t < 900; t++) {
		struct interference_result *ra, *rb;
		struct snapshot *s;

		trace_step(&n, &bu, t);
		s = node_step(&n);
		if (t == CHANGE)
			CHECK(interference_reload(b, &c2) == 0);
		interference_feed(a, s);
		interference_feed(b, s);
		snapshot_unref(s);
		ra = interference_result(a);
		rb = interference_result(b);
		if (t >= CHANGE) {
			differ += !same_result(ra, rb);
			flagged += analysed(rb, "/v") &&
			    analysed(rb, "/v")->victim;
		}
		interference_result_unref(ra);
		interference_result_unref(rb);
	}
	CHECK(flagged > 50);		/* there was something to keep */
	CHECK(differ == 0);
	interference_free(a);
	interference_free(b);
}

/*
 * The victim across a new sample length (window_s, or interval_s, from
 * CHANGE on): results after it without /v analysed, seconds from CHANGE
 * to the first with /a at rank 1, and of the victim's results after
 * that, those with /a at rank 1 and all.
 */
static void
across_change(double window_s, double interval_s, int *unanalysed,
    double *first_s, int *right, int *flagged)
{
	static struct node n;
	struct interference_config c = cfg_small(), c2;
	struct interference *ifr = analysis(&c);
	struct burst bu = { 0, 0 };
	double t;

	node_init(&n);
	c2 = c;
	c2.window_ns = (uint64_t)(window_s * 1e9);
	*unanalysed = *right = *flagged = 0;
	*first_s = INFINITY;
	for (t = 0; t < 1200; t += n.interval_s > 0 ? n.interval_s : 1) {
		const struct interference_suspect *s1;
		struct interference_result *r;
		int rank1;

		if (t >= CHANGE && n.interval_s == 0) {
			n.interval_s = interval_s;
			CHECK(interference_reload(ifr, &c2) == 0);
		}
		trace_step(&n, &bu, t);
		feed(ifr, &n);
		if (t < CHANGE)
			continue;
		r = interference_result(ifr);
		*unanalysed += analysed(r, "/v") == NULL;
		s1 = suspect(r, "/v", 1);
		rank1 = s1 && strcmp(s1->row->cgroup, "/a") == 0;
		if (rank1 && t - CHANGE < *first_s)
			*first_s = t - CHANGE;
		if (isfinite(*first_s) && analysed(r, "/v") &&
		    analysed(r, "/v")->victim) {
			(*flagged)++;
			*right += rank1;
		}
		interference_result_unref(r);
	}
	interference_free(ifr);
}

static void
test_new_geometry(void)
{
	int un, right, flagged;
	double first;

	/* The window doubled: samples of 2 s, the window 120 s. */
	across_change(120, 1, &un, &first, &right, &flagged);
	CHECK(un == 0);
	CHECK(first <= 120);
	CHECK(flagged > 20 && right * 10 >= flagged * 9);
	/* The interval tripled: samples of 3 s, the window 180 s. */
	across_change(60, 3, &un, &first, &right, &flagged);
	CHECK(un == 0);
	CHECK(first <= 180);
	CHECK(flagged > 20 && right * 10 >= flagged * 9);
}

/* Age a's value in ring r (0: the newest) when sample samples closed. */
static float
at_age(const float *r, uint64_t sample, size_t a)
{
	return r[slot_of(sample, a)];
}

static void
test_convert(void)
{
	static struct interference ifr;
	static struct cg c;
	uint64_t sample = 1000;
	size_t a;

	for (a = 0; a < RING; a++) {
		c.cpu[slot_of(sample, a)] = (float)a;
		c.x[slot_of(sample, a)] = a == 3 ? NAN : (float)(100 + a);
	}
	c.bits = 1ULL << 5 | 1ULL << 40;
	c.onset = sample - 10;
	c.var = 1;
	ifr.cgs = &c;
	ifr.nr = 1;
	ifr.sample = sample;
	resample(&ifr, 1, 2);		/* longer samples */
	CHECK(at_age(c.cpu, sample, 0) == 0.5f);
	CHECK(at_age(c.cpu, sample, 7) == 14.5f);
	CHECK(at_age(c.x, sample, 1) == 102.0f);	/* age 3 had none */
	CHECK(at_age(c.x, sample, 29) == 158.5f);
	CHECK(at_age(c.cpu, sample, 30) == 0 &&
	    isnan(at_age(c.x, sample, 59)));	/* beyond the old ring */
	CHECK(c.bits == (1ULL << 2 | 1ULL << 20));
	CHECK(c.onset == sample - 5);
	CHECK(c.var == 1);
	resample(&ifr, 2, 1);		/* shorter again: each point twice */
	CHECK(at_age(c.cpu, sample, 14) == 14.5f &&
	    at_age(c.cpu, sample, 15) == 14.5f);
	CHECK(c.bits == (1ULL << 4 | 1ULL << 5 | 1ULL << 40 | 1ULL << 41));
	CHECK(c.onset == sample - 10);
	CHECK(c.var == 2);		/* widened */
	/* A new interval through the geometry: samples of 1 s to 2 s. */
	ifr.cfg = cfg_small();
	reload_geometry(&ifr, 1);
	CHECK(ifr.sample_s == 1 && at_age(c.cpu, sample, 1) == 0.5f);
	reload_geometry(&ifr, 2);
	CHECK(ifr.sample_s == 2 && at_age(c.cpu, sample, 1) == 2.5f);
}

int
main(void)
{
	test_convert();
	test_floor_reload();
	test_new_geometry();
	return CHECK_DONE();
}
