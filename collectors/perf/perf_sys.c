/*
 * perf_sys.c - the real perf syscalls behind perf_ops (perf_sys.h).
 * Design: docs/architecture.md, "collectors/perf/".
 */
#include "autoconf.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/perf/perf_sys.h"
#include "util/clock.h"

static int
kernel_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
	    flags);
}

static int
kernel_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg);
}

const struct perf_ops perf_ops_kernel = {
	.open = kernel_open,
	.ioctl = kernel_ioctl,
	.read = read,
	.close = close,
	.now_ns = mono_ns,
};

const struct perf_ops *perf_ops = &perf_ops_kernel;
