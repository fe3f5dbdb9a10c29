/*
 * scale_test.c - the delta scaling arithmetic, including multiplexing,
 * intervals with no running time, and a property test that the
 * accumulator never decreases over random reading sequences.
 */
#include "autoconf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "collectors/perf/scale.h"
#include "tests/lib/check.h"

static void
test_plain(void)
{
	struct count a = { 0, 0, 0 }, b = { 1000, 500, 500 };
	struct scaled acc = { 0, 0 };
	int counted;

	CHECK(scale_delta(&a, &b, &counted) == 1000.0 && counted);
	scale_accumulate(&acc, &a, &b);
	CHECK(acc.total == 1000 && acc.frac == 0.0);
	CHECK(scale_value(&acc) == 1000.0);
}

static void
test_multiplexed(void)
{
	struct count a = { 100, 10, 5 }, b = { 200, 20, 10 };
	struct scaled acc = { 0, 0 };
	int counted;

	/* 100 counted in half of the time: 200 estimated. */
	CHECK(scale_delta(&a, &b, &counted) == 200.0 && counted);
	scale_accumulate(&acc, &a, &b);
	CHECK(acc.total == 200);

	/* Fractions carry over instead of being lost. */
	{
		struct count p = { 0, 0, 0 }, q = { 1, 3, 2 };
		struct scaled f = { 0, 0 };
		int i;

		for (i = 0; i < 4; i++) {
			scale_accumulate(&f, &p, &q);
			p = q;
			q.value += 1;
			q.enabled += 3;
			q.running += 2;
		}
		CHECK(fabs(scale_value(&f) - 6.0) < 1e-9);
	}
}

static void
test_not_running(void)
{
	struct count a = { 100, 10, 5 }, b = { 100, 20, 5 };
	struct scaled acc = { 7, 0.5 };
	int counted = 1;

	CHECK(scale_delta(&a, &b, &counted) == 0.0 && !counted);
	scale_accumulate(&acc, &a, &b);
	CHECK(acc.total == 7 && acc.frac == 0.5);	/* no spike, no zero */
}

static void
test_backwards(void)
{
	struct count a = { 100, 10, 10 }, b = { 50, 20, 20 };
	struct scaled acc = { 7, 0 };
	int counted;

	CHECK(scale_delta(&a, &b, &counted) == 0.0 && !counted);
	scale_accumulate(&acc, &a, &b);
	CHECK(acc.total == 7);
}

static void
test_skew(void)
{
	/* running > enabled cannot happen; never scale below 1x. */
	struct count a = { 0, 0, 0 }, b = { 100, 9, 10 };
	int counted;

	CHECK(scale_delta(&a, &b, &counted) == 100.0);
}

/*
 * Property: whatever the sequence of readings (with multiplexing that
 * comes and goes, intervals with no running time, a rate that changes),
 * the accumulator never decreases and equals, at every step, the sum of
 * each interval's dvalue x denabled / drunning, computed here apart from
 * scale.c: neither more nor less.  With a constant rate that sum is the
 * truth less the intervals that never ran.  On the same data the
 * cumulative estimate (value x enabled / running of the whole life) goes
 * down; the product must not, at those very steps.
 */
static void
test_property(void)
{
	unsigned seed = 12345;
	int run, step, backwards_cumulative = 0, decreases = 0, off = 0;

	for (run = 0; run < 200; run++) {
		struct count prev = { 0, 0, 0 }, cur = prev;
		struct scaled acc = { 0, 0 };
		double last = 0, truth = 0, last_cum = 0, expect = 0, unrun = 0;
		/* Half the runs: a rate that changes every step. */
		int varying = run % 2;
		double rate = 1 + rand_r(&seed) % 1000;

		for (step = 0; step < 500; step++) {
			uint64_t de = 1 + (uint64_t)(rand_r(&seed) % 1000000);
			uint64_t dr;

			switch (rand_r(&seed) % 4) {
			case 0: dr = 0; break;		/* not scheduled */
			case 1: dr = de; break;		/* fully counted */
			default: dr = (uint64_t)(rand_r(&seed) % (de + 1));
			}
			if (varying)
				rate = rand_r(&seed) % 1000;
			cur.enabled += de;
			cur.running += dr;
			cur.value += (uint64_t)(rate * (double)dr);
			truth += rate * (double)de;
			if (dr)
				expect += (double)(cur.value - prev.value) *
				    (double)de / (double)dr;
			else
				unrun += rate * (double)de;
			scale_accumulate(&acc, &prev, &cur);
			if (scale_value(&acc) < last)
				decreases++;
			if (fabs(scale_value(&acc) - expect) > 1e-9 * expect + 1e-6)
				off++;
			if (cur.running) {
				double cum = (double)cur.value *
				    (double)cur.enabled / (double)cur.running;

				/* Where cumulative scaling goes back, ours
				 * must not have. */
				if (cum < last_cum) {
					backwards_cumulative++;
					CHECK(scale_value(&acc) >= last);
				}
				last_cum = cum;
			}
			last = scale_value(&acc);
			prev = cur;
		}
		/* Constant rate: the truth, less only the unrun intervals. */
		if (!varying)
			CHECK(fabs(last - (truth - unrun)) <= 1e-9 * truth + 1e-6);
	}
	CHECK(decreases == 0);
	CHECK(off == 0);	/* per-interval scaling, exactly, every step */
	CHECK(backwards_cumulative > 0);	/* the data can tell them apart */
}

static void
test_saturate(void)
{
	struct count a = { 0, 1, 1 }, b = { UINT64_MAX / 2, 2, 2 };
	struct scaled acc = { UINT64_MAX - 10, 0 };

	scale_accumulate(&acc, &a, &b);
	CHECK(acc.total == UINT64_MAX);
}

/*
 * Sums of accumulators (a cgroup series summed over CPUs, an offline
 * CPU's counts carried on): the fractions add up into whole counts.
 */
static void
test_add(void)
{
	struct scaled a = { 10, 0.75 }, b = { 5, 0.5 }, z = { 0, 0.0 };

	scale_add(&a, &b);
	CHECK(a.total == 16);
	CHECK(a.frac == 0.25);
	CHECK(scale_value(&a) == 16.25);
	scale_add(&a, &z);
	CHECK(a.total == 16 && a.frac == 0.25);
}

int
main(void)
{
	test_plain();
	test_multiplexed();
	test_not_running();
	test_backwards();
	test_skew();
	test_property();
	test_saturate();
	test_add();
	return CHECK_DONE();
}
