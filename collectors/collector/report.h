/*
 * report.h - how the collector's files report (struct report): the log
 * hook the daemon gave (collector_opts.log), handed to each file that
 * reports instead of the collector.  Priorities are syslog.h's names
 * (LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG), never bare numbers.
 * See docs/architecture.md, "Layers and threads".
 */
#ifndef PMU_COLLECTOR_REPORT_H
#define PMU_COLLECTOR_REPORT_H

#include <stddef.h>

#include "util/logfields.h"

struct report {
	log_fields_fn log;
};

/* A report through rp (a struct report, or anything with its log). */
#define REPORT(rp, prio, cg, grp, ev, cpu, err, ...)			\
	(rp)->log((prio), &(const struct log_fields){ (cg), (grp), (ev),	\
	    (cpu), (err) }, __VA_ARGS__)
/* A report about no cgroup, group, event or CPU in particular. */
#define SAY(rp, prio, err, ...)						\
	REPORT(rp, prio, NULL, NULL, NULL, -1, err, __VA_ARGS__)

#endif
