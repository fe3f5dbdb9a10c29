/*
 * denied.c - why perf_event_open said EACCES or EPERM (denied.h): the kernel's
 * own checks first, then what stands in front of the kernel.
 * Design: docs/architecture.md, "collectors/perf/".
 */
#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/perf/denied.h"
#include "util/text.h"

/* The profile the package ships: the runtimes' default plus
 * perf_event_open and bpf without CAP_SYS_ADMIN. */
#define SECCOMP_PROFILE "/usr/share/pmu-exporter/seccomp/pmu_exporter.json"

#define SECCOMP_FIX							\
	"run it with a profile that allows perf_event_open and bpf: "	\
	"podman or docker --security-opt seccomp=" SECCOMP_PROFILE	\
	", in Kubernetes securityContext.seccompProfile of type "	\
	"Localhost with that file in the kubelet's seccomp directory, "	\
	"or Unconfined (under systemd, SystemCallFilter= must allow "	\
	"perf_event_open)"

static uint64_t
cap_bit(int cap)
{
	return (uint64_t)1 << cap;
}

/* Either capability lets perf_event_open count system-wide and cgroups. */
static uint64_t
perf_caps(void)
{
	return cap_bit(DENIED_CAP_PERFMON) | cap_bit(DENIED_CAP_SYS_ADMIN);
}

void
denied_parse_status(const char *text, struct denied_status *st)
{
	const char *line = text, *v, *end;
	char name[32];
	size_t n;
	int have_eff = 0, have_bnd = 0;

	memset(st, 0, sizeof(*st));
	st->euid = -1;
	st->seccomp = -1;
	st->seccomp_filters = -1;
	for (; line != NULL && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if ((v = strchr(line, ':')) == NULL || (end && v > end) ||
		    (n = (size_t)(v - line)) >= sizeof(name))
			continue;
		memcpy(name, line, n);
		name[n] = '\0';
		v++;
		if (strcmp(name, "CapEff") == 0)
			have_eff = sscanf(v, "%" SCNx64, &st->cap_eff) == 1;
		else if (strcmp(name, "CapBnd") == 0)
			have_bnd = sscanf(v, "%" SCNx64, &st->cap_bnd) == 1;
		else if (strcmp(name, "Uid") == 0) {
			long long real, eff;

			/* Real, effective, saved, filesystem: exec gives
			 * capabilities by the effective one. */
			if (sscanf(v, "%lld %lld", &real, &eff) == 2)
				st->euid = eff;
		} else if (strcmp(name, "Seccomp") == 0) {
			if (sscanf(v, "%d", &st->seccomp) != 1)
				st->seccomp = -1;
		} else if (strcmp(name, "Seccomp_filters") == 0) {
			if (sscanf(v, "%d", &st->seccomp_filters) != 1)
				st->seccomp_filters = -1;
		}
	}
	st->have_caps = have_eff && have_bnd;
}

int
denied_in_userns(const char *uid_map)
{
	unsigned long long inside, outside, count;
	int used;

	if (uid_map == NULL)
		return 0;
	if (sscanf(uid_map, " %llu %llu %llu%n", &inside, &outside, &count,
	    &used) != 3)
		return 1;		/* empty: a namespace not mapped yet */
	if (inside != 0 || outside != 0 || count != 4294967295ULL)
		return 1;
	uid_map += used;
	return uid_map[strspn(uid_map, " \t\n")] != '\0';
}

/* Append to msg, truncating quietly (the message is for reading). */
static void __attribute__((format(printf, 4, 5)))
msg_add(char *msg, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*o >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(msg + *o, len - *o, fmt, ap);
	va_end(ap);
	if (w > 0)
		*o = *o + (size_t)w < len ? *o + (size_t)w : len;
}

static void
add_paranoid(char *msg, size_t len, size_t *o, const struct denied_facts *f)
{
	if (f->have_paranoid)
		msg_add(msg, len, o, "kernel.perf_event_paranoid is %d",
		    f->paranoid);
	else
		msg_add(msg, len, o, "kernel.perf_event_paranoid could not be "
		    "read (%s)", f->paranoid_why ? f->paranoid_why : "unknown");
}

/* "Seccomp: 2, Seccomp_filters: 1", as the status file says it. */
static void
add_seccomp(char *msg, size_t len, size_t *o, const struct denied_status *st)
{
	msg_add(msg, len, o, "Seccomp: %d", st->seccomp);
	if (st->seccomp_filters >= 0)
		msg_add(msg, len, o, ", Seccomp_filters: %d",
		    st->seccomp_filters);
}

/* The first line of uid_map with its runs of blanks made one space. */
static void
add_uid_map(char *msg, size_t len, size_t *o, const char *map)
{
	char line[128];
	size_t n = 0;
	const char *p = map + strspn(map, " \t");

	for (; *p && *p != '\n' && n < sizeof(line) - 1; p++)
		if (*p != ' ' && *p != '\t')
			line[n++] = *p;
		else if (n > 0 && line[n - 1] != ' ')
			line[n++] = ' ';
	while (n > 0 && line[n - 1] == ' ')
		n--;
	line[n] = '\0';
	p += strspn(p, " \t\n");
	msg_add(msg, len, o, "\"%s%s\"", n ? line : "(empty)",
	    *p ? " ..." : "");
}

static const char *
err_name(int err)
{
	return err == EPERM ? "EPERM" : err == EACCES ? "EACCES" :
	    strerror(err);
}

/*
 * The kernel's own checks pass (by_cap: a capability held outside a user
 * namespace; else a lax perf_event_paranoid): something else refused, a
 * seccomp filter when one is active, else a security module.
 */
static enum denied_cause
refused_elsewhere(const struct denied_facts *f, int by_cap, int filtered,
    const char *held, char *msg, size_t len, size_t *o)
{
	if (by_cap)
		msg_add(msg, len, o, "this process holds %s", held);
	else {
		add_paranoid(msg, len, o, f);
		msg_add(msg, len, o, ", which allows counting without "
		    "CAP_PERFMON%s", f->paranoid == 0 ?
		    " (tracepoints aside: they need -1)" : "");
	}
	if (!filtered) {
		msg_add(msg, len, o, " and no seccomp filter is active, yet "
		    "perf_event_open returned %s: a Linux security module "
		    "(SELinux, AppArmor) may refuse it; see the kernel's "
		    "audit log", err_name(f->err));
		return DENIED_UNKNOWN;
	}
	msg_add(msg, len, o, ", but a seccomp filter is active (");
	add_seccomp(msg, len, o, &f->st);
	if (f->err == EPERM)
		msg_add(msg, len, o, ") and likely refuses perf_event_open: it "
		    "returned EPERM, as a filter's errno action does (the "
		    "kernel's own refusal is EACCES)");
	else
		msg_add(msg, len, o, ") and likely refuses perf_event_open (it "
		    "returned %s)", err_name(f->err));
	msg_add(msg, len, o, "; the default profiles of podman and CRI-O "
	    "(containers-common's seccomp.json) allow it only with "
	    "CAP_SYS_ADMIN; " SECCOMP_FIX);
	return DENIED_SECCOMP;
}

enum denied_cause
denied_classify(const struct denied_facts *f, char *msg, size_t len)
{
	const struct denied_status *st = &f->st;
	uint64_t cap = perf_caps();
	const char *held = st->cap_eff & cap_bit(DENIED_CAP_PERFMON) ?
	    "CAP_PERFMON" : "CAP_SYS_ADMIN";
	int userns = denied_in_userns(f->uid_map);
	int has_cap = st->have_caps && (st->cap_eff & cap) != 0;
	int filtered = st->seccomp == 2;
	int lax = f->have_paranoid && f->paranoid <= 0;
	enum denied_cause cause;
	size_t o = 0;

	if (len > 0)
		msg[0] = '\0';
	if (!st->have_caps) {
		msg_add(msg, len, &o, "whether this process holds CAP_PERFMON "
		    "is unknown (%s) and ", f->status_why ? f->status_why :
		    "no CapEff in its status");
		add_paranoid(msg, len, &o, f);
		msg_add(msg, len, &o, "; system-wide and cgroup counting need "
		    "CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8) or "
		    "kernel.perf_event_paranoid=-1");
		return DENIED_UNKNOWN;
	}
	if ((has_cap && !userns) || lax)
		return refused_elsewhere(f, has_cap && !userns, filtered, held,
		    msg, len, &o);

	if (userns) {
		msg_add(msg, len, &o, "this process runs in a user namespace "
		    "(uid_map ");
		add_uid_map(msg, len, &o, f->uid_map);
		msg_add(msg, len, &o, "): capabilities held there do not count "
		    "for perf_event_open on the host's CPUs and cgroups, which "
		    "wants CAP_PERFMON in the initial user namespace, and ");
		add_paranoid(msg, len, &o, f);
		msg_add(msg, len, &o, "; run the container without a user "
		    "namespace (rootful podman without --userns, docker "
		    "without userns-remap, Kubernetes hostUsers: true, the "
		    "default) with CAP_PERFMON, or set "
		    "kernel.perf_event_paranoid=-1 on the host");
		cause = DENIED_USERNS;
	} else if (st->euid > 0 && (st->cap_bnd & cap) != 0) {
		msg_add(msg, len, &o, "this process (uid %lld) lacks "
		    "CAP_PERFMON in its effective set though its bounding "
		    "set holds %s: a container runtime (--cap-add, "
		    "capabilities.add) gives a non-root user no ambient "
		    "capabilities; run as uid 0 in the container (--user 0, "
		    "runAsUser: 0), or set ambient capabilities "
		    "(AmbientCapabilities=CAP_PERFMON in a unit, setpriv "
		    "--ambient-caps=+perfmon) or file capabilities (setcap "
		    "cap_perfmon+ep on the binary); ", st->euid,
		    st->cap_bnd & cap_bit(DENIED_CAP_PERFMON) ?
		    "CAP_PERFMON" : "CAP_SYS_ADMIN");
		add_paranoid(msg, len, &o, f);
		cause = DENIED_NOT_AMBIENT;
	} else {
		msg_add(msg, len, &o, "this process lacks CAP_PERFMON "
		    "(CAP_SYS_ADMIN before Linux 5.8) and ");
		add_paranoid(msg, len, &o, f);
		msg_add(msg, len, &o, "; system-wide and cgroup counting need "
		    "the capability (AmbientCapabilities=CAP_PERFMON in the "
		    "unit, setcap cap_perfmon+ep on the binary, or "
		    "--cap-add=PERFMON for a container run as uid 0) or "
		    "kernel.perf_event_paranoid=-1");
		cause = DENIED_NO_CAP;
	}
	/* EPERM means the filter answered, before the kernel could: it may
	 * still refuse once the capability is there (podman's default
	 * profile, for a container without CAP_SYS_ADMIN). */
	if (filtered && f->err == EPERM) {
		msg_add(msg, len, &o, "; a seccomp filter is active too (");
		add_seccomp(msg, len, &o, st);
		msg_add(msg, len, &o, ") and answered EPERM before the kernel "
		    "could (whose refusal is EACCES): with the capability it "
		    "may still refuse perf_event_open (--security-opt "
		    "seccomp=" SECCOMP_PROFILE ")");
	}
	return cause;
}

enum denied_cause
denied_explain(const char *procfs, int err, char *msg, size_t len)
{
	char path[4096], status[8192], uid_map[1024], num[64];
	char status_why[4200], paranoid_why[4200];
	struct denied_facts f;
	int r;

	memset(&f, 0, sizeof(f));
	f.err = err;
	snprintf(path, sizeof(path), "%s/self/status", procfs);
	if ((r = text_read_small(path, status, sizeof(status))) < 0) {
		snprintf(status_why, sizeof(status_why), "%s: %s", path,
		    strerror(-r));
		f.status_why = status_why;
		status[0] = '\0';
	}
	denied_parse_status(status, &f.st);
	if (r == 0 && !f.st.have_caps) {
		snprintf(status_why, sizeof(status_why), "%s: no CapEff or "
		    "CapBnd", path);
		f.status_why = status_why;
	}
	snprintf(path, sizeof(path), "%s/self/uid_map", procfs);
	if (text_read_small(path, uid_map, sizeof(uid_map)) == 0)
		f.uid_map = uid_map;
	/* Unreadable under ProcSubset=pid, for one: say so, not a number. */
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
	    procfs);
	if ((r = text_read_small(path, num, sizeof(num))) < 0)
		snprintf(paranoid_why, sizeof(paranoid_why), "%s: %s", path,
		    strerror(-r));
	else if (sscanf(num, "%d", &f.paranoid) != 1)
		snprintf(paranoid_why, sizeof(paranoid_why), "%s: not a "
		    "number", path);
	else
		f.have_paranoid = 1;
	f.paranoid_why = paranoid_why;
	return denied_classify(&f, msg, len);
}

const char *
denied_cause_name(enum denied_cause cause)
{
	switch (cause) {
	case DENIED_NONE:
		return "not refused";
	case DENIED_NO_CAP:
		return "no CAP_PERFMON";
	case DENIED_NOT_AMBIENT:
		return "CAP_PERFMON not ambient";
	case DENIED_USERNS:
		return "a user namespace";
	case DENIED_SECCOMP:
		return "a seccomp filter";
	case DENIED_UNKNOWN:
		break;
	}
	return "cause unclear";
}
