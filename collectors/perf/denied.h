/*
 * denied.h - why perf_event_open refused this process (EACCES or EPERM), told
 * from what the process can see of itself, and what to change: one pure
 * function over the facts (denied_classify), and their gathering from a procfs
 * (denied_explain).
 * Design: docs/architecture.md, "collectors/perf/".
 */
#ifndef PMU_DENIED_H
#define PMU_DENIED_H

#include <stddef.h>
#include <stdint.h>

/* Capability bits, as in linux/capability.h (which may predate PERFMON). */
#define DENIED_CAP_SYS_ADMIN	21
#define DENIED_CAP_PERFMON	38

enum denied_cause {
	DENIED_NONE,		/* nothing was refused */
	DENIED_NO_CAP,		/* no CAP_PERFMON/CAP_SYS_ADMIN; paranoid too high */
	DENIED_NOT_AMBIENT,	/* non-root: in the bounding set, not effective */
	DENIED_USERNS,		/* a user namespace: capabilities do not count */
	DENIED_SECCOMP,		/* the kernel would allow it; a filter is active */
	DENIED_UNKNOWN,		/* status unreadable, or none of the above */
};

/* What <procfs>/self/status says; see denied_parse_status. */
struct denied_status {
	int have_caps;			/* CapEff: and CapBnd: were read */
	uint64_t cap_eff, cap_bnd;
	long long euid;			/* -1: no Uid: line */
	int seccomp;			/* Seccomp: mode; -1: no such line */
	int seccomp_filters;		/* -1: no such line (before Linux 5.9) */
};

/* Everything the classification looks at. */
struct denied_facts {
	struct denied_status st;
	const char *status_why;		/* !st.have_caps: "path: error" */
	const char *uid_map;		/* <procfs>/self/uid_map; NULL: unread */
	int have_paranoid;
	int paranoid;			/* kernel.perf_event_paranoid */
	const char *paranoid_why;	/* !have_paranoid: "path: error" */
	int err;			/* what perf_event_open returned */
};

/*
 * Parse the text of /proc/PID/status.  Fields that are missing stay
 * "unknown" (have_caps 0, or -1); always succeeds.
 */
void denied_parse_status(const char *text, struct denied_status *st);

/*
 * Does uid_map (the text of /proc/PID/uid_map) say this is a user
 * namespace other than the initial one?  The initial one maps every uid
 * to itself, "0 0 4294967295"; NULL (unreadable) counts as initial.
 */
int denied_in_userns(const char *uid_map);

/*
 * Classify a refusal and write a message for a user into msg: what is
 * missing and what to change.  Pure: no I/O.  Never returns DENIED_NONE.
 */
enum denied_cause denied_classify(const struct denied_facts *f, char *msg,
    size_t len);

/*
 * The same, with the facts read from procfs ("/proc" unless testing):
 * self/status, self/uid_map and sys/kernel/perf_event_paranoid.
 */
enum denied_cause denied_explain(const char *procfs, int err, char *msg,
    size_t len);

/* A few words for a cause ("a seccomp filter"), for a log line that
 * refers to the message. */
const char *denied_cause_name(enum denied_cause cause);

#endif
