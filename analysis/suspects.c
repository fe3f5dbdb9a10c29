/*
 * suspects.c - who is slowing a victim down (interference_int.h): each other
 * judged cgroup scored by the partial correlation, then the onset and the
 * trend (onset.c), and the suspects a victim holds.
 * Design: docs/interference.md, "How", step 7.
 */
#include "autoconf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference_int.h"

#define RING INTERFERENCE_RING
/* The longest lag (s) a correlation is tried at, and how many lags up to
 * it, 0 included: a cache or a queue that fills and drains. */
#define LAG_S 30.0
#define LAGS 4

_Static_assert(RING % 4 == 0, "candidate_sums takes the ring 4 at a time");

/* The scratch a sample's sums live in: total[RING], then per cgroup. */
struct prep {
	double *total;			/* judged cgroups' use per position */
	double *sy, *syy, *syt, *slag;	/* each cgroup's, over all positions */
	double *trend;			/* its trend_t, NAN until asked: the
					   same for every victim of the sample */
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
	p.trend = p.slag + ifr->nr;
	return p;
}

static double
trend_of(const struct interference *ifr, const struct prep *p, size_t j)
{
	if (isnan(p->trend[j]))
		p->trend[j] = trend_t(ifr, &ifr->cgs[j]);
	return p->trend[j];
}

/* The IFR_SWINGERS leaves whose use varied most (ss: its sum of
 * squares about the mean), most first: ifr->swing_ss alongside. */
static void
swing_in(struct interference *ifr, size_t j, double ss)
{
	size_t i = ifr->nswing;

	if (!(ss > 0))
		return;
	if (i == IFR_SWINGERS && !(ss > ifr->swing_ss[i - 1]))
		return;
	if (i == IFR_SWINGERS)
		i--;
	for (; i > 0 && ifr->swing_ss[i - 1] < ss; i--) {
		ifr->swinger[i] = ifr->swinger[i - 1];
		ifr->swing_ss[i] = ifr->swing_ss[i - 1];
	}
	ifr->swinger[i] = j;
	ifr->swing_ss[i] = ss;
	if (ifr->nswing < IFR_SWINGERS)
		ifr->nswing++;
}

void
suspects_prepare(struct interference *ifr, double *scratch)
{
	struct prep p = prep_of(ifr, scratch);
	size_t i, k;

	ifr->nswing = 0;

	memset(p.total, 0, RING * sizeof(*p.total));
	for (i = 0; i < ifr->nr; i++)
		if (ifr->cgs[i].leaf)
			for (k = 0; k < RING; k++)
				p.total[k] += ifr->cgs[i].cpu[ifr_slot_at(ifr, k)];
	for (i = 0; i < ifr->nr; i++) {
		const struct cg *c = &ifr->cgs[i];
		double sy = 0, syy = 0, syt = 0, slag = 0, y, py = 0;

		for (k = 0; k < RING; k++) {
			y = c->cpu[ifr_slot_at(ifr, k)];
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
		p.trend[i] = NAN;
		if (c->leaf)
			swing_in(ifr, i, syy - sy * sy / RING);
	}
}

/* The victim's side of the partial correlation, over its positions. */
struct vsums {
	size_t at[RING], n, pairs;
	size_t lag;			/* the node's positions this far back */
	uint64_t base;			/* the ring's slot of position 0 */
	size_t slot[RING];		/* the ring slot of each of at[] */
	float xs[RING], as[RING];	/* the victim's x and use by the
					   ring slot of at[] (0 elsewhere) */
	unsigned char in[RING];		/* position judged */
	double x, xx, a, aa, xa, t, tt, xt, at_, xlag;
	double xpairs;			/* both members of each pair, summed */
	/* The victim's side of every candidate's moments, made once:
	 * 1 / n, the means and the (co)variances of x, a and t. */
	double inv_n, mx, ma, mt, cxx, caa, ctt, cxa, cxt, cat, ica;
};

/* A candidate's side. */
struct csums {
	double y, yy, yt, lag, pairsum, xy, ya;
};

/* The victim's side of the moments, from its sums (n > 0). */
static void
vsums_moments(struct vsums *s)
{
	s->inv_n = 1 / (double)s->n;
	s->mx = s->x * s->inv_n;
	s->ma = s->a * s->inv_n;
	s->mt = s->t * s->inv_n;
	s->cxx = s->xx * s->inv_n - s->mx * s->mx;
	s->caa = s->aa * s->inv_n - s->ma * s->ma;
	s->ctt = s->tt * s->inv_n - s->mt * s->mt;
	s->cxa = s->xa * s->inv_n - s->mx * s->ma;
	s->cxt = s->xt * s->inv_n - s->mx * s->mt;
	s->cat = s->at_ * s->inv_n - s->ma * s->mt;
	s->ica = s->caa > 0 ? 1 / s->caa : 0;
}

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
		size_t q = k - lag, sl = ifr_slot_at(ifr, q);
		double x = v->x[ifr_slot_at(ifr, k)], a = v->cpu[sl];
		double t = p->total[q];

		if (!ifr_counts(&ifr->cfg, v->cpu[ifr_slot_at(ifr, k)], x))
			continue;
		if (q > 0 && s->in[q - 1]) {
			s->xlag += x * px;
			s->xpairs += x + px;
			s->pairs++;
		}
		s->in[q] = 1;
		s->slot[s->n] = sl;
		s->xs[sl] = (float)x;
		s->as[sl] = (float)a;
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
	if (s->n)
		vsums_moments(s);
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
	/* Over every slot, in the ring's order (0 where not judged): no
	 * gather, and four sums at a time. */
	for (k = 0; k < RING; k += 4) {
		double xy[4], ya[4];

		for (i = 0; i < 4; i++) {
			xy[i] = (double)s->xs[k + i] * u->cpu[k + i];
			ya[i] = (double)s->as[k + i] * u->cpu[k + i];
		}
		c->xy += (xy[0] + xy[1]) + (xy[2] + xy[3]);
		c->ya += (ya[0] + ya[1]) + (ya[2] + ya[3]);
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

/* What a correlation must pass: Fisher's z, its n_eff's floor; and what
 * a trend must (z, or what random walks reach at the level). */
struct bar {
	double z, floor_df, trend;
};

/* The partial correlation of x and y, a (the victim's use) and w = t - y
 * - a (the others' total) held out; its Fisher z into *z (0 for r not
 * above r_min), n_eff - 5 into *df (0 for r not above r_min).  NaN when a
 * residual does not vary. */
static double
partial_r(const struct vsums *s, const struct csums *c, double floor_df,
    double r_min, double *z, double *df)
{
	double n = (double)s->n, in = s->inv_n;
	double mx = s->mx, ma = s->ma, mt = s->mt, my = c->y * in;
	double cxx = s->cxx, caa = s->caa, ctt = s->ctt, cxa = s->cxa;
	double cxt = s->cxt, cat = s->cat, ica = s->ica;
	double cyy = c->yy * in - my * my, cxy = c->xy * in - mx * my;
	double cya = c->ya * in - my * ma, cyt = c->yt * in - my * mt;
	double cxw = cxt - cxy - cxa, cyw = cyt - cyy - cya;
	double caw = cat - cya - caa;
	double cww = ctt + cyy + caa - 2 * cyt - 2 * cat + 2 * cya;
	double vx = cxx, vy = cyy, vxy = cxy, vw = cww, vxw = cxw, vyw = cyw;
	double r, rx, ry, neff, iw;

	if (caa > 1e-9) {
		vx -= cxa * cxa * ica;
		vy -= cya * cya * ica;
		vxy -= cxa * cya * ica;
		vw -= caw * caw * ica;
		vxw -= cxa * caw * ica;
		vyw -= cya * caw * ica;
	}
	if (vw > 1e-9) {
		iw = 1 / vw;
		vx -= vxw * vxw * iw;
		vy -= vyw * vyw * iw;
		vxy -= vxw * vyw * iw;
	}
	if (!(vx > 1e-12 * (cxx + mx * mx)) || !(vy > 1e-9) ||
	    !(vy > 1e-6 * cyy))
		return NAN;
	r = vxy / sqrt(vx * vy);
	*z = 0;
	*df = 0;
	if (!(r > r_min))
		return r;
	rx = ifr_lag1(s->xlag, s->xpairs, s->pairs, mx, cxx);
	ry = ifr_lag1(c->lag, c->pairsum, s->n == RING ? RING - 1 : s->pairs, my,
	    cyy);
	neff = n * (1 - rx * ry) / (1 + rx * ry) - 5;
	if (n >= RW_MIN_N)
		neff = fmax(neff, floor_df);
	*df = neff;
	*z = neff >= 1 ? atanh(fmin(r, 0.999999)) * sqrt(neff) : 0;
	return r;
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
 * correlation; onset and trend) of each of m candidates, the second's
 * over `tries` splits and the trend, all within significance together
 * (Bonferroni). */
static double
critical_z(double significance, double m, double tries)
{
	return z_upper(significance / (2 * m * tries));
}

/* Insert (j, r) into best[], strongest first, at most k; the first seen
 * wins a tie. */
static void
rank_in(struct pick *best, size_t *n, size_t k, size_t j, double r,
    int onset)
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
		best[i].onset = onset;
		if (*n < k)
			(*n)++;
	}
}

/* The use of c in its newest sample. */
static double
recent_use(const struct interference *ifr, const struct cg *c)
{
	return c->cpu[ifr_slot_at(ifr, RING - 1)];
}

/* The most c used in a sample of the last `last` positions. */
static double
most_use(const struct interference *ifr, const struct cg *c, size_t last)
{
	double m = 0;
	size_t k;

	for (k = RING - last; k < RING; k++)
		m = fmax(m, c->cpu[ifr_slot_at(ifr, k)]);
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
	double z, r, df, m, var;
	size_t i;

	if (recent_use(ifr, u) < 0.5 * h->use)
		return 0;
	for (i = 0; i < l->n; i++) {
		const struct vsums *s = &l->s[i];

		if (s->n < INTERFERENCE_MIN_CORRELATED)
			return 0;
		candidate_sums(u, (size_t)(u - ifr->cgs), p, s, &c);
		m = c.y / (double)s->n;
		var = c.yy / (double)s->n - m * m;
		var *= 1 - ifr_lag1(c.lag, c.pairsum, s->n == RING ?
		    RING - 1 : s->pairs, m, var);
		if (var < 0.01 * m * m)
			return 0;
		r = partial_r(s, &c, 0, INFINITY, &z, &df);
		if (!isfinite(r) || r > ifr->cfg.suspect_threshold)
			return 0;
	}
	return 1;
}

/* The held suspects of v still active, not contradicted and not found
 * now (what is found now is scored now) into best[]; one the onset named
 * gives way to any the correlation names now. */
static void
held_merge(struct interference *ifr, const struct cg *v, size_t vi,
    const struct prep *p, const struct lagged *l, struct pick *best,
    size_t *n)
{
	size_t i, o, found = *n;

	for (i = 0; i < v->nheld; i++) {
		struct cg *u = ifr_find(ifr, v->held[i].key);
		size_t now = 0;

		for (o = 0; o < *n && u; o++)
			now |= best[o].cg == (size_t)(u - ifr->cgs);
		if (u && !now && !(found && v->held[i].onset) && u->leaf &&
		    (size_t)(u - ifr->cgs) != vi &&
		    most_use(ifr, u, ifr->geo.victim_samples) >=
		    0.5 * v->held[i].use &&
		    !contradicted(ifr, u, &v->held[i], p, l))
			rank_in(best, n, ifr->cfg.suspects,
			    (size_t)(u - ifr->cgs), v->held[i].r,
			    v->held[i].onset);
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
		h[i].onset = best[i].onset;
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

/* Pearson's r of the victim's x and the candidate's use y. */
static double
pearson(const struct vsums *s, const struct csums *c)
{
	double n = (double)s->n, mx = s->x / n, my = c->y / n;
	double vx = s->xx / n - mx * mx, vy = c->yy / n - my * my;

	if (!(vx > 0) || !(vy > 1e-9))
		return NAN;
	return fmax(-0.999, fmin(0.999, (c->xy / n - mx * my) /
	    sqrt(vx * vy)));
}

/* Candidate j's strongest correlation with v's CPI over the lags [from,
 * to) that passes bar b; NaN when none does.  Into *f (if not NULL) how
 * closely v's CPI follows j's use at lag `from`: Pearson's r, nothing
 * held out (NaN when either does not vary). */
static double
correlated(const struct interference *ifr, size_t v, size_t j,
    const struct prep *p, const struct lagged *l, size_t from, size_t to,
    const struct bar *b, double *f)
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
		if (f && i == from)
			*f = pearson(&l->s[i], &c);
		z = 0;
		r = partial_r(&l->s[i], &c, b->floor_df,
		    ifr->cfg.suspect_threshold, &z, &df);
		/* z is 0 unless r > suspect_threshold (partial_r). */
		if (z > b->z && !(r <= best))
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
	b.trend = fmax(b.z, rw_trend(ifr->cfg.suspect_significance / (2 * m *
	    tries)));
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
suspects_explain(struct interference *ifr, size_t v, const double *scratch,
    int swing, size_t *who)
{
	struct prep p = prep_of(ifr, (double *)scratch);
	struct lagged l;
	struct bar b = family_bar(ifr, 1);
	size_t i, j, n = swing ? ifr->nswing : ifr->nr;

	/* Lag 0 alone: most offers are a busy cgroup's own swings, which
	 * nobody explains, and at 10,000 cgroups the other lags tried for
	 * each tripled the analysis's CPU (bench/RESULTS.md, "Lags"). */
	victim_sums(ifr, &ifr->cgs[v], &p, 0, &l.s[0]);
	l.n = 1;
	for (i = 0; i < n; i++) {
		j = swing ? ifr->swinger[i] : i;
		if (isfinite(correlated(ifr, v, j, &p, &l, 0, 1, &b, NULL))) {
			*who = j;
			return 1;
		}
	}
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
	struct follower fo = { 0, -1, -1, 0 }, tr = { 0, -1, -1, 0 };
	int trend = !trend_own(ifr, vc);
	/* The onset's half of the significance: its positions and the
	 * trend. */
	struct bar ob = family_bar(ifr, IFR_ONSET_SLACK + 2);

	*n = 0;
	lagged_sums(ifr, vc, &p, &l);
	lag_bars(ifr, l.n, b);
	if (split && onset_own_step(ifr, vc, split))
		split = 0;
	fo.n = (double)l.s[0].n;
	/* Lag 0, and only where it names nobody the other lags. */
	for (k = 0; k < 2 && k < l.n && *n == 0; k++)
		for (j = 0; j < ifr->nr; j++) {
			double f = NAN, r = correlated(ifr, v, j, &p, &l, k,
			    k ? l.n : 1, &b[k], k ? NULL : &f);

			if (isfinite(r))
				rank_in(best, n, ifr->cfg.suspects, j, r, 0);
			if (f > fo.r) {
				fo.second = fo.r;
				fo.r = f;
				fo.cg = j;
			} else if (f > fo.second)
				fo.second = f;
			if (trend && f > ifr->cfg.suspect_threshold &&
			    f > tr.second && trend_of(ifr, &p, j) > ob.trend) {
				if (f > tr.r) {
					tr.second = tr.r;
					tr.r = f;
					tr.cg = j;
				} else
					tr.second = f;
			}
		}
	held_merge(ifr, vc, v, &p, &l, best, n);
	/* The onset, where nothing varied enough to correlate. */
	if (*n == 0 && split && fo.r > -1)
		onset_name(ifr, split, ob.z, &fo, best, n);
	/* The trend, for one that ramped up: neither varied nor stepped. */
	tr.n = fo.n;
	if (*n == 0 && tr.r > -1)
		trend_name(ifr, &tr, best, n);
	held_store(ifr, vc, best, *n);
}
