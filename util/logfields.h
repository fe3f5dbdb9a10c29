/*
 * logfields.h - what a report is about, for structured logs (journal fields,
 * logfmt keys): the one vocabulary the collector's reports and daemon/log.c
 * share, so neither includes the other for it.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_LOGFIELDS_H
#define PMU_LOGFIELDS_H

#include <syslog.h>

/* NULL, or cpu/err < 0 resp. 0, where a field does not apply. */
struct log_fields {
	const char *cgroup;
	const char *group;
	const char *event;
	int cpu;
	int err;			/* errno value */
};

/* The hook a report goes through: prio is syslog.h's (LOG_ERR ...). */
typedef void (*log_fields_fn)(int prio, const struct log_fields *f,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
