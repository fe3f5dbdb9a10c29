/*
 * interference_int.h - the analysis's state, shared by its files (one per job,
 * each a pure step over it) and nothing else.
 * Design: docs/architecture.md, "analysis/".
 */
#ifndef PMU_INTERFERENCE_INT_H
#define PMU_INTERFERENCE_INT_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>

#include "analysis/interference_config.h"
#include "collectors/collector/snapshot.h"
#include "util/publish.h"

enum { CYC, INS, EN };

/* Samples after which a baseline's weights stop shrinking (detect.c). */
#define IFR_BASELINE (6 * INTERFERENCE_RING)

struct saved;

/* A suspect held through a victim's episode (suspects.c). */
struct held {
	uint64_t key;			/* the suspect's path hash */
	double r;			/* its strength when last named */
	double use;			/* the most it used in the window
					   it was first named from */
	int onset;			/* named by the onset alone */
};

/* What a cgroup offers to take as its clean baseline (detect.c). */
enum { OFFER_NONE, OFFER_CLEAN, OFFER_FIT };

/* The candidates a fit's offer is asked of (suspects_prepare): those
 * whose use varied most over the ring. */
#define IFR_SWINGERS 8

struct cg {
	uint64_t key;			/* hash of the path */
	uint64_t workload;		/* of its labels (state.c); 0: none */
	uint32_t gen;			/* the snapshot it was last seen in */
	uint32_t row;			/* its first row there */
	double cur[3];			/* that snapshot's sums */
	double last[3];			/* the one before */
	double acc[3];			/* deltas of the sample so far */
	/* The baseline of x, CPI over the node's common mode (detect.c). */
	double mean, var;		/* EW mean and variance */
	double acov;			/* EW lag-1 autocovariance */
	double prev;			/* the last learnt deviation; NaN: none */
	double cusum;			/* of standardised rises */
	double beta_xy, beta_xx;	/* its CPI against the node's: sums */
	uint64_t onset;			/* sample the current rise began */
	uint64_t bits;			/* alarm samples, newest lowest */
	struct held *held;		/* while a victim with suspects */
	uint32_t bn;			/* samples learnt, up to BASELINE */
	uint32_t outliers, periods;
	uint8_t have_last, victim, analysed, high, leaf, nheld;
	uint8_t fresh;			/* became a victim this sample */
	uint8_t proposed;		/* OFFER_*: offered this sample */
	uint8_t clean_misses;		/* offers unexplained in a row */
	uint8_t fit_misses;		/* ... of OFFER_FIT */
	float clean[3];			/* the ring's clean mean, var, acov */
	float cpu[INTERFERENCE_RING];	/* CPU-s/s per sample */
	float x[INTERFERENCE_RING];	/* CPI / the node's; NaN: none */
};

/* What one victim's suspects are scored with (suspects.c). */
struct pick {
	size_t cg;
	double r;			/* the strength shown */
	int onset;			/* named by the onset alone */
};

struct interference {
	/* Shared with other threads, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct snapshot *pending;
	struct interference_config next;
	int have_next, stop, started;
	pthread_t thread;

	/* The newest result: behind its own lock (util/publish.h). */
	struct publish_slot result;

	/* The analysis thread's alone. */
	struct interference_config cfg;
	struct interference_geometry geo;
	struct cg *cgs;
	size_t nr, cap;
	uint32_t *idx;			/* slot -> index + 1; 0: empty */
	size_t mask;			/* idx has mask + 1 slots */
	double *scratch;		/* [5 * scratch_cap + RING] */
	size_t scratch_cap;
	int members_changed;		/* leaves to find again */
	uint32_t gen;
	uint64_t last_seq;
	int have_seq;
	double interval_s;		/* the geometry's */
	double sample_s;		/* a sample's length: per_sample
					   intervals */
	unsigned pending_intervals;	/* in the sample being filled */
	double pending_s;		/* ... and the time they took, as the
					   snapshots' began_ns tell it */
	uint64_t last_began_ns;		/* the last snapshot's */
	uint64_t sample;		/* samples closed */
	size_t containing;		/* tracked cgroups with one below */
	size_t swinger[IFR_SWINGERS];	/* of this sample (suspects.c) */
	double swing_ss[IFR_SWINGERS];
	size_t nswing;

	/* What outlives the daemon (state.c). */
	char *state_path;		/* NULL: nothing kept */
	void (*state_log)(int prio, const char *fmt, ...);
	struct saved *saved;		/* the file's, by key; NULL: none */
	size_t nr_saved, restored;
	double saved_sample_s;
	uint64_t state_saved_ns;	/* snapshot time of the last write */
	int state_err;			/* its result: 0 or -errno */
};

/* A sample's CPU use and CPI are judged when at the floor or above. */
static inline int
ifr_counts(const struct interference_config *cfg, double cpu, double x)
{
	return cpu >= cfg->cpu_floor && isfinite(x) && x > 0;
}

/* The cgroup of key, or NULL: the table's open-addressing index.  Here,
 * inline, because interference.c (the table's owner) and suspects.c (a
 * victim's held suspects, kept by key) both look up, and neither should
 * call into the other for it. */
static inline struct cg *
ifr_find(const struct interference *ifr, uint64_t key)
{
	size_t j;

	if (ifr->idx == NULL)
		return NULL;
	for (j = key & ifr->mask; ifr->idx[j]; j = (j + 1) & ifr->mask)
		if (ifr->cgs[ifr->idx[j] - 1].key == key)
			return &ifr->cgs[ifr->idx[j] - 1];
	return NULL;
}

/* The ring slot of position k of the window, oldest (0) to newest
 * (INTERFERENCE_RING - 1). */
static inline size_t
ifr_slot_at(const struct interference *ifr, size_t k)
{
	return (size_t)((ifr->sample + k) % INTERFERENCE_RING);
}

/* Lag-1 autocorrelation in [0, 0.95] from `pairs` pairs' product sum
 * (lag) and member sum (pairsum), centred on the series' mean inside the
 * sum: a trending series' pairs are off its mean. */
static inline double
ifr_lag1(double lag, double pairsum, size_t pairs, double mean, double var)
{
	double r;

	if (pairs < 2 || !(var > 0))
		return 0;
	r = (lag - mean * pairsum + (double)pairs * mean * mean) /
	    (double)pairs / var;
	return fmax(0, fmin(0.95, r));
}

#define IFR_HASH0 1469598103934665603ULL

/* FNV-1a of n bytes of p, continuing from h (start: IFR_HASH0): the
 * table's keys (interference.c) and the workloads' (state.c). */
static inline uint64_t
ifr_hash(uint64_t h, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

/* result.c: the result of the sample just closed (s for its labels),
 * NULL without memory; r or an empty one in place of the newest; c's
 * samples in alarm within its victim window. */
struct interference_result *result_build(struct interference *ifr,
    struct snapshot *s);
void result_publish(struct interference *ifr, struct interference_result *r);
void result_publish_empty(struct interference *ifr);
unsigned result_outliers(const struct interference *ifr, const struct cg *c);

/* detect.c: the sample in slot of every cgroup, judged. */
void detect_sample(struct interference *ifr, size_t slot, double *scratch);

/* detect.c: c's baseline from the clean part of its ring (proposed), or
 * the offer declined. */
void detect_take_clean(struct cg *c);
int detect_fit_clean(const struct interference_config *cfg, struct cg *c,
    const struct cg *u, uint64_t sample);
void detect_clean_missed(struct cg *c);

/* The candidate whose use a victim's CPI follows most closely (Pearson's
 * r over the victim's n judged positions), and the next one's r. */
struct follower {
	size_t cg;
	double r, second, n;
};

/* onset.c: the position at which victim v's rise began (0: none to
 * align on); whether v's own use stepped there; and the onset's name
 * into best[] (onset set): fo's candidate, when its use stepped there by
 * more than z and v's CPI follows it clearly more than any other's. */
#define IFR_ONSET_SLACK 4	/* positions before the onset also tried */
size_t onset_split(const struct interference *ifr, const struct cg *v);
int onset_own_step(const struct interference *ifr, const struct cg *v,
    size_t split);
void onset_name(const struct interference *ifr, size_t split, double z,
    const struct follower *fo, struct pick *best, size_t *n);
/* onset.c: the trend: u's use's rise along the window, in t (0: none); has
 * v's own use risen so (then a trend says nothing); the trend's name into
 * best[] (onset set): fo's candidate, of those whose use rose by more than
 * the family's z, when v's CPI follows it clearly more than the next. */
double trend_t(const struct interference *ifr, const struct cg *u);
/* The trend t independent random walks exceed with probability p (fitted
 * over bench/rw_null -t: a random walk's line is steep by chance). */
double rw_trend(double p);
int trend_own(const struct interference *ifr, const struct cg *v);
void trend_name(const struct interference *ifr, const struct follower *fo,
    struct pick *best, size_t *n);

/* suspects.c: ready the sample's sums (scratch holds 5 * nr + RING),
 * then victim v's suspects into best[], *n of them, strongest first. */
void suspects_prepare(struct interference *ifr, double *scratch);
void suspects_of(struct interference *ifr, size_t v, const double *scratch,
    struct pick *best, size_t *n);
void suspects_forget(struct cg *c);
/* ... and whether some neighbour's use explains v's CPI over the ring (a
 * suspect by the partial correlation's test, at the level of a test of
 * every one), after suspects_prepare: of every cgroup, or with swing of
 * the IFR_SWINGERS whose use varied most; the one into *who. */
int suspects_explain(struct interference *ifr, size_t v,
    const double *scratch, int swing, size_t *who);

/* state.c: a row's workload key (0: no labels to tell it by); c's
 * baseline from the file when it has one for c; the periodic write at
 * snapshot time now_ns; the file's baselines dropped. */
uint64_t state_workload(const struct snap_row *r);
void state_restore(struct interference *ifr, struct cg *c);
void state_tick(struct interference *ifr, uint64_t now_ns);
void state_forget(struct interference *ifr);

/* reload.c: the geometry at interval_s; the rings resampled when a
 * sample's length changed. */
void reload_geometry(struct interference *ifr, double interval_s);

#endif
