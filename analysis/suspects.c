/*
 * suspects.c - who is slowing a victim down (interference_int.h): each
 * other judged cgroup scored by two tests at the family-wise level
 * suspect_significance (Bonferroni over candidates, tests and tries):
 * the partial correlation of the victim's CPI with its use, the
 * victim's own use and the others' total held out (at lag 0, then where
 * nobody passes at lags to LAG_S), Fisher's z with Bartlett's n_eff
 * floored by rw_floor; and the onset, for an antagonist that stepped up
 * and stays.  A victim holds its suspects through its episode until
 * their use falls or their correlation contradicts them.  The whole
 * method, its reasons and its error budget: docs/interference.md,
 * "How", step 7.  Cost: per victim, one pass of two products over each
 * candidate's 60 samples (the rest made once a sample, suspects_prepare).
 */
#include "autoconf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference_int.h"

#define RING INTERFERENCE_RING
/* Positions before the victim's onset a step is also tried at. */
#define ONSET_SLACK 4
/* The longest lag (s) a correlation is tried at, and how many lags up to
 * it, 0 included: a cache or a queue that fills and drains. */
#define LAG_S 30.0
#define LAGS 4

/* The scratch a sample's sums live in: total[RING], then per cgroup. */
struct prep {
	double *total;			/* judged cgroups' use per position */
	double *sy, *syy, *syt, *slag;	/* each cgroup's, over all positions */
};

static struct prep
prep_of(const struct interference *ifr, double *scratch)
{
	struct prep p;

	p.total = scratch;
	p.sy = scratch + RING;
	p.syy = p.sy + ifr->nr;
	p.syt = p.syy + ifr->nr;
	p.slag = p.syt + ifr->nr;
	return p;
}

/* The ring slot of position k, oldest (0) to newest (RING - 1). */
static size_t
slot_at(const struct interference *ifr, size_t k)
{
	return (size_t)((ifr->sample + k) % RING);
}

void
suspects_prepare(struct interference *ifr, double *scratch)
{
	struct prep p = prep_of(ifr, scratch);
	size_t i, k;

	memset(p.total, 0, RING * sizeof(*p.total));
	for (i = 0; i < ifr->nr; i++)
		if (ifr->cgs[i].leaf)
			for (k = 0; k < RING; k++)
				p.total[k] += ifr->cgs[i].cpu[slot_at(ifr, k)];
	for (i = 0; i < ifr->nr; i++) {
		const struct cg *c = &ifr->cgs[i];
		double sy = 0, syy = 0, syt = 0, slag = 0, y, py = 0;

		for (k = 0; k < RING; k++) {
			y = c->cpu[slot_at(ifr, k)];
			sy += y;
			syy += y * y;
			syt += y * p.total[k];
			slag += k ? y * py : 0;
			py = y;
		}
		p.sy[i] = sy;
		p.syy[i] = syy;
		p.syt[i] = syt;
		p.slag[i] = slag;
	}
}

/* The victim's side of the partial correlation, over its positions. */
struct vsums {
	size_t at[RING], n, pairs;
	size_t lag;			/* the node's positions this far back */
	uint64_t base;			/* the ring's slot of position 0 */
	size_t slot[RING];		/* the ring slot of each of at[] */
	float xv[RING], av[RING];	/* the victim's x and use there */
	unsigned char in[RING];		/* position judged */
	double x, xx, a, aa, xa, t, tt, xt, at_, xlag;
	double xpairs;			/* both members of each pair, summed */
};

/* A candidate's side. */
struct csums {
	double y, yy, yt, lag, pairsum, xy, ya;
};

/* The victim's sums with its CPI at each judged position k paired with
 * the node at k - lag: its own use, the others' total and (in
 * candidate_sums) the candidate's use there. */
static void
victim_sums(const struct interference *ifr, const struct cg *v,
    const struct prep *p, size_t lag, struct vsums *s)
{
	size_t k;
	double px = 0;

	memset(s, 0, sizeof(*s));
	s->lag = lag;
	s->base = ifr->sample;
	for (k = lag; k < RING; k++) {
		size_t q = k - lag, sl = slot_at(ifr, q);
		double x = v->x[slot_at(ifr, k)], a = v->cpu[sl];
		double t = p->total[q];

		if (!ifr_counts(&ifr->cfg, v->cpu[slot_at(ifr, k)], x))
			continue;
		if (q > 0 && s->in[q - 1]) {
			s->xlag += x * px;
			s->xpairs += x + px;
			s->pairs++;
		}
		s->in[q] = 1;
		s->slot[s->n] = sl;
		s->xv[s->n] = (float)x;
		s->av[s->n] = (float)a;
		s->at[s->n++] = q;
		s->x += x;
		s->xx += x * x;
		s->a += a;
		s->aa += a * a;
		s->xa += x * a;
		s->t += t;
		s->tt += t * t;
		s->xt += x * t;
		s->at_ += a * t;
		px = x;
	}
}

/* The lags tried, in samples: 0 and up to LAG_S in thirds, each once. */
static size_t
lags_of(const struct interference *ifr, size_t *lag)
{
	size_t n = 0, k, l;

	for (k = 0; k < LAGS; k++) {
		l = (size_t)floor(k * LAG_S / (LAGS - 1) /
		    fmax(ifr->sample_s, 1e-9) + 0.5);
		if (l <= RING / 4 && (n == 0 || l != lag[n - 1]))
			lag[n++] = l;
	}
	return n;
}

/* The victim's sums at each lag. */
struct lagged {
	struct vsums s[LAGS];
	size_t n;
};

static void
lagged_sums(const struct interference *ifr, const struct cg *v,
    const struct prep *p, struct lagged *l)
{
	size_t lag[LAGS], i;

	l->n = lags_of(ifr, lag);
	for (i = 0; i < l->n; i++)
		victim_sums(ifr, v, p, lag[i], &l->s[i]);
}

static void
candidate_sums(const struct cg *u, size_t j, const struct prep *p,
    const struct vsums *s, struct csums *c)
{
	size_t i, k, end = RING - s->lag;
	double py = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < s->n; i++) {
		double y = u->cpu[s->slot[i]];

		c->xy += s->xv[i] * y;
		c->ya += s->av[i] * y;
	}
	if (s->n == end) {
		/* Every position before end: the whole ring's sums less its
		 * last lag positions. */
		c->y = p->sy[j];
		c->yy = p->syy[j];
		c->yt = p->syt[j];
		c->lag = p->slag[j];
		for (k = end; k < RING; k++) {
			double y = u->cpu[(s->base + k) % RING];

			c->y -= y;
			c->yy -= y * y;
			c->yt -= y * p->total[k];
			c->lag -= y * u->cpu[(s->base + k - 1) % RING];
		}
		c->pairsum = 2 * c->y - u->cpu[s->slot[0]] -
		    u->cpu[s->slot[end - 1]];
		return;
	}
	for (i = 0; i < s->n; i++) {
		double y = u->cpu[s->slot[i]];

		k = s->at[i];
		c->y += y;
		c->yy += y * y;
		c->yt += y * p->total[k];
		if (k > 0 && s->in[k - 1]) {
			c->lag += y * py;
			c->pairsum += y + py;
		}
		py = y;
	}
}

/* Lag-1 autocorrelation in [0, 0.95] from `pairs` pairs' product sum
 * (lag) and member sum (pairsum), centred on the series' mean inside the
 * sum: a trending series' pairs are off its mean. */
static double
lag1(double lag, double pairsum, size_t pairs, double mean, double var)
{
	double r;

	if (pairs < 2 || !(var > 0))
		return 0;
	r = (lag - mean * pairsum + (double)pairs * mean * mean) /
	    (double)pairs / var;
	return fmax(0, fmin(0.95, r));
}

/* The floor of n_eff - 5 at one-sided level p over RW_MIN_N samples or
 * more: under what independent random walks need for Fisher's z to keep
 * its level (bench/RESULTS.md, "The effective n's floor"). */
#define RW_MIN_N 30

static double
rw_floor(double p)
{
	if (!(p < 0.01))
		return 0;
	return fmin(3.5, 2.7 + 0.28 * log10(0.01 / p));
}

/* What a correlation must pass: Fisher's z, its n_eff's floor. */
struct bar {
	double z, floor_df;
};

/* The partial correlation of x and y, a (the victim's use) and w = t - y
 * - a (the others' total) held out; its Fisher z into *z (0 for r not
 * above r_min), n_eff - 5 into *df.  NaN when a residual does not vary. */
static double
partial_r(const struct vsums *s, const struct csums *c, double floor_df,
    double r_min, double *z, double *df)
{
	double n = (double)s->n;
	double mx = s->x / n, ma = s->a / n, mt = s->t / n, my = c->y / n;
	double cxx = s->xx / n - mx * mx, caa = s->aa / n - ma * ma;
	double ctt = s->tt / n - mt * mt, cxa = s->xa / n - mx * ma;
	double cxt = s->xt / n - mx * mt, cat = s->at_ / n - ma * mt;
	double cyy = c->yy / n - my * my, cxy = c->xy / n - mx * my;
	double cya = c->ya / n - my * ma, cyt = c->yt / n - my * mt;
	double cxw = cxt - cxy - cxa, cyw = cyt - cyy - cya;
	double caw = cat - cya - caa;
	double cww = ctt + cyy + caa - 2 * cyt - 2 * cat + 2 * cya;
	double vx = cxx, vy = cyy, vxy = cxy, vw = cww, vxw = cxw, vyw = cyw;
	double r, rx, ry, neff;

	if (caa > 1e-9) {
		vx -= cxa * cxa / caa;
		vy -= cya * cya / caa;
		vxy -= cxa * cya / caa;
		vw -= caw * caw / caa;
		vxw -= cxa * caw / caa;
		vyw -= cya * caw / caa;
	}
	if (vw > 1e-9) {
		vx -= vxw * vxw / vw;
		vy -= vyw * vyw / vw;
		vxy -= vxw * vyw / vw;
	}
	if (!(vx > 1e-12 * (cxx + mx * mx)) || !(vy > 1e-9) ||
	    !(vy > 1e-6 * cyy))
		return NAN;
	r = vxy / sqrt(vx * vy);
	rx = lag1(s->xlag, s->xpairs, s->pairs, mx, cxx);
	ry = lag1(c->lag, c->pairsum, s->n == RING ? RING - 1 : s->pairs, my,
	    cyy);
	neff = n * (1 - rx * ry) / (1 + rx * ry) - 5;
	if (n >= RW_MIN_N)
		neff = fmax(neff, floor_df);
	*df = neff;
	*z = neff >= 1 && r > r_min ? atanh(fmin(r, 0.999999)) * sqrt(neff) :
	    0;
	return r;
}

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
		double y = u->cpu[slot_at(ifr, k)];

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
	*rho = lag1(q->lag[to] - q->lag[from + 1], q->pair[to] -
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
static size_t
onset_split(const struct interference *ifr, const struct cg *v)
{
	uint64_t first = ifr->sample >= RING ? ifr->sample - RING : 0;

	if (!v->victim || v->onset < first + 5 || v->onset + 2 > ifr->sample ||
	    ifr->sample < RING)
		return 0;
	return (size_t)(v->onset - (ifr->sample - RING));
}

/* The z a test must pass: P(Z > z) = p. */
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

/* The z each test of a candidate must pass: two tests (partial
 * correlation, onset) of each of m candidates, the onset's over `tries`
 * splits, all within significance together (Bonferroni). */
static double
critical_z(double significance, double m, double tries)
{
	return z_upper(significance / (2 * m * tries));
}

/* Insert (j, r) into best[], strongest first, at most k; the first seen
 * wins a tie. */
static void
rank_in(struct pick *best, size_t *n, size_t k, size_t j, double r)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (best[i].cg == j) {
			if (best[i].r >= r)
				return;
			memmove(&best[i], &best[i + 1],
			    (*n - i - 1) * sizeof(*best));
			(*n)--;
			break;
		}
	for (i = *n; i > 0 && best[i - 1].r < r; i--)
		if (i < k)
			best[i] = best[i - 1];
	if (i < k) {
		best[i].cg = j;
		best[i].r = r;
		if (*n < k)
			(*n)++;
	}
}

/* The use of c in its newest sample. */
static double
recent_use(const struct interference *ifr, const struct cg *c)
{
	return c->cpu[slot_at(ifr, RING - 1)];
}

/* The most c used in a sample of the last `last` positions. */
static double
most_use(const struct interference *ifr, const struct cg *c, size_t last)
{
	double m = 0;
	size_t k;

	for (k = RING - last; k < RING; k++)
		m = fmax(m, c->cpu[slot_at(ifr, k)]);
	return m;
}

/* Is held suspect u contradicted: still busy (half its use when named),
 * its use varied (a coefficient of variation of 10%), and its partial
 * correlation at no lag above the threshold?  A steady antagonist's use
 * does not vary: nothing is said (one that stopped goes in held_merge). */
static int
contradicted(struct interference *ifr, const struct cg *u,
    const struct held *h, const struct prep *p, const struct lagged *l)
{
	struct csums c;
	double z, r, df, m;
	size_t i;

	if (recent_use(ifr, u) < 0.5 * h->use)
		return 0;
	for (i = 0; i < l->n; i++) {
		const struct vsums *s = &l->s[i];

		if (s->n < INTERFERENCE_MIN_CORRELATED)
			return 0;
		candidate_sums(u, (size_t)(u - ifr->cgs), p, s, &c);
		m = c.y / (double)s->n;
		if (c.yy / (double)s->n - m * m < 0.01 * m * m)
			return 0;
		r = partial_r(s, &c, 0, INFINITY, &z, &df);
		if (!isfinite(r) || r > ifr->cfg.suspect_threshold)
			return 0;
	}
	return 1;
}

/* The held suspects of v still active, not contradicted and not found
 * now (what is found now is scored now) into best[]. */
static void
held_merge(struct interference *ifr, const struct cg *v, size_t vi,
    const struct prep *p, const struct lagged *l, struct pick *best,
    size_t *n)
{
	size_t i, o;

	for (i = 0; i < v->nheld; i++) {
		struct cg *u = ifr_find(ifr, v->held[i].key);
		size_t now = 0;

		for (o = 0; o < *n && u; o++)
			now |= best[o].cg == (size_t)(u - ifr->cgs);
		if (u && !now && u->leaf && (size_t)(u - ifr->cgs) != vi &&
		    most_use(ifr, u, ifr->geo.victim_samples) >=
		    0.5 * v->held[i].use &&
		    !contradicted(ifr, u, &v->held[i], p, l))
			rank_in(best, n, ifr->cfg.suspects,
			    (size_t)(u - ifr->cgs), v->held[i].r);
	}
}

/* best[] held for the next sample, each with the use it had when first
 * named. */
static void
held_store(struct interference *ifr, struct cg *v, const struct pick *best,
    size_t n)
{
	struct held *h;
	size_t i, o;

	if (n == 0 || (h = calloc(n, sizeof(*h))) == NULL) {
		suspects_forget(v);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct cg *u = &ifr->cgs[best[i].cg];

		h[i].key = u->key;
		h[i].r = best[i].r;
		h[i].use = most_use(ifr, u, RING);
		for (o = 0; o < v->nheld; o++)
			if (v->held[o].key == u->key)
				h[i].use = v->held[o].use;
	}
	suspects_forget(v);
	v->held = h;
	v->nheld = (uint8_t)n;
}

void
suspects_forget(struct cg *c)
{
	free(c->held);
	c->held = NULL;
	c->nheld = 0;
}

/* Did v's own use step at split, or at any position before it that a
 * candidate's step is tried at (onset_t)?  Then an onset says nothing. */
static int
own_step(const struct interference *ifr, const struct cg *v, size_t split)
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

/* Candidate j's strongest correlation with v's CPI over the lags [from,
 * to) that passes bar b; NaN when none does. */
static double
correlated(const struct interference *ifr, size_t v, size_t j,
    const struct prep *p, const struct lagged *l, size_t from, size_t to,
    const struct bar *b)
{
	const struct cg *u = &ifr->cgs[j];
	double r, z, df, best = NAN;
	struct csums c;
	size_t i;

	if (!u->leaf || j == v)
		return NAN;
	for (i = from; i < to; i++) {
		if (l->s[i].n < INTERFERENCE_MIN_CORRELATED)
			continue;
		candidate_sums(u, j, p, &l->s[i], &c);
		z = 0;
		r = partial_r(&l->s[i], &c, b->floor_df,
		    ifr->cfg.suspect_threshold, &z, &df);
		if (r > ifr->cfg.suspect_threshold && z > b->z &&
		    !(r <= best))
			best = r;
	}
	return best;
}

/* The Bonferroni level of one test over every judged cgroup but one
 * (find_leaves keeps the count of the others current), tries tests
 * each: the z it must pass, and the floor of its degrees of freedom. */
static struct bar
family_bar(const struct interference *ifr, double tries)
{
	size_t cands = ifr->nr - ifr->containing - 1;
	double m = cands ? (double)cands : 1;
	struct bar b;

	b.z = critical_z(ifr->cfg.suspect_significance, m, tries);
	b.floor_df = rw_floor(ifr->cfg.suspect_significance / (2 * m *
	    tries));
	return b;
}

/* The bars of the correlation's passes: half its significance to lag 0,
 * half shared by the other nl - 1 lags (all to lag 0 alone). */
static void
lag_bars(const struct interference *ifr, size_t nl, struct bar *b)
{
	b[0] = family_bar(ifr, nl > 1 ? 2 : 1);
	if (nl > 1)
		b[1] = family_bar(ifr, 2 * (double)(nl - 1));
}

int
suspects_explain(struct interference *ifr, size_t v, const double *scratch)
{
	struct prep p = prep_of(ifr, (double *)scratch);
	struct lagged l;
	struct bar b = family_bar(ifr, 1);
	size_t j;

	/* Lag 0 alone: most offers are a busy cgroup's own swings, which
	 * nobody explains, and at 10,000 cgroups the other lags tried for
	 * each tripled the analysis's CPU (bench/RESULTS.md, "Lags"). */
	victim_sums(ifr, &ifr->cgs[v], &p, 0, &l.s[0]);
	l.n = 1;
	for (j = 0; j < ifr->nr; j++)
		if (isfinite(correlated(ifr, v, j, &p, &l, 0, 1, &b)))
			return 1;
	return 0;
}

void
suspects_of(struct interference *ifr, size_t v, const double *scratch,
    struct pick *best, size_t *n)
{
	struct prep p = prep_of(ifr, (double *)scratch);
	struct cg *vc = &ifr->cgs[v];
	struct lagged l;
	size_t j, k, split = onset_split(ifr, vc);
	struct bar b[2];

	*n = 0;
	lagged_sums(ifr, vc, &p, &l);
	lag_bars(ifr, l.n, b);
	if (split && own_step(ifr, vc, split))
		split = 0;
	/* Lag 0, and only where it names nobody the other lags. */
	for (k = 0; k < 2 && k < l.n && *n == 0; k++)
		for (j = 0; j < ifr->nr; j++) {
			double r = correlated(ifr, v, j, &p, &l, k,
			    k ? l.n : 1, &b[k]);

			if (isfinite(r))
				rank_in(best, n, ifr->cfg.suspects, j, r);
		}
	held_merge(ifr, vc, v, &p, &l, best, n);
	/* The onset, where nothing varied enough to correlate. */
	b[0] = family_bar(ifr, ONSET_SLACK + 1);
	for (j = 0; j < ifr->nr && split && *n == 0; j++) {
		const struct cg *u = &ifr->cgs[j];
		double r;

		/* Its strength shown, so above the threshold like any. */
		if (u->leaf && j != v && onset_t(ifr, u, split, &r) > b[0].z &&
		    r > ifr->cfg.suspect_threshold)
			rank_in(best, n, ifr->cfg.suspects, j, r);
	}
	held_store(ifr, vc, best, *n);
}
