/*
 * logfields.h - what a report is about, for structured logs (journal
 * fields, logfmt keys).  The collector reports through a hook of this
 * shape and daemon/log.c writes it: the one vocabulary both sides share,
 * so neither includes the other for it.
 */
#ifndef PMU_LOGFIELDS_H
#define PMU_LOGFIELDS_H

/* NULL, or cpu/err < 0 resp. 0, where a field does not apply. */
struct log_fields {
	const char *cgroup;
	const char *group;
	const char *event;
	int cpu;
	int err;			/* errno value */
};

#endif
