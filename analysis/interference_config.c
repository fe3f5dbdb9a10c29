/*
 * interference_config.c - the interference: block's struct
 * (interference_config.h): defaults, copies, comparison, apart so that
 * config/ links it alone.
 * Design: docs/architecture.md, "analysis/".
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference_config.h"

void
interference_config_defaults(struct interference_config *c)
{
	memset(c, 0, sizeof(*c));
	c->window_ns = 600ULL * 1000000000ULL;
	c->cpu_floor = 0.25;
	c->outlier_sigma = 2.0;
	c->victim_outliers = 3;
	c->victim_window_ns = 300ULL * 1000000000ULL;
	c->suspect_threshold = 0.35;
	c->suspect_significance = 0.001;
	c->suspects = 3;
}

void
interference_geometry(const struct interference_config *c,
    uint64_t interval_ns, struct interference_geometry *g)
{
	double interval = interval_ns ? (double)interval_ns : 1;
	double per = floor((double)c->window_ns / INTERFERENCE_RING /
	    interval + 0.5), vw;

	g->per_sample = per < 1 ? 1 : (unsigned)per;
	vw = floor((double)c->victim_window_ns / (g->per_sample * interval) +
	    0.5);
	g->victim_samples = vw < 1 ? 1 : vw > 64 ? 64 : (unsigned)vw;
}

static char *
dup_or_null(const char *s, int *bad)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*bad = 1;
	return d;
}

int
interference_config_copy(struct interference_config *dst,
    const struct interference_config *src)
{
	int bad = 0;

	*dst = *src;
	dst->group = dup_or_null(src->group, &bad);
	dst->cycles = dup_or_null(src->cycles, &bad);
	dst->instructions = dup_or_null(src->instructions, &bad);
	dst->why_off = dup_or_null(src->why_off, &bad);
	if (bad) {
		interference_config_fini(dst);
		return -ENOMEM;
	}
	return 0;
}

static int
str_same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

int
interference_config_same(const struct interference_config *a,
    const struct interference_config *b)
{
	return a->enabled == b->enabled && str_same(a->group, b->group) &&
	    str_same(a->cycles, b->cycles) &&
	    str_same(a->instructions, b->instructions) &&
	    a->window_ns == b->window_ns && a->cpu_floor == b->cpu_floor &&
	    a->outlier_sigma == b->outlier_sigma &&
	    a->victim_outliers == b->victim_outliers &&
	    a->victim_window_ns == b->victim_window_ns &&
	    a->suspect_threshold == b->suspect_threshold &&
	    a->suspect_significance == b->suspect_significance &&
	    a->suspects == b->suspects;
}

int
interference_config_keeps(const struct interference_config *a,
    const struct interference_config *b)
{
	return a->enabled == b->enabled && str_same(a->group, b->group) &&
	    str_same(a->cycles, b->cycles) &&
	    str_same(a->instructions, b->instructions);
}

void
interference_config_fini(struct interference_config *c)
{
	free(c->group);
	free(c->cycles);
	free(c->instructions);
	free(c->why_off);
	c->group = c->cycles = c->instructions = c->why_off = NULL;
}
