/*
 * config.h - the YAML config, parsed and validated into plain structs.
 *
 * Everything a user can get wrong is caught here, before anything is
 * opened, and reported as "file:line:column: what" (1-based, as editors
 * count).  The structs are immutable once built; a reload builds a new one.
 */
#ifndef PMU_CONFIG_H
#define PMU_CONFIG_H

#include <stddef.h>
#include <regex.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "collectors/cpumap.h"
#include "collectors/event.h"

struct cfg_event {
	char *name;			/* as written, becomes label event= */
	struct perf_event_attr attr;
	char *pmu;			/* "cpu", "software", "power"... */
	double scale;			/* sysfs .scale (RAPL: to joules), else 1 */
	int line, col;
};

/*
 * A group holds events of at most one hardware PMU plus software events.
 * On a hybrid machine a group of generic events is expanded into one
 * cfg_group per core PMU: same name, consecutive, hybrid set, each opened
 * only on its PMU's CPUs and exported with a pmu label.
 */
struct cfg_group {
	char *name;			/* label group= */
	size_t nr_events;
	struct cfg_event *events;
	char *pmu;			/* its hardware PMU, NULL if software only */
	int hybrid;			/* one of several per-core-PMU copies */
	int uncore;			/* an uncore/RAPL PMU: CPU targets only */
	int pmu_cpus;			/* the PMU covers only the CPUs in cpus */
	struct cpumap cpus;
	int line, col;
};

/*
 * One relabel rule: if the cgroup path fully matches regex, the series get
 * target_label="replacement" with $1..$9 (or ${1}) filled from the groups.
 */
struct cfg_relabel {
	regex_t re;			/* "^(" regex ")$", POSIX ERE */
	char *target_label;
	char *replacement;
	int line, col;
};

enum cfg_target_kind { CFG_TARGET_CPU, CFG_TARGET_CGROUP };

struct cfg_target {
	enum cfg_target_kind kind;
	int all_cpus;			/* cpus: all */
	struct cpumap cpus;		/* otherwise the listed CPUs */
	char *path;			/* cgroup path or pattern, from the root */
	int per_cpu;			/* cgroup: export a cpu label */
	unsigned depth;			/* levels "**" may span; 0: any */
	size_t nr_exclude;
	char **exclude;			/* patterns of cgroups left out */
	size_t nr_relabel;
	struct cfg_relabel *relabel;
	size_t nr_groups;
	size_t *groups;			/* indices into config.groups */
	int line, col;
};

struct config {
	char *source;			/* file name, or "<default>" */
	uint64_t interval_ns;
	uint64_t rescan_ns;		/* full cgroup rescan, besides inotify */
	uint64_t max_fds;		/* perf fd budget; 0: a share of the limit */
	size_t nr_groups;
	struct cfg_group *groups;
	size_t nr_targets;
	struct cfg_target *targets;
};

/* The embedded defaults: hardware IPC, and a software-only fallback. */
extern const char config_default_yaml[];
extern const char config_fallback_yaml[];

/*
 * Parse YAML text.  source names it in messages; events resolves event
 * names against this machine's PMUs and tracefs (NULL: generic and
 * software names only).  Returns 0 and sets *out, or -EINVAL/-ENOMEM with
 * "source:line:col: message" in err.
 */
int config_parse(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct config **out, char *err,
    size_t errlen);

/* Read and parse a file; -errno (with the reason in err) if unreadable. */
int config_load(const struct event_ctx *events, const char *path,
    struct config **out, char *err, size_t errlen);

/* Parse a duration such as "1s", "500ms", "2m".  0 or -EINVAL. */
int config_parse_duration(const char *s, uint64_t *ns);

/*
 * Apply rule r to a cgroup path: 1 and the label value in out if the path
 * matches (the value may be empty: then no label), 0 if it does not.
 */
int config_relabel_apply(const struct cfg_relabel *r, const char *path,
    char *out, size_t len);

/* Labels the exporter sets itself, which relabel rules may not. */
int config_label_reserved(const char *name);

void config_free(struct config *cfg);

#endif
