/*
 * interference_trend_test.c - the trend of suspects (analysis/onset.c,
 * suspects.c) at each rule's edge, both sides: an antagonist whose use
 * ramps up over a whole window (no step to align on, too smooth to
 * correlate among 200 neighbours) is named by its trend and held after
 * its ramp ends; not when the victim's own use ramps too; a rise within
 * three of its residuals' long-run deviations, or under 0.05 CPU-s/s, is
 * no trend; a held suspect whose use only ramped (no variation from sample
 * to sample) is not contradicted by a correlation that has nothing to
 * see, one whose use swings from sample to sample is.
 * suspects.c is included whole for its statics.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/ifr_trace.h"
#include "tests/lib/check.h"
#include "analysis/suspects.c"
#include "tests/lib/ifr_held.h"

static int own_ramp, twins;
static double walk;

/* /a's use: 0.05 to 100, up by 1.5 over the 180 samples to 280 (three
 * windows: slower than the scenario `ramp`'s 20 minutes at its 10-minute
 * window, so that /v is flagged with the window all ramp and the onset
 * sees no step), 1.55 to 420, 0.05 after. */
static double
ramp_use(int t)
{
	if (t < 100 || t >= 420)
		return 0.05;
	return t < 280 ? 0.05 + 1.5 * (t - 100) / 180.0 : 1.55;
}

/* /v's CPI up 20% per CPU of /a, over a wander of its own (an AR(1), phi
 * 0.9, as in interference_rules_test's steady node). */
static void
ramp_step(struct node *n, int t)
{
	size_t i;

	if (t == 0)
		walk = 0;
	walk = 0.9 * walk + 0.05 * (uniform() - 0.5);
	n->cpu[1] = ramp_use(t) * (1 + 0.01 * (uniform() - 0.5));
	n->cpu[0] = own_ramp ? 1.0 + 0.5 * ramp_use(t) : 1.0;
	n->cpi[0] = (1 + walk) * noisy(1.0) * (1 + 0.2 * n->cpu[1]);
	n->cpi[1] = noisy(2.0);
	for (i = 2; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
	if (twins)
		n->cpu[2] = n->cpu[1];
}

/*
 * The ramp: /v is flagged during /a's ramp; /a is named from its trend
 * (the name held as the onset's: no correlation found it), at rank 1 in
 * every one of /v's results from 160, when the window is all ramp (a line
 * is fitted to the whole window; a random walk's is steep by chance, so a
 * trend is named only past what random walks reach at the family's
 * level), to 420: after its ramp too, held (its use no longer varies, and
 * nothing contradicts it).  No busy neighbour is named in any.  With the
 * onset alone, /a is rank 1 in 248 of the 260.
 */
static void
test_ramp(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	const struct interference_suspect *s;
	struct cg *v;
	int t, flagged = 0, first = 0, decoys = 0, by_trend = 0, late = 0;
	size_t i;

	ifr_rng = 3;
	own_ramp = 0;
	for (t = 0; t < 420; t++) {
		ramp_step(n, t);
		feed(ifr, n);
		r = interference_result(ifr);
		if (t >= 100 && analysed(r, "/v") && analysed(r, "/v")->victim) {
			s = suspect(r, "/v", 1);
			flagged += t >= 160;
			first += t >= 160 && s && strcmp(s->row->cgroup,
			    "/a") == 0;
			late += t >= 350 && s && strcmp(s->row->cgroup,
			    "/a") == 0;
			for (i = 2; i < n->nr; i++)
				decoys += named(r, n->path[i]);
			v = ifr_find(ifr, ifr_hash(IFR_HASH0, "/v", 2));
			by_trend |= v && v->nheld == 1 && v->held[0].onset &&
			    t < 290;
		}
		interference_result_unref(r);
	}
	printf("ramp: /v flagged in %d results from 160, /a rank 1 in %d (%d "
	    "after 350), named by its trend: %s, busy neighbours named %d times\n",
	    flagged, first, late, by_trend ? "yes" : "no", decoys);
	CHECK(flagged >= 100);
	CHECK(first == flagged);
	CHECK(late >= 50);
	CHECK(by_trend);
	CHECK(decoys == 0);
	interference_free(ifr);
	free(n);
}

/*
 * The ramp explained otherwise: with /v's own use ramping with /a's, its
 * own load explains the rise as well: /a is never named.  With /b ramping
 * as /a does (two replicas started together), /v's CPI follows both
 * alike: neither is named from the trend.
 */
/* n's ramp to `until` in a new analysis: /v's victim results from 100
 * into *flagged, those naming /a or /b returned. */
static int
ramp_named(struct node *n, int until, int *flagged)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct interference_result *r;
	int t, named_n = 0;

	ifr_rng = 3;
	*flagged = 0;
	for (t = 0; t < until; t++) {
		ramp_step(n, t);
		feed(ifr, n);
		r = interference_result(ifr);
		if (t >= 100 && analysed(r, "/v") && analysed(r, "/v")->victim) {
			(*flagged)++;
			named_n += named(r, "/a") || named(r, "/b");
		}
		interference_result_unref(r);
	}
	interference_free(ifr);
	return named_n;
}

static void
test_ramp_explained(void)
{
	struct node *n = pair_node();
	int flagged, first;

	own_ramp = 1;
	first = ramp_named(n, 300, &flagged);
	printf("ramp with /v's own use: /v flagged in %d results, /a named "
	    "in %d\n", flagged, first);
	CHECK(flagged >= 50);
	CHECK(first == 0);
	own_ramp = 0;

	twins = 1;
	n->path[2] = "/b";
	first = ramp_named(n, 230, &flagged);
	printf("twins ramping as one: /v flagged in %d results to 230, /a "
	    "or /b named in %d\n", flagged, first);
	CHECK(flagged >= 20);
	CHECK(first == 0);
	twins = 0;
	free(n);
}

/* A cgroup whose ring is y[] (slot k at position k: sample 60). */
static void
ring_of(struct interference *ifr, struct cg *u, const double *y)
{
	size_t k;

	memset(u, 0, sizeof(*u));
	ifr->sample = RING;
	for (k = 0; k < RING; k++)
		u->cpu[ifr_slot_at(ifr, k)] = (float)y[k];
}

/*
 * trend_t's two floors: a line up by `rise` over the window with white
 * noise of sd 0.02 (long-run deviation 0.02) is a trend from a rise of
 * 0.06 (three deviations) and not at 0.05; with sd 0.005, 0.06 is one
 * and 0.04 (under 0.05 CPU-s/s) is not.  An AR(1) wander (phi 0.9, sd
 * 0.3) with no line in it is none, however far it wanders.
 */
static double
line_t(struct interference *ifr, double rise, double sd, uint64_t seed)
{
	double y[RING];
	struct cg u;
	size_t k;

	ifr_rng = seed;
	for (k = 0; k < RING; k++)
		y[k] = 1 + rise * (double)k / (RING - 1) +
		    sd * sqrt(12) * (uniform() - 0.5);
	ring_of(ifr, &u, y);
	return trend_t(ifr, &u);
}

static void
test_trend_floors(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	double y[RING], a = 0, t;
	struct cg u;
	int seed, moved = 0;
	size_t k;

	CHECK(line_t(ifr, 0.2, 0.02, 1) > 10);
	CHECK(line_t(ifr, 0.08, 0.02, 1) > 0);
	CHECK(line_t(ifr, 0.04, 0.02, 1) == 0);
	CHECK(line_t(ifr, 0.06, 0.005, 1) > 0);
	CHECK(line_t(ifr, 0.045, 0.005, 1) == 0);
	for (seed = 1; seed <= 200; seed++) {
		ifr_rng = (uint64_t)seed;
		for (k = 0; k < RING; k++) {
			a = 0.9 * a + 0.3 * sqrt(0.19) * sqrt(12) *
			    (uniform() - 0.5);
			y[k] = 1 + a;
		}
		ring_of(ifr, &u, y);
		t = trend_t(ifr, &u);
		moved += t > critical_z(0.001, 200, IFR_ONSET_SLACK + 2);
	}
	printf("AR(1) wanders with a trend past the bar: %d of 200\n", moved);
	CHECK(moved == 0);
	interference_free(ifr);
}

/*
 * A held suspect is contradicted by use that swings from sample to
 * sample, not by one move: /a steps up at 100 and stays, /v's CPI up 25%
 * from then (named by the onset); from 140 /q's use ramps from 0.5 to 1.5
 * over 30 samples and stays, /p's swings between 1.0 and 1.5 at random,
 * neither followed by /v's CPI.  Held for /v at 190, /q is still named (a
 * window with one ramp in it says nothing a correlation can weigh), /p is
 * not (its swings, unanswered, speak against it).
 */
static void
held_step(struct node *n, int t)
{
	size_t i;

	n->cpu[0] = 1.0;
	n->cpu[1] = t >= 100 ? 1.5 : 0.05;
	n->cpu[2] = t < 140 ? 0.5 : t < 170 ? 0.5 + (t - 140) / 30.0 : 1.5;
	n->cpu[3] = 1.0 + 0.5 * uniform();
	n->cpi[0] = noisy(1.0) * (t >= 100 ? 1.25 : 1);
	for (i = 1; i < n->nr; i++)
		n->cpi[i] = noisy(1.0);
	for (i = 4; i < n->nr; i++)
		n->cpu[i] = 0.3 + uniform();
}

static void
test_held_ramp(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	struct cg *v, *q, *p;
	int t;

	n->path[2] = "/q";
	n->path[3] = "/p";
	ifr_rng = 5;
	for (t = 0; t < 190; t++) {
		held_step(n, t);
		feed(ifr, n);
	}
	r = interference_result(ifr);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	interference_result_unref(r);
	v = ifr_find(ifr, ifr_hash(IFR_HASH0, "/v", 2));
	q = ifr_find(ifr, ifr_hash(IFR_HASH0, "/q", 2));
	p = ifr_find(ifr, ifr_hash(IFR_HASH0, "/p", 2));
	CHECK(v && q && p);
	if (v && q && p) {
		CHECK(held_named(ifr, (size_t)(v - ifr->cgs),
		    (size_t)(q - ifr->cgs), 0));
		CHECK(!held_named(ifr, (size_t)(v - ifr->cgs),
		    (size_t)(p - ifr->cgs), 0));
	}
	interference_free(ifr);
	free(n);
}

int
main(void)
{
	test_trend_floors();
	test_ramp();
	test_ramp_explained();
	test_held_ramp();
	return CHECK_DONE();
}
