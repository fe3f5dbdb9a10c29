/*
 * plan.h - what the collector is asked to count: groups of events, each
 * event already resolved to its perf_event_attr, and targets (CPUs,
 * cgroup patterns) naming the groups they count.  A plain, immutable
 * struct that config/ builds from the YAML; the collector only reads it,
 * and frees it with plan_free.  Keeping it here, with the code that
 * counts, lets collectors/ know nothing of YAML.
 */
#ifndef PMU_PLAN_H
#define PMU_PLAN_H

#include <stddef.h>
#include <regex.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "collectors/perf/cpumap.h"

/*
 * One event of a group.  What every kind reads: its name (label event=),
 * the PMU it belongs to, its scale, where it is written.  What counts it
 * is a kind's own part: the kinds that open perf events (perf, and the
 * one that charges counters to cgroups) read perf, the event parser's
 * resolution of the name; a kind that counts something else (a resctrl
 * reader, say) reads the name and pmu and never perf.  Above the kinds
 * the collector compares and copies perf only to hand it to them
 * (source_ctx.attrs).  config/ resolves every name through the event
 * parser today, so such a kind's events must be names it knows too.
 */
struct plan_event_perf {
	struct perf_event_attr attr;
};

struct plan_event {
	char *name;			/* as written, becomes label event= */
	char *pmu;			/* "cpu", "software", "power"... */
	double scale;			/* sysfs .scale (RAPL: to joules), else 1 */
	int line, col;
	struct plan_event_perf perf;	/* the perf kinds' part */
};

/*
 * A group holds events of at most one hardware PMU plus software events.
 * On a hybrid machine a group of generic events is expanded into one
 * plan_group per core PMU: same name, consecutive, hybrid set, each opened
 * only on its PMU's CPUs and exported with a pmu label.
 */
struct plan_group {
	char *name;			/* label group= */
	size_t nr_events;
	struct plan_event *events;
	char *pmu;			/* its hardware PMU, NULL if software only */
	int hybrid;			/* one of several per-core-PMU copies */
	int uncore;			/* an uncore/RAPL PMU: CPU targets only */
	int pmu_cpus;			/* the PMU covers only the CPUs in cpus */
	struct cpumap cpus;
	int line, col;
	/* A preset group (- {name: td, preset: topdown}) is expanded into
	 * one copy per core PMU, always exported with a pmu label.  A copy
	 * whose PMU offers none of the preset's events has no events, is
	 * named by no target, and says so through missing ("topdown"). */
	int preset;
	char *definition;		/* "intel_perf_metrics"..., or NULL */
	int level;			/* top-down level its events allow */
	unsigned slots_per_cycle;	/* width the formulas use; 0: none */
	size_t nr_missing;
	char **missing;			/* events the definition wants that
					   this PMU lacks: unsupported */
	char *why;			/* the reason, for the log */
};

/*
 * One relabel rule: if the cgroup path fully matches regex, the series get
 * target_label="replacement" with $1..$9 (or ${1}) filled from the groups,
 * and then every occurrence of each replace_from[i] in the value replaced
 * by replace_to[i], in order (systemd's "_" for "-" in a pod uid, its
 * "\x2d" for "-" in a machine name).
 */
struct plan_relabel {
	regex_t re;			/* "^(" regex ")$", POSIX ERE */
	char *target_label;
	char *replacement;
	size_t nr_replace;
	char **replace_from, **replace_to;
	int line, col;
};

enum plan_target_kind { PLAN_TARGET_CPU, PLAN_TARGET_CGROUP };

/* What the cgroups of an entry get when the mode it names cannot run
 * here. */
enum plan_fallback {
	PLAN_FALLBACK_PERF,		/* counted in perf mode instead */
	PLAN_FALLBACK_REFUSE,		/* not counted: a problem */
	PLAN_FALLBACK_SKIP		/* not counted, as the entry asks */
};

/* An entry's walk unless it says otherwise (config.c): the levels a "**"
 * spans, and the directories it opens in a pass. */
#define PLAN_DEFAULT_DEPTH 32
#define PLAN_DEFAULT_MAX_DIRS 10000
/* The share of each delegated subtree (a user's) unless the config says. */
#define PLAN_DEFAULT_DELEGATED_MAX 16

struct plan_target {
	enum plan_target_kind kind;
	int all_cpus;			/* cpus: all */
	struct cpumap cpus;		/* otherwise the listed CPUs */
	char *path;			/* cgroup path or pattern, from the root */
	int per_cpu;			/* cgroup: export a cpu label */
	unsigned depth;			/* levels "**" may span; 0: any */
	size_t max_dirs;		/* directories its walk opens in a
					   pass (cgroupfs_expand); 0: any */
	size_t nr_exclude;
	char **exclude;			/* patterns of cgroups left out */
	size_t nr_relabel;
	struct plan_relabel *relabel;
	size_t nr_groups;
	size_t *groups;			/* indices into config.groups */
	/* cgroup: the source kind its mode: names (source.h), NULL for
	 * perf mode, and what its cgroups get where that kind cannot run. */
	char *mode;
	enum plan_fallback fallback;
	size_t layout;			/* cgroup: 1 + index in plan.layouts,
					   0 for an entry without a layout */
	int mode_line, mode_col;	/* where mode: is written */
	int line, col;
};

/*
 * A top-level setting that belongs to one mode (a source kind, by name)
 * rather than to the collector: the kind asks for it by key
 * (plan_mode_option) and gives its own default.
 */
struct plan_mode_option {
	char *mode;			/* the kind's name */
	char *key;			/* "max_cgroups"... */
	uint64_t value;
};

/*
 * What a plan may say of a source kind, as the kind describes itself
 * (its struct source_kind points here, source.h): config/ reads these
 * descriptions, never the kinds table, so it learns the mode names, which
 * modes take a fallback:, and each mode's options, and checks what the
 * text alone can tell, without knowing any kind.
 */
struct plan_kind_option {
	const char *key;		/* under modes.<kind>: "max_cgroups" */
	const char *old_key;		/* the same at the top level, an
					   older spelling kept; NULL: none */
	uint64_t min, max, dflt;	/* a whole number in [min, max] */
};

struct plan_kind {
	const char *name;		/* mode: NAME, and the kind's name */
	/* It may not run everywhere: its entries take fallback: (perf,
	 * refuse or skip), spelled old_fallback too when that is set. */
	int falls_back;
	const char *old_fallback;	/* an older name; NULL: none */
	size_t nr_options;
	const struct plan_kind_option *options;
	/* The most events the groups of its entries may have in all (they
	 * share one set of counters per CPU); 0: no limit. */
	size_t max_events;
	/* Why it cannot count a preset group (one read through its
	 * leader); NULL: it can. */
	const char *no_preset;
	/* Why this build cannot run it at all; NULL: it can.  NULL hook:
	 * always built. */
	const char *(*unbuilt)(void);
	/* Can it run on this machine, read from procfs and sysfs (they
	 * may be elsewhere than /proc and /sys)?  0, or -errno with the
	 * reason in why.  Asked at load where an entry's fallback:
	 * refuses (config_machine_check), so the config is refused rather
	 * than its cgroups silently not counted.  NULL: it always can. */
	int (*runs_here)(const char *procfs, const char *sysfs, char *why,
	    size_t len);
};

/* The kinds a plan may name: the descriptions of the kinds table's
 * entries, the default kind (perf) first; NULL past the last.  Defined
 * with the table (source.c). */
const struct plan_kind *plan_kind_at(size_t i);

/* The kind named name, or NULL. */
const struct plan_kind *plan_kind_named(const char *name);

/* At most this many kinds in a build (the table's slots). */
#define PLAN_KINDS_MAX 16

struct plan {
	char *source;			/* file name, or "<default>" */
	uint64_t interval_ns;
	uint64_t rescan_ns;		/* full cgroup rescan, besides inotify */
	uint64_t max_fds;		/* perf fd budget; 0: a share of the limit */
	size_t delegated_max;		/* cgroups each delegated subtree may
					   have counted (targetset.c) */
	size_t nr_mode_options;
	struct plan_mode_option *mode_options;
	size_t nr_groups;
	struct plan_group *groups;
	size_t nr_targets;
	struct plan_target *targets;
	size_t nr_layouts;		/* the distinct layout: names, in */
	char **layouts;			/* the order they first appear */
};

/*
 * Apply rule r to a cgroup path: 1 and the label value in out if the path
 * matches (the value may be empty: then no label), 0 if it does not.
 */
int plan_relabel_apply(const struct plan_relabel *r, const char *path,
    char *out, size_t len);

/* The value of mode's option key, or dflt when the plan sets none. */
uint64_t plan_mode_option(const struct plan *plan, const char *mode,
    const char *key, uint64_t dflt);

/* Does cgroups entry t ask for the mode named mode? */
int plan_target_mode_is(const struct plan_target *t, const char *mode);

/* Free a plan and everything in it; NULL is fine. */
void plan_free(struct plan *plan);

/* Same name and the very same events (names and attrs): a group a
 * reload may keep counting. */
int plan_group_same(const struct plan_group *a, const struct plan_group *b);

#endif
