/*
 * cgchange.bpf.c - the BPF cgroup counter that runs only when a context switch
 * changes cgroup (tp_btf sched_switch, CO-RE through task_cgroup.bpf.h): the
 * object the loader tries first.
 * Design: docs/bpf.md, "Trigger"; docs/architecture.md, "collectors/bpf/".
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "collectors/bpf/cgcount.bpf.h"
#include "collectors/bpf/task_cgroup.bpf.h"

/*
 * How long the task the last switch seen switched in ran before the
 * tracepoint missed its switch out, where that can be told; else 0.
 *
 * On the Firecracker kernel here the tracepoint shows the guest agent's
 * threads (PID 1, the root cgroup) switched in and not switched out: it
 * says X -> agent, and the next switch it shows switches out X again, X
 * having been switched back in unseen; perf switches cgroups at both
 * (its context-switches count has them).  Charged to X whole, the
 * interval gave X the agent's time, 20 us to 3 ms a gap, up to +2.5%
 * task-clock for a ping-pong beside perf mode.  The scheduler counts the
 * agent's CPU time: what it ran since the switch in that was seen (all
 * of its visits, if it came back unseen) is the root cgroup's, and the
 * rest of the interval X's.  Only for the case seen, where the last run
 * was the switch into the root cgroup (the agent's), and X is not in the
 * root cgroup (else it is all the root's anyway).  The agent's task is
 * read through a pointer kept since that switch, with a probe read: it
 * may have exited; a stale or odd figure is caught in split().  Anything
 * the agent's count does not have (another task the tracepoint missed,
 * the idle task, whose time the scheduler does not count) stays X's, as
 * before.  The count of X itself is no guide: its time since it was
 * last switched in (se.prev_sum_exec_runtime) started later than the
 * interval, by up to 12 ms, for a spinner the agent visited twice.
 */
static __always_inline __u64
unseen_ns(const struct cgc_cpu *st, const struct css_set *out)
{
	const struct task_struct *agent = (const struct task_struct *)st->next;
	__u64 sum;

	if (!st->into_root || out->dfl_cgrp->level == 0 ||
	    bpf_core_read(&sum, sizeof(sum), &agent->se.sum_exec_runtime) ||
	    sum < st->root_sum)
		return 0;
	return sum - st->root_sum;
}

/*
 * tp_btf/sched_switch(bool preempt, struct task_struct *prev,
 * struct task_struct *next, ...): ctx holds the arguments as u64s.
 * Current is still prev.
 */
SEC("tp_btf/sched_switch")
int
on_change(__u64 *ctx)
{
	const struct task_struct *prev = (const struct task_struct *)ctx[1];
	const struct task_struct *next = (const struct task_struct *)ctx[2];
	struct cgc_cpu *st = cpu_state();
	const struct css_set *in, *out;
	__u64 other = 0, sum = 0;
	int gap, into_root;

	if (st == 0)
		return 0;
	in = next->cgroups;
	out = prev->cgroups;
	gap = seen(st, (__u64)prev);
	if (gap)
		other = unseen_ns(st, out);
	st->next = (__u64)next;
	if (!gap && (__u64)in == st->css && out == in) {
		if (measure_lag)
			st->read_ns = 0;	/* nothing read to time */
		return 0;
	}
	/*
	 * Everything read from the tasks before charge() reads the
	 * counters: after it, time is the incoming task's, and the incoming
	 * task's css_set, cgroup and times are the lines least likely to be
	 * in the cache (charge() says why that matters).
	 */
	into_root = in->dfl_cgrp->level == 0;
	if (into_root)
		sum = next->se.sum_exec_runtime;
	if (measure_lag)
		st->read_change = into_root ? CGC_CHANGE_INTO_ROOT :
		    out->dfl_cgrp->level == 0 ? CGC_CHANGE_OUT_OF_ROOT :
		    CGC_CHANGE_BETWEEN;
	charge(st, 1, other);
	/* The root cgroup's tasks are charged at every switch. */
	st->css = into_root ? 0 : (__u64)in;
	st->into_root = into_root;
	st->root_sum = sum;
	return 0;
}
