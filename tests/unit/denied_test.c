/*
 * denied_test.c - telling why perf_event_open was refused, from the
 * /proc/self/status texts of the cases that are easy to confuse: a
 * podman container run as uid 0 with --cap-add=PERFMON (holds it; the
 * default seccomp profile refuses), the image's non-root user (bounding
 * set only), a rootless container (a user namespace), the host without
 * the capability, and a kernel before 5.8 (CAP_SYS_ADMIN, no
 * Seccomp_filters line).  Then the same read from a procfs tree.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/perf/denied.h"
#include "tests/lib/check.h"

#define HOST_MAP "         0          0 4294967295\n"
#define ROOTLESS_MAP "         0       1000          1\n" \
	"         1     100000      65536\n"

/* A paranoid level that could not be read. */
#define UNREAD (-100)

static const char *srcdir;
static char msg[2048];

static void
load(const char *fixture, struct denied_status *st)
{
	char path[4096], text[8192];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/status.%s", srcdir,
	    fixture);
	if ((f = fopen(path, "r")) == NULL) {
		perror(path);
		exit(1);
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	denied_parse_status(text, st);
}

/* Classify a fixture at a paranoid level (or UNREAD). */
static enum denied_cause
classify(const char *fixture, const char *uid_map, int paranoid, int err)
{
	struct denied_facts f;

	memset(&f, 0, sizeof(f));
	load(fixture, &f.st);
	f.uid_map = uid_map;
	f.have_paranoid = paranoid != UNREAD;
	f.paranoid = paranoid;
	f.paranoid_why = "/proc/sys/kernel/perf_event_paranoid: No such file "
	    "or directory";
	f.err = err;
	return denied_classify(&f, msg, sizeof(msg));
}

static void
test_parse(void)
{
	struct denied_status st;

	load("podman-root", &st);
	CHECK(st.have_caps);
	CHECK(st.cap_eff == 0xc000000000ULL);
	CHECK(st.cap_bnd == 0xc000000000ULL);
	CHECK(st.euid == 0);
	CHECK(st.seccomp == 2);
	CHECK(st.seccomp_filters == 1);
	load("podman-user", &st);
	CHECK(st.euid == 65534);
	CHECK(st.cap_eff == 0);
	load("linux54-sysadmin", &st);
	CHECK(st.seccomp == 2);
	CHECK(st.seccomp_filters == -1);
	/* Names are matched whole: CapEffX is not CapEff. */
	denied_parse_status("Name:\tx\nCapEffX:\t1\nCapBnd:\t0\n", &st);
	CHECK(!st.have_caps);
	denied_parse_status("", &st);
	CHECK(!st.have_caps && st.euid == -1 && st.seccomp == -1);
	denied_parse_status("Uid:\t1\t2\t3\t4\nCapEff:\t4000000000\n"
	    "CapBnd:\tffffffffff", &st);
	CHECK(st.have_caps && st.euid == 2);
	CHECK(st.cap_eff == 1ULL << DENIED_CAP_PERFMON);
}

static void
test_userns(void)
{
	CHECK(!denied_in_userns(NULL));
	CHECK(!denied_in_userns(HOST_MAP));
	CHECK(!denied_in_userns("0 0 4294967295"));
	CHECK(denied_in_userns(ROOTLESS_MAP));
	CHECK(denied_in_userns("         0          0 65536\n"));
	CHECK(denied_in_userns("         0     100000 4294967295\n"));
	CHECK(denied_in_userns(HOST_MAP "1 1 1\n"));
	CHECK(denied_in_userns(""));
}

static void
test_classify(void)
{
	/* podman --user 0 --cap-add=PERFMON: holds it, the filter refuses. */
	CHECK(classify("podman-root", HOST_MAP, 2, EPERM) == DENIED_SECCOMP);
	CHECK_CONTAINS(msg, "this process holds CAP_PERFMON, but a seccomp "
	    "filter is active (Seccomp: 2, Seccomp_filters: 1) and likely "
	    "refuses perf_event_open: it returned EPERM");
	CHECK_CONTAINS(msg, "--security-opt "
	    "seccomp=/usr/share/pmu-exporter/seccomp/pmu_exporter.json");
	CHECK_CONTAINS(msg, "seccompProfile of type Localhost");
	CHECK_CONTAINS(msg, "Unconfined");
	CHECK(strstr(msg, "lacks") == NULL);
	/* ... whatever the paranoid level says. */
	CHECK(classify("podman-root", HOST_MAP, UNREAD, EPERM) ==
	    DENIED_SECCOMP);
	CHECK(classify("podman-root", NULL, 3, EACCES) == DENIED_SECCOMP);
	CHECK_CONTAINS(msg, "likely refuses perf_event_open (it returned "
	    "EACCES)");

	/* The image's USER 65534: PERFMON in the bounding set only. */
	CHECK(classify("podman-user", HOST_MAP, 2, EPERM) ==
	    DENIED_NOT_AMBIENT);
	CHECK_CONTAINS(msg, "this process (uid 65534) lacks CAP_PERFMON in "
	    "its effective set though its bounding set holds CAP_PERFMON");
	CHECK_CONTAINS(msg, "run as uid 0 in the container");
	CHECK_CONTAINS(msg, "set ambient capabilities");
	CHECK_CONTAINS(msg, "kernel.perf_event_paranoid is 2");
	/* EPERM: the filter answered first and will still be there. */
	CHECK_CONTAINS(msg, "; a seccomp filter is active too (Seccomp: 2, "
	    "Seccomp_filters: 1) and answered EPERM before the kernel could");
	CHECK(classify("podman-user", HOST_MAP, 2, EACCES) ==
	    DENIED_NOT_AMBIENT);
	CHECK(strstr(msg, "seccomp filter is active too") == NULL);

	/* The host, nobody without capabilities: as it always said. */
	CHECK(classify("host-nobody", HOST_MAP, 2, EACCES) == DENIED_NO_CAP);
	CHECK_CONTAINS(msg, "this process lacks CAP_PERFMON (CAP_SYS_ADMIN "
	    "before Linux 5.8) and kernel.perf_event_paranoid is 2; "
	    "system-wide and cgroup counting need the capability");
	CHECK(strstr(msg, "seccomp") == NULL);
	CHECK(classify("host-nobody", NULL, UNREAD, EACCES) == DENIED_NO_CAP);
	CHECK_CONTAINS(msg, "and kernel.perf_event_paranoid could not be read "
	    "(/proc/sys/kernel/perf_event_paranoid: No such file or "
	    "directory);");
	/* uid 0 without the capability: not an ambient matter. */
	CHECK(classify("linux54-docker", HOST_MAP, 2, EPERM) ==
	    DENIED_NO_CAP);
	CHECK_CONTAINS(msg, "a seccomp filter is active too (Seccomp: 2) and");

	/* Rootless: every capability, in a user namespace. */
	CHECK(classify("rootless", ROOTLESS_MAP, 2, EACCES) == DENIED_USERNS);
	CHECK_CONTAINS(msg, "this process runs in a user namespace (uid_map "
	    "\"0 1000 1 ...\"): capabilities held there do not count");
	CHECK_CONTAINS(msg, "kernel.perf_event_paranoid is 2");
	CHECK(classify("host-root", "0 0 1000\n", 1, EACCES) ==
	    DENIED_USERNS);
	CHECK_CONTAINS(msg, "(uid_map \"0 0 1000\")");
	/* ... where the host lets anyone count, the filter is to blame. */
	CHECK(classify("rootless", ROOTLESS_MAP, 0, EPERM) == DENIED_SECCOMP);
	CHECK_CONTAINS(msg, "kernel.perf_event_paranoid is 0, which allows "
	    "counting without CAP_PERFMON (tracepoints aside: they need -1), "
	    "but a seccomp filter is active");

	/* Before Linux 5.8: CAP_SYS_ADMIN, no Seccomp_filters line. */
	CHECK(classify("linux54-sysadmin", HOST_MAP, 2, EPERM) ==
	    DENIED_SECCOMP);
	CHECK_CONTAINS(msg, "this process holds CAP_SYS_ADMIN, but a seccomp "
	    "filter is active (Seccomp: 2) and");

	/* Every check passes and nothing filters: not the capability. */
	CHECK(classify("host-root", HOST_MAP, 2, EACCES) == DENIED_UNKNOWN);
	CHECK_CONTAINS(msg, "this process holds CAP_PERFMON and no seccomp "
	    "filter is active, yet perf_event_open returned EACCES: a Linux "
	    "security module");
	CHECK(classify("host-nobody", HOST_MAP, -1, EACCES) ==
	    DENIED_UNKNOWN);
	CHECK_CONTAINS(msg, "kernel.perf_event_paranoid is -1, which allows "
	    "counting without CAP_PERFMON and no seccomp filter");
}

static void
test_unread(void)
{
	struct denied_facts f;

	memset(&f, 0, sizeof(f));
	f.status_why = "/x/self/status: No such file or directory";
	f.have_paranoid = 1;
	f.paranoid = 2;
	f.err = EACCES;
	CHECK(denied_classify(&f, msg, sizeof(msg)) == DENIED_UNKNOWN);
	CHECK_CONTAINS(msg, "whether this process holds CAP_PERFMON is unknown "
	    "(/x/self/status: No such file or directory) and "
	    "kernel.perf_event_paranoid is 2;");
	/* A short buffer truncates, never overruns. */
	memset(msg, 'x', sizeof(msg));
	CHECK(denied_classify(&f, msg, 16) == DENIED_UNKNOWN);
	CHECK(strlen(msg) == 15);
	CHECK(msg[16] == 'x');
	CHECK(denied_classify(&f, msg, 0) == DENIED_UNKNOWN);
}

static void
put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	CHECK((f = fopen(path, "w")) != NULL);
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

/* denied_explain reads the facts under the procfs it is given. */
static void
test_explain(void)
{
	char dir[] = "/tmp/denied_test.XXXXXX", path[4096], text[8192];
	struct denied_status st;
	FILE *f;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/self", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/tests/fixtures/status.podman-user",
	    srcdir);
	CHECK((f = fopen(path, "r")) != NULL);
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	put(dir, "self/status", text);
	put(dir, "self/uid_map", HOST_MAP);

	/* No sys/: the level could not be read, and it says where. */
	CHECK(denied_explain(dir, EPERM, msg, sizeof(msg)) ==
	    DENIED_NOT_AMBIENT);
	snprintf(path, sizeof(path), "kernel.perf_event_paranoid could not "
	    "be read (%s/sys/kernel/perf_event_paranoid: No such file or "
	    "directory)", dir);
	CHECK_CONTAINS(msg, path);

	snprintf(path, sizeof(path), "%s/sys", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	CHECK(mkdir(path, 0755) == 0);
	put(dir, "sys/kernel/perf_event_paranoid", "3\n");
	CHECK(denied_explain(dir, EPERM, msg, sizeof(msg)) ==
	    DENIED_NOT_AMBIENT);
	CHECK_CONTAINS(msg, "kernel.perf_event_paranoid is 3");

	put(dir, "self/uid_map", ROOTLESS_MAP);
	CHECK(denied_explain(dir, EACCES, msg, sizeof(msg)) == DENIED_USERNS);

	put(dir, "sys/kernel/perf_event_paranoid", "two\n");
	CHECK(denied_explain(dir, EACCES, msg, sizeof(msg)) == DENIED_USERNS);
	CHECK_CONTAINS(msg, "perf_event_paranoid: not a number)");

	put(dir, "self/status", "Name:\tpmu_exporter\n");
	CHECK(denied_explain(dir, EACCES, msg, sizeof(msg)) ==
	    DENIED_UNKNOWN);
	CHECK_CONTAINS(msg, "/self/status: no CapEff or CapBnd)");

	/* This process's own facts parse, whatever they are. */
	CHECK(denied_explain("/proc", EACCES, msg, sizeof(msg)) !=
	    DENIED_NONE);
	CHECK(msg[0] != '\0');
	snprintf(path, sizeof(path), "/proc/self/status");
	CHECK((f = fopen(path, "r")) != NULL);
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	denied_parse_status(text, &st);
	CHECK(st.have_caps && st.euid == (long long)geteuid());

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

int
main(void)
{
	srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	test_parse();
	test_userns();
	test_classify();
	test_unread();
	test_explain();
	CHECK(strcmp(denied_cause_name(DENIED_SECCOMP), "a seccomp filter")
	    == 0);
	return CHECK_DONE();
}
