/*
 * cgcount.bpf.c - count hardware events per cgroup with one set of
 * counters per CPU, whatever the number of cgroups (the config's
 * "mode: bpf"; the loader is collectors/bpf/bpfcg.c).
 *
 * User space opens each bpf-mode group once per CPU, system-wide, and
 * puts every counter's fd in `counters` at cpu * nr_events + event.  This
 * program runs at every context switch (the sched_switch raw tracepoint,
 * where the outgoing task is still current) and, at each collection, once
 * on every CPU through BPF_PROG_TEST_RUN (then current is whatever that
 * CPU was running).  Each run reads this CPU's counters, takes the difference
 * from the previous run on this CPU, and adds it to every tracked cgroup
 * on the running task's cgroup path: a cgroup is charged for the time its
 * tasks, and its descendants' tasks, ran.  Counter, enabled and running
 * times are charged alike, so user space scales multiplexed counts the
 * way perf mode does.
 *
 * perf's "bperf" (tools/perf/util/bpf_skel/bperf_cgroup.bpf.c) works this
 * way; this is written for pmu_exporter's maps, not taken from it.  bperf
 * runs on the PERF_COUNT_SW_CGROUP_SWITCHES software event instead, which
 * fires only when the cgroup changes.  On Linux 6.18 a program attached to
 * it did not run for a quarter of the switches between two cgroups on
 * different CPUs (about 179,000 runs for 239,000 switches; one cgroup
 * charged twice its context switches), while on the tracepoint both were
 * charged their own to 0.01% (bench/bpf_trigger.sh, bench/RESULTS.md).
 *
 * The license string is the kernel's condition for calling
 * bpf_perf_event_read_value(), a GPL-only helper.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

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

static __always_inline void
charge(int at_switch)
{
	struct bpf_perf_event_value v;
	struct cgc_value *c;
	struct cgc_cpu *st;
	__u32 zero = 0, cpu = bpf_get_smp_processor_id(), i, l, key, *slot;
	__u64 id;
	long err;

	st = bpf_map_lookup_elem(&state, &zero);
	if (st == 0)
		return;
	st->stat[CGC_STAT_RUNS]++;
	if (at_switch)
		st->stat[CGC_STAT_SWITCH_RUNS]++;
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
	for (l = 0; l < CGC_MAX_LEVELS; l++) {
		id = bpf_get_current_ancestor_cgroup_id(l);
		if (id == 0)
			break;		/* deeper than the task's cgroup */
		slot = bpf_map_lookup_elem(&slots, &id);
		if (slot == 0)
			continue;
		st->stat[CGC_STAT_CHARGES]++;
		for (i = 0; i < CGC_MAX_EVENTS && i < nr_events; i++) {
			key = *slot * nr_events + i;
			c = bpf_map_lookup_elem(&counts, &key);
			if (c == 0)
				break;
			c->counter += st->delta[i].counter;
			c->enabled += st->delta[i].enabled;
			c->running += st->delta[i].running;
		}
	}
}

/* Attached to the sched_switch raw tracepoint: every CPU, every switch. */
SEC("raw_tp/sched_switch")
int
on_switch(void *ctx)
{
	(void)ctx;
	charge(1);
	return 0;
}

/* Run by BPF_PROG_TEST_RUN on each CPU before user space reads counts. */
SEC("raw_tp")
int
on_demand(void *ctx)
{
	(void)ctx;
	charge(0);
	return 0;
}

/*
 * perf's bperf trigger, for bench/bpf_trigger only (the daemon does not
 * load it): the PERF_COUNT_SW_CGROUP_SWITCHES software event, which fires
 * only when the cgroup changes.  See the header for why the daemon does
 * not use it.
 */
SEC("perf_event")
int
on_cgroup_switch(void *ctx)
{
	(void)ctx;
	charge(1);
	return 0;
}
