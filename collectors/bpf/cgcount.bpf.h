/*
 * cgcount.bpf.h - the body of the BPF cgroup counter, included by its two
 * objects: collectors/bpf/cgchange.bpf.c (runs only when a context switch
 * changes cgroup; needs the kernel's BTF) and collectors/bpf/cgcount.bpf.c
 * (runs at every context switch; for kernels without BTF).  The loader is
 * collectors/bpf/bpfcg.c.
 *
 * User space opens each bpf-mode group once per CPU, system-wide, and
 * puts every counter's fd in `counters` at cpu * nr_events + event.  At
 * each of its runs, charge() reads this CPU's counters, takes the
 * difference from the previous run on this CPU, and adds it to every
 * tracked cgroup on the running task's cgroup path: a cgroup is charged
 * for the time its tasks, and its descendants' tasks, ran.  Counter,
 * enabled and running times are charged alike, so user space scales
 * multiplexed counts the way perf mode does.
 *
 * The invariant both objects keep: whenever a CPU switches from a task of
 * one cgroup to a task of another, the program runs with the outgoing
 * task as current.  Then everything counted on a CPU since its last run
 * was counted while tasks of the current task's cgroup ran, so the run
 * that closes the interval (the next cgroup change, or the collection's
 * run through BPF_PROG_TEST_RUN on every CPU, where current is whatever
 * that CPU was running) charges it to the right cgroups.  Switches
 * between two tasks of one cgroup need no run.
 *
 * perf's "bperf" (tools/perf/util/bpf_skel/bperf_cgroup.bpf.c) works this
 * way; this is written for pmu_exporter's maps, not taken from it.
 *
 * The license string is the kernel's condition for calling
 * bpf_perf_event_read_value(), a GPL-only helper.
 */
#ifndef PMU_CGCOUNT_BPF_H
#define PMU_CGCOUNT_BPF_H

#include "collectors/bpf/cgcount.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before the load; the verifier sees the constants. */
const volatile __u32 nr_events = 1;

/* [cpu * nr_events + event] -> perf event; sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} counters SEC(".maps");

/* Tracked cgroup id -> its slot; sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, 1);
} slots SEC(".maps");

/* [slot * nr_events + event] -> what the cgroup was charged, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cgc_value);
	__uint(max_entries, 1);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cgc_cpu);
	__uint(max_entries, 1);
} state SEC(".maps");

/* This CPU's state: never NULL for an array, but the verifier asks. */
static __always_inline struct cgc_cpu *
cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state, &zero);
}

/*
 * Every switch on a CPU should switch out the task the previous one
 * switched in; when not, the kernel switched tasks without the tracepoint
 * in between, and what ran after that switch goes with the interval to
 * the cgroup of the next run.  Counted, so that it shows: a stock kernel
 * never does it.  prev and next are the tasks' addresses, never 0.
 */
static __always_inline void
seen(struct cgc_cpu *st, __u64 prev, __u64 next)
{
	/* 0: no switch seen on this CPU yet. */
	if (st->next != prev && st->next != 0)
		st->stat[CGC_STAT_UNSEEN]++;
	st->next = next;
}

/*
 * Charge what was counted on this CPU since its last run to current's
 * cgroup path; at_switch: run at a context switch, else on demand.
 *
 * Where the run reads the counters matters.  perf switches a cgroup's
 * events at perf_event_task_sched_out(), a little after the tracepoint,
 * so the program's own time at a switch is the outgoing cgroup's in perf
 * mode.  Here, what comes after the read goes to the next interval: the
 * incoming task's.  Read first and then walk the outgoing task's path,
 * and a cgroup loses that walk (its ancestors' ids, a hash lookup each)
 * at every switch out while it gains the much cheaper walk of what
 * switched in, when that is the root cgroup's idle task: -0.5% to -3%
 * task-clock against perf mode for a ping-pong across two CPUs, the
 * deeper the tracked path the worse, while on one CPU, where every
 * switch in is another cgroup's switch out, it evened out.  So the path
 * is looked up first and the counters are read last; after the read come
 * only the additions, one per tracked cgroup and event.
 */
static __always_inline void
charge(struct cgc_cpu *st, int at_switch)
{
	struct bpf_perf_event_value v;
	struct cgc_value *c;
	__u32 cpu = bpf_get_smp_processor_id(), i, j, l, n = 0, key, *slot;
	__u64 id;
	long err;

	st->stat[CGC_STAT_RUNS]++;
	if (at_switch)
		st->stat[CGC_STAT_SWITCH_RUNS]++;
	/*
	 * The tracked cgroups on current's path, root first.  Their number
	 * goes through memory (volatile): kept in a register, the verifier
	 * would walk the rest of the program once for every count the walk
	 * can give at every level, past its limit.
	 */
	*(volatile __u32 *)&st->npath = 0;
	for (l = 0; l < CGC_MAX_LEVELS; l++) {
		id = bpf_get_current_ancestor_cgroup_id(l);
		if (id == 0)
			break;		/* deeper than the task's cgroup */
		slot = bpf_map_lookup_elem(&slots, &id);
		if (slot == 0)
			continue;
		n = *(volatile __u32 *)&st->npath;
		st->path[n & (CGC_MAX_LEVELS - 1)] = *slot;
		*(volatile __u32 *)&st->npath = n + 1;
	}
	for (i = 0; i < CGC_MAX_EVENTS && i < nr_events; i++) {
		err = bpf_perf_event_read_value(&counters,
		    (__u64)cpu * nr_events + i, &v, sizeof(v));
		if (err) {
			/* Not open on this CPU (an event it lacks). */
			st->stat[CGC_STAT_READ_ERRORS]++;
			st->delta[i].counter = 0;
			st->delta[i].enabled = 0;
			st->delta[i].running = 0;
			continue;
		}
		st->delta[i].counter = v.counter - st->last[i].counter;
		st->delta[i].enabled = v.enabled - st->last[i].enabled;
		st->delta[i].running = v.running - st->last[i].running;
		st->last[i].counter = v.counter;
		st->last[i].enabled = v.enabled;
		st->last[i].running = v.running;
	}
	/* The first run on a CPU only takes the starting point: who ran
	 * before it is not known. */
	if (!st->primed) {
		st->primed = 1;
		return;
	}
	n = *(volatile __u32 *)&st->npath;
	st->stat[CGC_STAT_CHARGES] += n;
	for (j = 0; j < CGC_MAX_LEVELS && j < n; j++) {
		for (i = 0; i < CGC_MAX_EVENTS && i < nr_events; i++) {
			key = st->path[j] * nr_events + i;
			c = bpf_map_lookup_elem(&counts, &key);
			if (c == 0)
				break;
			c->counter += st->delta[i].counter;
			c->enabled += st->delta[i].enabled;
			c->running += st->delta[i].running;
		}
	}
}

#endif
