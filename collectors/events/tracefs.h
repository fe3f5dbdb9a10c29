/*
 * tracefs.h - where tracefs is mounted, and tracepoint ids below it.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_TRACEFS_H
#define PMU_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

/* Find tracefs in a mountinfo file.  0, -ENOENT when not mounted, -errno. */
int tracefs_find(const char *mountinfo, char *root, size_t len);

/*
 * The id of tracepoint sys:name below root.  0; -ENOENT when there is no
 * such tracepoint; -EINVAL when a name holds characters no tracepoint
 * has (so no path can escape root); -errno.
 */
int tracefs_event_id(const char *root, const char *sys, const char *name,
    uint64_t *id);

/* Call fn for each subsystem directory under <root>/events, sorted. */
int tracefs_subsystems(const char *root, void (*fn)(const char *, void *),
    void *arg);

#endif
