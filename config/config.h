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
#include "config/config_budget.h"
#include "config/config_interference.h"
#include "config/config_machine.h"
#include "config/default.h"
#include "config/yamldoc.h"
#include "util/text.h"

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
 * The same, with the interference: block too (analysis/interference_config.h):
 * *ifr is set (to be interference_config_fini'ed) only when 0 is
 * returned.  config_parse and config_load check the block and drop it.
 */
int config_parse_all(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out,
    struct interference_config *ifr, char *err, size_t errlen);
int config_load_all(const struct event_ctx *events, const char *path,
    struct plan **out, struct interference_config *ifr, char *err,
    size_t errlen);

#endif
