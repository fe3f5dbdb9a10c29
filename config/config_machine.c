/*
 * config_machine.c - the one check of a plan that needs the machine: an entry
 * whose mode cannot run here and whose fallback: refuses is an error at load
 * time.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <stdio.h>

#include "collectors/collector/plan.h"
#include "config/config_machine.h"

int
config_machine_check(const struct plan *cfg, const char *procfs,
    const char *sysfs, char *err, size_t len)
{
	const struct plan_kind *k, *ok[PLAN_KINDS_MAX];
	char why[512];
	size_t i, j, nok = 0;

	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *t = &cfg->targets[i];

		if (t->kind != PLAN_TARGET_CGROUP || t->mode == NULL ||
		    t->fallback != PLAN_FALLBACK_REFUSE ||
		    (k = plan_kind_named(t->mode)) == NULL ||
		    k->runs_here == NULL)
			continue;
		/* Asked once per kind: a kind that runs runs for all. */
		for (j = 0; j < nok && ok[j] != k; j++)
			;
		if (j < nok)
			continue;
		why[0] = '\0';
		if (k->runs_here(procfs, sysfs, why, sizeof(why)) == 0) {
			if (nok < PLAN_KINDS_MAX)
				ok[nok++] = k;
			continue;
		}
		snprintf(err, len, "%s:%d:%d: mode: %s with fallback: refuse, "
		    "and mode: %s cannot run here: %s", cfg->source,
		    t->mode_line, t->mode_col, k->name, k->name, why);
		return -1;
	}
	return 0;
}
