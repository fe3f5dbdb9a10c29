/*
 * bpfcg_int.h - what the loader's two files share (bpfcg.c: loading,
 * attaching, closing; bpfcg_slots.c: the slot table and the reads): struct
 * bpfcg, opaque outside collectors/bpf/, and running the program on a CPU,
 * which both do.
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#ifndef PMU_BPFCG_INT_H
#define PMU_BPFCG_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpfcg_types.h"
#include "collectors/bpf/cgcount.h"

struct cgchange;			/* the skeletons (bpftool's) */
struct cgcount;

struct bpfslot {
	uint64_t cgid;
	unsigned refs;
	int pending;			/* its hash entry is still to delete */
	uint64_t freed_gen;		/* reusable once gen is past it */
};

struct bpfcg {
	struct cgchange *cskel;		/* the object loaded: this one, */
	struct cgcount *skel;		/* ... or this one */
	struct bpf_object *obj;
	struct bpf_map *counters, *slots, *counts, *state, *paths;
	__u32 *path_gen;		/* the program's, in its mmap'ed .bss */
	struct bpf_program *on_switch;	/* attached to context switches */
	struct bpf_program *on_demand;	/* run at every refresh */
	struct bpf_program *on_lag;	/* the lag probe, when lag */
	int trigger;			/* enum bpfcg_trigger */
	char no_change[256];		/* why not BPFCG_TRIGGER_CGROUP_CHANGE */
	size_t nr_events, max_slots;
	int ncpus;			/* possible CPUs: values per key */
	struct bpfslot *slot;		/* [max_slots] */
	size_t hi;			/* slots ever used: [0, hi) */
	uint32_t *index;		/* [index_mask + 1]: slot + 1 of each
					   cgroup in the hash, by cgid; 0 empty */
	size_t index_mask;
	size_t free_from;		/* no reusable slot below this */
	size_t entries;
	uint64_t gen;			/* refreshes so far */
	uint64_t full;
	struct cgc_value *zero;		/* [ncpus] */
	struct cgc_value *vals;		/* [hi * nr_events * ncpus] */
	size_t vals_keys;		/* keys vals has room for */
	size_t vals_valid;		/* keys read by the last refresh */
	int stale;			/* the last refresh failed */
	__u32 *keys;
	struct cgc_cpu *cpu_state;	/* [ncpus] */
	size_t nr_trig;
	int *trig_cpu;			/* CPUs to run on at a refresh */
	struct bpf_link *link;
	unsigned flags;
	int lag;			/* the lag probe is loaded */
	struct bpf_link **cglink;	/* BPFCG_CGROUP_SWITCHES or the lag
					   probe: [nr_trig] */
	int *cgfd;			/* ... their events (the links own them) */
	struct bpfcg_stats st;
};

/*
 * Paths the program cached (the paths map) are walked again: after a
 * change to slots, before a freed slot is reused.  One writer, the
 * collector; the program reads it before its lookups.
 */
static inline void
bpfcg_paths_stale(struct bpfcg *b)
{
	if (b->path_gen)
		__atomic_store_n(b->path_gen, *b->path_gen + 1,
		    __ATOMIC_RELEASE);
}

/* Run on_demand on cpu: charge what is pending there.  0 or -errno
 * (-ENXIO: the CPU went offline).  Here, inline, as both files run it. */
static inline int
bpfcg_run_on(struct bpfcg *b, int cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU,
	    .cpu = (__u32)cpu);

	if (bpf_prog_test_run_opts(bpf_program__fd(b->on_demand),
	    &o) < 0)
		return -errno;
	return 0;
}

#endif
