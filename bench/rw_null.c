/*
 * rw_null.c - the tail of the partial correlation of two independent
 * random walks, which analysis/suspects.c's floor of the effective n
 * (rw_floor) is taken from.
 *
 *   rw_null N PAIRS [PHI]
 *
 * PAIRS pairs of independent AR(1) series of N samples (PHI 1: random
 * walks, the limit of persistence), each pair's correlation with two
 * white controls held out (as the analysis holds out the victim's own
 * use and the others' total), sorted; for each one-sided level p, the
 * correlation exceeded with probability p and the degrees of freedom
 * Fisher's z would need to put its critical value there:
 * (z_p / atanh(r_p))^2.  A floor under that keeps the test at its
 * level.
 *
 *   rw_null -t SERIES [PHI]
 *
 * The same null for the trend of suspects (analysis/onset.c, trend_t,
 * called here on each series): SERIES random walks (or AR(1) series at
 * PHI) of the window's 60 samples, at CPU 1 with steps of 0.3 (where its
 * floors of 0.05 CPU-s/s and three deviations do not bind), and the trend
 * t exceeded with probability p, which rw_trend's bar is fitted over.
 * Draws from tests/lib/xorshift.h: the same figures every run.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/xorshift.h"
#include "analysis/interference_int.h"

#define MAX_N 256

static uint64_t rng = XORSHIFT_SEED;

static double
gauss(void)
{
	double r = sqrt(-2 * log(1 - xorshift_uniform(&rng)));

	return r * cos(2 * M_PI * xorshift_uniform(&rng));
}

/* v less its mean and its projections on the centred, orthogonal c1 and
 * c2. */
static void
residual(double *v, const double *c1, const double *c2, int n)
{
	const double *c[2] = { c1, c2 };
	double m = 0, a, b;
	int t, k;

	for (t = 0; t < n; t++)
		m += v[t];
	for (t = 0; t < n; t++)
		v[t] -= m / n;
	for (k = 0; k < 2; k++) {
		a = b = 0;
		for (t = 0; t < n; t++) {
			a += v[t] * c[k][t];
			b += c[k][t] * c[k][t];
		}
		for (t = 0; t < n && b > 0; t++)
			v[t] -= a / b * c[k][t];
	}
}

static void
centre(double *v, int n)
{
	double m = 0;
	int t;

	for (t = 0; t < n; t++)
		m += v[t];
	for (t = 0; t < n; t++)
		v[t] -= m / n;
}

static double
one_pair(int n, double phi)
{
	double x[MAX_N], y[MAX_N], c1[MAX_N], c2[MAX_N];
	double px = 0, py = 0, a = 0, b = 0, sxy = 0, sxx = 0, syy = 0;
	int t;

	if (phi < 1) {
		px = gauss() / sqrt(1 - phi * phi);
		py = gauss() / sqrt(1 - phi * phi);
	}
	for (t = 0; t < n; t++) {
		x[t] = px = phi * px + gauss();
		y[t] = py = phi * py + gauss();
		c1[t] = gauss();
		c2[t] = gauss();
	}
	centre(c1, n);
	centre(c2, n);
	for (t = 0; t < n; t++) {
		a += c2[t] * c1[t];
		b += c1[t] * c1[t];
	}
	for (t = 0; t < n; t++)
		c2[t] -= a / b * c1[t];
	residual(x, c1, c2, n);
	residual(y, c1, c2, n);
	for (t = 0; t < n; t++) {
		sxy += x[t] * y[t];
		sxx += x[t] * x[t];
		syy += y[t] * y[t];
	}
	return sxy / sqrt(sxx * syy);
}

static int
descending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The z with P(Z > z) = p. */
static double
z_upper(double p)
{
	double lo = 0, hi = 40;
	int i;

	for (i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / M_SQRT2) > p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* -t: the trend t of random walks (phi 1) or AR(1) series. */
static int
trend_null(long series, double phi)
{
	static const double ps[] = { 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7 };
	struct interference *ifr = calloc(1, sizeof(*ifr));
	struct cg *c = calloc(1, sizeof(*c));
	double *t = malloc((size_t)series * sizeof(*t)), a;
	long i, beyond = 0;
	size_t k;

	if (ifr == NULL || c == NULL || t == NULL) {
		fprintf(stderr, "rw_null: out of memory\n");
		return 1;
	}
	ifr->sample = INTERFERENCE_RING;
	for (i = 0; i < series; i++) {
		a = phi < 1 ? gauss() / sqrt(1 - phi * phi) : 0;
		for (k = 0; k < INTERFERENCE_RING; k++) {
			a = phi * a + gauss();
			c->cpu[ifr_slot_at(ifr, k)] = (float)(1 + 0.3 * a);
		}
		t[i] = trend_t(ifr, c);
		beyond += t[i] > 0;
	}
	qsort(t, (size_t)series, sizeof(*t), descending);
	printf("phi %.3f: a trend at all in %.2f%%\n", phi,
	    100.0 * (double)beyond / (double)series);
	for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		long at = (long)(ps[k] * (double)series);

		if (at >= 3)
			printf("phi %.3f p %.0e: trend t %.1f, rw_trend %.1f\n",
			    phi, ps[k], t[at], rw_trend(ps[k]));
	}
	free(t);
	free(c);
	free(ifr);
	return 0;
}

int
main(int argc, char **argv)
{
	static const double ps[] = { 1e-2, 1e-3, 1e-4, 1e-5, 3e-6, 1e-6 };
	double phi, *r;
	long pairs, i;
	size_t k;
	int n;

	if (argc >= 3 && strcmp(argv[1], "-t") == 0 && atol(argv[2]) >= 100)
		return trend_null(atol(argv[2]), argc > 3 ? atof(argv[3]) : 1);
	if (argc < 3 || (n = atoi(argv[1])) < 5 || n > MAX_N ||
	    (pairs = atol(argv[2])) < 100) {
		fprintf(stderr, "usage: rw_null N(5-%d) PAIRS(>=100) [PHI]\n"
		    "       rw_null -t SERIES(>=100) [PHI]\n", MAX_N);
		return 2;
	}
	phi = argc > 3 ? atof(argv[3]) : 1;
	if ((r = malloc((size_t)pairs * sizeof(*r))) == NULL) {
		fprintf(stderr, "rw_null: out of memory\n");
		return 1;
	}
	for (i = 0; i < pairs; i++)
		r[i] = one_pair(n, phi);
	qsort(r, (size_t)pairs, sizeof(*r), descending);
	for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		long at = (long)(ps[k] * (double)pairs);
		double rp, z;

		if (at < 3)
			continue;	/* too few beyond it to say */
		rp = r[at];
		z = z_upper(ps[k]);
		printf("n %d phi %.3f p %.0e: r %.4f, Fisher's z needs n_eff - 5 "
		    "= %.2f\n", n, phi, ps[k], rp, pow(z / atanh(rp), 2));
	}
	free(r);
	return 0;
}
