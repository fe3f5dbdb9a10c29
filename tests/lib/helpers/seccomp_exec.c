/*
 * seccomp_exec - run a program under a seccomp filter that makes
 * perf_event_open fail with an errno, as a container runtime's default
 * profile does (podman's and CRI-O's answer EPERM to a container without
 * CAP_SYS_ADMIN), and lets every other system call through.  The caller
 * keeps its capabilities: tests/integration/privileges.test uses it to see the daemon
 * hold CAP_PERFMON and be refused all the same.
 *
 *   seccomp_exec ERRNO PROGRAM [ARG...]     ERRNO: EPERM, EACCES or a number
 *
 * The filter is installed with no_new_privs (libseccomp's default), which
 * keeps the capabilities a root caller or ambient ones give; exits 125 if
 * it cannot be installed, 127 if the program cannot be run.
 */
#include "autoconf.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	char *end;
	long e;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: seccomp_exec ERRNO PROGRAM [ARG...]\n");
		return 125;
	}
	if (strcmp(argv[1], "EPERM") == 0)
		e = EPERM;
	else if (strcmp(argv[1], "EACCES") == 0)
		e = EACCES;
	else if ((e = strtol(argv[1], &end, 10)) <= 0 || e > 4095 || *end) {
		fprintf(stderr, "seccomp_exec: %s: not an errno\n", argv[1]);
		return 125;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		fprintf(stderr, "seccomp_exec: seccomp_init failed\n");
		return 125;
	}
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)e),
	    SCMP_SYS(perf_event_open), 0)) < 0 ||
	    (r = seccomp_load(ctx)) < 0) {
		fprintf(stderr, "seccomp_exec: installing the filter: %s\n",
		    strerror(-r));
		seccomp_release(ctx);
		return 125;
	}
	seccomp_release(ctx);
	execvp(argv[2], argv + 2);
	fprintf(stderr, "seccomp_exec: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
