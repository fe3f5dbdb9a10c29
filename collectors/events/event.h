/*
 * event.h - event names, the way perf spells them, to perf_event_attr: a pure
 * parser over the PMU table (and one tracefs file for a tracepoint).
 * Grammar: docs/events.md; design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <stddef.h>
#include <linux/perf_event.h>

#include "collectors/events/event_names.h"
#include "collectors/events/event_types.h"
#include "collectors/events/pmu.h"

/*
 * Parse one event string into its variants (one, or one per core PMU on
 * a hybrid machine), at most max.  Only type, config*, the exclude bits
 * and pinned are set in attr; the caller sets read_format and the rest.
 * Returns the number of variants, or -EINVAL with a message in err that
 * quotes the event and points at the column, or names the event it
 * resembles.  out is untouched on failure.
 */
int event_parse(const struct event_ctx *ctx, const char *s,
    struct event *out, size_t max, char *err, size_t errlen);

#endif
