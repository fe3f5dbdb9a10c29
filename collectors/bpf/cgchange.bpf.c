/*
 * cgchange.bpf.c - the BPF cgroup counter that runs only when a context
 * switch changes cgroup: the object the loader (collectors/bpf/bpfcg.c)
 * tries first.  It needs the kernel's BTF, twice: its trigger is the
 * BTF-typed sched_switch tracepoint (tp_btf), which hands it the outgoing
 * and incoming tasks, and it reads their cgroups through CO-RE
 * (task_cgroup.bpf.h).  It keeps task pointers in its per-CPU state and
 * compares them, which the verifier allows with CAP_PERFMON (the daemon
 * needs it anyway).  Where the kernel has no BTF the loader falls back
 * to collectors/bpf/cgcount.bpf.c, which runs at every switch.
 *
 * A switch between two tasks of one cgroup returns after comparing their
 * css_sets (which cgroup of each hierarchy a task is in: the same css_set
 * is the same cgroup2 cgroup, two css_sets of one cgroup2 cgroup only
 * cost a run): no counter is read, nothing is charged.  What those tasks ran is
 * charged at the next run on that CPU, to the same cgroup (the invariant
 * in cgcount.bpf.h).  The comparison is with the cgroup whose tasks ran
 * since the last run, not only the incoming task's: a task moved to
 * another cgroup while it ran (cgroup.procs is written while it is on the
 * CPU) then changes the cgroup at its next switch, and the tasks of its
 * old cgroup that ran before it are charged to the old cgroup, as at
 * every switch.  "Same cgroup" is the same leaf cgroup, so every ancestor
 * is the same too.
 *
 * Switches within the root cgroup are charged all the same: that is
 * where the idle task, kernel threads and the init process run, never a
 * container, so it costs the switches between a container's tasks
 * nothing, and it keeps short the intervals that a switch the tracepoint
 * does not see can take to the wrong cgroup.  The Firecracker kernel this
 * was developed on (6.18.44-fc) switches the threads of its guest agent,
 * the init process, in and out without the sched_switch tracepoint; the
 * first run after such a switch charges whatever ran since the previous
 * run to the cgroup running then.  At every switch that is one slice of
 * the agent; skipping root-cgroup switches, it was every root task's
 * time since the last run, up to 40% more time for a container
 * (bench/RESULTS.md).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "collectors/bpf/cgcount.bpf.h"
#include "collectors/bpf/task_cgroup.bpf.h"

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
	const struct css_set *in;

	if (st == 0)
		return 0;
	seen(st, (__u64)prev, (__u64)next);
	in = next->cgroups;
	if ((__u64)in == st->css && prev->cgroups == in)
		return 0;
	charge(st, 1);
	/* The root cgroup's tasks are charged at every switch. */
	st->css = in->dfl_cgrp->level > 0 ? (__u64)in : 0;
	return 0;
}

/* Run by BPF_PROG_TEST_RUN on each CPU before user space reads counts. */
SEC("raw_tp")
int
on_demand(void *ctx)
{
	struct cgc_cpu *st = cpu_state();

	(void)ctx;
	if (st == 0)
		return 0;
	charge(st, 0);
	st->css = 0;		/* the next switch charges, whatever it is */
	return 0;
}
