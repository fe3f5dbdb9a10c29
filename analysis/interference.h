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

#include "analysis/interference_config.h"
#include "analysis/result.h"
#include "analysis/state.h"
#include "collectors/collector/snapshot.h"

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

#endif
