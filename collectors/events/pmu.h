/*
 * pmu.h - the PMUs the kernel offers, as sysfs describes them: plain data the
 * event parser consults without further I/O.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_PMU_H
#define PMU_PMU_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/perf/cpumap.h"

/* Which attr field a format term writes. */
enum pmu_field { PMU_CONFIG, PMU_CONFIG1, PMU_CONFIG2 };

struct pmu_format {
	char *name;
	enum pmu_field field;
	uint64_t mask;		/* its bits in that field; value bits fill them low to high */
};

struct pmu_alias {
	char *name;		/* the file name under events/ */
	char *terms;		/* its text: "event=0x3c,umask=0x00" */
	char *unit;		/* from name.unit, or NULL */
	double scale;		/* from name.scale, or 1 */
};

enum pmu_cpus_source { PMU_CPUS_ALL, PMU_CPUS_FILE, PMU_CPUMASK_FILE };

struct pmu {
	char *name;
	unsigned type;
	int core;		/* a CPU core PMU: "cpu", or one with a cpus file */
	enum pmu_cpus_source cpus_from;
	struct cpumap cpus;	/* empty with PMU_CPUS_ALL */
	size_t nr_formats;
	struct pmu_format *formats;
	size_t nr_aliases;
	struct pmu_alias *aliases;	/* sorted by name */
	char *caps_pmu_name;		/* caps/pmu_name ("skylake"), or NULL */
	unsigned caps_slots;		/* caps/slots (Arm pipeline width), or 0 */
};

struct pmu_list {
	size_t nr;
	struct pmu *pmu;	/* sorted by name */
};

/*
 * Read every PMU under <sysfs>/bus/event_source/devices into out.  A PMU
 * whose files cannot be read or make no sense is skipped and named in
 * err (the first one), so one odd driver does not hide the others.
 * Returns 0; -ENOENT (message in err) when the directory is missing;
 * -ENOMEM.
 */
int pmu_scan(const char *sysfs, struct pmu_list *out, char *err,
    size_t errlen);

/* Parse one format file's text ("config:0-7,32-35").  0 or -EINVAL. */
int pmu_parse_format(const char *text, enum pmu_field *field,
    uint64_t *mask);

/* Spread value over the bits of mask, lowest first (as perf packs terms). */
uint64_t pmu_format_pack(uint64_t mask, uint64_t value);

/* Does value fit the bits of mask? */
int pmu_format_fits(uint64_t mask, uint64_t value);

const struct pmu *pmu_find(const struct pmu_list *l, const char *name);
const struct pmu *pmu_find_type(const struct pmu_list *l, unsigned type);
const struct pmu_format *pmu_find_format(const struct pmu *p,
    const char *name, size_t len);
const struct pmu_alias *pmu_find_alias(const struct pmu *p,
    const char *name, size_t len);

/* The core PMUs, in name order: more than one means a hybrid machine. */
size_t pmu_core_count(const struct pmu_list *l);

/* An uncore-style PMU: not a core PMU, and it names the CPUs to open on. */
int pmu_is_uncore(const struct pmu *p);

/* Software-context PMUs (software, tracepoint, breakpoint, kprobe...). */
int pmu_is_software(const struct pmu *p);

void pmu_list_free(struct pmu_list *l);

#endif
