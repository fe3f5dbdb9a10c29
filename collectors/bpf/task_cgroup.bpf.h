/*
 * task_cgroup.bpf.h - the few kernel types collectors/bpf/cgchange.bpf.c
 * reads, as CO-RE declarations: only the fields it uses, marked
 * preserve_access_index, so libbpf moves each access to where the running
 * kernel's BTF (/sys/kernel/btf/vmlinux) puts the field.  The object then
 * loads on any kernel with BTF, whatever the build machine's kernel was
 * (libbpf-tools declare kernel types the same way instead of including a
 * vmlinux.h dumped from one kernel).
 *
 * Besides task->pid, the path read is task->cgroups->dfl_cgrp, the task's
 * cgroup on the
 * default (v2) hierarchy, then its ->level (0: the root) and ->kn->id,
 * the id bpf_get_current_cgroup_id() and
 * bpf_get_current_ancestor_cgroup_id() return and the slots map is keyed
 * by.  Stable since Linux 5.5, where
 * kernfs_node.id became a u64.
 */
#ifndef PMU_TASK_CGROUP_BPF_H
#define PMU_TASK_CGROUP_BPF_H

struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
	int level;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	struct css_set *cgroups;
} __attribute__((preserve_access_index));

/* The task's cgroup on the default hierarchy.  A probed load of a NULL
 * pointer reads 0 in a tracing program, so a missing link gives id 0. */
static __always_inline const struct cgroup *
task_cgroup(const struct task_struct *t)
{
	return t->cgroups->dfl_cgrp;
}

static __always_inline __u64
cgroup_id(const struct cgroup *c)
{
	return c->kn->id;
}

#endif
