/*
 * scenario_score.c - interference_scenarios' scores: each result the
 * analysis publishes judged once against what the simulation knows
 * (rank 1 a true cause, decoys, false victims overall and in the first
 * hour, detection, kin, pods, the subject of a scenario's own figure),
 * summed into struct score.  The figures and targets made from the sums
 * are the scenarios' own (scenario_list.c).
 */
#include "autoconf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/scenario.h"

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
		m->right_now |= m->cgs[v].subject;
	}
	if (__builtin_popcount(causes) == 2) {
		s->both_cases++;
		s->both_named += named == 2;
	}
}

double
worst_bucket(const struct score *s, double *at)
{
	double worst = 0;
	size_t b;

	*at = 0;
	for (b = 0; b < BUCKETS; b++)
		if (s->bucket_an[b] >= 100 &&
		    pct(s->bucket_false[b], s->bucket_an[b]) > worst) {
			worst = pct(s->bucket_false[b], s->bucket_an[b]);
			*at = (double)(b * BUCKET_S) / 60;
		}
	return worst;
}

/* Per analysed cgroup of r: flags, false victims, victim results. */
static void
score_cgroups(struct sim *m, const struct interference_result *r,
    struct score *s)
{
	int first = m->tau <= FIRST_HOUR_S;
	size_t i, bucket = m->tau < 0 ? 0 : (size_t)(m->tau / BUCKET_S);

	if (bucket >= BUCKETS)
		bucket = BUCKETS - 1;

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
		s->bucket_an[bucket]++;
		s->subj_analysed += c->subject;
		s->subj_flags += c->subject && flag;
		if (!flag)
			continue;
		s->victims++;
		s->falsev += !causes;
		s->false_1h += !causes && first;
		s->bucket_false[bucket] += !causes;
		judge(m, r, i, k, causes, s);
	}
}

/* Restarts: the subject flagged with its antagonist at rank 1 after the
 * scenario's mark, the first time and in its interfered results after. */
static void
score_restart(struct sim *m, const struct cg *c, struct score *s)
{
	if (m->first_right < 0 && m->right_now) {
		double min = (double)(m->tau - m->mark) / 60;

		m->first_right = m->tau;
		s->rs_found++;
		s->rs_first_min += min;
		s->rs_worst_min = fmax(s->rs_worst_min, min);
		s->rs_late += min > 15;
		return;
	}
	if (m->first_right < 0 || !causes_now(m, c))
		return;
	s->rs_after++;
	s->rs_hit += m->right_now;
}

/* A newly published result, scored once. */
void
score_result(struct sim *m, const struct interference_result *r,
    struct score *s, int run)
{
	size_t i, before;

	for (i = 0; i < m->nr; i++)
		m->cgs[i].flagged = 0;
	m->right_now = 0;
	s->samples++;
	before = s->falsev;
	score_cgroups(m, r, s);
	s->false_samples += s->falsev > before;
	for (i = 0; i < m->nr; i++) {
		const struct cg *c = &m->cgs[i];

		if (c->subject && m->restart && m->tau > m->mark)
			score_restart(m, c, s);
		else if (c->subject && m->mark >= 0 && m->tau > m->mark) {
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
