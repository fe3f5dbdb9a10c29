/*
 * snapshot.h - one collection's results, immutable once published.
 *
 * The collector builds a snapshot completely, then publishes it by pointer
 * swap (util/publish.h, as every hand-over between threads is).  Readers take a reference and never see it change; the last
 * reference frees it.  It is data: counts, labels and statistics.  What
 * the HTTP side renders from it is cached there (daemon/expo/scrape.h), keyed
 * by the snapshot.
 */
#ifndef PMU_SNAPSHOT_H
#define PMU_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "util/publish.h"

/*
 * A source kind's own statistics (source.h), as the exposition shows
 * them: plain data the kind fills in at its stats hook, in the snapshot's
 * arena (names, help texts and label values may be the kind's constant
 * strings), so that the HTTP side renders them without knowing the kind
 * and no reader of a snapshot sees a kind's own headers.
 */

/* Matched cgroups the kind did not count, for one reason: a sample of
 * pmu_exporter_cgroups_skipped. */
struct snap_skip {
	const char *reason;		/* its reason label */
	size_t count;
};

/* One metric family: nr samples, each with one label, or a single
 * sample without labels. */
struct snap_metric {
	const char *name;		/* the whole name, _total and all */
	const char *type;		/* "gauge", "counter" */
	const char *help;
	size_t nr;			/* samples */
	const char *label;		/* their label's name; NULL: none */
	const char *const *label_values;	/* [nr], when label */
	const double *values;		/* [nr] */
};

struct snap_source {
	const char *kind;		/* its name in source_kinds[] */
	int wanted;			/* a cgroups entry asks for it: its
					   skipped and metrics are shown
					   only then */
	size_t nr_skipped;
	struct snap_skip *skipped;
	size_t nr_metrics;
	struct snap_metric *metrics;	/* in the order they are shown */
};

/* One (target, group) row: a group on one CPU, or on a cgroup. */
struct snap_row {
	const char *cgroup;		/* NULL for CPU targets */
	uint64_t cgroup_id;		/* the cgroup counted (target.h's id):
					   another at the same path after a
					   restart of what runs in it */
	size_t nr_labels;		/* from relabel rules */
	const char **label_names, **label_values;
	int cpu;			/* -1 when summed over CPUs */
	const char *group;
	size_t nr_events;
	const char **events;		/* names, as configured */
	const unsigned char *counted;	/* [event]: open on an instance */
	const double *values;		/* scaled, monotonic */
	double enabled_s, running_s;	/* summed over the row's instances */
	const char *pmu;		/* hybrid: the core PMU, else NULL */
	int hidden;			/* a pod's sandbox: pmu_cgroup_hidden_* */
};

/*
 * Health of one config group across its instances, over the last
 * interval.  An instance is one (target, CPU) perf group.
 */
struct snap_group_health {
	const char *group;
	size_t instances;		/* open and counting */
	double worst_ratio;		/* min running/enabled; NaN: none ran */
	size_t starved;			/* enabled but never running */
};

/* Instances whose event failed to open, per (group, event, errno,
 * reason). */
struct snap_open_error {
	const char *group;
	const char *event;
	int err;			/* errno value */
	int no_perf_cgroup;		/* the cgroup's fault, not the event's */
	size_t count;
};

/* Whether an event opened anywhere; one per (group, event). */
struct snap_support {
	const char *group;
	const char *event;
	int supported;
	const char *pmu;		/* the PMU the event belongs to */
};

/* A topdown preset group's definition on one core PMU (plan.h). */
struct snap_topdown {
	const char *group;
	const char *pmu;
	const char *definition;
	int level;
	unsigned slots_per_cycle;	/* 0: the formulas need none */
};

struct snapshot {
	struct publish_ref ref;		/* util/publish.h */
	uint64_t seq;			/* collections so far */
	double timestamp_s;		/* wall clock when taken */
	/* Its time, from the one owner of the interval (interval.c): */
	double interval_s;		/* the interval in effect */
	uint64_t began_ns;		/* when its collection began, its
					   timer's expiry (CLOCK_MONOTONIC):
					   what elapsed between two snapshots
					   is the difference */
	double duration_s;		/* its collection's real length,
					   from began_ns to this snapshot */
	uint64_t intervals_missed;	/* intervals since start that had no
					   collection: the collector late */
	size_t open_fds;		/* perf fds held */
	size_t cgroups_matched;		/* cgroups the config names now */
	size_t cgroups_counted;		/* ... and counted */
	size_t cgroups_skipped;		/* ... over the fd budget */
	size_t cgroups_no_perf;		/* ... with no perf_event state */
	uint64_t cgroups_remade;	/* cgroups removed and made again at
					   their path since start */
	size_t nr_sources;
	struct snap_source *sources;	/* one per source kind, in order */
	struct snap_source own;		/* the collector's own reasons and
					   families: subtrees the cgroup
					   walks left out, the delegated
					   subtrees' shares */
	int reload_ok;			/* the last reload worked */
	double reload_success_s;	/* when the config last loaded */
	size_t nr_rows;
	struct snap_row *rows;		/* CPU rows first, then cgroup rows */
	size_t nr_support;
	struct snap_support *support;
	size_t nr_topdown;
	struct snap_topdown *topdown;
	size_t nr_cgroups;		/* cgroup targets counted */
	size_t nr_cpus;			/* CPUs counted system-wide */
	/* For the status line (collector_summary). */
	size_t nr_groups;		/* config groups */
	size_t cpus_covered;		/* online CPUs any instance counts on */
	size_t cgroups_opened;		/* cgroup targets with instances */
	size_t nr_unsupported;		/* (group, event) opened nowhere */
	int denied;			/* perf_event_open said EACCES/EPERM */
	size_t nr_health;
	struct snap_group_health *health;	/* one per config group */
	size_t nr_open_errors;
	struct snap_open_error *open_errors;


	/* Arena for everything above, but the name labels' values: those
	 * point into the resolver's map, held (names.h; NULL: none). */
	struct snap_chunk *chunks;
	struct namemap *names;
};

struct snapshot *snapshot_new(void);

/* Allocate from the snapshot's arena (8-byte aligned); NULL on ENOMEM. */
void *snapshot_alloc(struct snapshot *s, size_t n);
char *snapshot_strdup(struct snapshot *s, const char *str);

void snapshot_ref(struct snapshot *s);
void snapshot_unref(struct snapshot *s);

/* The slot readers take the current snapshot from. */
struct snapshot_slot {
	struct publish_slot p;
};

void snapshot_slot_init(struct snapshot_slot *slot);
/* Publish s (the slot takes the caller's reference). */
void snapshot_publish(struct snapshot_slot *slot, struct snapshot *s);
/* The current snapshot with a reference, or NULL before the first. */
struct snapshot *snapshot_get(struct snapshot_slot *slot);
void snapshot_slot_fini(struct snapshot_slot *slot);

#endif
