/*
 * bpfcg_types.h - the BPF cgroup counter's words that its loader's files
 * and its users share: the object, the trigger, the statistics.  Below
 * every file of collectors/bpf/ but the programs'.
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#ifndef PMU_BPFCG_TYPES_H
#define PMU_BPFCG_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/bpf/cgcount.h"

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

#endif
