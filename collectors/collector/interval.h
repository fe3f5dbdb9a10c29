/*
 * interval.h - the collector's time (interval.c): the timer, a pass for
 * a new plan, and the calls a tick makes.  The schedule is interval.c's
 * alone: the passes set what they found in the struct asks they are
 * handed.  See docs/architecture.md, "Layers and threads".
 */
#ifndef PMU_COLLECTOR_INTERVAL_H
#define PMU_COLLECTOR_INTERVAL_H

#include "collectors/collector/targetset.h"

struct collector;
struct plan;

/* interval_init: nothing armed; interval_fini closes the timer. */
void interval_init(struct collector *c);
void interval_fini(struct collector *c);

/*
 * The timer: interval_arm makes it (once) and arms it at the plan's
 * interval, expiring every interval from now; 0 or -errno.
 * interval_timer_fd: the fd to poll, -1 before.  interval_expired reads
 * it: 1 when it expired, the collection that follows timed from its
 * expiry; 0 when not.
 */
int interval_arm(struct collector *c);
int interval_timer_fd(const struct collector *c);
int interval_expired(struct collector *c);

/*
 * A pass of the target set for a new plan, cfg (RECONCILE_START, or
 * RECONCILE_RELOAD), with the schedule's asks; a reload re-arms the
 * timer (when armed) if cfg's interval is not the one in effect.  As
 * targetset_reconcile, or the timer's -errno when only that failed.
 */
int interval_replan(struct collector *c, const struct plan *cfg,
    enum reconcile_reason why);

/* A cgroup came or went (inotify): rescan at the next collection. */
void interval_cgroups_changed(struct collector *c);

/*
 * One tick, the two calls the thread makes every interval (collector.h's
 * collector_tend and collector_collect are these, for tests and
 * benchmarks): interval_tend does what is due first (a rebuild after a
 * CPU change, reopening what failed, a cgroup rescan); interval_collect
 * reads every open instance and publishes the snapshot.
 */
void interval_tend(struct collector *c);
void interval_collect(struct collector *c);

/*
 * At start, before the thread: interval_tend, then the first collection,
 * published only once the name resolver has looked up the container ids
 * it counts (each target it held out for its names is then shown; at
 * most an interval, and 2 s, and the collection made again): a daemon
 * restarted under a running scrape answers its first scrape with every
 * container, named, as before the restart.
 */
void interval_first(struct collector *c);

#endif
