/*
 * task_cgroup.bpf.h - the few kernel types collectors/bpf/cgchange.bpf.c
 * reads, as CO-RE declarations: only the fields it uses, marked
 * preserve_access_index, so libbpf moves each access to where the running
 * kernel's BTF (/sys/kernel/btf/vmlinux) puts the field.  The object then
 * loads on any kernel with BTF, whatever the build machine's kernel was
 * (libbpf-tools declare kernel types the same way instead of including a
 * vmlinux.h dumped from one kernel).
 *
 * What is read: task->cgroups, the task's css_set (its cgroup in every
 * hierarchy; tasks of one css_set are in one cgroup2 cgroup), and
 * css_set->dfl_cgrp->level, the depth of that cgroup2 cgroup (0: the
 * root); and a task's CPU time so far (task->se.sum_exec_runtime, which
 * every class but idle's brings up to date when it switches the task
 * out).  All there since Linux 4.x.
 */
#ifndef PMU_TASK_CGROUP_BPF_H
#define PMU_TASK_CGROUP_BPF_H

struct cgroup {
	int level;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

struct sched_entity {
	__u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
	struct sched_entity se;
	struct css_set *cgroups;
} __attribute__((preserve_access_index));

#endif
