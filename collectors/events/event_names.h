/*
 * event_names.h - perf's own event names (event_names.c): the closest to
 * a misspelt one, and the iterators --list-events walks.
 * Design: docs/events.md; docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_NAMES_H
#define PMU_EVENT_NAMES_H

#include <stddef.h>

/* The closest known event name to s, or NULL if nothing is close. */
const char *event_suggest(const char *s);

/* Iterate over the generic names: returns NULL past the end. */
const char *event_name_at(size_t i, unsigned *type, unsigned long long *config);

/*
 * Iterate over perf's canonical hw-cache names ("L1-dcache-load-misses"):
 * returns the i'th into buf, or NULL past the end.
 */
const char *event_hwcache_name_at(size_t i, char *buf, size_t len);

#endif
