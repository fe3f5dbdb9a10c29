/*
 * reload.c - what a reload or a new interval keeps (interference_int.h): every
 * baseline, or the rings resampled to a new sample length.
 * Design: docs/interference.md, "Config"; docs/architecture.md, "analysis/".
 */
#include "autoconf.h"

#include <math.h>
#include <string.h>

#include "analysis/interference_int.h"

#define RING INTERFERENCE_RING

/* The ring slot of age a (0: the newest sample). */
static size_t
slot_of(uint64_t sample, size_t a)
{
	return (size_t)((sample + 2 * RING - 1 - a) % RING);
}

/* Ring r (by slot) converted from points of from_s to points of to_s:
 * each new age the weighted mean of the old ones it overlaps, finite
 * ones only; NaN where none (empty: 0 for use, NaN for CPI). */
static void
ring_convert(float *r, uint64_t sample, double from_s, double to_s,
    float empty)
{
	float old[RING];
	size_t a, b;

	for (a = 0; a < RING; a++)
		old[a] = r[slot_of(sample, a)];
	for (b = 0; b < RING; b++) {
		double lo = b * to_s / from_s, hi = (b + 1) * to_s / from_s;
		double sum = 0, w = 0;

		for (a = (size_t)floor(lo); a < RING && a < hi; a++) {
			double o = fmin(hi, a + 1.0) - fmax(lo, (double)a);

			if (o > 0 && isfinite(old[a])) {
				sum += o * old[a];
				w += o;
			}
		}
		r[slot_of(sample, b)] = w > 0 ? (float)(sum / w) : empty;
	}
}

/* Alarm bits (newest lowest) moved to the new ages. */
static uint64_t
bits_convert(uint64_t bits, double from_s, double to_s)
{
	uint64_t out = 0;
	size_t a, b;

	for (a = 0; a < 64; a++) {
		if (!(bits >> a & 1))
			continue;
		for (b = (size_t)floor(a * from_s / to_s); b < 64 &&
		    b * to_s < (a + 1) * from_s; b++)
			out |= 1ULL << b;
	}
	return out;
}

static void
resample(struct interference *ifr, double from_s, double to_s)
{
	double q = from_s / to_s;
	size_t i;

	if (!(from_s > 0) || !(to_s > 0) || from_s == to_s)
		return;
	for (i = 0; i < ifr->nr; i++) {
		struct cg *c = &ifr->cgs[i];

		ring_convert(c->cpu, ifr->sample, from_s, to_s, 0);
		ring_convert(c->x, ifr->sample, from_s, to_s, NAN);
		c->bits = bits_convert(c->bits, from_s, to_s);
		if (c->onset <= ifr->sample) {
			uint64_t age = (uint64_t)llround((double)(ifr->sample -
			    c->onset) * q);

			c->onset = age < ifr->sample ? ifr->sample - age : 0;
		}
		if (q > 1) {
			c->var *= q;
			c->acov *= q;
		}
	}
}

void
reload_geometry(struct interference *ifr, double interval_s)
{
	double from_s = ifr->sample_s;

	ifr->interval_s = interval_s;
	interference_geometry(&ifr->cfg, (uint64_t)llround(interval_s * 1e9),
	    &ifr->geo);
	ifr->sample_s = ifr->geo.per_sample * interval_s;
	resample(ifr, from_s, ifr->sample_s);
}
