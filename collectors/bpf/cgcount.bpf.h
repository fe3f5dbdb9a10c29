/*
 * cgcount.bpf.h - the body of the BPF cgroup counter, included by its two
 * objects (cgchange.bpf.c, cgcount.bpf.c): charge() and the maps.
 * Written for pmu_exporter's maps after perf's bperf, not taken from it.
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#ifndef PMU_CGCOUNT_BPF_H
#define PMU_CGCOUNT_BPF_H

#include "collectors/bpf/cgcount.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before the load; the verifier sees the constants. */
const volatile __u32 nr_events = 1;
/* 1: time each reading at a switch for the lag probe (on_lag, below). */
const volatile __u32 measure_lag = 0;

/* [cpu * nr_events + event] -> perf event; sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} counters SEC(".maps");

/*
 * Bumped by the loader before and after it adds to slots (or reuses a
 * slot), and at every refresh after it deletes from it (bpfcg_slots.c):
 * a path cached under another gen is walked again.  In .bss, which the
 * loader writes through its mmap.
 */
__u32 path_gen = 0;

/* A cgroup id -> the tracked cgroups on its path, as the walk in charge()
 * found them under path_gen then; sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct cgc_path);
	__uint(max_entries, 1);
} paths SEC(".maps");

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
 * the cgroup of the next run, unless the program can tell how long the
 * task it saw switched in ran (cgchange.bpf.c, unseen_ns()).  Counted,
 * so that it shows: a stock kernel never does it.  prev is the outgoing
 * task's address, never 0; the caller then keeps the incoming one's in
 * st->next.  Whether there was such a gap.
 */
static __always_inline int
seen(struct cgc_cpu *st, __u64 prev)
{
	/* 0: no switch seen on this CPU yet. */
	if (st->next == prev || st->next == 0)
		return 0;
	st->stat[CGC_STAT_UNSEEN]++;
	return 1;
}

/* a * b / c without overflow, for b < c < 2^32. */
static __always_inline __u64
muldiv(__u64 a, __u64 b, __u64 c)
{
	return a / c * b + a % c * b / c;
}

/*
 * Split the interval just read: a task the tracepoint showed switched in
 * and not out ran `other` ns of it (the scheduler's count), current the
 * rest (cgchange.bpf.c).  Each event's delta is divided in proportion to
 * its enabled time, which for a CPU's counter is the interval's length.
 * Where `other` is no less than the interval (not what was seen: a stale
 * reading), or the interval is longer than 4 s, it is all current's.
 */
static __always_inline void
split(struct cgc_cpu *st, __u64 other)
{
	struct cgc_value *d, *r;
	__u64 en;
	__u32 i;

	for (i = 0; i < CGC_MAX_EVENTS && i < nr_events; i++) {
		d = &st->delta[i];
		r = &st->rest[i];
		en = d->enabled;
		if (en == 0 || other >= en || en > 0xffffffffULL) {
			r->counter = 0;
			r->enabled = 0;
			r->running = 0;
			continue;
		}
		r->counter = muldiv(d->counter, other, en);
		r->running = muldiv(d->running, other, en);
		r->enabled = other;
		d->counter -= r->counter;
		d->running -= r->running;
		d->enabled -= other;
	}
}

/* Add d[] to slot's counts. */
static __always_inline void
add(__u32 slot, const struct cgc_value *d)
{
	struct cgc_value *c;
	__u32 i, key;

	for (i = 0; i < CGC_MAX_EVENTS && i < nr_events; i++) {
		key = slot * nr_events + i;
		c = bpf_map_lookup_elem(&counts, &key);
		if (c == 0)
			break;
		c->counter += d[i].counter;
		c->enabled += d[i].enabled;
		c->running += d[i].running;
	}
}

/*
 * Add what the previous run read to the cgroups it found, if it left
 * them to this run (charge(), below).
 */
static __always_inline void
apply(struct cgc_cpu *st)
{
	__u32 j, n;

	if (!st->pending)
		return;
	st->pending = 0;
	n = *(volatile __u32 *)&st->path.n;
	st->stat[CGC_STAT_CHARGES] += n;
	for (j = 0; j < CGC_MAX_LEVELS && j < n; j++)
		add(st->path.slot[j], st->delta);
	if (st->parted && st->path.rooted && n > 0)
		add(st->path.slot[0], st->rest);
}

/*
 * The tracked cgroups on current's path, root first, into st->path: from
 * the paths map when it holds current's cgroup under this path_gen (one
 * lookup), else walked (an ancestor id and a slots lookup a level, about
 * 33 ns a level: bench/RESULTS.md) and cached.  A cached path is as the
 * walk found it; one walked before a change to slots carries the gen
 * before it, which the loader bumps after each change.
 */
static __always_inline void
walk(struct cgc_cpu *st)
{
	__u64 cg = bpf_get_current_cgroup_id(), id;
	__u32 gen = *(volatile __u32 *)&path_gen, l, n, *slot;
	struct cgc_path *cached;

	cached = bpf_map_lookup_elem(&paths, &cg);
	if (cached && cached->gen == gen) {
		st->path = *cached;
		return;
	}
	/* The number of slots goes through memory (volatile): kept in a
	 * register, the verifier would walk the rest of the program once
	 * for every count the walk can give at every level, past its
	 * limit. */
	*(volatile __u32 *)&st->path.n = 0;
	st->path.rooted = 0;
	st->path.gen = gen;
	for (l = 0; l < CGC_MAX_LEVELS; l++) {
		id = bpf_get_current_ancestor_cgroup_id(l);
		if (id == 0)
			break;		/* deeper than the task's cgroup */
		slot = bpf_map_lookup_elem(&slots, &id);
		if (slot == 0)
			continue;
		if (l == 0)
			st->path.rooted = 1;
		n = *(volatile __u32 *)&st->path.n;
		st->path.slot[n & (CGC_MAX_LEVELS - 1)] = *slot;
		*(volatile __u32 *)&st->path.n = n + 1;
	}
	/* Fails only with the map busy on this CPU: walked next time. */
	bpf_map_update_elem(&paths, &cg, &st->path, BPF_ANY);
}

/*
 * Charge what was counted on this CPU since its last run to current's
 * cgroup path; at_switch: run at a context switch, else on demand;
 * other: how much of the interval a task the tracepoint did not show
 * switched out ran (cgchange.bpf.c), which goes to the root cgroup only;
 * 0 where there is none.
 *
 * Where a run at a switch reads the counters matters: what the program
 * does after the read goes to the next interval, the incoming task's,
 * while perf, which switches a cgroup's events in
 * perf_event_task_sched_out() a little after the tracepoint, gives the
 * whole run to the outgoing cgroup.  Any work after the read that
 * depends on the outgoing cgroup is time one cgroup loses and another
 * gains.  The program used to read first and then walk the outgoing
 * task's path (an ancestor id and a hash lookup a level) and add to each
 * tracked cgroup on it: a cgroup lost its walk at every switch out and
 * gained at every switch in the walk of what it replaced, which across
 * two CPUs was the root cgroup's idle task, with nothing to walk.
 * Task-clock came out 0.5% to 3% under perf mode's for a ping-pong on
 * two CPUs, the more the deeper the tracked path, while on one CPU,
 * where every switch in is another cgroup's switch out, it evened out
 * (bench/RESULTS.md, issue 25).  So the walk comes before the read, and the additions are
 * left to the next run, before its walk: after the read there is only
 * the same few stores at every switch.  A run on demand adds its own
 * and the one left at once, so a collection reads everything charged.
 */
static __always_inline void
charge(struct cgc_cpu *st, int at_switch, __u64 other)
{
	struct bpf_perf_event_value v;
	__u32 cpu = bpf_get_smp_processor_id(), i;
	long err;

	st->stat[CGC_STAT_RUNS]++;
	if (at_switch)
		st->stat[CGC_STAT_SWITCH_RUNS]++;
	apply(st);
	walk(st);
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
	/* The lag probe's start: the moment the interval just read ended. */
	if (measure_lag && at_switch)
		st->read_ns = bpf_ktime_get_ns();
	/* The first run on a CPU only takes the starting point: who ran
	 * before it is not known. */
	if (!st->primed) {
		st->primed = 1;
		return;
	}
	st->parted = other != 0;
	if (st->parted)
		split(st, other);
	st->pending = 1;
	if (!at_switch)
		apply(st);
}

/*
 * The lag probe, loaded only when asked for (PMU_EXPORTER_BPF_LAG=1;
 * bpfcg.h, BPFCG_MEASURE_LAG), in both objects.  It runs on the
 * cgroup-switches software event, sampled at every event, which perf
 * raises in perf_event_task_sched_out() just before
 * __perf_event_task_sched_out() switches the CPU's cgroup events
 * (perf_cgroup_switch()), and times the kernel's path from charge()'s
 * reading, in the sched_switch tracepoint, to there: time that perf mode
 * charges to the outgoing cgroup and mode: bpf to the incoming one, per
 * kind of change.  A cgroup gains that path at each of its switches in
 * and loses it at each switch out, so where it is slower in one
 * direction (out of the idle task, whose CPU was halted, against into
 * it), mode: bpf and perf mode differ by the difference at each pair of
 * switches, and never by more than the path itself (tests/integration/bpf.test).
 * The object without BTF cannot tell the kinds apart: all its figures
 * are "between".  The event comes only where the perf_event cgroup
 * changes, once per switch; a reading older than 100 us is not this
 * switch's and is not timed.
 */
SEC("perf_event")
int
on_lag(void *ctx)
{
	struct cgc_cpu *st = cpu_state();
	__u64 now = bpf_ktime_get_ns(), d, k;

	(void)ctx;
	if (st == 0 || st->read_ns == 0)
		return 0;
	d = now - st->read_ns;
	st->read_ns = 0;
	if (d > 100000)
		return 0;
	k = st->read_change < CGC_CHANGE_NR ? st->read_change :
	    CGC_CHANGE_BETWEEN;
	st->stat[CGC_STAT_LAG_NS + k] += d;
	st->stat[CGC_STAT_LAG_N + k]++;
	return 0;
}

/*
 * Run by BPF_PROG_TEST_RUN on each CPU before user space reads counts:
 * what ran since the last run is charged, and the next switch charges,
 * whatever it is (cgchange.bpf.c's comparison of cgroups starts again;
 * cgcount.bpf.c never sets what is forgotten here).  One program for
 * both objects.
 */
SEC("raw_tp")
int
on_demand(void *ctx)
{
	struct cgc_cpu *st = cpu_state();

	(void)ctx;
	if (st == 0)
		return 0;
	charge(st, 0, 0);
	st->css = 0;
	st->into_root = 0;
	return 0;
}

#endif
