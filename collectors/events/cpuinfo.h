/*
 * cpuinfo.h - which CPU this is, per core PMU: what pmu_exporter_cpu_info says
 * (docs/metrics.md), so the fleet rules compare a container's CPI only with
 * replicas on the same CPU model.  Plain data, filled once at start.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_CPUINFO_H
#define PMU_CPUINFO_H

#include <stddef.h>

#include "collectors/events/pmu.h"

#define CPUINFO_MAX_CORES 8

struct cpuinfo_core {
	char pmu[64];		/* the core PMU's name; "" when there is none */
	char vendor[64];	/* vendor_id, or arm64 "CPU implementer" */
	char cpu_family[32];	/* cpu family, or arm64 "CPU architecture" */
	char model[32];		/* model, or arm64 "CPU part" */
	char model_name[128];	/* model name; "" where the kernel has none */
};

struct cpuinfo {
	size_t nr;		/* 0: no cpuinfo could be read */
	struct cpuinfo_core core[CPUINFO_MAX_CORES];
};

/*
 * Fill out from <procfs>/cpuinfo: one entry per core PMU of pmus (at most
 * CPUINFO_MAX_CORES), or one with pmu "" when pmus has no core PMU (no
 * hardware counters: the model is still known).  A file that cannot be
 * read, or has no processor the PMUs cover, leaves out->nr 0.  Never
 * fails; reads one line of at most a few hundred bytes at a time.
 */
void cpuinfo_read(const char *procfs, const struct pmu_list *pmus,
    struct cpuinfo *out);

#endif
