/*
 * snapshot.h - one collection's results, immutable once published.
 *
 * The collector builds a snapshot completely, then publishes it by pointer
 * swap.  Readers take a reference and never see it change; the last
 * reference frees it.  The exposition text is rendered lazily, at most once
 * per snapshot, by the first reader that wants it, and shared by every
 * later reader: an interval nobody scrapes costs no formatting.  The only
 * lock a reader can meet is that one-time render; none is held while a
 * response is written.
 */
#ifndef PMU_SNAPSHOT_H
#define PMU_SNAPSHOT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One (target, group) row: a group on one CPU, or on a cgroup. */
struct snap_row {
	const char *cgroup;		/* NULL for CPU targets */
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
};

/* Whether an event opened anywhere; one per (group, event). */
struct snap_support {
	const char *group;
	const char *event;
	int supported;
	const char *pmu;		/* the PMU the event belongs to */
};

struct snapshot {
	atomic_int refs;
	uint64_t seq;			/* collections so far */
	double timestamp_s;		/* wall clock when taken */
	double duration_s;		/* how long the collection took */
	double interval_s;		/* the configured interval */
	size_t open_fds;		/* perf fds held */
	size_t cgroups_matched;		/* cgroups the config names now */
	size_t cgroups_counted;		/* ... and counted */
	size_t cgroups_skipped;		/* ... over the fd budget */
	int reload_ok;			/* the last reload worked */
	double reload_success_s;	/* when the config last loaded */
	size_t nr_rows;
	struct snap_row *rows;		/* CPU rows first, then cgroup rows */
	size_t nr_support;
	struct snap_support *support;

	/* Render cache, filled once. */
	pthread_mutex_t render_lock;
	atomic_int rendered;
	char *text;
	size_t text_len;

	/* Arena for everything above. */
	struct snap_chunk *chunks;
};

struct snapshot *snapshot_new(void);

/* Allocate from the snapshot's arena (8-byte aligned); NULL on ENOMEM. */
void *snapshot_alloc(struct snapshot *s, size_t n);
char *snapshot_strdup(struct snapshot *s, const char *str);

void snapshot_ref(struct snapshot *s);
void snapshot_unref(struct snapshot *s);

/*
 * The rendered text, produced by render() on first use.  render returns a
 * malloc'ed buffer (owned by the snapshot afterwards) or NULL on ENOMEM.
 */
const char *snapshot_text(struct snapshot *s, size_t *len,
    char *(*render)(const struct snapshot *, size_t *));

/* The slot readers take the current snapshot from. */
struct snapshot_slot {
	pthread_mutex_t lock;		/* held only to swap or take a ref */
	struct snapshot *cur;
};

void snapshot_slot_init(struct snapshot_slot *slot);
/* Publish s (the slot takes the caller's reference). */
void snapshot_publish(struct snapshot_slot *slot, struct snapshot *s);
/* The current snapshot with a reference, or NULL before the first. */
struct snapshot *snapshot_get(struct snapshot_slot *slot);
void snapshot_slot_fini(struct snapshot_slot *slot);

#endif
