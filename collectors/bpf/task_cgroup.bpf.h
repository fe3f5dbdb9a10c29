/*
 * task_cgroup.bpf.h - the few kernel types cgchange.bpf.c reads, as CO-RE
 * declarations (only the fields it uses, preserve_access_index).
 * Design: docs/architecture.md, "collectors/bpf/".
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
