/*
 * bpfcg.h - the BPF cgroup counter as user space sees it: load it, give it
 * this CPU's counters, attach it, tell it which cgroups to charge, read what
 * they were charged.  Built from bpfcg.c with --enable-bpf, else from
 * bpfcg_none.c.
 * Design: docs/bpf.md; docs/architecture.md, "collectors/bpf/".
 */
#ifndef PMU_BPFCG_H
#define PMU_BPFCG_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/bpf/cgcount.h"
#include "collectors/perf/cpumap.h"
#include "collectors/perf/scale.h"

struct bpfcg;

/* Counters per CPU across every bpf-mode group. */
#define BPFCG_MAX_EVENTS CGC_MAX_EVENTS

/* When the program runs. */
enum bpfcg_trigger {
	/* At a context switch that changes cgroup: the BTF-typed
	 * sched_switch tracepoint, returning at once when the outgoing and
	 * incoming tasks share a cgroup (needs the kernel's BTF). */
	BPFCG_TRIGGER_CGROUP_CHANGE,
	/* At every context switch: the sched_switch raw tracepoint. */
	BPFCG_TRIGGER_EVERY_SWITCH,
	/* At perf's cgroup-switches software event (bench/bpf_trigger). */
	BPFCG_TRIGGER_CGROUP_SWITCHES
};

struct bpfcg_stats {
	int trigger;			/* enum bpfcg_trigger */
	uint64_t runs;			/* program runs */
	uint64_t switches;		/* BPFCG_CGROUP_SWITCHES: how many the
					   kernel counted; else 0 */
	uint64_t switch_runs;		/* ... at a context switch (that
					   changed cgroup) */
	uint64_t read_errors;		/* counter reads that failed */
	uint64_t charges;		/* (run, tracked cgroup) pairs */
	uint64_t prog_misses;		/* runs the kernel skipped */
	uint64_t unseen;		/* gaps in the switches seen */
	uint64_t full;			/* cgroups refused: no free slot */
	int lag;			/* BPFCG_MEASURE_LAG: the probe runs */
	uint64_t lag_ns[CGC_CHANGE_NR];	/* ... by enum cgc_change: ns from the
					   reading at the tracepoint to
					   perf's cgroup switch, summed, */
	uint64_t lag_n[CGC_CHANGE_NR];	/* ... over so many switches */
	size_t entries;			/* cgroups tracked now */
	size_t capacity;		/* ... at most */
};

/* Was the daemon built with BPF support? */
int bpfcg_built(void);

/* bpfcg_open flags: a trigger other than the default, for
 * bench/bpf_trigger and the tests, which compare them. */
enum {
	/* perf's bperf trigger, the cgroup-switches software event. */
	BPFCG_CGROUP_SWITCHES = 1,
	/* Every context switch, as where the kernel has no BTF. */
	BPFCG_EVERY_SWITCH = 2,
	/* The lag probe too (cgcount.bpf.h, on_lag; not with
	 * BPFCG_CGROUP_SWITCHES): a program on a cgroup-switches event per
	 * CPU that times the path from the program's reading at a switch to
	 * perf's cgroup switch.  Left out, and counting goes on, where the
	 * kernel has no cgroup-switches event. */
	BPFCG_MEASURE_LAG = 4
};

/*
 * Load the program for nr_events counters per CPU (at most
 * CGC_MAX_EVENTS) and up to max_cgroups cgroups: the one that runs at
 * cgroup changes when the kernel allows it, else the one that runs at
 * every context switch (bpfcg_trigger says which, and why).  0, or -errno
 * with the reason (what is missing: privilege, kernel support) in why.
 */
int bpfcg_open(size_t nr_events, size_t max_cgroups, unsigned flags,
    struct bpfcg **out, char *why, size_t len);

/*
 * Which trigger the loaded program runs at (enum bpfcg_trigger); when it
 * is not BPFCG_TRIGGER_CGROUP_CHANGE, *why (if why) says why not.
 */
int bpfcg_trigger(const struct bpfcg *b, const char **why);

/* Counter ev on cpu is the perf event fd (kept by the caller). */
int bpfcg_set_counter(struct bpfcg *b, int cpu, size_t ev, int fd);

/*
 * Run the program at context switches (its trigger), and once on each of
 * cpus at every bpfcg_refresh.  0, or -errno with the reason in why.
 */
int bpfcg_attach(struct bpfcg *b, const struct cpumap *cpus, char *why,
    size_t len);

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

void bpfcg_get_stats(const struct bpfcg *b, struct bpfcg_stats *st);

/* File descriptors the program holds: maps, programs, switch events. */
size_t bpfcg_fds(const struct bpfcg *b);

void bpfcg_close(struct bpfcg *b);

#endif
