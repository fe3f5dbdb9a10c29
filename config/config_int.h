/*
 * config_int.h - what the files that parse a config share, and nothing outside
 * config/ sees: the parse in progress and each part's entry point; each
 * returns 0, or -EINVAL with "source:line:col: why", or -ENOMEM.
 * Design: docs/architecture.md, "config/".
 */
#ifndef PMU_CONFIG_INT_H
#define PMU_CONFIG_INT_H

#include <stddef.h>
#include <yaml.h>

#include "analysis/interference_config.h"
#include "collectors/collector/plan.h"
#include "collectors/events/event.h"
#include "config/yamldoc_short.h"
#include "util/nameidx.h"

struct parse {
	struct yamldoc y;		/* source, document, error buffer */
	const struct event_ctx *events;
	struct plan *cfg;
	size_t cap_groups;		/* cfg->groups has room for */
	struct nameidx group_idx;	/* name -> its first plan group */
	/* Per kind (plan_kind_at), where it limits its events: [nr_groups]
	 * an entry of the kind has it, and the events of those groups. */
	unsigned char *in_kind[PLAN_KINDS_MAX];
	size_t kind_events[PLAN_KINDS_MAX];
	yaml_node_t *preset_listed;	/* the target being parsed names this
					   preset group (a kind may refuse) */
	struct interference_config ifr;	/* the interference: block */
};

/* config_scalar.c: scalars.  A YAML boolean (true, yes, on...) into *out: 0 or
 * -EINVAL (no message).  A whole number from lo to hi in scalar n, named
 * key. */
int config_bool(const char *s, int *out);
int config_whole_number(struct parse *p, yaml_node_t *n, const char *key,
    long lo, long hi, long *v);

/* config_group.c: the groups: block, in order, indexed by name.
 * Whether g is a group a target naming name counts (a preset's second
 * part too). */
int config_groups(struct parse *p, yaml_node_t *root);
int config_group_named(const struct plan_group *g, const char *name);

/* config_target.c: the cpus: entries, then the cgroups: entries, then the
 * interference: block that refers to them. */
int config_targets(struct parse *p, yaml_node_t *root);

/* config_mode.c: the modes: block (every kind's options, defaults
 * included); a cgroups entry t's mode: and fallback: (after its groups);
 * the keys of map n, keys and the older names the kinds keep: their
 * options' at the top level (entry 0), fallback:'s in a cgroups entry
 * (entry 1). */
int config_modes(struct parse *p, yaml_node_t *root);
int config_mode(struct parse *p, yaml_node_t *n, struct plan_target *t);
int config_check_keys(struct parse *p, yaml_node_t *n,
    const char *const *keys, int entry, const char *where);

#endif
