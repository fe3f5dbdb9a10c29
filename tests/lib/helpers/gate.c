/*
 * gate.c - an LD_PRELOAD shim that holds the daemon just before its first
 * collection, so a test can look at it in that state.
 *
 *   PMU_TEST_GATE=FILE LD_PRELOAD=tests/lib/helpers/gate.so pmu_exporter ...
 *
 * The collector starts counting with PERF_EVENT_IOC_ENABLE on each group
 * leader, right before its first collection and after the HTTP server is
 * up.  The first such ioctl waits until FILE exists (or 60 s have passed:
 * a test that died must not leave a daemon hanging), and creates FILE.held
 * first, so the test knows the daemon is held there.  Nothing else is
 * changed: every ioctl, that one too, goes on to the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int ioctl(int fd, unsigned long request, ...);

int
ioctl(int fd, unsigned long request, ...)
{
	static int (*real)(int, unsigned long, ...);
	static int held;
	struct timespec ts = { 0, 10000000 };
	const char *gate;
	char path[4096];
	va_list ap;
	void *arg;
	int i;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (real == NULL &&
	    (real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT,
	    "ioctl")) == NULL)
		abort();
	if (request == PERF_EVENT_IOC_ENABLE && !held &&
	    (gate = getenv("PMU_TEST_GATE")) != NULL) {
		held = 1;
		snprintf(path, sizeof(path), "%s.held", gate);
		close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		for (i = 0; i < 6000 && access(gate, F_OK) != 0; i++)
			nanosleep(&ts, NULL);
	}
	return real(fd, request, arg);
}
