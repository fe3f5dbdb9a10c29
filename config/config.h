/*
 * config.h - the YAML config, parsed and validated into an immutable plan
 * (collectors/collector/plan.h), everything a user can get wrong reported as
 * "file:line:column: what" before anything is opened.
 * Design: docs/architecture.md, "config/".
 */
#ifndef PMU_CONFIG_H
#define PMU_CONFIG_H

#include <stddef.h>
#include <regex.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "collectors/events/event.h"

#include "analysis/interference.h"
#include "collectors/collector/plan.h"
#include "config/yamldoc.h"
#include "util/text.h"

/* The embedded defaults: hardware IPC, and a software-only fallback. */
extern const char config_default_yaml[];
extern const char config_fallback_yaml[];

/*
 * Parse YAML text.  source names it in messages; events resolves event
 * names against this machine's PMUs and tracefs (NULL: generic and
 * software names only).  Returns 0 and sets *out, or -EINVAL/-ENOMEM with
 * "source:line:col: message" in err; -ENODATA when the text holds no YAML
 * node at all (empty, or only comments).
 */
int config_parse(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out, char *err,
    size_t errlen);

/* Read and parse a file; -errno (with the reason in err) if unreadable. */
int config_load(const struct event_ctx *events, const char *path,
    struct plan **out, char *err, size_t errlen);

/*
 * The same, with the interference: block too (analysis/interference.h):
 * *ifr is set (to be interference_config_fini'ed) only when 0 is
 * returned.  config_parse and config_load check the block and drop it.
 */
int config_parse_all(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out,
    struct interference_config *ifr, char *err, size_t errlen);
int config_load_all(const struct event_ctx *events, const char *path,
    struct plan **out, struct interference_config *ifr, char *err,
    size_t errlen);

/*
 * The interference: block n (NULL: absent) of a config whose groups and
 * targets are cfg (config_interference.c).  0 with *out filled, or
 * -EINVAL with "source:line:col: why" in d's buffer, or -ENOMEM.
 */
int config_interference(const struct yamldoc *d, yaml_node_t *n,
    const struct plan *cfg, struct interference_config *out);

/*
 * What a config may cost, checked before anything of it is built
 * (config_budget.c): at most CONFIG_MAX_ENTRIES cgroups entries, and
 * relabel rules whose compiled regexes are estimated to take at most
 * CONFIG_MAX_BYTES.  entries is the "cgroups" list (NULL: none).  0, or
 * -EINVAL with "source:line:col: why" in d's buffer, at the entry or rule
 * that goes over.
 */
#define CONFIG_MAX_ENTRIES 10000u
#define CONFIG_MAX_BYTES (64u << 20)
int config_budget(const struct yamldoc *d, yaml_node_t *entries);

/* The nodes an extended regex compiles to, repetitions multiplied out
 * (at most CONFIG_MAX_BYTES + 1), in *empties how many of them match the
 * empty string (anchors, "()", alternatives, '*', '?', optional copies),
 * whose cost grows with their square, and in *anchors how many of those
 * are anchors (^, $, \b...), each of which multiplies that square. */
uint64_t config_regex_weight(const char *re, uint64_t *empties,
    uint64_t *anchors);
/* What config_budget weighs a rule with regex re by, in bytes (at most
 * CONFIG_MAX_BYTES + 1). */
uint64_t config_regex_bytes(const char *re);

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
