/*
 * collector.h - the collector: turns a config into open perf groups and,
 * from one thread, reads them every interval into published snapshots.
 *
 * Targets are merged before anything opens: a CPU or a cgroup matched by
 * several config entries gets the union of their groups, each once, so no
 * series is ever exported twice.  cgroup patterns are re-expanded when
 * inotify sees a directory come or go, and in full every
 * cgroup_rescan_interval: new cgroups are opened (within the fd budget),
 * vanished ones closed.  A change in the online CPUs rebuilds the targets
 * the way a reload does, so unaffected instances keep their counters.
 *
 * The collector does not log by itself; it reports through the log hook
 * the daemon gives it, once per state change, never once per interval.
 */
#ifndef PMU_COLLECTOR_H
#define PMU_COLLECTOR_H

#include <stdint.h>
#include <stdio.h>

#include "collectors/collector/snapshot.h"
#include "collectors/collector/plan.h"
#include "collectors/perf/denied.h"
#include "collectors/collector/opts.h"
#include "util/logfields.h"

struct collector;

/*
 * Resolve targets and open every group instance (disabled until
 * collector_start).  cfg is borrowed and must outlive the collector.
 * Returns 0, or -errno with a message in err when nothing can work at all
 * (no CPU list, no memory); per-event and per-cgroup problems are reported
 * through the log hook and do not fail.
 */
int collector_new(const struct plan *cfg, const struct collector_opts *o,
    struct collector **out, char *err, size_t errlen);

/*
 * Enable everything, collect once and publish that snapshot, then start
 * the thread.  After it returns, a snapshot with real readings exists.
 */
int collector_start(struct collector *c);

/*
 * Switch to a new config.  Every (target, group, CPU) instance whose group
 * is unchanged (same name, same events) keeps its fds and its counters, so
 * its series continue; changed ones are reopened, removed ones closed.
 * A request to the collector thread when it runs, answered after it has
 * collected once with the new config (so the next snapshot shows it);
 * `when` (wall clock) is what the self-metrics give as the last successful
 * load.  cfg must outlive the collector (or the next reload); the old
 * config may be freed when this returns 0 or -ENOMEM.  Out of memory:
 * -ECANCELED when nothing changed (the old config runs on; cfg may be
 * freed), -ENOMEM when cfg runs (what did not open is opened at the next
 * cgroup rescan).  Either way the self-metrics say the reload failed.
 */
int collector_reload(struct collector *c, const struct plan *cfg, double when);

/* A reload that failed before it reached us: the self-metrics say so. */
void collector_reload_failed(struct collector *c);

/*
 * One tick of the collector thread, which makes both calls every
 * interval; tests and benchmarks make them directly on a collector that
 * was never started (never both at once).  collector_tend does what is
 * due first: a rebuild after a CPU change, reopening what failed, a
 * cgroup rescan.  collector_collect reads every open instance and
 * publishes the snapshot.  Before the first, groups must have been
 * enabled with collector_enable.
 */
void collector_tend(struct collector *c);
void collector_collect(struct collector *c);

/* Enable every open group (collector_start does this itself). */
void collector_enable(struct collector *c);

void collector_free(struct collector *c);

/* The latest snapshot with a reference (snapshot_unref it), or NULL. */
struct snapshot *collector_snapshot(struct collector *c);

/* Bumped after every collection: the collector's heartbeat. */
uint64_t collector_heartbeat(struct collector *c);

/*
 * For --check-config: enable, wait wait_ms, read once, and describe every
 * target, group and event (supported or errno text, never scheduled).
 * Returns the number of problems found.
 */
int probe_check_config(struct collector *c, FILE *out, unsigned wait_ms);

/*
 * Before collector_start only (after it, the thread owns this and the
 * snapshot tells): did perf_event_open refuse us for lack of privilege
 * (EACCES/EPERM), and why?  DENIED_NONE if it never did.  The first
 * refusal was reported through the log hook with what to change.
 */
enum denied_cause collector_denied(const struct collector *c);

/* Before collector_start only (after it, see snapshot->open_fds). */
size_t collector_open_fds(const struct collector *c);

/*
 * What a snapshot says is being counted, for logs and the status line:
 * "3 groups on 2 CPUs and 41 cgroups (...)".  Any thread.
 */
void collector_summary(const struct snapshot *s, char *buf, size_t len);

#endif
