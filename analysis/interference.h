/*
 * interference.h - who is slowing a cgroup down: the node's half of CPI2, a
 * consumer of the published snapshots on a thread of its own that publishes an
 * immutable result.
 * Design: docs/interference.md; docs/architecture.md, "analysis/".
 */
#ifndef PMU_INTERFERENCE_H
#define PMU_INTERFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/collector/snapshot.h"
#include "util/publish.h"

/* Points in a cgroup's ring: one sample each, the window's length. */
#define INTERFERENCE_RING 60
/* Samples a baseline needs before it is used (half the window), and
 * samples of the victim a correlation needs. */
#define INTERFERENCE_MIN_SAMPLES (INTERFERENCE_RING / 2)
#define INTERFERENCE_MIN_CORRELATED 10
/* Victims whose suspects are looked for in one sample, the most
 * outliers first: what bounds the suspects' series (k each). */
#define INTERFERENCE_MAX_VICTIMS 256
/* The most suspects a victim can be given (the suspects key). */
#define INTERFERENCE_MAX_SUSPECTS 10

/* The config's interference: block (config/ fills it in). */
struct interference_config {
	int enabled;
	char *group;			/* the group read */
	char *cycles, *instructions;	/* its events, as configured */
	uint64_t window_ns;		/* the correlation window, the ring */
	double cpu_floor;		/* CPU-s/s a cgroup needs */
	double outlier_sigma;
	unsigned victim_outliers;
	uint64_t victim_window_ns;
	double suspect_threshold;	/* the least strength named */
	double suspect_significance;	/* chance suspects per victim */
	unsigned suspects;		/* k */
	char *why_off;			/* !enabled: why, for the log */
};

/*
 * How the analysis cuts time at an interval (config/ checks with it, the
 * analysis runs with it): a sample is window / INTERFERENCE_RING rounded
 * to whole intervals, at least one; victim_window is that many samples,
 * rounded, from 1 to 64.
 */
struct interference_geometry {
	unsigned per_sample;		/* intervals a sample spans */
	unsigned victim_samples;	/* samples victim_window spans */
};
void interference_geometry(const struct interference_config *c,
    uint64_t interval_ns, struct interference_geometry *g);

/* The defaults, everything off and unnamed. */
void interference_config_defaults(struct interference_config *c);
/* Copy src into dst (deep); 0 or -ENOMEM (dst then empty). */
int interference_config_copy(struct interference_config *dst,
    const struct interference_config *src);
/* Same analysis: a reload to it changes nothing. */
int interference_config_same(const struct interference_config *a,
    const struct interference_config *b);
/* Same counts read (enabled, group, events): a reload from a to b keeps
 * every baseline, the rings resampled when a sample's length changes;
 * otherwise it starts afresh. */
int interference_config_keeps(const struct interference_config *a,
    const struct interference_config *b);
void interference_config_fini(struct interference_config *c);

/* One analysed cgroup in a result. */
struct interference_cgroup {
	const struct snap_row *row;	/* its labels, in result->snap */
	int victim;
	double outliers;		/* samples whose CPI was an outlier */
	double victim_periods;		/* times it became a victim */
};

struct interference_suspect {
	size_t victim;			/* index in result->cgroups */
	const struct snap_row *row;	/* the suspect's labels */
	unsigned rank;			/* 1..k */
	double correlation;
};

/* What one sample found: immutable once published. */
struct interference_result {
	struct publish_ref ref;		/* util/publish.h */
	int enabled;
	struct snapshot *snap;		/* the rows' labels; a reference */
	size_t nr_cgroups;		/* judged: at or above the floor */
	size_t containing;		/* left out: a counted one below */
	struct interference_cgroup *cgroups;
	size_t nr_suspects;
	struct interference_suspect *suspects;	/* by victim, then rank */
};

void interference_result_unref(struct interference_result *r);

struct interference;

/* A new analysis (not started); cfg is copied.  0 or -ENOMEM. */
int interference_new(const struct interference_config *cfg,
    struct interference **out);

/* Start the analysis thread: from then on, offered snapshots are
 * analysed there.  0 or -errno. */
int interference_start(struct interference *ifr);

/*
 * Hand a just-published snapshot to the analysis (any thread; the
 * collector's, after each publish): it takes a reference and wakes the
 * thread.  A snapshot not analysed yet when the next comes is dropped;
 * deltas span both, so nothing is lost but resolution.
 */
void interference_offer(struct interference *ifr, struct snapshot *s);

/* Analyse s now, on the calling thread: what the thread does with each
 * snapshot, for tests and benchmarks on an analysis never started. */
void interference_feed(struct interference *ifr, struct snapshot *s);

/* A reload: cfg takes effect at the next snapshot.  Keys that change no
 * count read keep every baseline and the last result; a new window (or
 * interval, from the snapshots) resamples the rings to the new sample's
 * length; a new group, event or enabled starts afresh.  0 or -ENOMEM
 * (the old config stays). */
int interference_reload(struct interference *ifr,
    const struct interference_config *cfg);

/* The latest result with a reference, or NULL before the first. */
struct interference_result *interference_result(struct interference *ifr);

/* Bytes the analysis state holds (its arrays as allocated), and the
 * cgroups it tracks: what the bench measures. */
size_t interference_state_bytes(const struct interference *ifr);
size_t interference_tracked(const struct interference *ifr);

/* Stop the thread and free everything; NULL is fine. */
void interference_free(struct interference *ifr);

/*
 * The file the analysis keeps its baselines in across restarts
 * (--analysis.state-file; docs/interference.md, "After a restart"): read
 * now, its baselines given to the cgroups met in the next hour of
 * samples that have its path or its workload; written every 5 minutes of
 * snapshots and when the thread stops.  log says how each went (one
 * line; a refused file is one line and a fresh start).  Before
 * interference_start, once.  path NULL: nothing kept (the default).
 * 0, or -ENOMEM.
 */
int interference_state_file(struct interference *ifr, const char *path,
    void (*log)(int prio, const char *fmt, ...));
/* Write it now: the owning thread's (a test feeding the analysis
 * itself).  0 or -errno (logged). */
int interference_state_save(struct interference *ifr);

#endif
