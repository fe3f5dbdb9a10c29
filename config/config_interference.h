/*
 * config_interference.h - the config's interference: block
 * (config_interference.c), read after the groups and targets.
 * Design: docs/architecture.md, "config/".
 */
#ifndef PMU_CONFIG_INTERFERENCE_H
#define PMU_CONFIG_INTERFERENCE_H

#include "config/yamldoc.h"

struct interference_config;
struct plan;

/*
 * The interference: block n (NULL: absent) of a config whose groups and
 * targets are cfg (config_interference.c).  0 with *out filled, or
 * -EINVAL with "source:line:col: why" in d's buffer, or -ENOMEM.
 */
int config_interference(const struct yamldoc *d, yaml_node_t *n,
    const struct plan *cfg, struct interference_config *out);

#endif
