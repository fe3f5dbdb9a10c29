/*
 * cgcount.bpf.c - the BPF cgroup counter for kernels without BTF (the
 * loader collectors/bpf/bpfcg.c tries collectors/bpf/cgchange.bpf.c
 * first, and loads this object only when that one cannot be loaded).
 *
 * Without the kernel's BTF a program cannot read the incoming task's
 * cgroup, so this one charges at every context switch: the sched_switch
 * raw tracepoint, where the outgoing task is still current, reads every
 * counter and charges the outgoing task's cgroups (cgcount.bpf.h).  A
 * switch between two threads of one cgroup pays for that too.
 *
 * It also holds perf bperf's trigger, the cgroup-switches software event,
 * for bench/bpf_trigger only: on Linux 6.18 here it did not run for the
 * switches out of one CPU's idle task (bench/RESULTS.md), so the daemon
 * never loads it.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "collectors/bpf/cgcount.bpf.h"

/*
 * Attached to the sched_switch raw tracepoint: every CPU, every switch.
 * Its arguments come as u64s: (bool preempt, struct task_struct *prev,
 * struct task_struct *next, ...); only compared here, never read through.
 */
SEC("raw_tp/sched_switch")
int
on_switch(__u64 *ctx)
{
	struct cgc_cpu *st = cpu_state();

	if (st == 0)
		return 0;
	seen(st, ctx[1]);
	st->next = ctx[2];
	charge(st, 1, 0);
	return 0;
}

/* PERF_COUNT_SW_CGROUP_SWITCHES, for bench/bpf_trigger only (above). */
SEC("perf_event")
int
on_cgroup_switch(void *ctx)
{
	struct cgc_cpu *st = cpu_state();

	(void)ctx;
	if (st)
		charge(st, 1, 0);
	return 0;
}
