/*
 * names_types.h - what names/ shares with its users and its own files
 * alike: the labels a name map gives, a valid id, the resolver's options.
 * Below every file of names/, so none includes a header above it for them.
 * Design: docs/architecture.md, "names/".
 */
#ifndef PMU_NAMES_TYPES_H
#define PMU_NAMES_TYPES_H

/* The labels a name map gives, in the order series carry them. */
enum names_label {
	NAMES_NAMESPACE,		/* Kubernetes namespace */
	NAMES_POD,			/* Kubernetes pod name */
	NAMES_CONTAINER,		/* container name; "POD": a sandbox */
	NAMES_IMAGE,			/* image reference, as the user gave it */
	NAMES_POD_UID,			/* Kubernetes pod uid */
	NAMES_NR
};

extern const char *const names_label_name[NAMES_NR];

/* The label whose value is looked up. */
#define NAMES_ID_LABEL "container_id"

/* Is id what a runtime names a container by (64 lowercase hex digits)?
 * Only such ids are looked up; they are also safe in a path. */
int names_id_valid(const char *id);

/* Priorities as in syslog.h. */
typedef void (*names_log_fn)(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct names_opts {
	const char *rootfs;		/* prefix of the runtimes' paths: "/" */
	names_log_fn log;		/* NULL: silent */
};

#endif
