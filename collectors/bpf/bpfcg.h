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

#include "collectors/bpf/bpfcg_slots.h"
#include "collectors/bpf/bpfcg_types.h"
#include "collectors/bpf/cgcount.h"
#include "collectors/perf/cpumap.h"
#include "collectors/perf/scale.h"

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

void bpfcg_get_stats(const struct bpfcg *b, struct bpfcg_stats *st);

/* File descriptors the program holds: maps, programs, switch events. */
size_t bpfcg_fds(const struct bpfcg *b);

void bpfcg_close(struct bpfcg *b);

#endif
