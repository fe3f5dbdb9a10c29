/*
 * cgcount.bpf.c - the BPF cgroup counter for kernels without BTF, run at every
 * context switch (the sched_switch raw tracepoint); loaded only when
 * cgchange.bpf.c cannot be.
 * Design: docs/bpf.md, "Trigger"; docs/architecture.md, "collectors/bpf/".
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
