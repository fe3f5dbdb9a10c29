/*
 * cgcount.h - what the BPF programs (cgcount.bpf.h) and their loader (bpfcg.c)
 * agree on: limits, the maps' value layout, the program's statistics.
 * Included by both sides, so only fixed-width kernel types.
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#ifndef PMU_CGCOUNT_H
#define PMU_CGCOUNT_H

#include <linux/types.h>

/*
 * Counters per CPU across every bpf-mode group: the program's per-CPU
 * state holds their last readings, and 32 is four times what any PMU can
 * count at once.
 */
#define CGC_MAX_EVENTS 32

/*
 * Levels of the running task's cgroup path the program looks up: a cgroup
 * at level L (the root is 0) is charged for its descendants down to level
 * CGC_MAX_LEVELS - 1.  Container runtimes nest 4 to 6 levels deep.
 */
#define CGC_MAX_LEVELS 32

/* One (cgroup, event) on one CPU, charged at each cgroup switch. */
struct cgc_value {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/* Kinds of cgroup change at a switch, for the lag probe. */
enum cgc_change {
	CGC_CHANGE_BETWEEN,	/* from one cgroup to another, neither the root */
	CGC_CHANGE_INTO_ROOT,	/* into the root cgroup: the idle task's */
	CGC_CHANGE_OUT_OF_ROOT,	/* out of it */
	CGC_CHANGE_NR
};

/* Statistics, per CPU. */
enum {
	CGC_STAT_RUNS,		/* program runs: switches and triggers */
	CGC_STAT_SWITCH_RUNS,	/* ... of them at a cgroup switch */
	CGC_STAT_READ_ERRORS,	/* bpf_perf_event_read_value failed */
	CGC_STAT_CHARGES,	/* (run, tracked cgroup) pairs charged */
	CGC_STAT_UNSEEN,	/* gaps in the tracepoint's switches */
	/*
	 * The lag probe (cgcount.bpf.h, on_lag): per kind of cgroup
	 * change (enum cgc_change), ns from the program's reading at the
	 * sched_switch tracepoint to perf_event_task_sched_out(), where
	 * perf switches cgroup events, and how many switches were timed.
	 */
	CGC_STAT_LAG_NS,
	CGC_STAT_LAG_N = CGC_STAT_LAG_NS + CGC_CHANGE_NR,
	CGC_STAT_NR = CGC_STAT_LAG_N + CGC_CHANGE_NR
};

/*
 * The tracked cgroups on a cgroup's path, root first, as the walk in
 * charge() found them: the program's per-CPU state for the task it last
 * charged, and a cached copy per cgroup id (the paths map) while gen is
 * the loader's path_gen.
 */
struct cgc_path {
	__u32 gen;				/* path_gen when walked */
	__u32 n;				/* slots in slot[] */
	__u32 rooted;				/* slot[0] is the root's */
	__u32 pad;
	__u32 slot[CGC_MAX_LEVELS];
};

/* The program's per-CPU state: one lookup a run. */
struct cgc_cpu {
	__u64 primed;				/* last[] holds a reading */
	__u64 css;				/* cgchange.bpf.c: the css_set
						   whose tasks ran since the
						   last run; 0: unknown */
	__u64 next;				/* the task the last switch
						   seen switched to */
	__u64 stat[CGC_STAT_NR];
	struct cgc_path path;			/* the tracked cgroups on the
						   path of the task the last
						   run charged */
	__u32 pending;				/* delta[] (and rest[]) are
						   still to add to path[] */
	__u32 parted;				/* rest[] is the root's */
	__u64 into_root;			/* cgchange.bpf.c: the last run
						   was a switch into the root
						   cgroup, */
	__u64 root_sum;				/* ... whose task had then run
						   so long (se.sum_exec_runtime) */
	__u64 read_ns;				/* the lag probe: when the last
						   run at a switch read the
						   counters (0: none to time), */
	__u64 read_change;			/* ... at which enum cgc_change */
	struct cgc_value last[CGC_MAX_EVENTS];	/* the previous reading */
	struct cgc_value delta[CGC_MAX_EVENTS];	/* the last run's interval:
						   path[]'s part */
	struct cgc_value rest[CGC_MAX_EVENTS];	/* ... and the root's, what
						   tasks the tracepoint did
						   not show ran
						   (cgchange.bpf.c) */
};

#endif
