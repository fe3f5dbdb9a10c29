/*
 * gate.c - an LD_PRELOAD shim that holds the daemon where a test wants to
 * look at it:
 *
 *   PMU_TEST_GATE=FILE LD_PRELOAD=tests/lib/helpers/gate.so pmu_exporter ...
 *       holds it just before its first collection.  The collector starts
 *       counting with PERF_EVENT_IOC_ENABLE on each group leader, right
 *       before its first collection and after the HTTP server is up.  The
 *       first such ioctl waits until FILE exists (or 60 s have passed: a
 *       test that died must not leave a daemon hanging), and creates
 *       FILE.held first, so the test knows the daemon is held there.
 *   PMU_TEST_HANG=FILE ...
 *       hangs its collector: while FILE exists, a read() of a perf event
 *       (only the collector reads them) waits until FILE is gone.  The
 *       product has no hook of its own for this (issue 52).
 *
 * Nothing else is changed: every call goes on to the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int ioctl(int fd, unsigned long request, ...);
ssize_t read(int fd, void *buf, size_t count);

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

/* Is fd a perf event's? */
static int
is_perf_event(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((n = readlink(path, link, sizeof(link) - 1)) < 0)
		return 0;
	link[n] = 0;
	return strcmp(link, "anon_inode:[perf_event]") == 0;
}

ssize_t
read(int fd, void *buf, size_t count)
{
	static ssize_t (*real)(int, void *, size_t);
	struct timespec ts = { 0, 10000000 };
	const char *hang = getenv("PMU_TEST_HANG");

	if (real == NULL &&
	    (real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT,
	    "read")) == NULL)
		abort();
	if (hang != NULL && access(hang, F_OK) == 0 && is_perf_event(fd))
		while (access(hang, F_OK) == 0)
			nanosleep(&ts, NULL);
	return real(fd, buf, count);
}
