/*
 * interference_rules_test.c - each rule of the interference analysis
 * (analysis/detect.c, suspects.c, onset.c) at its edge, both sides, on
 * generated traces (tests/lib/ifr_trace.h) whose right answer is known by
 * construction:
 *
 * - the node's common mode, both ways: a change every cgroup shares makes
 *   no victim, while it lasts or after it ends, and a lone rise right
 *   after it is caught; a rise shared by exactly half is theirs, by more
 *   than half the node's; a shared change that reaches each cgroup
 *   unevenly, large (+10% to +50%) or small (+5% to +25%), none;
 * - one level of the tree: a pod (or the root) whose containers are
 *   counted is never judged nor named, nor votes in the node's factor
 *   when it learnt a baseline before they were counted; one whose only
 *   container went is judged again;
 * - the detector: the sigma floor (a steady CPI's wobbles are no rise),
 *   the CUSUM's reference (outlier_sigma / 2, a rise half a sigma either
 *   side of it), the step cap (one wild sample never alarms alone),
 *   victim_outliers exactly (alarms counted, then the rule at that count
 *   and one more), victim_window (bursts within it and beyond it), the
 *   score's cap (a long episode's victim is none soon after it ends);
 *   the clean start (a baseline learnt while an antagonist acts in bursts
 *   comes out at the clean CPI, and the victim is flagged with it; one
 *   whose CPI jumps with no neighbour behind it keeps its wide baseline;
 *   so too where the victim's own CPI wanders as far as the bursts
 *   reach, from the line of its CPI on the neighbour's use);
 * - suspects: the significance's figures (Fisher's z with n_eff - 5, the
 *   Bonferroni bound over two tests a candidate); the victim's own use
 *   held out (a sidecar following the victim's load is never named),
 *   significance against the number of candidates (a decoy named among
 *   3, not among 3,000) and against autocorrelation, the effective n's
 *   floor (a smooth use followed at 0.999 named by its correlation), a
 *   neighbour whose use the victim's CPI follows 30 s late named like
 *   one it follows at once, the onset (a neighbour that steps up and
 *   stays is named, and still after its step has left the window; not
 *   when the victim's own use stepped too; of several stepping together,
 *   the one the victim's CPI follows or none, of two stepping as one
 *   neither, and the name gives way to the correlation's), a held suspect that stopped let go
 *   after a victim window, suspect_threshold and suspects with their
 *   ranking; the swingers a fit asks, the most varied first.
 *
 * One file: one analysis's rules, a function each, in the order listed
 * above (detect.c's, then suspects.c's), all driven by one trace generator
 * (tests/lib/ifr_trace.h) through one driver (run_until): split by rule,
 * the parts would share everything but their checks.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/ifr_trace.h"
#include "tests/lib/check.h"
/* Its statics, for the significance's two figures (test_significance). */
#include "analysis/suspects.c"
#include "tests/lib/ifr_held.h"

/* Feed n until t reaches `to`, counting victims into *any. */
static void
run_until(struct interference *ifr, struct node *n, int *t, int to,
    void (*step)(struct node *, int), int *any)
{
	struct interference_result *r;

	for (; *t < to; (*t)++) {
		step(n, *t);
		feed(ifr, n);
		r = interference_result(ifr);
		if (any)
			*any += victims(r);
		interference_result_unref(r);
	}
}

/* ---- the node's common mode ------------------------------------------ */

static double node_rise;		/* every cgroup's factor */
static int lone_from = 1 << 30;		/* /w0 alone rises from then */

static void
six_step(struct node *n, int t)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		n->cpu[i] = 1.0;
		n->cpi[i] = noisy(1.0 + 0.2 * (double)i) * node_rise *
		    (i == 0 && t >= lone_from ? 1.5 : 1);
	}
}

/*
 * Six cgroups; a +30% every cgroup shares for 120 samples makes no
 * victim, nor does its end; /w0 rising alone 20 samples after it ends is
 * a victim within 15 (the old node-wide rule left every baseline
 * inflated for about an hour after such an episode).
 */
static void
test_common_mode(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 6, .path = { "/w0", "/w1", "/w2", "/w3",
	    "/w4", "/w5" } };
	struct interference_result *r;
	int t = 0, any = 0;

	node_rise = 1;
	lone_from = 1 << 30;
	run_until(ifr, &n, &t, 100, six_step, &any);
	node_rise = 1.3;
	run_until(ifr, &n, &t, 220, six_step, &any);
	node_rise = 1;
	run_until(ifr, &n, &t, 240, six_step, &any);
	CHECK(any == 0);
	lone_from = 240;
	run_until(ifr, &n, &t, 255, six_step, NULL);
	r = interference_result(ifr);
	CHECK(analysed(r, "/w0") && analysed(r, "/w0")->victim);
	CHECK(victims(r) == 1);
	interference_result_unref(r);
	interference_free(ifr);
}

static int rising;			/* how many of four rise */

static void
four_step(struct node *n, int t)
{
	size_t i;

	for (i = 0; i < 4; i++) {
		n->cpu[i] = 1.0;
		n->cpi[i] = noisy(1.0) * (t >= 100 && (int)i < rising ?
		    1.5 : 1);
	}
}

/* Of four, exactly half rising: both are victims (the lower median is
 * the node's); three of four: the node's, no victim. */
static void
test_half(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node n = { .nr = 4, .path = { "/h0", "/h1", "/h2", "/h3" } };
	struct interference_result *r;
	int t = 0, any = 0;

	rising = 2;
	ifr = analysis(&c);
	run_until(ifr, &n, &t, 130, four_step, NULL);
	r = interference_result(ifr);
	CHECK(victims(r) == 2);
	CHECK(analysed(r, "/h0") && analysed(r, "/h0")->victim);
	CHECK(analysed(r, "/h1") && analysed(r, "/h1")->victim);
	interference_result_unref(r);
	interference_free(ifr);

	rising = 3;
	t = 0;
	ifr = analysis(&c);
	run_until(ifr, &n, &t, 130, four_step, &any);
	CHECK(any == 0);
	interference_free(ifr);
}

static double uneven_lo = 0.1, uneven_span = 0.4;

static void
uneven_step(struct node *n, int t)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		n->cpu[i] = 1.0;
		/* From t = 200 for 400 samples, a change of the node's that
		 * reaches each cgroup unevenly: +10% to +50%. */
		n->cpi[i] = noisy(1.0) * (t >= 200 && t < 600 ?
		    1 + uneven_lo + uneven_span * (double)i /
		    (double)(n->nr - 1) : 1);
	}
}

/*
 * A node-wide change that reaches each cgroup unevenly (+10% to +50%,
 * the median +30%): each cgroup learns how much of the node's change it
 * takes, and after a minute none is a victim, for as long as the change
 * lasts.  With one factor for all, the cgroups at +50% stayed 15% above
 * the node's for as long as the change lasted, and were victims.
 */
static void
test_uneven(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 9, .path = { "/u0", "/u1", "/u2", "/u3",
	    "/u4", "/u5", "/u6", "/u7", "/u8" } };
	int t = 0, any = 0;

	uneven_lo = 0.1;
	uneven_span = 0.4;
	run_until(ifr, &n, &t, 260, uneven_step, NULL);
	run_until(ifr, &n, &t, 600, uneven_step, &any);
	CHECK(any == 0);
	interference_free(ifr);

	/* Smaller: +5% to +25% (the median +15%).  The node's moves of 2%
	 * and more teach each cgroup its share; learnt only from moves of
	 * 20% and more, none of these would teach it, and the cgroups at
	 * +25% were victims for most of the change (700 victim-samples). */
	uneven_lo = 0.05;
	uneven_span = 0.2;
	any = 0;
	t = 0;
	ifr = analysis(&c);
	run_until(ifr, &n, &t, 260, uneven_step, NULL);
	run_until(ifr, &n, &t, 600, uneven_step, &any);
	CHECK(any == 0);
	interference_free(ifr);
}

static int lone_until;			/* /w0's rise ends then */

static void
episode_step(struct node *n, int t)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		n->cpu[i] = 1.0;
		n->cpi[i] = noisy(1.0 + 0.2 * (double)i) *
		    (i == 0 && t >= 100 && t < lone_until ? 1.5 : 1);
	}
}

/*
 * The alarm score is capped (2H): a victim for 300 samples is one no
 * more within a victim window and a little (40 samples) of the end of
 * its rise, and stays none.  Uncapped, the score of a long episode took
 * as long again to run down: a victim still reported 200 samples after
 * the interference ended.
 */
static void
test_episode_ends(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 6, .path = { "/w0", "/w1", "/w2", "/w3",
	    "/w4", "/w5" } };
	struct interference_result *r;
	int t = 0, after = 0;

	lone_until = 400;
	run_until(ifr, &n, &t, 400, episode_step, NULL);
	r = interference_result(ifr);
	CHECK(analysed(r, "/w0") && analysed(r, "/w0")->victim);
	interference_result_unref(r);
	run_until(ifr, &n, &t, 440, episode_step, NULL);
	run_until(ifr, &n, &t, 700, episode_step, &after);
	CHECK(after == 0);
	interference_free(ifr);
}

/* ---- one level of the tree ------------------------------------------- */

static int late_from = 1 << 30;		/* two containers rise from then */

static void
late_step(struct node *n, int t)
{
	size_t i;

	/* Alone, the pod ran something else (an init container): its
	 * baseline is not what its containers make later. */
	n->cpu[0] = 4.0;
	n->cpi[0] = noisy(0.6);
	if (n->nr == 1)
		return;
	for (i = 1; i < 5; i++) {
		n->cpu[i] = 1.0;
		n->cpi[i] = noisy(1.0) * (t >= late_from && i < 3 ? 1.5 : 1);
	}
	/* The pod's counts are its containers'. */
	n->cpi[0] = (n->cpi[1] + n->cpi[2] + n->cpi[3] + n->cpi[4]) / 4;
}

/*
 * A pod counted alone first (its containers not yet counted: a runtime
 * that names them late, a rule added by a reload) learns a baseline;
 * once its four containers are counted it contains them, and neither is
 * judged nor votes in the node's factor.  Two of the four rising 50% are
 * both victims, as in test_half.  With the pod's vote (its baseline,
 * learnt on other work, 0.6 against the 1.0 its containers make, so its
 * ratio well over theirs) the lower median of five was the risen
 * containers' own: the factor took all of their rise and neither was.
 */
static void
test_late_pod(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 1, .path = { "/kp/pod", "/kp/pod/c0",
	    "/kp/pod/c1", "/kp/pod/c2", "/kp/pod/c3" } };
	struct interference_result *r;
	int t = 0, any = 0;

	late_from = 1 << 30;
	run_until(ifr, &n, &t, 100, late_step, NULL);
	n.nr = 5;
	run_until(ifr, &n, &t, 200, late_step, &any);
	CHECK(any == 0);
	late_from = 200;
	run_until(ifr, &n, &t, 230, late_step, NULL);
	r = interference_result(ifr);
	CHECK(victims(r) == 2);
	CHECK(analysed(r, "/kp/pod/c0") && analysed(r, "/kp/pod/c0")->victim);
	CHECK(analysed(r, "/kp/pod/c1") && analysed(r, "/kp/pod/c1")->victim);
	CHECK(analysed(r, "/kp/pod") == NULL);
	interference_result_unref(r);
	interference_free(ifr);
}

static int pod_rise_from = 1 << 30;	/* the pod alone rises from then */

static void
gone_step(struct node *n, int t)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		n->cpu[i] = 1.0;
		n->cpi[i] = noisy(1.0 + 0.2 * (double)i) *
		    (i == 0 && t >= pod_rise_from ? 1.5 : 1);
	}
}

/*
 * A pod whose only container goes is the most specific counted cgroup
 * again (its own processes, a sidecar left): it is judged from then on,
 * and a rise of its own makes it a victim; the candidates are counted
 * anew.  With the leaves left as they were, it was never judged again
 * and the count of cgroups containing others stayed stale.
 */
static void
test_container_gone(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 5, .path = { "/kp/pod", "/o1", "/o2", "/o3",
	    "/kp/pod/c" } };
	struct interference_result *r;
	int t = 0;

	pod_rise_from = 1 << 30;
	run_until(ifr, &n, &t, 100, gone_step, NULL);
	r = interference_result(ifr);
	CHECK(r && r->containing == 1);
	CHECK(analysed(r, "/kp/pod") == NULL);
	interference_result_unref(r);
	n.nr = 4;
	run_until(ifr, &n, &t, 200, gone_step, NULL);
	r = interference_result(ifr);
	CHECK(r && r->containing == 0);
	CHECK(analysed(r, "/kp/pod") != NULL);
	interference_result_unref(r);
	pod_rise_from = 200;
	run_until(ifr, &n, &t, 230, gone_step, NULL);
	r = interference_result(ifr);
	CHECK(analysed(r, "/kp/pod") && analysed(r, "/kp/pod")->victim);
	interference_result_unref(r);
	interference_free(ifr);
}

/*
 * A node counted as the embedded default counts Kubernetes: the root,
 * two pods and their containers, each pod's counts its containers' sum.
 * The victim container's CPI follows the antagonist container's use: the
 * antagonist container is named first, and the root and the pods are
 * never judged nor named (the root contains every victim).
 */
static void
test_levels(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 7, .path = { "/", "/kp/pod1", "/kp/pod1/v",
	    "/kp/pod1/s", "/kp/pod2", "/kp/pod2/a", "/kp/pod2/b" } };
	struct interference_result *r;
	int t, on = 0, left = 0, first = 0, seen = 0, upper = 0, i;

	ifr_rng = 4242;
	for (t = 0; t < 300; t++) {
		if (t >= 100 && left-- <= 0) {
			on = !on;
			left = 5 + (int)(uniform() * 15);
		}
		n.cpu[2] = 1.0;
		n.cpu[3] = 0.3 + 0.2 * uniform();
		n.cpu[5] = on ? 1.8 : 0.05;
		n.cpu[6] = 0.5 + uniform();
		n.cpi[2] = noisy(1.0 + 0.3 * n.cpu[5]);
		n.cpi[3] = noisy(1.2);
		n.cpi[5] = noisy(2.0);
		n.cpi[6] = noisy(0.9);
		/* A pod's counts are its containers'; the root's all. */
		n.cpu[1] = n.cpu[2] + n.cpu[3];
		n.cpi[1] = (n.cpu[2] * n.cpi[2] + n.cpu[3] * n.cpi[3]) /
		    n.cpu[1];
		n.cpu[4] = n.cpu[5] + n.cpu[6];
		n.cpi[4] = (n.cpu[5] * n.cpi[5] + n.cpu[6] * n.cpi[6]) /
		    n.cpu[4];
		n.cpu[0] = n.cpu[1] + n.cpu[4];
		n.cpi[0] = (n.cpu[1] * n.cpi[1] + n.cpu[4] * n.cpi[4]) /
		    n.cpu[0];
		feed(ifr, &n);
		r = interference_result(ifr);
		if (analysed(r, "/kp/pod1/v") &&
		    analysed(r, "/kp/pod1/v")->victim) {
			seen++;
			first += suspect(r, "/kp/pod1/v", 1) && strcmp(suspect(
			    r, "/kp/pod1/v", 1)->row->cgroup, "/kp/pod2/a") == 0;
		}
		for (i = 0; i < 5; i += i == 1 ? 3 : 1) {
			if (i == 2)
				continue;
			upper += analysed(r, n.path[i]) != NULL ||
			    named(r, n.path[i]);
		}
		CHECK(r && (r->nr_cgroups == 0 || r->containing == 3));
		interference_result_unref(r);
	}
	CHECK(seen > 20);
	CHECK(first == seen);
	CHECK(upper == 0);
	interference_free(ifr);
}

/* The floor: a cgroup at it is judged, one just under it is not. */
static void
test_floor(void)
{
	static const double at[4][2] = { { 0.25, 0.25 }, { 0.2499, 0.25 },
	    { 0.5, 0.5 }, { 0.4999, 0.5 } };
	int i, t;

	for (i = 0; i < 4; i++) {
		struct interference_config c = cfg_small();
		struct interference *ifr;
		struct node n = { .nr = 1, .path = { "/f" } };
		struct interference_result *r;

		c.cpu_floor = at[i][1];
		ifr = analysis(&c);
		for (t = 0; t < 5; t++) {
			n.cpu[0] = at[i][0];
			n.cpi[0] = 1.0;
			feed(ifr, &n);
		}
		r = interference_result(ifr);
		CHECK((analysed(r, "/f") != NULL) == (i % 2 == 0));
		interference_result_unref(r);
		interference_free(ifr);
	}
}

/* ---- the detector ----------------------------------------------------- */

/*
 * One cgroup, CPI exactly 1.0 for 400 samples (its variance zero, so its
 * sigma is the floor, 1% of the mean; past 360 samples the young
 * baseline's widening is 1 + 30/360), then `rise` (relative) for `len`
 * samples (in bursts of `width` every `period` samples when period is not
 * 0), then 1.0 again for `after`.  The cgroup's outliers and whether it
 * was ever a victim.
 */
static void
probe(double sigma, unsigned need, double rise, int len, int after,
    int period, int width, double *outliers, int *victim)
{
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node n = { .nr = 1, .path = { "/e" } };
	struct interference_result *r;
	const struct interference_cgroup *g;
	int t;

	c.outlier_sigma = sigma;
	c.victim_outliers = need;
	ifr = analysis(&c);
	*victim = 0;
	for (t = 0; t < 400 + len + after; t++) {
		int in = t >= 400 && t < 400 + len;

		n.cpu[0] = 1.0;
		n.cpi[0] = 1.0;
		if (in && (period == 0 || (t - 400) % period < width))
			n.cpi[0] = 1.0 + rise;
		feed(ifr, &n);
		r = interference_result(ifr);
		g = analysed(r, "/e");
		*victim |= g && g->victim;
		*outliers = g ? g->outliers : -1;
		interference_result_unref(r);
	}
	interference_free(ifr);
}

/* The long-run sigma of the steady probe: the 1% floor, widened by the
 * young baseline's 1 + 30/360. */
#define LR (0.01 * (1 + 30.0 / 360))

static void
test_detector(void)
{
	double o, a;
	int v, need;

	/* The sigma floor: wobbles of 0.8% of a perfectly steady CPI
	 * (under one floor sigma) are no rise. */
	probe(2, 3, 0.008, 100, 0, 2, 1, &o, &v);
	CHECK(o == 0 && v == 0);
	/* The reference, outlier_sigma / 2: a rise half a sigma above it
	 * alarms, half a sigma under it never. */
	probe(2, 3, 1.5 * LR, 60, 0, 0, 0, &o, &v);
	CHECK(o > 0 && v == 1);
	probe(2, 3, 0.5 * LR, 200, 0, 0, 0, &o, &v);
	CHECK(o == 0 && v == 0);
	probe(4, 3, 2.5 * LR, 60, 0, 0, 0, &o, &v);
	CHECK(o > 0 && v == 1);
	probe(4, 3, 1.5 * LR, 200, 0, 0, 0, &o, &v);
	CHECK(o == 0 && v == 0);
	/* The step cap: one sample ten times as high never alarms alone,
	 * nor two in a row; three in a row do. */
	probe(2, 1, 9.0, 1, 60, 0, 0, &o, &v);
	CHECK(o == 0 && v == 0);
	probe(2, 1, 9.0, 2, 60, 0, 0, &o, &v);
	CHECK(o == 0 && v == 0);
	probe(2, 1, 9.0, 3, 60, 0, 0, &o, &v);
	CHECK(o > 0 && v == 1);
	/* victim_outliers exactly: a rise of 5 samples makes some alarms;
	 * at that many it is a victim, at one more not. */
	probe(2, 64, 9.0, 5, 60, 0, 0, &a, &v);
	need = (int)a;
	CHECK(need >= 2 && need < 30);
	probe(2, (unsigned)need, 9.0, 5, 60, 0, 0, &o, &v);
	CHECK(o == a && v == 1);
	probe(2, (unsigned)need + 1, 9.0, 5, 60, 0, 0, &o, &v);
	CHECK(o == a && v == 0);
	/* victim_window (30 samples): the alarms of two such rises 10
	 * samples apart count together, 40 apart not. */
	probe(2, (unsigned)need + 1, 9.0, 20, 60, 15, 5, &o, &v);
	CHECK(o == 2 * a && v == 1);
	probe(2, (unsigned)need + 1, 9.0, 50, 60, 45, 5, &o, &v);
	CHECK(o == 2 * a && v == 0);
}


/* ---- the clean start -------------------------------------------------- */

static int burst_own;			/* /w's own jumps: on or off */

/* /a on for 4 samples, off for 4, from the first; /v's CPI up 30% while
 * it is on.  /w's CPI jumps 30% on and off at random (a switch with odds
 * 1 in 4 a sample), nobody's use behind it.  20 busy neighbours. */
static void
bursty_step(struct node *n, int t)
{
	int on = t % 8 < 4;
	size_t i;

	if (t == 0)
		burst_own = 0;
	if (uniform() < 0.25)
		burst_own = !burst_own;
	n->cpu[0] = n->cpu[1] = 1.0;
	n->cpu[2] = on ? 1.5 : 0.05;
	n->cpi[0] = noisy(1.0) * (on ? 1.3 : 1);
	n->cpi[1] = noisy(1.0) * (burst_own ? 1.3 : 1);
	n->cpi[2] = noisy(2.0);
	for (i = 3; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

/*
 * Started while /a acts in bursts: /v's first 30 samples (its baseline's)
 * are half raised.  Its baseline comes out at the clean CPI once /a's use
 * explains them, so that from a window after that /v is flagged with /a
 * at rank 1 in most results; /w, whose jumps nobody's use explains,
 * keeps the baseline it learnt (jumps and all) and is flagged in few.
 */
/* One run of a clean start: /v, /w, /a and 20 busy neighbours fed by step
 * for `to` samples from seed; from sample 100 on, /v's results with /a at
 * rank 1 added to *right and /w's flagged ones to *own. */
static void
clean_run(void (*step)(struct node *, int), uint64_t seed, int to,
    int *right, int *own)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 23, .path = { "/v", "/w", "/a" } };
	static char names[20][8];
	struct interference_result *r;
	size_t i;
	int t;

	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "/n%zu", i);
		n.path[i + 3] = names[i];
	}
	ifr_rng = seed;
	for (t = 0; t < to; t++) {
		step(&n, t);
		feed(ifr, &n);
		if (t < 100)
			continue;
		r = interference_result(ifr);
		*right += suspect(r, "/v", 1) &&
		    strcmp(suspect(r, "/v", 1)->row->cgroup, "/a") == 0;
		*own += analysed(r, "/w") && analysed(r, "/w")->victim;
		interference_result_unref(r);
	}
	interference_free(ifr);
}

static void
test_clean_start(void)
{
	int right = 0, own = 0;

	clean_run(bursty_step, 11, 300, &right, &own);
	printf("clean start: /v flagged with /a in %d of 200, /w in %d\n",
	    right, own);
	CHECK(right >= 160);
	CHECK(own <= 20);
}

/* /v's and /w's own slow wander (AR(1), phi 0.95, sd 7% in log). */
static double wander_v, wander_w;

static double
wander(double *w)
{
	*w = 0.95 * *w + 0.076 * (uniform() - 0.5);
	return exp(*w);
}

/* The share of a sample a burst took: none in WANDER_IDLE of them, else
 * anything from a fifth to all of it (a burst of 20 to 90 s across
 * samples of 10 s begins and ends within some). */
#define WANDER_IDLE 0.3
/* Runs of 400 samples: one run's wander may or may not leave a quiet
 * stretch in the first ring (without the line, 0 to 221 of 300 right over
 * seeds 1 to 10; with it, 196 to 291). */
#define WANDER_SEEDS 6

static double
share(void)
{
	return uniform() < WANDER_IDLE ? 0 : 0.2 + 0.8 * uniform();
}

static void
wandering_step(struct node *n, int t)
{
	double a = share(), own = share();
	size_t i;

	if (t == 0)
		wander_v = wander_w = 0;
	n->cpu[0] = n->cpu[1] = 1.0;
	n->cpu[2] = 0.05 + 1.5 * a;
	n->cpi[0] = noisy(1.0) * wander(&wander_v) * (1 + 0.35 * a);
	n->cpi[1] = noisy(1.0) * wander(&wander_w) * (1 + 0.35 * own);
	n->cpi[2] = noisy(2.0);
	for (i = 3; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

/*
 * The same start, where no clean part lies below: /v's own CPI wanders
 * (7%, slowly) and /a's bursts take part of most samples, so that the
 * ring's CPI is one spread, not two parts.  /v's baseline comes from the
 * line of its CPI on /a's use, at /a's least (detect_fit_clean), and /v
 * is flagged with /a at rank 1 in most results; /w, whose CPI jumps as
 * much with nobody's use behind it, keeps its wide baseline.
 */
static void
test_clean_wandering(void)
{
	int right = 0, own = 0;
	unsigned seed;

	for (seed = 1; seed <= WANDER_SEEDS; seed++)
		clean_run(wandering_step, seed, 400, &right, &own);
	printf("clean start, wandering: /v flagged with /a in %d of %d, "
	    "/w in %d\n", right, 300 * WANDER_SEEDS, own);
	CHECK(right >= 200 * WANDER_SEEDS);
	CHECK(own <= 30 * WANDER_SEEDS);
}

/* ---- suspects --------------------------------------------------------- */

/*
 * The victim's own use held out: /v's use varies and its CPI rises with
 * it; /side's use follows /v's (a sidecar, a client); /n is busy on its
 * own.  /v is a victim, and neither /side nor /n is ever named.  Without
 * the victim's own use held out, /side would be named first.
 */
static void
test_own_load(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 3, .path = { "/v", "/side", "/n" } };
	struct interference_result *r;
	int t, seen = 0, wrong = 0;

	ifr_rng = 99;
	for (t = 0; t < 300; t++) {
		double load = t < 100 ? 1.0 : 1.0 + 0.8 * uniform();

		n.cpu[0] = load;
		n.cpu[1] = 0.4 * load + 0.01 * uniform();
		n.cpu[2] = 0.5 + uniform();
		n.cpi[0] = noisy(1.0 + 0.6 * (load - 1.0));
		n.cpi[1] = noisy(1.0);
		n.cpi[2] = noisy(1.0);
		feed(ifr, &n);
		r = interference_result(ifr);
		seen += analysed(r, "/v") && analysed(r, "/v")->victim;
		wrong += named(r, "/side") || named(r, "/n");
		interference_result_unref(r);
	}
	CHECK(seen > 20);
	CHECK(wrong == 0);
	interference_free(ifr);
}

/* A victim driven by a hidden X, decoy /d whose use is X plus noise of
 * its own (its correlation about 0.5), and `extra` cgroups of white use:
 * is /d named at the last sample?  *r_out: its strength when named. */
static int
decoy_named(size_t extra, double *r_out)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = calloc(1, sizeof(*n));
	struct interference_result *r;
	const struct interference_suspect *s;
	char (*names)[24] = calloc(extra + 2, sizeof(*names));
	int t, named_ = 0;
	size_t i;

	*r_out = 0;
	CHECK(n != NULL && names != NULL);
	n->nr = extra + 2;
	n->path[0] = "/v";
	n->path[1] = "/d";
	for (i = 0; i < extra; i++) {
		snprintf(names[i], sizeof(names[i]), "/x%zu", i);
		n->path[i + 2] = names[i];
	}
	ifr_rng = 2024;
	for (t = 0; t < 121; t++) {
		double x = t < 60 ? 0 : uniform();

		n->cpu[0] = 1.0;
		n->cpi[0] = 1.0 + 0.8 * x;
		n->cpu[1] = x + 1.6 * uniform();
		n->cpi[1] = 1.0;
		for (i = 0; i < extra; i++) {
			n->cpu[i + 2] = uniform();
			n->cpi[i + 2] = 1.0;
		}
		feed(ifr, n);
	}
	r = interference_result(ifr);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	named_ = named(r, "/d");
	for (i = 1; i <= INTERFERENCE_MAX_SUSPECTS; i++)
		if ((s = suspect(r, "/v", (unsigned)i)) != NULL &&
		    strcmp(s->row->cgroup, "/d") == 0)
			*r_out = s->correlation;
	interference_result_unref(r);
	interference_free(ifr);
	free(n);
	free(names);
	return named_;
}

/* The candidates a fit's offer asks (swing_in): the IFR_SWINGERS whose
 * use varied most, most first; one that did not vary, never. */
static void
test_swingers(void)
{
	struct interference ifr;
	size_t i;

	memset(&ifr, 0, sizeof(ifr));
	for (i = 0; i < 3 * IFR_SWINGERS; i++)
		swing_in(&ifr, i, i % 3 == 0 ? 0 : (double)((i * 5) % 17));
	CHECK(ifr.nswing == IFR_SWINGERS);
	for (i = 0; i < ifr.nswing; i++) {
		CHECK(ifr.swinger[i] % 3 != 0);
		CHECK(ifr.swing_ss[i] == (double)((ifr.swinger[i] * 5) % 17));
		if (i > 0)
			CHECK(ifr.swing_ss[i] <= ifr.swing_ss[i - 1]);
	}
	CHECK(ifr.swing_ss[0] == 16 && ifr.swing_ss[IFR_SWINGERS - 1] == 8);
	memset(&ifr, 0, sizeof(ifr));
	swing_in(&ifr, 4, 0);
	swing_in(&ifr, 5, 2);
	CHECK(ifr.nswing == 1 && ifr.swinger[0] == 5);
}

/* Significance against the number of candidates: a decoy of correlation
 * about 0.55 over 60 white samples (Fisher z about 4.5) is named among 3
 * candidates (the bar at 2.9), not among 3,002 (at 4.6). */
static void
test_candidates(void)
{
	double r0, r1;

	CHECK(decoy_named(1, &r0) == 1);
	CHECK(r0 > 0.45 && r0 < 0.65);
	CHECK(decoy_named(3000, &r1) == 0);
}

/*
 * Significance against autocorrelation: the victim's CPI follows a slow
 * random walk of its own, /d's use another, independent one; over 60
 * samples such walks correlate strongly by chance, and /d is not named
 * (the effective sample size is a few).  /w, white use with the same
 * strength of correlation, would be.
 */
static void
test_autocorrelation(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 3, .path = { "/v", "/d", "/q" } };
	struct interference_result *r;
	double wv = 0, wd = 0.5;
	int t, seen = 0, wrong = 0;

	ifr_rng = 31337;
	for (t = 0; t < 400; t++) {
		wv = fmax(-0.1, fmin(0.1, wv + 0.02 * (uniform() - 0.5)));
		wd = fmax(0, fmin(1, wd + 0.1 * (uniform() - 0.5)));
		n.cpu[0] = 1.0;
		n.cpi[0] = (1.0 + wv) * (t >= 100 ? 1.3 : 1);
		n.cpu[1] = wd;
		n.cpi[1] = 1.0;
		n.cpu[2] = 0.5;
		n.cpi[2] = 1.0;
		feed(ifr, &n);
		r = interference_result(ifr);
		seen += analysed(r, "/v") && analysed(r, "/v")->victim;
		wrong += named(r, "/d");
		interference_result_unref(r);
	}
	CHECK(seen > 50);
	CHECK(wrong == 0);
	interference_free(ifr);
}

/*
 * The effective n's floor: /v's CPI follows /d's use, a smooth wander
 * (its rate of change a random walk: both series' lag-1
 * autocorrelations at the cap, Bartlett's n_eff under the two
 * controls), with little noise of its own, and /v's own use
 * stepping when the walk starts (so that the onset says nothing): the
 * correlation is about 0.99 and /d is named by it (the strength shown)
 * in most of /v's victim results; with the floor at 0 (before issue 49)
 * in none (the onset named it once, at 0.45, and held it).  Since then
 * other rules name it too: with the floor at 0, 190 of 200 as with it
 * (2026-12-05), so test_significance checks the floor on its own.
 * test_autocorrelation is the other side: two independent walks, never
 * named.
 */
static void
test_neff_floor(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 3, .path = { "/v", "/d", "/q" } };
	struct interference_result *r;
	double wd = 0.3, vel = 0.008;
	int t, flagged = 0, first = 0;

	ifr_rng = 2718;
	for (t = 0; t < 400; t++) {
		if (t >= 100) {
			vel = fmax(-0.008, fmin(0.008, vel + 0.002 *
			    (uniform() - 0.5)));
			wd += vel;
			if (wd < 0.3 || wd > 1.5)
				vel = -vel;
			wd = fmax(0.3, fmin(1.5, wd));
		}
		n.cpu[0] = t >= 100 ? 1.5 : 1.0;
		n.cpi[0] = (1.0 + 0.5 * wd) * (1 + 0.004 * (uniform() - 0.5));
		n.cpu[1] = wd;
		n.cpi[1] = 1.0;
		n.cpu[2] = 0.5;
		n.cpi[2] = 1.0;
		feed(ifr, &n);
		r = interference_result(ifr);
		if (t >= 200 && analysed(r, "/v") && analysed(r, "/v")->victim) {
			const struct interference_suspect *s1 =
			    suspect(r, "/v", 1);

			flagged++;
			first += s1 && strcmp(s1->row->cgroup, "/d") == 0 &&
			    s1->correlation > 0.9;
		}
		interference_result_unref(r);
	}
	printf("a walk followed: /v flagged in %d results, /d rank 1 by its "
	    "correlation in %d\n", flagged, first);
	CHECK(flagged >= 100);
	CHECK(first >= 0.8 * flagged);
	interference_free(ifr);
}

/*
 * The sums of n samples of a victim's x and a candidate's y, the victim's
 * use a = 1 and the node's total t = y + a + 5 (controls that do not
 * vary); with lagged, their lag-1 pairs too (else none: no
 * autocorrelation).
 */
static void
sums_of(struct vsums *s, struct csums *c, const double *x, const double *y,
    int n, int lagged)
{
	double a = 1, t;
	int i;

	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		t = y[i] + a + 5;
		s->x += x[i], s->xx += x[i] * x[i], s->a += a, s->aa += a * a;
		s->xa += x[i] * a, s->t += t, s->tt += t * t;
		s->xt += x[i] * t, s->at_ += a * t;
		c->y += y[i], c->yy += y[i] * y[i], c->yt += y[i] * t;
		c->xy += x[i] * y[i], c->ya += y[i] * a;
		if (lagged && i > 0) {
			s->xlag += x[i] * x[i - 1], s->xpairs += x[i] + x[i - 1];
			c->lag += y[i] * y[i - 1], c->pairsum += y[i] + y[i - 1];
			s->pairs++;
		}
	}
	s->n = (size_t)n;
	vsums_moments(s);
}

/*
 * The significance's two figures, at their values: Fisher's z of a
 * partial correlation with two controls has n_eff - 5 degrees of freedom
 * (n - 3 less one for each control), and Bonferroni's bound is over the 2m
 * tests of m candidates (two tests each).  With n_eff - 3, or over m,
 * the analysis named the innocent up to twice as often as configured.
 * Sums of 40 samples with no lag pairs (no autocorrelation) and controls
 * that do not vary: the z is atanh(r) sqrt(35) exactly.  Smooth series
 * (lag-1 autocorrelations at the 0.95 cap): n_eff - 5 is 40 (1 - 0.9025)
 * / 1.9025 - 5 < 0, and over 30 samples the floor stands in for it.
 */
static void
test_significance(void)
{
	struct vsums s;
	struct csums c;
	double r, z = 0, df = 0, x[40], y[40];
	int i;

	for (i = 0; i < 40; i++) {
		x[i] = 1 + 0.01 * (double)((i * 7) % 13);
		y[i] = 0.5 + 0.02 * (double)((i * 5) % 11);
	}
	sums_of(&s, &c, x, y, 40, 0);
	r = partial_r(&s, &c, 0, -INFINITY, &z, &df);
	CHECK(isfinite(r) && fabs(r) > 0.01);
	CHECK(df == 35);
	CHECK(fabs(z - atanh(r) * sqrt(35)) < 1e-9);
	for (i = 0; i < 40; i++) {
		x[i] = 1 + 0.01 * i + 0.002 * (double)(i % 3);
		y[i] = 0.5 + 0.02 * i;
	}
	sums_of(&s, &c, x, y, 40, 1);
	r = partial_r(&s, &c, 3.0, -INFINITY, &z, &df);
	CHECK(isfinite(r) && r > 0.9);
	CHECK(df == 3.0);
	CHECK(fabs(z - atanh(fmin(r, 0.999999)) * sqrt(3.0)) < 1e-9);
	/* P(Z > z) = 0.001 / 200 and 0.001 / 1000. */
	CHECK(fabs(critical_z(0.001, 100, 1) - 4.417173) < 1e-5);
	CHECK(fabs(critical_z(0.001, 100, IFR_ONSET_SLACK + 1) - 4.753424) < 1e-5);
}

/*
 * A held suspect contradicted: /d's use drives /v's CPI from t = 100 to
 * 200 (named), then /v's CPI stays up for a cause of its own while /d
 * goes on busy, its use varying as before: once its window holds only
 * the samples after 200, its correlation is nil and it is no longer
 * named, though /v still is a victim.
 */
static void
test_contradicted(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 3, .path = { "/v", "/d", "/q" } };
	struct interference_result *r;
	int t, named_then = 0;

	ifr_rng = 77;
	for (t = 0; t < 280; t++) {
		n.cpu[0] = 1.0;
		n.cpu[1] = t < 100 ? 1.0 : 0.5 + uniform();
		n.cpu[2] = 0.5;
		n.cpi[0] = noisy(t < 100 ? 1.0 : t < 200 ? 0.7 + 0.6 *
		    n.cpu[1] : 1.5);
		n.cpi[1] = n.cpi[2] = 1.0;
		feed(ifr, &n);
		r = interference_result(ifr);
		if (t == 199)
			named_then = named(r, "/d");
		interference_result_unref(r);
	}
	r = interference_result(ifr);
	CHECK(named_then);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	CHECK(!named(r, "/d"));
	interference_result_unref(r);
	interference_free(ifr);
}

/* On and off at random, 2 to 9 samples each; on at 1.0 to 2.0 CPU. */
static void
onoff(int *left, int *on, double *lvl)
{
	if (--*left > 0)
		return;
	*on = !*on;
	*left = 2 + (int)(8 * uniform());
	*lvl = 1.0 + uniform();
}

/*
 * A lag: /v's CPI follows /d's use 0 or 3 samples (30 s at the default
 * geometry: 10 s samples) late, /e switching the same way with no effect
 * on anyone, among 20 busy neighbours.  At either lag /d is rank 1 in 90%
 * of /v's victim results once its episode is a window old, and /e named
 * in at most 2%; tried at lag 0 only (before issue 49), 30 s late /d was
 * named in 7% of them.
 */
static void
lag_run(int lag)
{
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node *n = calloc(1, sizeof(*n));
	static char names[20][16];
	double ud[512], lvl_d = 1, lvl_e = 1;
	int t, i, left_d = 1, on_d = 0, left_e = 1, on_e = 0;
	int flagged = 0, first = 0, decoy = 0;
	struct interference_result *r;

	if (n == NULL)
		abort();
	c.window_ns = 600ULL * 1000000000ULL;
	c.victim_window_ns = 300ULL * 1000000000ULL;
	ifr = analysis(&c);
	n->interval_s = 10;
	n->nr = 23;
	n->path[0] = "/v";
	n->path[1] = "/d";
	n->path[2] = "/e";
	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "/n%d", i);
		n->path[i + 3] = names[i];
	}
	ifr_rng = 4242 + (uint64_t)lag;
	for (t = 0; t < 500; t++) {
		onoff(&left_d, &on_d, &lvl_d);
		onoff(&left_e, &on_e, &lvl_e);
		ud[t] = t >= 100 && on_d ? lvl_d : 0.05;
		n->cpu[0] = 1.0;
		n->cpi[0] = noisy(1.0) * (1 + 0.25 * (t >= lag ? ud[t - lag] :
		    0.05));
		n->cpu[1] = ud[t];
		n->cpi[1] = noisy(1.5);
		n->cpu[2] = t >= 100 && on_e ? lvl_e : 0.05;
		n->cpi[2] = noisy(1.5);
		for (i = 3; i < 23; i++) {
			n->cpu[i] = 0.3 + uniform();
			n->cpi[i] = noisy(1.0);
		}
		feed(ifr, n);
		r = interference_result(ifr);
		if (t >= 160 && analysed(r, "/v") && analysed(r, "/v")->victim) {
			const struct interference_suspect *s1 =
			    suspect(r, "/v", 1);

			flagged++;
			first += s1 && strcmp(s1->row->cgroup, "/d") == 0;
			decoy += named(r, "/e");
		}
		interference_result_unref(r);
	}
	printf("lag %d samples: /v flagged in %d results, /d rank 1 in %d, "
	    "/e named in %d\n", lag, flagged, first, decoy);
	CHECK(flagged >= 150);
	CHECK(first >= 0.9 * flagged);
	CHECK(decoy <= 0.02 * flagged);
	interference_free(ifr);
	free(n);
}

static void
test_lag(void)
{
	lag_run(0);
	lag_run(3);
}

static int steady_on = 100, steady_off = 300, own_too;
static double steady_walk;

static void
steady_step(struct node *n, int t)
{
	int on = t >= steady_on && t < steady_off;
	size_t i;

	/* The victim's CPI wanders of its own (an AR(1) of its samples,
	 * phi 0.9, about 3% wide, as real CPI does): a correlation over its
	 * window has few degrees of freedom, and only the onset can tell. */
	if (t == 0)
		steady_walk = 0;
	steady_walk = 0.9 * steady_walk + 0.05 * (uniform() - 0.5);
	n->cpu[0] = own_too && t >= steady_on ? 1.5 : 1.0;
	n->cpu[1] = on ? 1.5 : 0.05;
	n->cpi[0] = (1 + steady_walk) * noisy(1.0) * (on ? 1.25 : 1);
	n->cpi[1] = noisy(2.0);
	for (i = 2; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

/*
 * The onset: /a steps up at t=100 and stays until 300, the victim's CPI
 * up 25% while it does, among 200 busy neighbours: the victim is flagged
 * some samples after the step, when a correlation over a window holding
 * one step has too few degrees of freedom to be significant against them
 * all, and only the onset names /a.  /a is named first soon after, and still at 250,
 * when its step has left the 60-sample window (held through the
 * episode); after /a stops, the victim's episode ends and nobody is
 * named.  When the victim's own use stepped at the same time, the onset
 * says nothing: /a is not named.
 */
static void
test_onset(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	const struct interference_suspect *s;
	int t = 0, decoys = 0;
	size_t i;

	ifr_rng = 5;
	own_too = 0;
	run_until(ifr, n, &t, 115, steady_step, NULL);
	r = interference_result(ifr);
	s = suspect(r, "/v", 1);
	CHECK(s && strcmp(s->row->cgroup, "/a") == 0);
	interference_result_unref(r);
	for (; t < 250; t++) {
		steady_step(n, t);
		feed(ifr, n);
		r = interference_result(ifr);
		for (i = 2; i < n->nr; i++)
			decoys += named(r, n->path[i]);
		interference_result_unref(r);
	}
	r = interference_result(ifr);
	s = suspect(r, "/v", 1);
	CHECK(s && strcmp(s->row->cgroup, "/a") == 0);
	CHECK(decoys == 0);
	interference_result_unref(r);
	run_until(ifr, n, &t, 400, steady_step, NULL);
	r = interference_result(ifr);
	CHECK(r && r->nr_suspects == 0);
	interference_result_unref(r);
	interference_free(ifr);

	ifr = analysis(&c);
	own_too = 1;
	t = 0;
	run_until(ifr, n, &t, 115, steady_step, NULL);
	r = interference_result(ifr);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	CHECK(!named(r, "/a"));
	interference_result_unref(r);
	interference_free(ifr);
	own_too = 0;
	free(n);
}

/*
 * Onsets together (issue 49's many-together): /b, /c and /a step up at
 * 100 in the same sample among 200 busy neighbours (/b and /c first in
 * the table, as the onset's first candidate was once named), then each
 * switches between 1 and 2 CPUs on its own; /v's CPI follows /a.  Every
 * one of the three steps at /v's onset: the onset names the one /v's CPI
 * follows, /a, or nobody while their steps are all it has to go by; /b
 * and /c are named in none of /v's results to 250, /a at rank 1 in 90%
 * of those flagged.
 */
static void
together_step(struct node *n, int t)
{
	static int left[3], hi[3];
	size_t i;

	for (i = 0; i < 3; i++) {
		if (t == 0)
			left[i] = 1, hi[i] = 1;
		if (--left[i] <= 0) {
			hi[i] = !hi[i];
			left[i] = 3 + (int)(6 * uniform());
		}
		n->cpu[i + 1] = t >= 100 ? (hi[i] ? 2.0 : 1.0) : 0.05;
		n->cpi[i + 1] = noisy(2.0);
	}
	if (t == 0)
		steady_walk = 0;
	steady_walk = 0.9 * steady_walk + 0.05 * (uniform() - 0.5);
	n->cpu[0] = 1.0;
	n->cpi[0] = (1 + steady_walk) * noisy(1.0) * (1 + 0.15 * n->cpu[3]);
	for (i = 4; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

static void
test_onset_together(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	const struct interference_suspect *s;
	int t, flagged = 0, first = 0, decoys = 0;

	n->path[1] = "/b";
	n->path[2] = "/c";
	n->path[3] = "/a";
	ifr_rng = 11;
	for (t = 0; t < 250; t++) {
		together_step(n, t);
		feed(ifr, n);
		r = interference_result(ifr);
		if (t >= 100 && analysed(r, "/v") && analysed(r, "/v")->victim) {
			s = suspect(r, "/v", 1);
			flagged++;
			first += s && strcmp(s->row->cgroup, "/a") == 0;
			decoys += named(r, "/b") || named(r, "/c");
		}
		interference_result_unref(r);
	}
	printf("onsets together: /v flagged in %d results, /a rank 1 in %d, "
	    "/b or /c named in %d\n", flagged, first, decoys);
	CHECK(flagged >= 100);
	CHECK(first >= 0.9 * flagged);
	CHECK(decoys == 0);
	interference_free(ifr);
	free(n);
}

/*
 * Two that step as one: /a and /b step up to 1.5 CPUs at 100 and stay,
 * the same series (two replicas started together), /v's CPI up 25% from
 * then.  The onset cannot tell them apart and /v's CPI follows both
 * alike: neither is named, in any of /v's results to 250 (the first of
 * the two was, before the lead over the runner-up was asked for).
 */
static void
twins_step(struct node *n, int t)
{
	size_t i;

	if (t == 0)
		steady_walk = 0;
	steady_walk = 0.9 * steady_walk + 0.05 * (uniform() - 0.5);
	n->cpu[0] = 1.0;
	n->cpu[1] = n->cpu[2] = t >= 100 ? 1.5 : 0.05;
	n->cpi[0] = (1 + steady_walk) * noisy(1.0) * (t >= 100 ? 1.25 : 1);
	n->cpi[1] = n->cpi[2] = noisy(2.0);
	for (i = 3; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

static void
test_onset_twins(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	int t, flagged = 0, twins = 0;

	n->path[2] = "/b";
	ifr_rng = 5;
	for (t = 0; t < 250; t++) {
		twins_step(n, t);
		feed(ifr, n);
		r = interference_result(ifr);
		if (t >= 100 && analysed(r, "/v") && analysed(r, "/v")->victim) {
			flagged++;
			twins += named(r, "/a") || named(r, "/b");
		}
		interference_result_unref(r);
	}
	printf("twins stepping as one: /v flagged in %d results, /a or /b "
	    "named in %d\n", flagged, twins);
	CHECK(flagged >= 50);
	CHECK(twins == 0);
	interference_free(ifr);
	free(n);
}

/*
 * An onset's name gives way to the correlation's: at 220 in
 * test_onset_together's node /v's CPI follows /a and the correlation
 * names it.  A busy neighbour that is quiet now (so nothing contradicts
 * it) is put in /v's held list: held as the correlation named it, it is
 * named beside /a; held as the onset named it, it is not, since what the
 * correlation names now explains the step it was named for.
 */
static void
test_onset_gives_way(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	struct cg *v, *a, *q = NULL;
	size_t i;
	int t = 0;

	n->path[1] = "/b";
	n->path[2] = "/c";
	n->path[3] = "/a";
	ifr_rng = 11;
	run_until(ifr, n, &t, 220, together_step, NULL);
	r = interference_result(ifr);
	CHECK(suspect(r, "/v", 1) && strcmp(suspect(r, "/v", 1)->row->cgroup,
	    "/a") == 0);
	interference_result_unref(r);
	v = ifr_find(ifr, ifr_hash(IFR_HASH0, "/v", 2));
	a = ifr_find(ifr, ifr_hash(IFR_HASH0, "/a", 2));
	for (i = 0; i < ifr->nr && v && a && !q; i++)
		if (ifr->cgs[i].leaf && &ifr->cgs[i] != v &&
		    &ifr->cgs[i] != a && recent_use(ifr, &ifr->cgs[i]) <
		    0.4 * most_use(ifr, &ifr->cgs[i], ifr->geo.victim_samples))
			q = &ifr->cgs[i];
	CHECK(v && a && q);
	if (v && a && q) {
		CHECK(held_named(ifr, (size_t)(v - ifr->cgs),
		    (size_t)(q - ifr->cgs), 0));
		CHECK(!held_named(ifr, (size_t)(v - ifr->cgs),
		    (size_t)(q - ifr->cgs), 1));
	}
	interference_free(ifr);
	free(n);
}

/*
 * The guard on the victim's own load at every position a step is tried
 * at: /v's own use and /a's step up together at 96, /v's CPI rises at
 * 100 (its load's effect, late).  The onset is at 100 and /a's step is
 * tried at 96 to 100; /v's own step at 96 explains as much, so /a is
 * never named from the onset, in the results from 100 to 130.  Checked
 * at 100 alone, the step at 96 hides in the span before (its spread)
 * and /a is named.
 */
static void
late_own_step(struct node *n, int t)
{
	size_t i;

	n->cpu[0] = t >= 96 ? 1.5 : 1.0;
	n->cpu[1] = t >= 96 ? 1.5 : 0.05;
	n->cpi[0] = noisy(1.0) * (t >= 100 ? 1.25 : 1);
	n->cpi[1] = noisy(2.0);
	for (i = 2; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

static void
test_own_step_before(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	int t, named_a = 0, flagged = 0;

	ifr_rng = 5;
	for (t = 0; t < 130; t++) {
		late_own_step(n, t);
		feed(ifr, n);
		if (t < 100)
			continue;
		r = interference_result(ifr);
		named_a += named(r, "/a");
		flagged += analysed(r, "/v") && analysed(r, "/v")->victim;
		interference_result_unref(r);
	}
	printf("own step 4 samples before the rise: /v flagged in %d of 30 "
	    "results, /a named in %d\n", flagged, named_a);
	CHECK(flagged > 0);
	CHECK(named_a == 0);
	interference_free(ifr);
	free(n);
}

/*
 * The onset's strength against suspect_threshold, like a correlation's:
 * the first result naming /a from its step (test_onset's node) names it
 * with strength r; with the threshold at r exactly, the same result names
 * nobody; just under r, /a.
 */
static int
onset_first(double threshold, int *at, double *r)
{
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node *n = pair_node();
	struct interference_result *res;
	const struct interference_suspect *s;
	int t, found = 0;

	c.suspect_threshold = threshold;
	ifr = analysis(&c);
	ifr_rng = 5;
	own_too = 0;
	for (t = 0; t <= *at; t++) {
		steady_step(n, t);
		feed(ifr, n);
		res = interference_result(ifr);
		s = suspect(res, "/v", 1);
		if (s && strcmp(s->row->cgroup, "/a") == 0 && (*at == 1 << 30 ||
		    t == *at)) {
			found = 1;
			*r = s->correlation;
			*at = t;
		}
		interference_result_unref(res);
	}
	interference_free(ifr);
	free(n);
	return found;
}

static void
test_onset_threshold(void)
{
	int at = 1 << 30;
	double r = 0, r2;

	CHECK(onset_first(0.35, &at, &r));
	printf("onset: /a first named at %d with strength %.6f\n", at, r);
	fflush(stdout);
	CHECK(at < 1 << 30 && r > 0.35);
	CHECK(!onset_first(r, &at, &r2));
	CHECK(onset_first(r - 1e-9, &at, &r2));
}

/*
 * A held suspect that stopped: /a and /n0 step up together at 100, each
 * adding 15% to /v's CPI; /a stops at 200, /n0 goes on until 400, so /v
 * stays a victim.  /a is named during its step and held after (its
 * step down matches /v's, nothing contradicts it); once it has been
 * quiet for a whole victim window (its use under half of what it was
 * when first named) it goes, and when its step has left the window
 * nothing names it again: at 280 /v is a victim and /a is not named.
 * The use it is held against is the one it had when first named, never
 * refreshed as it is named again, else a stopped suspect stays named
 * for the rest of the episode.
 */
static void
two_step(struct node *n, int t)
{
	int a = t >= 100 && t < 200, b = t >= 100 && t < 400;
	size_t i;

	n->cpu[0] = 1.0;
	n->cpu[1] = a ? 1.5 : 0.05;
	n->cpu[2] = b ? 1.5 : 0.05;
	n->cpi[0] = noisy(1.0) * (1 + 0.15 * a + 0.15 * b);
	n->cpi[1] = n->cpi[2] = noisy(2.0);
	for (i = 3; i < n->nr; i++) {
		n->cpu[i] = 0.3 + uniform();
		n->cpi[i] = noisy(1.0);
	}
}

static void
test_held_stops(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = pair_node();
	struct interference_result *r;
	int t = 0, named_then;

	ifr_rng = 5;
	run_until(ifr, n, &t, 190, two_step, NULL);
	r = interference_result(ifr);
	named_then = named(r, "/a");
	interference_result_unref(r);
	run_until(ifr, n, &t, 280, two_step, NULL);
	r = interference_result(ifr);
	CHECK(named_then);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	CHECK(!named(r, "/a"));
	interference_result_unref(r);
	interference_free(ifr);
	free(n);
}

/*
 * Ranking, suspects and suspect_threshold: four neighbours, each with use
 * of its own, and a victim /v whose CPI follows all four uses with
 * weights 0.8, 0.6, 0.45 and 0.3 (/n1 the strongest, /n4 the weakest,
 * tracked first: each stronger one displaces it); significance set loose
 * so that all four pass it.  The uses step up at
 * t = 100: the result is the one of the first sample in which /v is a
 * victim, so that what is named comes from that sample's window alone
 * (nothing held yet).
 */
static struct interference_result *
run_ranked(double threshold, unsigned k, struct interference **ifrp)
{
	static const double w[5] = { 0, 0.3, 0.45, 0.6, 0.8 };
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct interference_result *r = NULL;
	struct node n = { .nr = 5, .path = { "/v", "/n4", "/n3", "/n2",
	    "/n1" } };
	int t, i;

	c.suspect_threshold = threshold;
	c.suspect_significance = 0.45;
	c.suspects = k;
	ifr = analysis(&c);
	ifr_rng = 12345;
	for (t = 0; t < 300; t++) {
		double cpi = 1.0;

		n.cpu[0] = 1.0;
		for (i = 1; i <= 4; i++) {
			n.cpu[i] = uniform() + (t < 100 ? 0 : 0.5);
			n.cpi[i] = 1.0;
			cpi += w[i] * n.cpu[i];
		}
		n.cpi[0] = noisy(cpi);
		feed(ifr, &n);
		interference_result_unref(r);
		r = interference_result(ifr);
		if (analysed(r, "/v") && analysed(r, "/v")->victim)
			break;
	}
	*ifrp = ifr;
	return r;
}

static void
test_ranked(void)
{
	struct interference *ifr;
	struct interference_result *r;
	const struct interference_suspect *s;
	double r3;
	unsigned k;

	/* k = 4 at threshold 0: all four, strongest first. */
	r = run_ranked(0, 4, &ifr);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	for (k = 1; k <= 4; k++) {
		s = suspect(r, "/v", k);
		CHECK(s != NULL);
		if (s && k > 1 && suspect(r, "/v", k - 1))
			CHECK(suspect(r, "/v", k - 1)->correlation >=
			    s->correlation);
	}
	for (k = 1; k <= 4; k++) {
		char want[8];

		snprintf(want, sizeof(want), "/n%u", k);
		CHECK(suspect(r, "/v", k) &&
		    strcmp(suspect(r, "/v", k)->row->cgroup, want) == 0);
	}
	CHECK(suspect(r, "/v", 5) == NULL);
	interference_result_unref(r);
	interference_free(ifr);

	/* k = 3: the three best, in the same order. */
	r = run_ranked(0, 3, &ifr);
	CHECK(r && r->nr_suspects == 3);
	CHECK(suspect(r, "/v", 1) &&
	    strcmp(suspect(r, "/v", 1)->row->cgroup, "/n1") == 0);
	CHECK(suspect(r, "/v", 4) == NULL);
	s = suspect(r, "/v", 3);
	r3 = s ? s->correlation : 2;
	interference_result_unref(r);
	interference_free(ifr);

	/* The threshold at the third's strength: just under it the third
	 * is named, at it (not above) it is not. */
	r = run_ranked(r3 - 1e-9, 3, &ifr);
	CHECK(r && r->nr_suspects == 3);
	interference_result_unref(r);
	interference_free(ifr);
	r = run_ranked(r3, 3, &ifr);
	CHECK(r && r->nr_suspects == 2);
	CHECK(suspect(r, "/v", 3) == NULL);
	interference_result_unref(r);
	interference_free(ifr);
}

int
main(void)
{
	test_common_mode();
	test_half();
	test_uneven();
	test_episode_ends();
	test_late_pod();
	test_container_gone();
	test_levels();
	test_floor();
	test_detector();
	test_clean_start();
	test_clean_wandering();
	test_own_load();
	test_candidates();
	test_swingers();
	test_autocorrelation();
	test_neff_floor();
	test_significance();
	test_lag();
	test_onset();
	test_onset_threshold();
	test_own_step_before();
	test_onset_together();
	test_onset_twins();
	test_onset_gives_way();
	test_held_stops();
	test_contradicted();
	test_ranked();
	return CHECK_DONE();
}
