/*
 * detect.c - each judged cgroup against its own baseline, one sample at a time
 * (interference_int.h): the node's common change factored out, the baseline,
 * its clean start, the CUSUM.
 * Design: docs/interference.md, "How", steps 3 to 5.
 */
#include "autoconf.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/interference_int.h"

#define BASELINE IFR_BASELINE
/* The CUSUM's decision interval, in long-run standard deviations. */
#define CUSUM_H 5.0
/* The most autocorrelation the scale allows for (phi). */
#define PHI_MAX 0.9
/* The most one sample adds to the CUSUM, in long-run standard deviations
 * above the reference: a third of H, so that one wild sample, however
 * wild, never makes an alarm alone; it takes three in a row. */
#define STEP_MAX (CUSUM_H / 3)

/* Learn deviation-from-mean d of a sample (clipped at clip when > 0). */
static void
learn(struct cg *c, double x, double clip)
{
	double d, a;

	if (c->bn == 0) {
		c->mean = x;
		c->var = c->acov = 0;
		c->prev = NAN;
		c->bn = 1;
		return;
	}
	d = x - c->mean;
	if (clip > 0)
		d = fmax(-clip, fmin(clip, d));
	a = 1.0 / (c->bn < BASELINE ? c->bn + 1 : BASELINE);
	if (isfinite(c->prev))
		c->acov = (1 - a) * c->acov + a * d * c->prev;
	c->mean += a * d;
	c->var = (1 - a) * (c->var + a * d * d);
	c->prev = d;
	if (c->bn < BASELINE)
		c->bn++;
}

/*
 * The long-run standard deviation of c's samples: sd at least 1% of the
 * mean (a perfectly steady CPI does not make every wobble a rise), scaled
 * by its autocorrelation (relative to that floored variance, so that the
 * first steps of a rise from a perfectly steady CPI are no correlation), and wider while the baseline is young (its
 * estimates are from few samples: 2x at INTERFERENCE_MIN_SAMPLES).
 */
static double
longrun_sd(const struct cg *c)
{
	double sd = fmax(sqrt(c->var), 0.01 * c->mean);
	double phi = c->acov / (sd * sd);

	phi = fmax(0, fmin(PHI_MAX, phi));
	return sd * sqrt((1 + phi) / (1 - phi)) *
	    (1 + (double)INTERFERENCE_MIN_SAMPLES / c->bn);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The clean part of c's ring, one-sided: a start from two low quantiles
 * of its counted samples (q05 and q25 of a normal are mean - 1.645 sd and
 * mean - 0.674 sd; with up to half the samples raised they still come
 * from the clean part), then three passes of the mean of the samples
 * below mean + CLIP sd (a clean normal loses 0.6% of its upper tail
 * there) and of the spread of those below that mean: the samples above
 * it may be a burst's partial samples (one that began or ended within
 * the sample), which filled the gap between the clean part and the
 * bursts and, counted in the spread, widened the clip until it took
 * everything.  The autocovariance from successive differences
 * (clean_acov).  Into c->clean[] with c->proposed set when at least two
 * samples lie above the clip and the clean mean is its own sd or more
 * below the baseline's mean; with fewer than INTERFERENCE_MIN_SAMPLES / 2
 * counted samples, nothing.
 */
#define CLIP 2.5
/* Samples between two looks at the clean part of a ring, doubled after
 * each proposal nobody's use explained (up to 8 times: a CPI that
 * wanders of its own is looked at every 8 minutes, not every minute). */
#define CLEAN_EVERY (INTERFERENCE_RING / 10)
#define CLEAN_MISSES_MAX 3
/* A fit's offers (detect_fit_clean) back off further, up to every 192
 * samples: each asks every other cgroup's use (bench/RESULTS.md, "Clean
 * from the line"). */
#define FIT_MISSES_MAX 5
/* The median of a chi-square of one degree of freedom: the median of the
 * squares of a normal's values over their mean. */
#define CHI2_1_MEDIAN 0.4549

/*
 * The lag-1 autocovariance of the clean part of c's ring, of variance
 * var: var - MSSD / 2, where the mean squared successive difference MSSD
 * (2 var (1 - phi) for a stationary series) is the median of the squared
 * differences of samples in a row over CHI2_1_MEDIAN.  A burst's edges
 * are a few large differences, which the median ignores; covariances of
 * the samples under the clip took its partial samples' slow rises and
 * falls for the noise's own autocorrelation (phi at PHI_MAX, the long-run
 * sd four times the sd: no burst ever alarmed).  d: scratch of RING.
 */
static double
clean_acov(const struct interference_config *cfg, const struct cg *c,
    uint64_t sample, double var, double *d)
{
	size_t k, m = 0;
	double mssd;

	for (k = 0; k + 1 < INTERFERENCE_RING; k++) {
		double x = c->x[k], y = c->x[k + 1];

		/* Slot k is the newest (sample's), k + 1 the oldest. */
		if (k != sample % INTERFERENCE_RING &&
		    ifr_counts(cfg, c->cpu[k], x) &&
		    ifr_counts(cfg, c->cpu[k + 1], y))
			d[m++] = (x - y) * (x - y);
	}
	if (m < 2)
		return 0;
	qsort(d, m, sizeof(*d), cmp_double);
	mssd = d[m / 2] / CHI2_1_MEDIAN;
	return fmax(0, var - mssd / 2);
}

static void
clean_of(const struct interference_config *cfg, struct cg *c,
    uint64_t sample, double *sorted)
{
	double mu, sd, sum, ss;
	size_t n = 0, k, i, pass, in = 0;

	for (k = 0; k < INTERFERENCE_RING; k++)
		if (ifr_counts(cfg, c->cpu[k], c->x[k]))
			sorted[n++] = c->x[k];
	if (n < INTERFERENCE_MIN_SAMPLES / 2)
		return;
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	sd = (sorted[n / 4] - sorted[n / 20]) / (1.645 - 0.674);
	mu = sorted[n / 4] + 0.674 * sd;
	for (pass = 0; pass < 3; pass++) {
		double top = mu + CLIP * fmax(sd, 0.01 * mu);

		sum = ss = 0;
		for (in = 0; in < n && sorted[in] <= top; in++)
			sum += sorted[in];
		if (in < 2)
			return;
		mu = sum / (double)in;
		for (i = 0; i < in && sorted[i] < mu; i++)
			ss += (sorted[i] - mu) * (sorted[i] - mu);
		if (i < 2)
			return;
		sd = sqrt(ss / (double)(i - 1));
	}
	if (n - in < 2 || mu > c->mean - fmax(sd, 0.01 * mu))
		return;
	c->clean[0] = (float)mu;
	c->clean[1] = (float)(sd * sd);
	c->clean[2] = (float)clean_acov(cfg, c, sample, sd * sd, sorted);
	c->proposed = OFFER_CLEAN;
}

/*
 * The clean baseline of c from neighbour u's use, whose rises explain c's
 * CPI over the ring: c's CPI with u's use at the least it used there (the
 * line of x on u's use, at its lowest), the residuals' variance and lag-1
 * autocovariance.  Into c->clean[], 1 when clearly below the baseline.
 */
int
detect_fit_clean(const struct interference_config *cfg, struct cg *c,
    const struct cg *u, uint64_t sample)
{
	double n = 0, sx = 0, sy = 0, sxy = 0, syy = 0, lo = INFINITY;
	double b, mx, my, v, r, pr = NAN, ss = 0, sl = 0, np = 0, sd;
	size_t k, i;

	for (k = 0; k < INTERFERENCE_RING; k++) {
		double x = c->x[k], y = u->cpu[k];

		if (!ifr_counts(cfg, c->cpu[k], x) || !isfinite(y))
			continue;
		n++;
		sx += x;
		sy += y;
		sxy += x * y;
		syy += y * y;
		lo = fmin(lo, y);
	}
	if (n < INTERFERENCE_MIN_SAMPLES / 2)
		return 0;
	mx = sx / n;
	my = sy / n;
	v = syy / n - my * my;
	if (!(v > 1e-9))
		return 0;
	b = (sxy / n - mx * my) / v;
	if (!(b > 0))
		return 0;
	/* The residuals from the newest sample's slot on, in time order. */
	for (i = 1; i <= INTERFERENCE_RING; i++) {
		k = (sample + i) % INTERFERENCE_RING;
		if (!ifr_counts(cfg, c->cpu[k], c->x[k]) ||
		    !isfinite(u->cpu[k])) {
			pr = NAN;
			continue;
		}
		r = c->x[k] - mx - b * (u->cpu[k] - my);
		ss += r * r;
		if (isfinite(pr)) {
			sl += r * pr;
			np++;
		}
		pr = r;
	}
	v = ss / (n - 2);
	sd = sqrt(v);
	mx -= b * (my - lo);
	if (mx > c->mean - fmax(sd, 0.01 * mx))
		return 0;
	c->clean[0] = (float)mx;
	c->clean[1] = (float)fmin(v, c->var);
	c->clean[2] = (float)fmin(c->acov, np > 0 ? fmax(0, sl / np) : 0);
	return 1;
}

void
detect_clean_missed(struct cg *c)
{
	if (c->proposed == OFFER_FIT) {
		if (c->fit_misses < FIT_MISSES_MAX)
			c->fit_misses++;
	} else if (c->clean_misses < CLEAN_MISSES_MAX)
		c->clean_misses++;
	c->proposed = 0;
}

/* Taken, the clean baseline counts as a whole one (a neighbour's use
 * explained the ring's rises): its mean learns at 1 / BASELINE from then
 * on, so that the bursts it did not see do not teach it back up while
 * they stay under the alarm, as they did at a young baseline's 1 / bn. */
void
detect_take_clean(struct cg *c)
{
	if (c->bn < BASELINE)
		c->bn = BASELINE;
	c->clean_misses = c->fit_misses = 0;
	c->mean = c->clean[0];
	c->var = c->clean[1];
	c->acov = c->clean[2];
	c->prev = NAN;
	c->cusum = 0;
	c->proposed = 0;
}

/* Judge sample x of c (the sample numbered sample). */
static void
judge(const struct interference_config *cfg, struct cg *c, double x,
    uint64_t sample, double *scratch)
{
	double sd, lr;

	c->proposed = 0;
	if (c->bn < INTERFERENCE_MIN_SAMPLES) {
		learn(c, x, 0);
		if (c->bn == INTERFERENCE_MIN_SAMPLES)
			clean_of(cfg, c, sample, scratch);
		c->high = 0;
		c->onset = sample + 1;
		return;
	}
	sd = fmax(sqrt(c->var), 0.01 * c->mean);
	lr = longrun_sd(c);
	c->cusum = fmin(2 * CUSUM_H, fmax(0, c->cusum + fmin(STEP_MAX,
	    (x - c->mean) / lr - cfg->outlier_sigma / 2)));
	if (c->cusum <= 0)
		c->onset = sample + 1;
	c->high = c->cusum >= CUSUM_H;
	if ((sample + c->key) % ((uint64_t)CLEAN_EVERY << c->clean_misses) == 0)
		clean_of(cfg, c, sample, scratch);
	if (!c->proposed && c->cusum <= 0 && (sample + c->key) %
	    ((uint64_t)CLEAN_EVERY << c->fit_misses) == 0)
		c->proposed = OFFER_FIT;
	if (c->cusum <= 0) {
		learn(c, x, 3 * sd);
		return;
	}
	/* A rise may be starting: the mean learns it (slowly, clipped), the
	 * spread and the autocorrelation do not (a rise is no noise). */
	c->mean += fmax(-3 * sd, fmin(3 * sd, x - c->mean)) /
	    (c->high ? BASELINE : c->bn < BASELINE ? c->bn + 1 : BASELINE);
	c->prev = NAN;
}

/* The node's factor: the median of CPI / baseline over the ready judged
 * cgroups' raw samples in slot, 1 with fewer than three.  The lower
 * median of an even count, so that a rise shared by exactly half of them
 * is still theirs, not the node's: it takes more than half. */
static double
common_mode(const struct interference *ifr, size_t slot, double *ratio)
{
	size_t i, n = 0;

	for (i = 0; i < ifr->nr; i++) {
		const struct cg *c = &ifr->cgs[i];

		if (c->analysed && c->leaf &&
		    c->bn >= INTERFERENCE_MIN_SAMPLES && c->mean > 0)
			ratio[n++] = c->x[slot] / c->mean;
	}
	if (n < 3)
		return 1;
	qsort(ratio, n, sizeof(*ratio), cmp_double);
	return ratio[(n - 1) / 2];
}

/*
 * How much of the node's change c takes: beta, the slope through the
 * origin of log(CPI / baseline) on log(factor), learnt in the samples
 * where the node moved by 2% or more (below that the factor is noise),
 * from a prior of 1 worth one sample of a 10% change.  Workloads differ
 * in how a shared change reaches them (memory-bound ones feel a memory
 * clock more): with one factor for all, an uneven change left the most
 * sensitive ones risen for as long as it lasted.  Clamped to [0, 3].
 */
static double
beta_of(const struct cg *c)
{
	double b;

	if (c->beta_xx <= 0)
		return 1;
	b = c->beta_xy / c->beta_xx;
	return fmax(0, fmin(3, b));
}

static void
beta_learn(struct cg *c, double raw, double m)
{
	double l = log(m), y, a;

	if (c->beta_xx <= 0)
		c->beta_xy = c->beta_xx = 0.01;	/* the prior */
	if (fabs(l) < 0.02 || !(c->mean > 0) || !(raw > 0))
		return;
	y = log(raw / c->mean);
	a = 1.0 / INTERFERENCE_MIN_SAMPLES;
	c->beta_xy = (1 - a) * c->beta_xy + a * l * y;
	c->beta_xx = (1 - a) * c->beta_xx + a * l * l;
}

void
detect_sample(struct interference *ifr, size_t slot, double *scratch)
{
	double m = common_mode(ifr, slot, scratch);
	size_t i;

	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];
		double raw = c->x[slot];

		if (c->analysed && c->leaf &&
		    c->bn >= INTERFERENCE_MIN_SAMPLES && isfinite(raw))
			beta_learn(c, raw, m);
		c->x[slot] = (float)(raw / pow(m, beta_of(c)));
		c->high = 0;
		if (c->analysed && c->leaf)
			judge(&ifr->cfg, c, c->x[slot], ifr->sample,
			    scratch);
		else
			c->prev = NAN;
	}
}
