/*
 * scenario_node.c - interference_scenarios' simulated node (see that
 * file's header for the model): its cgroups of each kind (busy
 * neighbours, victims, antagonists on a schedule, followers, pods), the
 * random draws they take (tests/xorshift.h, seeded per run, so a figure
 * replays exactly), and one interval of every cgroup's use and CPI with
 * the truth of which antagonists act on it.  Nothing here knows the
 * analysis: the driver hands the counts to it as snapshots.
 */
#include "autoconf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/scenario.h"
#include "tests/lib/xorshift.h"

static double
uniform(struct sim *m)
{
	return xorshift_uniform(&m->rng);
}

double
between(struct sim *m, double lo, double hi)
{
	return lo + (hi - lo) * uniform(m);
}

/* Standard normal, Box-Muller, two at a time. */
static double
gauss(struct sim *m)
{
	double r, a;

	if (m->have_spare) {
		m->have_spare = 0;
		return m->spare;
	}
	r = sqrt(-2 * log(1 - uniform(m)));
	a = 2 * M_PI * uniform(m);
	m->spare = r * sin(a);
	m->have_spare = 1;
	return r * cos(a);
}

/* An AR(1) step of stationary standard deviation sd. */
static double
ar_step(struct sim *m, double x, double sd)
{
	return m->phi * x + sqrt(1 - m->phi * m->phi) * sd * gauss(m);
}

struct cg *
add_cg(struct sim *m, const char *path)
{
	struct cg *c;

	if (m->nr == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->cgs = realloc(m->cgs, m->cap * sizeof(*m->cgs));
		if (m->cgs == NULL) {
			fprintf(stderr, "out of memory\n");
			exit(1);
		}
	}
	c = &m->cgs[m->nr++];
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->parent = -1;
	c->born = LONG_MIN;
	c->base = between(m, 0.8, 2.0);
	c->noise = ar_step(m, 0, m->ar_sd) / sqrt(1 - m->phi * m->phi);
	return c;
}

size_t
add_busy(struct sim *m, const char *path)
{
	struct cg *c = add_cg(m, path);

	c->use = USE_AR;
	c->mean = between(m, 0.3, 1.5);
	c->sd = 0.3 * c->mean;
	return (size_t)(c - m->cgs);
}

void
add_busies(struct sim *m, size_t n)
{
	char p[32];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), n > 100 ? "/busy-%05zu" : "/busy-%02zu",
		    i);
		add_busy(m, p);
	}
}

size_t
add_victim(struct sim *m, const char *path)
{
	struct cg *c = add_cg(m, path);

	c->use = USE_STEADY;
	c->mean = 1.0;
	return (size_t)(c - m->cgs);
}

size_t
add_sched(struct sim *m, const char *path, const struct sched *s)
{
	struct cg *c = add_cg(m, path);

	c->use = USE_SCHED;
	c->sched = *s;
	return (size_t)(c - m->cgs);
}

void
add_cause(struct sim *m, size_t victim, size_t antagonist)
{
	struct cg *v = &m->cgs[victim];

	v->cause[v->nr_causes++] = antagonist;
}

/* ---- one interval --------------------------------------------------- */

static int
sched_active(const struct sched *s, long tau)
{
	return (s->from[0] < tau && tau <= s->to[0]) ||
	    (s->from[1] < tau && tau <= s->to[1]);
}

/* The schedule's state at this interval: on at once when it becomes
 * active, then switching at the drawn times. */
static void
sched_step(struct sim *m, struct cg *c)
{
	const struct sched *s = &c->sched;

	if (!sched_active(s, m->tau)) {
		c->on = 0;
		c->next = 0;
		return;
	}
	if (c->next != 0 && m->t < c->next)
		return;
	c->on = c->next == 0 ? 1 : !c->on;
	c->next = m->t + (long)lround(c->on ?
	    between(m, s->on_min, s->on_max) :
	    between(m, s->off_min, s->off_max));
	if (c->on)
		c->level = between(m, s->lvl_min, s->lvl_max);
}

/* The level of c's on period, along its schedule's ramp. */
static double
ramped(const struct sim *m, const struct cg *c)
{
	const struct sched *s = &c->sched;
	double f;

	if (!(s->ramp_s > 0))
		return c->level;
	f = fmin(1, fmax(0, (double)(m->tau - s->from[0]) / s->ramp_s));
	return s->lvl_off + (c->level - s->lvl_off) * f;
}

static void
use_step(struct sim *m, struct cg *c)
{
	switch (c->use) {
	case USE_AR:
		c->ar = ar_step(m, c->ar, c->sd);
		c->u = fmax(0, c->mean + c->ar);
		break;
	case USE_STEADY:
		c->u = c->mean * (1 + 0.03 * gauss(m));
		break;
	case USE_SCHED:
		sched_step(m, c);
		c->u = c->on ? ramped(m, c) * (1 + 0.05 * gauss(m)) :
		    fmax(0, c->sched.lvl_off * (1 + 0.2 * gauss(m)));
		if (c->on)
			c->last_on = m->t;
		break;
	case USE_FOLLOW:
		c->u = fmax(0, c->ratio * m->cgs[c->follow].u *
		    (1 + 0.05 * gauss(m)));
		break;
	case USE_POD:
		break;
	}
}

static double
own_factor(struct sim *m, struct cg *c)
{
	switch (c->own) {
	case OWN_SCHED:
		sched_step(m, c);
		return 1 + c->own_amp * c->on;
	case OWN_LOAD:
		return 1 + c->own_amp * c->u;
	case OWN_DRIFT:
		return 1 + c->own_amp * fmin(1, fmax(0, (double)m->tau /
		    (double)m->length_s));
	case OWN_NONE:
		break;
	}
	return 1;
}

/* What c used `ago` seconds before now (0 before it had a history). */
static double
used_ago(const struct sim *m, const struct cg *c, long ago)
{
	long n = LAG_MAX_S + 1;

	return c->uh[(size_t)(((m->t - ago) % n + n) % n)];
}

static void
cpi_step(struct sim *m, struct cg *c)
{
	double f = 1;
	size_t j;

	if (c->use == USE_POD)
		return;
	for (j = 0; j < c->nr_causes; j++)
		f += SENSITIVITY * used_ago(m, &m->cgs[c->cause[j]], c->lag);
	if (m->node_from < m->tau && m->tau <= m->node_to)
		f *= 1 + c->node_amp;
	c->noise = ar_step(m, c->noise, m->ar_sd);
	c->cpi = c->base * own_factor(m, c) * f *
	    fmax(0.05, 1 + m->white * gauss(m)) * exp(c->noise);
}

/* The causes of c that were on in the victim window before t (their
 * effect, c->lag later). */
unsigned
causes_now(const struct sim *m, const struct cg *c)
{
	unsigned mask = 0;
	size_t j;

	for (j = 0; j < c->nr_causes; j++) {
		long on = m->cgs[c->cause[j]].last_on;

		if (on > 0 && on + c->lag > m->t - VICTIM_WINDOW_S)
			mask |= 1u << j;
	}
	return mask;
}

void
sim_step(struct sim *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		use_step(m, &m->cgs[i]);
		m->cgs[i].uh[(size_t)(m->t % (LAG_MAX_S + 1))] = m->cgs[i].u;
	}
	for (i = 0; i < m->nr; i++) {
		struct cg *c = &m->cgs[i];

		cpi_step(m, c);
		if (c->use == USE_POD)
			c->cyc = c->ins = c->en = 0;
	}
	/* A pod's counts are its containers' sums. */
	for (i = 0; i < m->nr; i++) {
		struct cg *c = &m->cgs[i], *p;
		int now;

		if (c->use == USE_POD)
			continue;
		c->ins += c->u * 1e9;
		c->cyc += c->u * 1e9 * c->cpi;
		c->en += c->u;
		if (c->parent >= 0) {
			p = &m->cgs[c->parent];
			p->ins += c->ins;
			p->cyc += c->cyc;
			p->en += c->en;
		}
		now = c->nr_causes && causes_now(m, c) != 0;
		if (now && !c->was)
			c->onset = m->t;
		c->was = now;
	}
}
