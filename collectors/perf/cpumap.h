/*
 * cpumap.h - sets of CPU numbers, as the kernel spells them ("0-3,8"): a
 * sorted array of distinct CPU numbers, the unit a target counts over (one
 * group instance per CPU in the map).
 * Design: docs/architecture.md, "collectors/perf/".
 */
#ifndef PMU_CPUMAP_H
#define PMU_CPUMAP_H

#include <stddef.h>

struct cpumap {
	size_t nr;
	int *cpu;
};

/*
 * Parse a CPU list such as "0-3,8".  Returns 0, or -EINVAL with *errpos set
 * to the 0-based offset of the offending character.  *out is untouched on
 * failure.
 */
int cpumap_parse(const char *s, struct cpumap *out, size_t *errpos);

/* The online CPUs, from <sysfs>/devices/system/cpu/online.  0 or -errno. */
int cpumap_online(const char *sysfs, struct cpumap *out);

/* Is cpu in the map? */
int cpumap_has(const struct cpumap *m, int cpu);

/*
 * Add to *dst (sorted, as every map) the CPUs of add that are also in a
 * and in b (NULL: no limit).  How many CPUs of add are in both (already
 * in dst or not), or -ENOMEM, which leaves dst as it was.
 */
int cpumap_merge(struct cpumap *dst, const struct cpumap *add,
    const struct cpumap *a, const struct cpumap *b);

/* Format as a CPU list into buf; returns buf. */
char *cpumap_format(const struct cpumap *m, char *buf, size_t len);

void cpumap_free(struct cpumap *m);

#endif
