/*
 * event_sys.h - this machine as the event parser sees it (the PMUs under a
 * sysfs root, the tracefs mount), and --list-events and --resolve-event.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_SYS_H
#define PMU_EVENT_SYS_H

#include <stdio.h>

#include "collectors/events/event.h"
#include "collectors/events/pmu.h"
#include "collectors/events/topdown.h"

struct event_sys {
	struct pmu_list pmus;
	char tracefs[4096];
	struct topdown_cpu cpu;		/* for the topdown preset */
	struct event_ctx ctx;		/* points into the fields above */
};

/*
 * Scan sysfs and find tracefs.  Returns 0; what could not be found (no
 * PMUs under sysfs, no tracefs) is described in warn and leaves those
 * event kinds unavailable.  -ENOMEM.
 */
int event_sys_load(struct event_sys *es, const char *sysfs,
    const char *mountinfo, char *warn, size_t warnlen);

/* Read the CPU's identity (topdown.h) for presets.  Never fails. */
void event_sys_identify(struct event_sys *es, const char *sysfs,
    const char *procfs);

void event_sys_free(struct event_sys *es);

/* --list-events: everything this machine offers, grouped like perf list. */
void event_sys_list(const struct event_sys *es, FILE *out);

/*
 * --resolve-event: one key=value per line; a blank line between the
 * variants of a hybrid event.  "preset:topdown" prints what the preset
 * opens on each core PMU instead.  0, or -EINVAL with the parse error in
 * err.
 */
int event_sys_resolve(const struct event_sys *es, const char *s, FILE *out,
    char *err, size_t errlen);

#endif
