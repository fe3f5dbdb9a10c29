/*
 * event.h - event names, the way perf spells them, to perf_event_attr.
 *
 * This module is pure: it reads no files and makes no syscalls, so every
 * spelling can be unit-tested.  It knows the generic hardware and software
 * events and the u/k/h modifiers.  It grows here (hw-cache, raw, sysfs PMU
 * terms, tracepoints) without its callers changing.
 */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <stddef.h>
#include <linux/perf_event.h>

/*
 * Parse one event string into attr (type, config and exclude bits only;
 * the caller sets read_format, disabled and the rest).  Returns 0, or
 * -EINVAL with a message in err that names the event and, for a likely
 * typo, the name it resembles.  attr is untouched on failure.
 */
int event_parse(const char *s, struct perf_event_attr *attr, char *err,
    size_t errlen);

/* Is this a hardware (PMU) event, as opposed to a software one? */
int event_is_hardware(const struct perf_event_attr *attr);

/* The closest known event name to s, or NULL if nothing is close. */
const char *event_suggest(const char *s);

/* Edit distance, for "did you mean" everywhere. */
size_t event_distance(const char *a, const char *b);

/* Iterate over the known names: returns NULL past the end. */
const char *event_name_at(size_t i, unsigned *type, unsigned long long *config);

#endif
