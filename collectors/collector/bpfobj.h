/*
 * bpfobj.h - mode: bpf's object (bpfobj.c): the BPF program, its map of
 * cgroup slots, and the counters it reads, opened once per online CPU
 * for the plan's bpf-mode groups.  Its source kind (source_bpf.c) keeps
 * one in use, shares it by reference with the targets that hold a slot,
 * and reads it; this file builds and frees it.  Collector thread only.
 */
#ifndef PMU_BPFOBJ_H
#define PMU_BPFOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/collector/plan.h"
#include "collectors/perf/cpumap.h"
#include "collectors/perf/group.h"

struct bpfcg;
struct source;
struct source_at;
struct source_ctx;
struct source_hold;
struct source_opened;

/* One bpf-mode group: a copy of what identifies it, and its counters. */
struct bgroup {
	struct plan_group id;		/* name, events' names and attrs only */
	size_t gi;			/* index in the current plan */
	size_t base;			/* first counter index in the program */
	struct perf_group *pg;		/* [cpus.nr] */
};

struct bpfobj {
	unsigned refs;
	struct bpfcg *cg;
	size_t nr_groups;
	struct bgroup *g;
	struct cpumap cpus;
	size_t max_cgroups;
	int incomplete;			/* a CPU said ENODEV: build again */
};

/* A new object for the plan's groups where want[gi] (nwant of them),
 * on x's online CPUs, with max_cgroups slots in its map (the kind's
 * option), one reference held; 0, or -errno with the reason in why.  A
 * CPU not ready for perf yet asks a retry soon (x). */
int bpfobj_build(const struct source_ctx *x, const unsigned char *want,
    size_t nwant, size_t max_cgroups, struct bpfobj **out, char *why,
    size_t len);
/* Can b serve x's plan as it is (groups, CPUs, max_cgroups slots)?
 * Then its groups are pointed at the plan's indices.  1 or 0. */
int bpfobj_fits(const struct source_ctx *x, struct bpfobj *b,
    const unsigned char *want, size_t nwant, size_t max_cgroups);
/* PMU_EXPORTER_BPF_TRIGGER=every_switch asks the program that runs at
 * every context switch. */
int bpfobj_every_switch(void);
void bpfobj_unref(struct bpfobj *b);	/* NULL: nothing */
/* The counters b's groups opened, over every CPU. */
size_t bpfobj_counters(const struct bpfobj *b);

/* A slot in b for the cgroup of id id: 0 with what the target holds in
 * *out (a reference on b; released by its ops, which free the slot);
 * -ENOSPC when b's slots are all taken; another -errno. */
int bpfobj_hold(struct bpfobj *b, uint64_t id, struct source_hold **out);
/* The source of an instance at at, reading the slot its target holds
 * (at->held, from bpfobj_hold) for its group's ne events: 0 or -errno
 * (-ENOENT: nothing held).  Fills o->err. */
int bpfobj_slot_open(const struct source_at *at, size_t ne,
    struct source_opened *o, struct source **out);

#endif
