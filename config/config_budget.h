/*
 * config_budget.h - what a config may cost before any of it is built
 * (config_budget.c).
 * Design: docs/architecture.md, "config/".
 */
#ifndef PMU_CONFIG_BUDGET_H
#define PMU_CONFIG_BUDGET_H

#include <stdint.h>

#include "config/yamldoc.h"

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

#endif
