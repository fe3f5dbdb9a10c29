/*
 * interference_config.h - the interference: block's struct, the
 * analysis's fixed sizes and how it cuts time (interference_config.c),
 * below every other file of analysis/ and read by config/.
 * Design: docs/architecture.md, "analysis/".
 */
#ifndef PMU_INTERFERENCE_CONFIG_H
#define PMU_INTERFERENCE_CONFIG_H

#include <stdint.h>

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

#endif
