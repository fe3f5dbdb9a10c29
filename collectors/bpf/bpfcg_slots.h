/*
 * bpfcg_slots.h - the BPF cgroup counter's slots and reads
 * (bpfcg_slots.c; bpfcg_none.c without BPF).
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#ifndef PMU_BPFCG_SLOTS_H
#define PMU_BPFCG_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/perf/scale.h"

struct bpfcg;

/*
 * Charge the cgroup with this id (and so its descendants' tasks) from now
 * on.  0: a new slot, its counts zero; 1: the id's slot already (another
 * reference), whose counts are what they are; -ENOSPC when max_cgroups
 * are tracked.
 */
int bpfcg_track(struct bpfcg *b, uint64_t cgid, uint32_t *slot);

/* Drop a reference; the last one stops charging and frees the slot. */
void bpfcg_untrack(struct bpfcg *b, uint32_t slot);

/* Freed slots not reusable yet (until the next refresh). */
size_t bpfcg_pending(const struct bpfcg *b);

/*
 * Charge every CPU's pending counts to whatever runs there now, then read
 * every tracked cgroup's totals (one batch read).  0 or -errno; on an
 * error bpfcg_read goes on giving the previous values.
 */
int bpfcg_refresh(struct bpfcg *b);

/*
 * After a refresh: what slot was charged for counter ev on cpu so far.
 * 0, or -EAGAIN when the last refresh failed (nothing to read: not 0).
 */
int bpfcg_read(const struct bpfcg *b, uint32_t slot, size_t ev, int cpu,
    struct count *out);

#endif
