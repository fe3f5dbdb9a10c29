/*
 * interference_scenarios.c - the interference analysis scored against
 * traces whose right answers are known by construction (issue 41).
 *
 *   interference_scenarios [-s SCENARIO]... [-n SEEDS] [-w WARMUP_MIN]
 *       [-W MANY_WARMUP_MIN] [-N MANY_CGROUPS] [-e WHITE_PCT] [-a AR_PCT]
 *       [-q]
 *
 * Each scenario is a node of simulated cgroups fed, one snapshot per
 * 1 s interval, to the analysis through its public API only
 * (analysis/interference.h, with the default config: group ipc, events
 * cycles and instructions), as tests/interference_test.c feeds it.  A
 * snapshot's row per cgroup holds cumulative cycles, instructions and
 * enabled time.  Every result the analysis publishes (one per sample)
 * is scored once against what the simulation knows.
 *
 * The model, per cgroup and interval: CPU use u (CPU-s/s, the enabled
 * time's delta), instructions u * 1e9, cycles instructions * CPI, and
 *
 *   CPI = base * own(t) * node(t) * (1 + sum_a s * u_a(t)) * noise(t)
 *
 * base drawn in [0.8, 2.0]; own(t) the cgroup's own behaviour (a phase,
 * a drift, its own load); node(t) a node-wide episode; s = 0.25 per CPU
 * of each antagonist a acting on the cgroup, so that 1.0-2.0 CPU of it
 * raises the CPI by 25-50%.  noise(t) is multiplicative: white Gaussian
 * of 6% per interval times exp() of an AR(1) process of 5% standard
 * deviation and 60 s time constant, together about 8% per interval (the
 * issue's "8% CPI noise"; over a 10 s sample the white part averages
 * down to 1.9%, the AR part does not).  Uses: a busy neighbour is an
 * AR(1) process, 60 s time constant, 30% standard deviation, around a
 * mean drawn in [0.3, 1.5], clipped at 0; a victim's use is steady
 * around 1.0 (3% white); an antagonist switches on and off at random
 * (20-90 s each, 1.0-2.0 CPU when on, drawn per period with 5% jitter,
 * about 0.05 when off).
 *
 * The truth, per sample: a cgroup is truly interfered when an
 * antagonist acting on it was on during the victim window (300 s, the
 * default) before the sample, and its true causes are those antagonists,
 * by exact path.  Scores, summed over the seeds: rank 1 a true cause and
 * decoys (any other cgroup) at ranks 1-3, among victim results with a
 * true cause; false victims (flagged without one) among the analysed
 * cgroup-samples, overall and in the scenario's first hour; detection
 * (flagged among truly interfered samples one victim window or more
 * after the interference began); kin (a suspect list holding a cgroup
 * and its ancestor, or the victim's own ancestor or descendant); and
 * each scenario's own figure, against the target.  Pods
 * (kubernetes) are left out of the per-cgroup figures: their flags and
 * their naming are that scenario's own.
 *
 * Runs start with -w minutes of warm-up (an hour; 'many' -W, the same
 * unless -q; noise-only none): the antagonists are off and nothing is
 * scored.  The scenario's clock starts at the first result published
 * after it, a sample's boundary whatever the analysis's sample length,
 * so that "5 s into a sample" means that.  -e and -a set the noise's
 * two parts (-e 8 -a 0 is the 8% taken as white noise); -q
 * (2 seeds, 'many' at 2,000 cgroups after 20 min) is for iterating.
 *
 * Every draw comes from tests/xorshift.h, seeded per (scenario, seed,
 * run), so a figure replays exactly.  Only interference_feed is timed
 * (CLOCK_THREAD_CPUTIME_ID), and only after the warm-up.
 */
#include "autoconf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/interference.h"
#include "collectors/collector/snapshot.h"
#include "tests/xorshift.h"
#include "util/clock.h"

#define VICTIM_WINDOW_S 300	/* the default victim_window */
#define TAU_S 60.0		/* time constant of every AR(1) process */
#define NOISE_WHITE 6.0	/* %, the defaults of -e and -a */
#define NOISE_AR 5.0
#define SENSITIVITY 0.25	/* CPI rise per CPU of an antagonist */
#define FIRST_HOUR_S 3600
#define WARMING (LONG_MIN / 2)	/* the scenario clock before it starts */
#define MAX_RUNS 4		/* runs per seed (node-episode's delays) */
#define MAX_CAUSES 2

static const char *events[] = { "cycles", "instructions" };
static const unsigned char counted[] = { 1, 1 };

/* ---- the simulated node ------------------------------------------- */

/* On and off at random: an antagonist's use, or a phase of a cgroup's
 * own.  Active while from < tau <= to for either span. */
struct sched {
	double on_min, on_max, off_min, off_max;	/* seconds */
	double lvl_min, lvl_max, lvl_off;		/* CPU when on, off */
	long from[2], to[2];
};

enum use { USE_AR, USE_STEADY, USE_SCHED, USE_FOLLOW, USE_POD };
enum own { OWN_NONE, OWN_SCHED, OWN_LOAD, OWN_DRIFT };

struct cg {
	char path[256];
	enum use use;
	enum own own;
	double mean, sd, ar;		/* USE_AR; USE_STEADY's mean */
	struct sched sched;		/* USE_SCHED's, or OWN_SCHED's */
	int on;				/* the schedule's state */
	long next;			/* its next switch (absolute s) */
	double level;			/* its use in this on period */
	size_t follow;			/* USE_FOLLOW: whose use, times */
	double ratio;
	long parent;			/* the pod summing it, or -1 */
	double own_amp, base, node_amp, noise;
	double u, cpi;
	double cyc, ins, en;		/* cumulative */
	long last_on;			/* an antagonist's last interval on */
	size_t nr_causes, cause[MAX_CAUSES];
	long onset;			/* truth: interfered since */
	int was, flagged, subject;
};

struct sim {
	uint64_t rng;
	int have_spare;
	double spare, phi;
	double white, ar_sd;		/* the CPI noise's two parts */
	struct cg *cgs;
	size_t nr, cap;
	long t, t0, tau;		/* absolute, start, scenario time */
	long warmup_s, length_s;
	long node_from, node_to;	/* a node-wide episode */
	long mark;			/* the scenario's special moment */
	long last_rank1;		/* steady: last rank 1 named */
	size_t many;			/* cgroups of 'many' */
};

static double
uniform(struct sim *m)
{
	return xorshift_uniform(&m->rng);
}

static double
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

static struct cg *
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
	c->base = between(m, 0.8, 2.0);
	c->noise = ar_step(m, 0, m->ar_sd) / sqrt(1 - m->phi * m->phi);
	return c;
}

static size_t
add_busy(struct sim *m, const char *path)
{
	struct cg *c = add_cg(m, path);

	c->use = USE_AR;
	c->mean = between(m, 0.3, 1.5);
	c->sd = 0.3 * c->mean;
	return (size_t)(c - m->cgs);
}

static void
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

static size_t
add_victim(struct sim *m, const char *path)
{
	struct cg *c = add_cg(m, path);

	c->use = USE_STEADY;
	c->mean = 1.0;
	return (size_t)(c - m->cgs);
}

static size_t
add_sched(struct sim *m, const char *path, const struct sched *s)
{
	struct cg *c = add_cg(m, path);

	c->use = USE_SCHED;
	c->sched = *s;
	return (size_t)(c - m->cgs);
}

static void
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
		c->u = c->on ? c->level * (1 + 0.05 * gauss(m)) :
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

static void
cpi_step(struct sim *m, struct cg *c)
{
	double f = 1;
	size_t j;

	if (c->use == USE_POD)
		return;
	for (j = 0; j < c->nr_causes; j++)
		f += SENSITIVITY * m->cgs[c->cause[j]].u;
	if (m->node_from < m->tau && m->tau <= m->node_to)
		f *= 1 + c->node_amp;
	c->noise = ar_step(m, c->noise, m->ar_sd);
	c->cpi = c->base * own_factor(m, c) * f *
	    fmax(0.05, 1 + m->white * gauss(m)) * exp(c->noise);
}

/* The causes of c that were on in the victim window before t. */
static unsigned
causes_now(const struct sim *m, const struct cg *c)
{
	unsigned mask = 0;
	size_t j;

	for (j = 0; j < c->nr_causes; j++) {
		long on = m->cgs[c->cause[j]].last_on;

		if (on > 0 && on > m->t - VICTIM_WINDOW_S)
			mask |= 1u << j;
	}
	return mask;
}

static void
sim_step(struct sim *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		use_step(m, &m->cgs[i]);
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

/* ---- scores --------------------------------------------------------- */

struct score {
	size_t runs, samples, analysed, victims, caused, rank1, decoy;
	size_t falsev, analysed_1h, false_1h, eligible, detected, kin;
	size_t with_suspects, both_cases, both_named, pod_named, pod_rank1;
	size_t pod_flags, follower_rank1, subj_analysed, subj_flags;
	size_t false_samples;		/* samples with a false victim */
	size_t var_runs[MAX_RUNS], var_flag[MAX_RUNS], var_n[MAX_RUNS];
	size_t var_late[MAX_RUNS], var_late_n[MAX_RUNS];
	double cpu_s, sim_s, last_rank1_s, bytes_per_cg;
	size_t tracked;
	/* Per seed: rank 1 right and false victims, lowest and highest. */
	double lo[2], hi[2];
};

/* The simulated cgroup of a result's row: rows are built in the
 * simulation's order, which the path confirms. */
static size_t
cg_of(const struct sim *m, const struct interference_result *r,
    const struct snap_row *row)
{
	size_t i;

	if (r->snap && row >= r->snap->rows &&
	    row < r->snap->rows + r->snap->nr_rows) {
		i = (size_t)(row - r->snap->rows);
		if (i < m->nr && strcmp(m->cgs[i].path, row->cgroup) == 0)
			return i;
	}
	for (i = 0; i < m->nr; i++)
		if (strcmp(m->cgs[i].path, row->cgroup) == 0)
			return i;
	fprintf(stderr, "result names an unknown cgroup %s\n", row->cgroup);
	exit(1);
}

static int
is_cause(const struct cg *v, size_t x, unsigned causes)
{
	size_t j;

	for (j = 0; j < v->nr_causes; j++)
		if ((causes >> j & 1) && v->cause[j] == x)
			return 1;
	return 0;
}

/* Is a an ancestor of b (a proper prefix ending at a '/')? */
static int
ancestor(const char *a, const char *b)
{
	size_t n = strlen(a);

	return strncmp(a, b, n) == 0 && b[n] == '/';
}

static int
kin_of(const struct sim *m, size_t v, const size_t *got, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const char *x;

		if (got[i] == SIZE_MAX)
			continue;
		x = m->cgs[got[i]].path;
		if (ancestor(x, m->cgs[v].path) || ancestor(m->cgs[v].path, x))
			return 1;
		for (j = 0; j < n; j++)
			if (got[j] != SIZE_MAX && ancestor(x,
			    m->cgs[got[j]].path))
				return 1;
	}
	return 0;
}

/* The suspects of the result's cgroup i, by rank: got[rank - 1]. */
static size_t
suspects_of(const struct sim *m, const struct interference_result *r,
    size_t i, size_t *got)
{
	size_t j, n = 0;

	for (j = 0; j < INTERFERENCE_MAX_SUSPECTS; j++)
		got[j] = SIZE_MAX;
	for (j = 0; j < r->nr_suspects; j++) {
		const struct interference_suspect *p = &r->suspects[j];

		if (p->victim != i || p->rank < 1 ||
		    p->rank > INTERFERENCE_MAX_SUSPECTS)
			continue;
		got[p->rank - 1] = cg_of(m, r, p->row);
		if (p->rank > n)
			n = p->rank;
	}
	return n;
}

/* One victim result: cgroup v, at index i of r, true causes in mask. */
static void
judge(struct sim *m, const struct interference_result *r, size_t i,
    size_t v, unsigned causes, struct score *s)
{
	size_t got[INTERFERENCE_MAX_SUSPECTS], n, q, named = 0;
	int decoy = 0, pod = 0;

	n = suspects_of(m, r, i, got);
	for (q = 0; q < n && q < 3; q++) {
		if (got[q] == SIZE_MAX)
			continue;
		decoy |= !is_cause(&m->cgs[v], got[q], causes);
		pod |= m->cgs[got[q]].use == USE_POD;
		named += is_cause(&m->cgs[v], got[q], causes);
	}
	s->kin += kin_of(m, v, got, n);
	if (n > 0 && got[0] != SIZE_MAX)
		s->follower_rank1 += m->cgs[got[0]].use == USE_FOLLOW &&
		    m->cgs[got[0]].follow == v;
	if (!causes)
		return;
	s->caused++;
	s->pod_named += pod;
	s->pod_rank1 += n > 0 && got[0] != SIZE_MAX &&
	    m->cgs[got[0]].use == USE_POD;
	s->with_suspects += n > 0;
	s->decoy += decoy;
	if (n > 0 && got[0] != SIZE_MAX && is_cause(&m->cgs[v], got[0],
	    causes)) {
		s->rank1++;
		m->last_rank1 = m->tau;
	}
	if (__builtin_popcount(causes) == 2) {
		s->both_cases++;
		s->both_named += named == 2;
	}
}

/* Per analysed cgroup of r: flags, false victims, victim results. */
static void
score_cgroups(struct sim *m, const struct interference_result *r,
    struct score *s)
{
	int first = m->tau <= FIRST_HOUR_S;
	size_t i;

	for (i = 0; i < r->nr_cgroups; i++) {
		size_t k = cg_of(m, r, r->cgroups[i].row);
		struct cg *c = &m->cgs[k];
		int flag = r->cgroups[i].victim != 0;
		unsigned causes = causes_now(m, c);

		c->flagged = flag;
		if (c->use == USE_POD) {
			s->pod_flags += flag;
			continue;
		}
		s->analysed++;
		s->analysed_1h += first;
		s->subj_analysed += c->subject;
		s->subj_flags += c->subject && flag;
		if (!flag)
			continue;
		s->victims++;
		s->falsev += !causes;
		s->false_1h += !causes && first;
		judge(m, r, i, k, causes, s);
	}
}

/* A newly published result, scored once. */
static void
score_result(struct sim *m, const struct interference_result *r,
    struct score *s, int run)
{
	size_t i, before;

	for (i = 0; i < m->nr; i++)
		m->cgs[i].flagged = 0;
	s->samples++;
	before = s->falsev;
	score_cgroups(m, r, s);
	s->false_samples += s->falsev > before;
	for (i = 0; i < m->nr; i++) {
		const struct cg *c = &m->cgs[i];

		if (c->subject && m->mark >= 0 && m->tau > m->mark) {
			s->var_flag[run] += c->flagged;
			s->var_n[run]++;
			s->var_late[run] += c->flagged &&
			    m->tau > m->mark + VICTIM_WINDOW_S;
			s->var_late_n[run] += m->tau > m->mark + VICTIM_WINDOW_S;
		}
		if (!c->nr_causes || !causes_now(m, c) ||
		    m->t - c->onset < VICTIM_WINDOW_S)
			continue;
		s->eligible++;
		s->detected += c->flagged;
	}
}

/* ---- scenarios ------------------------------------------------------ */

/* An antagonist whose use varies within the window. */
static const struct sched ONOFF = { 20, 90, 20, 90, 1.0, 2.0, 0.05,
	{ 0, 0 }, { LONG_MAX, 0 } };

struct verdict {
	char special[256], keys[256], target[128];
	int met;			/* 1, 0, or -1: no target */
};

struct opts;

struct scenario {
	const char *name;
	long warmup_s;			/* -1: the options' */
	long length_s;			/* scored, after the warm-up */
	int runs;			/* per seed */
	void (*setup)(struct sim *, const struct scenario *, int run);
	void (*special)(const struct score *, struct verdict *);
	const struct sched *pair;	/* setup_pair's antagonist */
	long node_from;			/* setup_node's episode, */
	double node_lo, node_hi;	/* its rise per cgroup */
};

static double
pct(double a, double b)
{
	return b > 0 ? 100 * a / b : NAN;
}

/* Bursts of 3 s, every 8 to 23 s: shorter than a sample. */
static const struct sched BURSTS_SHORT = { 3, 3, 5, 20, 1.0, 2.0, 0.05,
	{ 0, 0 }, { LONG_MAX, 0 } };
/* On for 15 min, off for 20 to 40: longer than the window. */
static const struct sched BURSTS_LONG = { 900, 900, 1200, 2400, 1.0, 2.0,
	0.05, { 0, 0 }, { LONG_MAX, 0 } };
/* On at 1.5 CPU from the start of the scenario to its end. */
static const struct sched STEADY = { 1e9, 1e9, 1, 1, 1.5, 1.5, 0.05,
	{ 0, 0 }, { LONG_MAX, 0 } };

/* A victim, an antagonist on schedule s, 20 busy neighbours. */
static size_t
add_pair(struct sim *m, const struct sched *s)
{
	size_t v = add_victim(m, "/victim");

	add_cause(m, v, add_sched(m, "/antagonist", s));
	add_busies(m, 20);
	return v;
}

/* The scenario's victim and antagonist among 20 busy neighbours; the
 * victim is the one the special figure watches. */
static void
setup_pair(struct sim *m, const struct scenario *sc, int run)
{
	size_t v = add_pair(m, sc->pair);

	(void)run;
	m->cgs[v].subject = 1;
}

/* A alone for 30 min, B alone for 30, both for 30. */
static void
setup_two(struct sim *m, const struct scenario *sc, int run)
{
	size_t v = add_victim(m, "/victim");
	struct sched a = ONOFF, b = ONOFF;

	(void)sc;
	(void)run;
	a.to[0] = 1800;
	a.from[1] = 3600;
	a.to[1] = 5400;
	b.from[0] = 1800;
	add_cause(m, v, add_sched(m, "/antagonist-a", &a));
	add_cause(m, v, add_sched(m, "/antagonist-b", &b));
	add_busies(m, 20);
}

/* Run 0 without the episode; runs 1-3 with a +30% episode of 20 min,
 * and the antagonist 10, 60 and 120 min after it ends. */
static void
setup_node_episode(struct sim *m, const struct scenario *sc, int run)
{
	static const long after[] = { 600, 600, 3600, 7200 };
	struct sched s = ONOFF;
	size_t v = add_victim(m, "/victim"), i;

	(void)sc;
	m->node_from = run > 0 ? 0 : LONG_MAX;
	m->node_to = 1200;
	m->mark = s.from[0] = 1200 + after[run];
	m->length_s = m->mark + 1800;
	m->cgs[v].subject = 1;
	add_cause(m, v, add_sched(m, "/antagonist", &s));
	add_busies(m, 18);
	for (i = 0; i < m->nr; i++)
		m->cgs[i].node_amp = 0.3;
}

/* 20 busy cgroups, no antagonist; a node-wide episode of 20 min from
 * the scenario's node_from (5: 5 s into a 10 s sample, the scenario's
 * clock starting at a sample's boundary), each cgroup's CPI up by
 * node_lo to node_hi. */
static void
setup_node(struct sim *m, const struct scenario *sc, int run)
{
	size_t i;

	(void)run;
	add_busies(m, 20);
	m->node_from = sc->node_from;
	m->node_to = sc->node_from + 1200;
	for (i = 0; i < m->nr; i++)
		m->cgs[i].node_amp = between(m, sc->node_lo, sc->node_hi);
}

/* Hex digits from the simulation's generator. */
static void
hex(struct sim *m, char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = "0123456789abcdef"[xorshift64(&m->rng) & 15];
	p[n] = '\0';
}

/* A burstable pod of the default layout with its containers; the
 * first one's index. */
static size_t
add_pod(struct sim *m, size_t containers, const struct sched *first)
{
	char uid[37], id[65], pod[160], path[256];
	size_t p, i, c0 = 0;

	hex(m, uid, 36);
	for (i = 8; i < 24; i += 5)
		uid[i] = '_';
	snprintf(pod, sizeof(pod), "/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod%s.slice", uid);
	p = (size_t)(add_cg(m, pod) - m->cgs);
	m->cgs[p].use = USE_POD;
	for (i = 0; i < containers; i++) {
		size_t c;

		hex(m, id, 64);
		snprintf(path, sizeof(path), "%s/cri-containerd-%s.scope", pod,
		    id);
		if (i > 0)
			c = add_busy(m, path);
		else if (first)
			c = add_sched(m, path, first);
		else
			c = add_victim(m, path);
		m->cgs[c].parent = (long)p;
		if (i == 0)
			c0 = c;
	}
	return c0;
}

/* The victim container with a helper in its pod, the antagonist
 * container with a sidecar in another, 8 pods of 2 busy containers. */
static void
setup_kubernetes(struct sim *m, const struct scenario *sc, int run)
{
	size_t v, a, i;

	(void)sc;
	(void)run;
	v = add_pod(m, 2, NULL);
	a = add_pod(m, 2, &ONOFF);
	add_cause(m, v, a);
	for (i = 0; i < 8; i++) {
		size_t c = add_pod(m, 2, NULL);

		/* Busy like the others, not steady at 1.0. */
		m->cgs[c].use = USE_AR;
		m->cgs[c].mean = between(m, 0.3, 1.5);
		m->cgs[c].sd = 0.3 * m->cgs[c].mean;
	}
}

/* The victim's own load varies from the start (0.5 CPU, 1.0-2.0 when
 * on) and its CPI rises with it; the sidecar uses 0.4 of its load. */
static void
setup_sidecar(struct sim *m, const struct scenario *sc, int run)
{
	struct sched s = ONOFF;
	size_t v;
	struct cg *c;

	(void)sc;
	(void)run;
	s.lvl_off = 0.5;
	v = add_sched(m, "/victim", &s);
	m->cgs[v].own = OWN_LOAD;
	m->cgs[v].own_amp = SENSITIVITY;
	m->cgs[v].subject = 1;
	c = add_cg(m, "/sidecar");
	c->use = USE_FOLLOW;
	c->follow = v;
	c->ratio = 0.4;
	add_busies(m, 20);
}

/* CPI +40% for 30-60 s every 2-5 min, of its own, warm-up included. */
static void
setup_two_phase(struct sim *m, const struct scenario *sc, int run)
{
	static const struct sched gc = { 30, 60, 90, 240, 0, 0, 0,
		{ WARMING - 1, 0 }, { LONG_MAX, 0 } };
	size_t v = add_victim(m, "/two-phase");

	(void)sc;
	(void)run;
	m->cgs[v].own = OWN_SCHED;
	m->cgs[v].own_amp = 0.4;
	m->cgs[v].sched = gc;
	m->cgs[v].subject = 1;
	add_busies(m, 20);
}

/* Its CPI rises 30% over the 3 h scored. */
static void
setup_drift(struct sim *m, const struct scenario *sc, int run)
{
	size_t v = add_victim(m, "/drifting");

	(void)sc;
	(void)run;
	m->cgs[v].own = OWN_DRIFT;
	m->cgs[v].own_amp = 0.3;
	m->cgs[v].subject = 1;
	add_busies(m, 20);
}

static void
setup_noise(struct sim *m, const struct scenario *sc, int run)
{
	(void)sc;
	(void)run;
	add_busies(m, 20);
}

/* 50 victim/antagonist pairs among m->many cgroups. */
static void
setup_many(struct sim *m, const struct scenario *sc, int run)
{
	char p[32];
	size_t i, v;

	(void)sc;
	(void)run;
	/* The pairs start a minute apart: antagonists that all step up in
	 * one second would each explain every victim's onset equally. */
	for (i = 0; i < 50; i++) {
		struct sched s = ONOFF;

		s.from[0] = (long)i * 60;
		snprintf(p, sizeof(p), "/victim-%02zu", i);
		v = add_victim(m, p);
		snprintf(p, sizeof(p), "/antagonist-%02zu", i);
		add_cause(m, v, add_sched(m, p, &s));
	}
	add_busies(m, m->many - 100);
}

/* ---- special figures and targets ------------------------------------ */

/* The target for an antagonist whose use varies within the
 * window. */
static int
rank_met(const struct score *s)
{
	return pct(s->rank1, s->caused) >= 95 && pct(s->decoy, s->caused) <= 5;
}

static void
sp_antagonist(const struct score *s, struct verdict *v)
{
	double none = pct(s->caused - s->with_suspects, s->caused);

	snprintf(v->special, sizeof(v->special), "no suspect: %.1f%% of "
	    "victim results with a cause", none);
	snprintf(v->keys, sizeof(v->keys), "no_suspect_pct=%.2f", none);
	snprintf(v->target, sizeof(v->target), "rank 1 >= 95%%, decoys <= 5%%");
	v->met = rank_met(s);
}

static void
sp_two(const struct score *s, struct verdict *v)
{
	double both = pct(s->both_named, s->both_cases);

	snprintf(v->special, sizeof(v->special), "both named at ranks 1-3 "
	    "when both are causes: %.1f%% of %zu", both, s->both_cases);
	snprintf(v->keys, sizeof(v->keys), "both_named_pct=%.2f both_cases=%zu",
	    both, s->both_cases);
	snprintf(v->target, sizeof(v->target), "rank 1 >= 95%%, decoys <= 5%%");
	v->met = rank_met(s);
}

/* Bursts longer than the window: the issue sets no target. */
static void
sp_long(const struct score *s, struct verdict *v)
{
	sp_antagonist(s, v);
	snprintf(v->target, sizeof(v->target), "none (steps, not variation, "
	    "within the window)");
	v->met = -1;
}

/* Flagged samples of those in the 30 min after the antagonist starts
 * (180 at the default sample of 10 s), mean per seed: without the
 * episode, and 10, 60, 120 min after it. */
static void
sp_node(const struct score *s, struct verdict *v)
{
	double f[MAX_RUNS], late[MAX_RUNS];
	int i;

	for (i = 0; i < MAX_RUNS; i++) {
		f[i] = s->var_runs[i] ? (double)s->var_flag[i] / s->var_runs[i] :
		    NAN;
		late[i] = pct(s->var_late[i], s->var_late_n[i]);
	}
	snprintf(v->special, sizeof(v->special), "flagged of the %zu samples "
	    "after the antagonist starts (mean per seed): no episode %.1f, "
	    "+10 min %.1f, +60 min %.1f, +120 min %.1f", s->var_runs[0] ?
	    s->var_n[0] / s->var_runs[0] : 0, f[0], f[1], f[2], f[3]);
	snprintf(v->keys, sizeof(v->keys), "of180_none=%.1f of180_10=%.1f "
	    "of180_60=%.1f of180_120=%.1f late_pct_none=%.1f late_pct_10=%.1f "
	    "late_pct_60=%.1f late_pct_120=%.1f", f[0], f[1], f[2], f[3],
	    late[0], late[1], late[2], late[3]);
	snprintf(v->target, sizeof(v->target), "detection as without the "
	    "episode after one victim window (within 5 points)");
	v->met = late[1] >= late[0] - 5 && late[2] >= late[0] - 5 &&
	    late[3] >= late[0] - 5;
}

static void
sp_node_false(const struct score *s, struct verdict *v)
{
	double per = s->runs ? (double)s->falsev / s->runs : NAN;
	double in = s->runs ? (double)s->false_samples / s->runs : NAN;
	double p = pct(s->falsev, s->analysed);

	snprintf(v->special, sizeof(v->special), "false victims in %zu "
	    "samples: %.1f cgroup-samples in %.1f samples (means per seed)",
	    s->runs ? s->samples / s->runs : 0, per, in);
	snprintf(v->keys, sizeof(v->keys), "false_per_seed=%.1f "
	    "false_samples_per_seed=%.1f", per, in);
	snprintf(v->target, sizeof(v->target), "false victims <= 0.5%%");
	v->met = p <= 0.5;
}

static void
sp_kube(const struct score *s, struct verdict *v)
{
	double named = pct(s->pod_named, s->caused);
	double first = pct(s->pod_rank1, s->caused);

	snprintf(v->special, sizeof(v->special), "a pod at ranks 1-3 in "
	    "%.1f%% of victim results with a cause, at rank 1 in %.1f%%; "
	    "pods flagged victim %zu times", named, first, s->pod_flags);
	snprintf(v->keys, sizeof(v->keys), "pod_named_pct=%.2f "
	    "pod_rank1_pct=%.2f pod_flags=%zu", named, first, s->pod_flags);
	snprintf(v->target, sizeof(v->target), "rank 1 (the container) >= "
	    "95%%, decoys <= 5%%, no pod judged or named");
	v->met = rank_met(s) && s->pod_named == 0 && s->pod_flags == 0;
}

static void
sp_sidecar(const struct score *s, struct verdict *v)
{
	double p = pct(s->follower_rank1, s->subj_flags);

	snprintf(v->special, sizeof(v->special), "the sidecar at rank 1 in "
	    "%zu of the victim's %zu results (%.1f%%)", s->follower_rank1,
	    s->subj_flags, p);
	snprintf(v->keys, sizeof(v->keys), "sidecar_rank1=%zu "
	    "sidecar_rank1_pct=%.2f", s->follower_rank1, p);
	snprintf(v->target, sizeof(v->target), "the sidecar never rank 1");
	v->met = s->follower_rank1 == 0;
}

/* The one cgroup with a behaviour of its own: how often a victim. */
static void
sp_subject(const struct score *s, struct verdict *v)
{
	double p = pct(s->subj_flags, s->subj_analysed);

	snprintf(v->special, sizeof(v->special), "the cgroup itself a "
	    "victim in %.1f%% of its %zu samples", p, s->subj_analysed);
	snprintf(v->keys, sizeof(v->keys), "own_victim_pct=%.2f", p);
	snprintf(v->target, sizeof(v->target), "its own workload <= 5%%");
	v->met = p <= 5;
}

static void
sp_steady(const struct score *s, struct verdict *v)
{
	double sample_s = s->samples ? s->sim_s / s->samples : NAN;
	double total = s->runs ? s->rank1 * sample_s / 60 / s->runs : NAN;
	double last = s->runs ? s->last_rank1_s / 60 / s->runs : NAN;
	double flagged = s->runs ? s->subj_flags * sample_s / 60 / s->runs :
	    NAN;

	snprintf(v->special, sizeof(v->special), "named at rank 1 for %.1f "
	    "min in all, the last time %.1f min after onset; the victim "
	    "flagged for %.1f min (means per seed)", total, last, flagged);
	snprintf(v->keys, sizeof(v->keys), "rank1_min=%.1f last_rank1_min=%.1f "
	    "flagged_min=%.1f", total, last, flagged);
	snprintf(v->target, sizeof(v->target), "none (docs: absorbed after "
	    "an hour)");
	v->met = -1;
}

static void
sp_noise(const struct score *s, struct verdict *v)
{
	double all = pct(s->falsev, s->analysed);
	double first = pct(s->false_1h, s->analysed_1h);

	snprintf(v->special, sizeof(v->special), "victims in %.2f%% of "
	    "cgroup-samples, %.2f%% in the first hour", all, first);
	snprintf(v->keys, sizeof(v->keys), "noise_victim_pct=%.3f", all);
	snprintf(v->target, sizeof(v->target), "<= 0.5%%, from the first hour "
	    "on");
	v->met = all <= 0.5 && first <= 0.5;
}

static void
sp_many(const struct score *s, struct verdict *v)
{
	double with = pct(s->with_suspects, s->caused);
	double cpu = pct(s->cpu_s, s->sim_s);

	snprintf(v->special, sizeof(v->special), "%zu cgroups: flagged true "
	    "victims with suspects %.1f%%; analysis %.3f%% of a core; %.0f B "
	    "per cgroup", s->runs ? s->tracked / s->runs : 0, with, cpu,
	    s->bytes_per_cg);
	snprintf(v->keys, sizeof(v->keys), "with_suspects_pct=%.2f "
	    "cpu_pct=%.4f bytes_per_cgroup=%.0f", with, cpu, s->bytes_per_cg);
	snprintf(v->target, sizeof(v->target), "every victim with suspects, "
	    "<= 1%% of a core, <= 1 kB per cgroup");
	v->met = with >= 100 && cpu <= 1 && s->bytes_per_cg <= 1024;
}

/* warmup_s -1: the options' (an hour by default), -2: 'many''s. */
static const struct scenario scenarios[] = {
	{ .name = "one-antagonist", .warmup_s = -1, .length_s = 3600,
	    .runs = 1, .setup = setup_pair, .special = sp_antagonist,
	    .pair = &ONOFF },
	{ .name = "two-antagonists", .warmup_s = -1, .length_s = 5400,
	    .runs = 1, .setup = setup_two, .special = sp_two },
	{ .name = "bursts-short", .warmup_s = -1, .length_s = 3600,
	    .runs = 1, .setup = setup_pair, .special = sp_antagonist,
	    .pair = &BURSTS_SHORT },
	{ .name = "bursts-long", .warmup_s = -1, .length_s = 7200,
	    .runs = 1, .setup = setup_pair, .special = sp_long,
	    .pair = &BURSTS_LONG },
	{ .name = "node-episode", .warmup_s = -1, .length_s = 0,
	    .runs = 4, .setup = setup_node_episode, .special = sp_node },
	{ .name = "node-midsample", .warmup_s = -1, .length_s = 7200,
	    .runs = 1, .setup = setup_node, .special = sp_node_false,
	    .node_from = 5, .node_lo = 0.3, .node_hi = 0.3 },
	{ .name = "node-uneven", .warmup_s = -1, .length_s = 7200,
	    .runs = 1, .setup = setup_node, .special = sp_node_false,
	    .node_from = 0, .node_lo = 0.1, .node_hi = 0.5 },
	{ .name = "kubernetes", .warmup_s = -1, .length_s = 3600,
	    .runs = 1, .setup = setup_kubernetes, .special = sp_kube },
	{ .name = "sidecar", .warmup_s = -1, .length_s = 3600,
	    .runs = 1, .setup = setup_sidecar, .special = sp_sidecar },
	{ .name = "two-phase", .warmup_s = -1, .length_s = 7200,
	    .runs = 1, .setup = setup_two_phase, .special = sp_subject },
	{ .name = "drift", .warmup_s = -1, .length_s = 10800,
	    .runs = 1, .setup = setup_drift, .special = sp_subject },
	{ .name = "steady", .warmup_s = -1, .length_s = 7200,
	    .runs = 1, .setup = setup_pair, .special = sp_steady,
	    .pair = &STEADY },
	{ .name = "noise-only", .warmup_s = 0, .length_s = 10800,
	    .runs = 1, .setup = setup_noise, .special = sp_noise },
	{ .name = "many", .warmup_s = -2, .length_s = 1800,
	    .runs = 1, .setup = setup_many, .special = sp_many },
};

#define NR_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

/* ---- runs ----------------------------------------------------------- */

struct opts {
	unsigned seeds;
	long warmup_s, many_warmup_s;
	size_t many;
	double white, ar_sd;
	int chosen[NR_SCENARIOS], any;
};

/* splitmix64 of (scenario, seed, run): independent streams. */
static uint64_t
seed_of(size_t scen, unsigned seed, int run)
{
	uint64_t z = ((uint64_t)scen << 40 ^ (uint64_t)seed << 8 ^
	    (uint64_t)run) + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ? z : XORSHIFT_SEED;
}

static void
sim_init(struct sim *m, const struct scenario *sc, const struct opts *o,
    uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->rng = seed;
	m->phi = exp(-1 / TAU_S);
	m->white = o->white;
	m->ar_sd = o->ar_sd;
	m->warmup_s = sc->warmup_s == -1 ? o->warmup_s :
	    sc->warmup_s == -2 ? o->many_warmup_s : sc->warmup_s;
	m->length_s = sc->length_s;
	m->node_from = m->node_to = LONG_MAX;
	m->mark = -1;
	m->many = o->many;
	m->t0 = m->warmup_s == 0 ? 0 : -1;
}

/* The interval's snapshot, as the collector would publish it, fed to
 * the analysis; only the feed is timed, and only after the warm-up. */
static void
feed(struct sim *m, struct interference *ifr, struct score *s)
{
	struct snapshot *snap = snapshot_new();
	double *v = NULL, t0;
	size_t i;

	if (snap != NULL) {
		snap->rows = snapshot_alloc(snap, m->nr * sizeof(*snap->rows));
		v = snapshot_alloc(snap, 2 * m->nr * sizeof(*v));
	}
	if (v == NULL || snap->rows == NULL) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	snap->seq = (uint64_t)m->t;
	snap->interval_s = 1;
	snap->began_ns = (uint64_t)m->t * 1000000000ULL;	/* 1 s apart */
	for (i = 0; i < m->nr; i++) {
		struct snap_row *r = &snap->rows[snap->nr_rows++];

		memset(r, 0, sizeof(*r));
		r->cgroup = m->cgs[i].path;
		r->cpu = -1;
		r->group = "ipc";
		r->nr_events = 2;
		r->events = (const char **)events;
		r->counted = counted;
		v[2 * i] = m->cgs[i].cyc;
		v[2 * i + 1] = m->cgs[i].ins;
		r->values = &v[2 * i];
		r->enabled_s = r->running_s = m->cgs[i].en;
	}
	t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	interference_feed(ifr, snap);
	if (m->t0 >= 0) {
		s->cpu_s += clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
		s->sim_s += 1;
	}
	snapshot_unref(snap);
}

static void
end_run(struct sim *m, struct interference *ifr, struct score *s, int run)
{
	size_t tracked = interference_tracked(ifr);
	double per = tracked ? (double)interference_state_bytes(ifr) /
	    (double)tracked : 0;

	s->runs++;
	s->var_runs[run]++;
	s->last_rank1_s += (double)m->last_rank1;
	s->tracked += tracked;
	if (per > s->bytes_per_cg)
		s->bytes_per_cg = per;
}

/* One run: the warm-up, then every new result scored until the
 * scenario's end. */
static void
run_one(const struct scenario *sc, size_t idx, const struct opts *o,
    unsigned seed, int run, struct score *s)
{
	struct interference_result *prev = NULL, *r;
	struct interference_config cfg;
	struct interference *ifr;
	struct sim m;

	sim_init(&m, sc, o, seed_of(idx, seed, run));
	sc->setup(&m, sc, run);
	interference_config_defaults(&cfg);
	cfg.enabled = 1;
	cfg.group = "ipc";
	cfg.cycles = "cycles";
	cfg.instructions = "instructions";
	if (interference_new(&cfg, &ifr) < 0) {
		fprintf(stderr, "interference_new: out of memory\n");
		exit(1);
	}
	for (m.t = 1;; m.t++) {
		m.tau = m.t0 >= 0 ? m.t - m.t0 : WARMING;
		if (m.t0 >= 0 && m.tau > m.length_s)
			break;
		if (m.t0 < 0 && m.t > m.warmup_s + 3600) {
			fprintf(stderr, "%s: no result published in an hour "
			    "after the warm-up\n", sc->name);
			exit(1);
		}
		sim_step(&m);
		feed(&m, ifr, s);
		r = interference_result(ifr);
		if (r != prev && r != NULL && r->snap != NULL) {
			if (m.t0 >= 0)
				score_result(&m, r, s, run);
			else if (m.t >= m.warmup_s)
				m.t0 = m.t;
		}
		interference_result_unref(prev);
		prev = r;
	}
	end_run(&m, ifr, s, run);
	interference_result_unref(prev);
	interference_free(ifr);
	free(m.cgs);
}

/* Every seed's runs, and the spread of two figures over the seeds. */
static void
run_seeds(const struct scenario *sc, size_t idx, const struct opts *o,
    struct score *s)
{
	unsigned seed;
	int run, k;

	for (k = 0; k < 2; k++) {
		s->lo[k] = INFINITY;
		s->hi[k] = -INFINITY;
	}
	for (seed = 1; seed <= o->seeds; seed++) {
		struct score before = *s;
		double p[2];

		for (run = 0; run < sc->runs; run++)
			run_one(sc, idx, o, seed, run, s);
		p[0] = pct(s->rank1 - before.rank1, s->caused - before.caused);
		p[1] = pct(s->falsev - before.falsev,
		    s->analysed - before.analysed);
		for (k = 0; k < 2; k++) {
			s->lo[k] = fmin(s->lo[k], p[k]);
			s->hi[k] = fmax(s->hi[k], p[k]);
		}
	}
	for (k = 0; k < 2; k++)
		if (s->lo[k] > s->hi[k])
			s->lo[k] = s->hi[k] = NAN;	/* nothing to count */
}

/* ---- output --------------------------------------------------------- */

/* A percentage, or "-" when there was nothing to count. */
static const char *
fmt_pct(char *buf, size_t n, double a, double b, int digits)
{
	if (b > 0)
		snprintf(buf, n, "%.*f%%", digits, 100 * a / b);
	else
		snprintf(buf, n, "-");
	return buf;
}

static const char *
met_text(int met)
{
	return met < 0 ? "n/a" : met ? "MET" : "MISSED";
}

static void
print_header(void)
{
	printf("| scenario | samples | analysed | victim results | rank 1 "
	    "right | decoys at 1-3 | false victims | false, 1st hour | "
	    "detection | kin | special | target | met |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|---|\n");
}

static void
print_row(const struct scenario *sc, const struct score *s,
    const struct verdict *v)
{
	char a[16], b[16], c[16], d[16], e[16];

	printf("| %s | %zu | %zu | %zu | %s | %s | %s | %s | %s | %zu | %s | "
	    "%s | %s |\n", sc->name, s->samples, s->analysed, s->victims,
	    fmt_pct(a, sizeof(a), s->rank1, s->caused, 1),
	    fmt_pct(b, sizeof(b), s->decoy, s->caused, 1),
	    fmt_pct(c, sizeof(c), s->falsev, s->analysed, 2),
	    fmt_pct(d, sizeof(d), s->false_1h, s->analysed_1h, 2),
	    fmt_pct(e, sizeof(e), s->detected, s->eligible, 1), s->kin,
	    v->special, v->target, met_text(v->met));
	fflush(stdout);
}

static void
print_result(const struct scenario *sc, const struct score *s,
    const struct verdict *v)
{
	printf("RESULT scenario=%s runs=%zu samples=%zu analysed=%zu "
	    "victims=%zu caused=%zu rank1_pct=%.2f decoy_pct=%.2f "
	    "false_pct=%.3f false_1h_pct=%.3f detection_pct=%.2f kin=%zu "
	    "%s rank1_seeds=%.1f..%.1f false_seeds=%.2f..%.2f met=%s\n",
	    sc->name, s->runs, s->samples, s->analysed, s->victims, s->caused,
	    pct(s->rank1, s->caused), pct(s->decoy, s->caused),
	    pct(s->falsev, s->analysed), pct(s->false_1h, s->analysed_1h),
	    pct(s->detected, s->eligible), s->kin, v->keys, s->lo[0],
	    s->hi[0], s->lo[1], s->hi[1], met_text(v->met));
}

/* ---- main ----------------------------------------------------------- */

static int
usage(void)
{
	size_t i;

	fprintf(stderr, "usage: interference_scenarios [-s SCENARIO]... "
	    "[-n SEEDS] [-w WARMUP_MIN] [-W MANY_WARMUP_MIN] "
	    "[-N MANY_CGROUPS] [-e WHITE_PCT] [-a AR_PCT] [-q]\n"
	    "scenarios:");
	for (i = 0; i < NR_SCENARIOS; i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, "\n");
	return -1;
}

static int
choose(struct opts *o, const char *name)
{
	size_t i;

	for (i = 0; i < NR_SCENARIOS; i++)
		if (strcmp(scenarios[i].name, name) == 0) {
			o->chosen[i] = o->any = 1;
			return 0;
		}
	fprintf(stderr, "interference_scenarios: no scenario %s\n", name);
	return usage();
}

/* A number in [lo, hi], or -1 after saying what is wrong. */
static double
number(int opt, const char *arg, double lo, double hi)
{
	char *end;
	double x = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(x >= lo && x <= hi)) {
		fprintf(stderr, "interference_scenarios: -%c %s: not a number "
		    "from %g to %g\n", opt, arg, lo, hi);
		return -1;
	}
	return x;
}

/* -q: 2 seeds, and in 'many' 2,000 cgroups and 20 min of warm-up,
 * unless said otherwise. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	double x[128];
	int opt, quick = 0;

	x['n'] = x['W'] = x['N'] = -1;
	x['w'] = 60;
	x['e'] = NOISE_WHITE;
	x['a'] = NOISE_AR;
	while ((opt = getopt(argc, argv, "s:n:w:W:N:e:a:q")) != -1) {
		if (opt == 's') {
			if (choose(o, optarg) < 0)
				return -1;
		} else if (opt == 'q')
			quick = 1;
		else if (opt == '?' || opt == ':')
			return usage();
		else if ((x[opt] = number(opt, optarg, opt == 'N' ? 200 :
		    opt == 'n' ? 1 : 0, opt == 'e' || opt == 'a' ? 50 :
		    1e6)) < 0)
			return -1;
	}
	if (optind < argc)
		return usage();
	o->seeds = x['n'] > 0 ? (unsigned)x['n'] : quick ? 2 : 5;
	o->warmup_s = (long)(x['w'] * 60);
	o->many_warmup_s = (long)((x['W'] >= 0 ? x['W'] : quick ? 20 :
	    x['w']) * 60);
	o->many = x['N'] > 0 ? (size_t)x['N'] : quick ? 2000 : 10000;
	o->white = x['e'] / 100;
	o->ar_sd = x['a'] / 100;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct score scores[NR_SCENARIOS];
	struct verdict verdicts[NR_SCENARIOS];
	double w0 = clock_s(CLOCK_MONOTONIC);
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	struct opts o;
	size_t i;

	memset(&o, 0, sizeof(o));
	if (parse_args(argc, argv, &o) < 0)
		return 2;
	printf("seeds %u, warm-up %ld min (many: %ld min, %zu cgroups), CPI "
	    "noise %.0f%% white and %.0f%% AR(1), default config at interval "
	    "1 s\n\n", o.seeds, o.warmup_s / 60, o.many_warmup_s / 60, o.many,
	    o.white * 100, o.ar_sd * 100);
	print_header();
	for (i = 0; i < NR_SCENARIOS; i++) {
		if (o.any && !o.chosen[i])
			continue;
		run_seeds(&scenarios[i], i, &o, &scores[i]);
		memset(&verdicts[i], 0, sizeof(verdicts[i]));
		scenarios[i].special(&scores[i], &verdicts[i]);
		print_row(&scenarios[i], &scores[i], &verdicts[i]);
	}
	printf("\n");
	for (i = 0; i < NR_SCENARIOS; i++)
		if (!o.any || o.chosen[i])
			print_result(&scenarios[i], &scores[i], &verdicts[i]);
	printf("took %.1f s wall, %.1f s CPU\n", clock_s(CLOCK_MONOTONIC) - w0,
	    clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return 0;
}
