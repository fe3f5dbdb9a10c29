/*
 * scenario.h - what the files of bench/interference_scenarios share: the
 * simulated node (scenario_node.c), its scores (scenario_score.c) and
 * the scenarios themselves (scenario_list.c), which
 * interference_scenarios.c runs and prints.  Its header says what the
 * model is and what each figure means.
 */
#ifndef PMU_BENCH_SCENARIO_H
#define PMU_BENCH_SCENARIO_H

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/interference.h"
#include "collectors/collector/snapshot.h"

#define VICTIM_WINDOW_S 300	/* the default victim_window */
#define TAU_S 60.0		/* time constant of every AR(1) process */
#define NOISE_WHITE 6.0	/* %, the defaults of -e and -a */
#define NOISE_AR 5.0
#define SENSITIVITY 0.25	/* CPI rise per CPU of an antagonist */
#define FIRST_HOUR_S 3600
#define WARMING (LONG_MIN / 2)	/* the scenario clock before it starts */
#define MAX_RUNS 4		/* runs per seed (node-episode's delays) */
#define MAX_CAUSES 2
#define BUCKET_S 600		/* false victims counted per 10 minutes */
#define BUCKETS 24
#define BUCKET_SEEDS 20	/* a bucket's scenarios: seeds at least */
#define LAG_MAX_S 60		/* the longest lag a victim's CPI has */

/* ---- scenario_node.c: the simulated node ---------------------------- */

/* On and off at random: an antagonist's use, or a phase of a cgroup's
 * own.  Active while from < tau <= to for either span. */
struct sched {
	double on_min, on_max, off_min, off_max;	/* seconds */
	double lvl_min, lvl_max, lvl_off;		/* CPU when on, off */
	long from[2], to[2];
	double ramp_s;		/* > 0: when on, from lvl_off to the level
				   linearly over this long after from[0] */
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
	long lag;			/* s its CPI follows its causes
					   late by (at most LAG_MAX_S) */
	double uh[LAG_MAX_S + 1];	/* its use over the last seconds,
					   at t % (LAG_MAX_S + 1) */
	long born;			/* in the snapshots from this
					   scenario time (LONG_MIN: always) */
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
	int right_now;			/* the subject's rank 1 right in
					   the result being scored */
	int restart;			/* scored as a restart after mark */
	long first_right;		/* the first such after mark, or -1 */
	size_t many;			/* cgroups of 'many' */
};

/* A draw in [lo, hi). */
double between(struct sim *m, double lo, double hi);

/* A cgroup of the node at path, of each kind the scenarios mix (add_cg
 * a bare one, the others their index in m->cgs); a cause makes the
 * antagonist act on the victim. */
struct cg *add_cg(struct sim *m, const char *path);
size_t add_busy(struct sim *m, const char *path);
void add_busies(struct sim *m, size_t n);
size_t add_victim(struct sim *m, const char *path);
size_t add_sched(struct sim *m, const char *path, const struct sched *s);
void add_cause(struct sim *m, size_t victim, size_t antagonist);

/* The truth: the causes acting on c within the victim window. */
unsigned causes_now(const struct sim *m, const struct cg *c);

/* One interval of the node: every cgroup's use and CPI. */
void sim_step(struct sim *m);

/* ---- scenario_score.c: the scores ------------------------------------ */

struct score {
	size_t runs, samples, analysed, victims, caused, rank1, decoy;
	size_t falsev, analysed_1h, false_1h, eligible, detected, kin;
	size_t with_suspects, both_cases, both_named, pod_named, pod_rank1;
	size_t pod_flags, follower_rank1, subj_analysed, subj_flags;
	size_t false_samples;		/* samples with a false victim */
	size_t var_runs[MAX_RUNS], var_flag[MAX_RUNS], var_n[MAX_RUNS];
	size_t var_late[MAX_RUNS], var_late_n[MAX_RUNS];
	/* Restarts: runs whose subject was flagged with its antagonist at
	 * rank 1 after mark, the minutes to the first time summed, and the
	 * subject's interfered results after it, and those so flagged. */
	size_t rs_found, rs_after, rs_hit;
	double rs_first_min, rs_worst_min;
	size_t rs_late;			/* runs first found after 15 min */
	double cpu_s, sim_s, last_rank1_s, bytes_per_cg;
	size_t tracked;
	/* False victims and analysed cgroup-samples per 10 minutes of the
	 * scenario (the last bucket takes what is beyond). */
	size_t bucket_false[BUCKETS], bucket_an[BUCKETS];
	/* Per seed: rank 1 right and false victims, lowest and highest. */
	double lo[2], hi[2];
};

/* Score the result r the analysis published (run of the seed). */
void score_result(struct sim *m, const struct interference_result *r,
    struct score *s, int run);

/* ---- scenario_list.c: the scenarios ---------------------------------- */

struct verdict {
	char special[256], keys[256], target[128];
	int met;			/* 1, 0, or -1: no target */
};

struct scenario {
	const char *name;
	long warmup_s;			/* -1: the options' */
	long length_s;			/* scored, after the warm-up */
	int runs;			/* per seed */
	void (*setup)(struct sim *, const struct scenario *, int run);
	void (*special)(const struct score *, struct verdict *);
	const struct sched *pair;	/* setup_pair's antagonist */
	long node_from;			/* setup_node's episode (many:
					   the pairs' starts apart), */
	double node_lo, node_hi;	/* its rise per cgroup */
	unsigned min_seeds;		/* at least (but under -q): a
					   10-minute bucket's figure */
};

#define NR_SCENARIOS 20

extern const struct scenario scenarios[NR_SCENARIOS];

/* The worst 10-minute bucket's false victims, as a percentage of its
 * analysed cgroup-samples (buckets of fewer than 100 left out); its
 * start in minutes into *at. */
double worst_bucket(const struct score *s, double *at);

/* a as a percentage of b; NaN when b is 0. */
static inline double
pct(double a, double b)
{
	return b > 0 ? 100 * a / b : NAN;
}

#endif
