/*
 * interference_clean_test.c - the clean part of a ring (analysis/detect.c)
 * at each rule's edge, on rings made by hand:
 * - its spread from the samples below its mean: a burst's partial samples
 *   just above the clean part do not widen it;
 * - its autocorrelation from successive differences: white noise with
 *   bursts in it is white, an AR(1) noise without them is not;
 * - the line of the CPI on a neighbour's use, at its least, where no
 *   clean part lies below (detect_fit_clean), and its offers' backing off;
 * - a taken clean baseline counts as a whole one.
 * detect.c is included whole for its static functions.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>

#include "tests/lib/check.h"

#include "analysis/detect.c"

static uint64_t rng = 7;

static double
gauss(void)
{
	double u, v;

	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	u = ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	v = ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static struct interference_config
cfg_of(void)
{
	struct interference_config c = { 0 };

	c.cpu_floor = 0.25;
	return c;
}

/* A cgroup at CPU 1 with ring x[], its baseline's mean at mean; slot 59
 * the newest (the next sample is 60). */
static void
ring_of(struct cg *c, const double *x, double mean)
{
	size_t k;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < INTERFERENCE_RING; k++) {
		c->cpu[k] = 1;
		c->x[k] = (float)x[k];
	}
	c->mean = mean;
	c->bn = INTERFERENCE_MIN_SAMPLES;
}

/*
 * 36 clean samples at 1.0 with sd 0.03, in runs of 6 between bursts:
 * each burst begins and ends with a partial sample (1.10, 1.12: 3.3 and
 * 4 sd up), its middle at 1.3.  The clean part comes out at 1.015 and
 * 0.038 (this draw's clean samples alone: 1.001 and 0.035); with the
 * spread of all the samples under the clip, the partial samples widened
 * the clip pass by pass and it came out at 1.028 and 0.055.
 */
static void
test_spread_below(void)
{
	struct interference_config cfg = cfg_of();
	double x[INTERFERENCE_RING], scratch[INTERFERENCE_RING];
	struct cg c;
	size_t k;

	rng = 7;
	for (k = 0; k < INTERFERENCE_RING; k++) {
		size_t at = k % 10;

		x[k] = at < 6 ? 1.0 + 0.03 * gauss() :
		    at == 6 ? 1.10 : at == 9 ? 1.12 : 1.3;
	}
	ring_of(&c, x, 1.15);
	clean_of(&cfg, &c, INTERFERENCE_RING - 1, scratch);
	printf("spread below: clean mean %.4f, sd %.4f\n", c.clean[0],
	    sqrt(c.clean[1]));
	CHECK(c.proposed == 1);
	CHECK(fabs(c.clean[0] - 1.0) < 0.02);
	CHECK(sqrt(c.clean[1]) > 0.025 && sqrt(c.clean[1]) < 0.045);
}

/*
 * The autocorrelation: white noise (sd 0.03) with a burst of 3 samples at
 * +30% every 10 is white (phi under 0.25; from the whole ring's
 * successive differences the bursts' edges are 6 of 59); an AR(1) noise
 * of phi 0.8 and the same sd, with the same bursts, keeps phi over 0.35
 * (0.49 in this draw: 60 samples estimate it loosely, and low).  With the squared differences' mean taken
 * for their median, white noise came out at phi 0.55.
 */
static void
test_autocorrelation(void)
{
	struct interference_config cfg = cfg_of();
	double x[INTERFERENCE_RING], scratch[INTERFERENCE_RING], ar = 0;
	double phi_white, phi_ar;
	struct cg c;
	size_t k;

	rng = 11;
	for (k = 0; k < INTERFERENCE_RING; k++)
		x[k] = (k % 10 < 7 ? 1.0 : 1.3) + 0.03 * gauss();
	ring_of(&c, x, 1.2);
	clean_of(&cfg, &c, INTERFERENCE_RING - 1, scratch);
	CHECK(c.proposed == 1);
	phi_white = c.clean[2] / c.clean[1];
	for (k = 0; k < INTERFERENCE_RING; k++) {
		ar = 0.8 * ar + 0.03 * sqrt(1 - 0.64) * gauss();
		x[k] = (k % 10 < 7 ? 1.0 : 1.3) + ar;
	}
	ring_of(&c, x, 1.2);
	clean_of(&cfg, &c, INTERFERENCE_RING - 1, scratch);
	CHECK(c.proposed == 1);
	phi_ar = c.clean[2] / c.clean[1];
	printf("autocorrelation: white phi %.3f, AR(1) 0.8 phi %.3f\n",
	    phi_white, phi_ar);
	CHECK(phi_white >= 0 && phi_white < 0.25);
	CHECK(phi_ar > 0.35);
}

/*
 * The line (detect_fit_clean): CPI 1.0 (sd 0.03) raised 0.2 per CPU of
 * neighbour /a's use, /a at 0.05 to 1.55 CPU.  Its clean baseline is the
 * CPI at /a's least, 1.01, with the residuals' spread (the noise's, not
 * the bursts': under the baseline's own).  None where the CPI falls with
 * /a's use, where the line's CPI is within its spread of the baseline,
 * or from fewer than half a baseline's samples.
 */
static void
test_fit(void)
{
	struct interference_config cfg = cfg_of();
	double x[INTERFERENCE_RING], use[INTERFERENCE_RING];
	struct cg c, a;
	size_t k;

	rng = 13;
	memset(&a, 0, sizeof(a));
	for (k = 0; k < INTERFERENCE_RING; k++) {
		use[k] = 0.05 + 1.5 * (double)((k * 7) % 11) / 10;
		a.cpu[k] = (float)use[k];
		x[k] = 1.0 + 0.2 * use[k] + 0.03 * gauss();
	}
	ring_of(&c, x, 1.15);
	c.var = 0.02;
	CHECK(detect_fit_clean(&cfg, &c, &a, INTERFERENCE_RING - 1) == 1);
	printf("fit: clean mean %.4f, sd %.4f\n", c.clean[0],
	    sqrt(c.clean[1]));
	CHECK(fabs(c.clean[0] - 1.01) < 0.02);
	CHECK(sqrt(c.clean[1]) > 0.02 && sqrt(c.clean[1]) < 0.04);
	/* Within its spread of the baseline: nothing. */
	c.mean = 1.03;
	CHECK(detect_fit_clean(&cfg, &c, &a, INTERFERENCE_RING - 1) == 0);
	/* Falling with the use: nothing. */
	for (k = 0; k < INTERFERENCE_RING; k++)
		x[k] = 1.3 - 0.2 * use[k] + 0.03 * gauss();
	ring_of(&c, x, 1.15);
	CHECK(detect_fit_clean(&cfg, &c, &a, INTERFERENCE_RING - 1) == 0);
	/* Half a baseline's samples less one, counted: nothing. */
	for (k = 0; k < INTERFERENCE_RING; k++)
		x[k] = 1.0 + 0.2 * use[k] + 0.03 * gauss();
	ring_of(&c, x, 1.15);
	for (k = INTERFERENCE_MIN_SAMPLES / 2 - 1; k < INTERFERENCE_RING; k++)
		c.cpu[k] = 0.1f;
	CHECK(detect_fit_clean(&cfg, &c, &a, INTERFERENCE_RING - 1) == 0);
	c.cpu[INTERFERENCE_MIN_SAMPLES / 2 - 1] = 1;
	CHECK(detect_fit_clean(&cfg, &c, &a, INTERFERENCE_RING - 1) == 1);
}

/* A fit's offer unexplained backs off on its own count, to every
 * CLEAN_EVERY << FIT_MISSES_MAX samples, and leaves the clean part's. */
static void
test_fit_missed(void)
{
	struct cg c;
	int i;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < 10; i++) {
		c.proposed = OFFER_FIT;
		detect_clean_missed(&c);
	}
	CHECK(c.fit_misses == FIT_MISSES_MAX && c.clean_misses == 0);
	CHECK(c.proposed == OFFER_NONE);
	c.proposed = OFFER_CLEAN;
	detect_clean_missed(&c);
	CHECK(c.clean_misses == 1 && c.fit_misses == FIT_MISSES_MAX);
	detect_take_clean(&c);
	CHECK(c.clean_misses == 0 && c.fit_misses == 0);
}

/* Taken, a young baseline counts as a whole one, at the clean part's
 * moments, its alarm cleared. */
static void
test_take(void)
{
	struct cg c;

	memset(&c, 0, sizeof(c));
	c.bn = INTERFERENCE_MIN_SAMPLES + 3;
	c.mean = 1.3;
	c.cusum = 4;
	c.clean_misses = 2;
	c.clean[0] = 1.0f;
	c.clean[1] = 0.0009f;
	c.clean[2] = 0.0003f;
	c.proposed = 1;
	detect_take_clean(&c);
	CHECK(c.bn == BASELINE);
	CHECK(c.mean == 1.0f && c.var == 0.0009f && c.acov == 0.0003f);
	CHECK(c.cusum == 0 && c.clean_misses == 0 && c.proposed == 0);
	c.bn = BASELINE;
	detect_take_clean(&c);
	CHECK(c.bn == BASELINE);
}

int
main(void)
{
	test_spread_below();
	test_autocorrelation();
	test_fit();
	test_fit_missed();
	test_take();
	return CHECK_DONE();
}
