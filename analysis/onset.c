/*
 * onset.c - the onset and trend tests of suspects.c (interference_int.h), for
 * an antagonist that stepped up and stays, or ramps up.
 * Design: docs/interference.md, "How", step 7.
 */
#include "autoconf.h"

#include <math.h>
#include <string.h>

#include "analysis/interference_int.h"

#define RING INTERFERENCE_RING
/* Positions before the victim's onset a step is also tried at. */
#define ONSET_SLACK IFR_ONSET_SLACK
/* How far the follower's r must lead the runner-up's, in standard
 * errors of the difference of their Fisher z (sqrt(2 / (n - 3))). */
#define ONSET_LEAD_Z 1.0

/* A cgroup's use over the window as prefix sums, position 0 the oldest,
 * so that any span's statistics cost the same whatever its length (the
 * onset tries several splits of each candidate). */
struct series {
	double s[RING + 1], ss[RING + 1];	/* of y, y * y before k */
	double lag[RING + 1], pair[RING + 1];	/* of pairs (j - 1, j), j < k */
};

static void
series_of(const struct interference *ifr, const struct cg *u,
    struct series *q)
{
	double py = 0;
	size_t k;

	q->s[0] = q->ss[0] = q->lag[0] = q->pair[0] = 0;
	for (k = 0; k < RING; k++) {
		double y = u->cpu[ifr_slot_at(ifr, k)];

		q->s[k + 1] = q->s[k] + y;
		q->ss[k + 1] = q->ss[k] + y * y;
		q->lag[k + 1] = q->lag[k] + (k ? y * py : 0);
		q->pair[k + 1] = q->pair[k] + (k ? y + py : 0);
		py = y;
	}
}

/* Mean, variance and lag-1 autocorrelation of the series over positions
 * [from, to). */
static void
span_stats(const struct series *q, size_t from, size_t to, double *mean,
    double *var, double *rho)
{
	double n = (double)(to - from);

	*mean = (q->s[to] - q->s[from]) / n;
	*var = fmax(0, (q->ss[to] - q->ss[from]) / n - *mean * *mean);
	*rho = ifr_lag1(q->lag[to] - q->lag[from + 1], q->pair[to] -
	    q->pair[from + 1], to - from - 1, *mean, *var);
}

/* The step of the series at position split: its t statistic in the
 * before-span's long-run standard error (0 when the step is within three
 * long-run deviations of the before-span), the step into *step and the
 * point-biserial correlation into *r. */
static double
step_t(const struct series *q, size_t split, double *step, double *r)
{
	double m0, v0, p0, m1, v1, p1, npre = (double)split;
	double npost = (double)(RING - split), sd, se, all;

	span_stats(q, 0, split, &m0, &v0, &p0);
	span_stats(q, split, RING, &m1, &v1, &p1);
	*step = m1 - m0;
	sd = fmax(sqrt(v0), 0.01) * sqrt((1 + p0) / (1 - p0));
	se = sd * sqrt(1 / npost + 1 / npre);
	all = (npre * (v0 + m0 * m0) + npost * (v1 + m1 * m1)) / RING -
	    pow((npre * m0 + npost * m1) / RING, 2);
	*r = all > 0 ? *step * sqrt(npre * npost) / RING / sqrt(all) : 0;
	/* A step within three of its own long-run deviations is one of its
	 * swings, however many samples agree on it. */
	return *step >= 3 * sd ? *step / se : 0;
}

/* u's step at the victim's onset (the CUSUM's last zero, give or take a
 * partly risen sample: tried at the ONSET_SLACK positions before it too,
 * the largest t taken); a step under 0.05 CPU-s/s is no step. */
static double
onset_t(const struct interference *ifr, const struct cg *u, size_t split,
    double *r)
{
	double best = 0, t, step, rr;
	struct series q;
	size_t k;

	*r = 0;
	series_of(ifr, u, &q);
	for (k = split >= 5 + ONSET_SLACK ? split - ONSET_SLACK : 5; k <= split;
	    k++) {
		t = step_t(&q, k, &step, &rr);
		if (step >= 0.05 && t > best) {
			best = t;
			*r = rr;
		}
	}
	return best;
}

/* The position at which v's rise began, or 0 when there is none to align
 * on: at least 5 positions before it and 2 since, within the window. */
size_t
onset_split(const struct interference *ifr, const struct cg *v)
{
	uint64_t first = ifr->sample >= RING ? ifr->sample - RING : 0;

	if (!v->victim || v->onset < first + 5 || v->onset + 2 > ifr->sample ||
	    ifr->sample < RING)
		return 0;
	return (size_t)(v->onset - (ifr->sample - RING));
}

/* Did v's own use step at split, or at any position before it that a
 * candidate's step is tried at (onset_t)?  Then an onset says nothing. */
int
onset_own_step(const struct interference *ifr, const struct cg *v,
    size_t split)
{
	double step, r;
	struct series q;
	size_t k;

	series_of(ifr, v, &q);
	for (k = split >= 5 + ONSET_SLACK ? split - ONSET_SLACK : 5; k <= split;
	    k++)
		if (fabs(step_t(&q, k, &step, &r)) > 3)
			return 1;
	return 0;
}

/* Does fo's candidate lead the runner-up by ONSET_LEAD_Z standard errors
 * of the difference of their Fisher z?  Several that stepped or ramped
 * together are no explanation of one victim's rise. */
static int
leads(const struct follower *fo)
{
	return !(fo->second > -1 && (atanh(fo->r) - atanh(fo->second)) *
	    sqrt(fmax(0, (fo->n - 3) / 2)) < ONSET_LEAD_Z);
}

double
rw_trend(double p)
{
	double l = log10(0.01 / p);

	return p < 0.01 ? 10.9 + l * (7.0 + 0.6 * l) : 10.9;
}

/* The rise of u's use along the window, a least-squares line over its
 * RING positions: the slope's t in the residuals' long-run standard error
 * (their lag-1 autocorrelation, capped as ifr_lag1's), 0 when the rise
 * over the window is under 0.05 CPU-s/s or within three of the
 * residuals' long-run deviations (one of its swings). */
double
trend_t(const struct interference *ifr, const struct cg *u)
{
	double sy = 0, sxy = 0, sxx = 0, b, m, e, pe = 0, ee = 0, lag = 0;
	double mid = (RING - 1) / 2.0, sd, rho, rise;
	size_t k;

	for (k = 0; k < RING; k++) {
		double y = u->cpu[ifr_slot_at(ifr, k)], x = (double)k - mid;

		sy += y;
		sxy += x * y;
		sxx += x * x;
	}
	m = sy / RING;
	b = sxy / sxx;
	for (k = 0; k < RING; k++) {
		e = u->cpu[ifr_slot_at(ifr, k)] - m - b * ((double)k - mid);
		ee += e * e;
		lag += k ? e * pe : 0;
		pe = e;
	}
	rho = ee > 0 ? fmax(0, fmin(0.95, lag / ee)) : 0;
	sd = fmax(sqrt(ee / (RING - 2)), 0.01) * sqrt((1 + rho) / (1 - rho));
	rise = b * (RING - 1);
	if (!(rise >= 0.05) || !(rise >= 3 * sd))
		return 0;
	return b * sqrt(sxx) / sd;
}

int
trend_own(const struct interference *ifr, const struct cg *v)
{
	return trend_t(ifr, v) > 3;
}

void
trend_name(const struct interference *ifr, const struct follower *fo,
    struct pick *best, size_t *n)
{
	/* Its correlation with the victim's CPI shown: above the
	 * threshold like any. */
	if (!(fo->r > ifr->cfg.suspect_threshold) || !leads(fo))
		return;
	best[0].cg = fo->cg;
	best[0].r = fo->r;
	best[0].onset = 1;
	*n = 1;
}

void
onset_name(const struct interference *ifr, size_t split, double z,
    const struct follower *fo, struct pick *best, size_t *n)
{
	const struct cg *u = &ifr->cgs[fo->cg];
	double r;

	/* Its step's strength shown, so above the threshold like any. */
	if (!(onset_t(ifr, u, split, &r) > z) ||
	    !(r > ifr->cfg.suspect_threshold) || !leads(fo))
		return;
	best[0].cg = fo->cg;
	best[0].r = r;
	best[0].onset = 1;
	*n = 1;
}
