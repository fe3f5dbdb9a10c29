/*
 * config_machine.h - the one check of a plan that needs the machine
 * (config_machine.c).
 * Design: docs/architecture.md, "config/".
 */
#ifndef PMU_CONFIG_MACHINE_H
#define PMU_CONFIG_MACHINE_H

#include <stddef.h>

struct plan;

/*
 * Can the plan run as it asks?  Where a cgroups entry's fallback:
 * refuses, its kind is asked whether it can run on this machine (struct
 * plan_kind's runs_here: mode: bpf loads and attaches its program once,
 * reading the cgroup mount from <procfs>/self/mountinfo and the CPUs
 * from sysfs, and needs root, or CAP_BPF and CAP_PERFMON):
 * 0, or -1 with "source:line:col: why" in err (config_machine.c).
 */
int config_machine_check(const struct plan *cfg, const char *procfs,
    const char *sysfs, char *err, size_t len);

#endif
