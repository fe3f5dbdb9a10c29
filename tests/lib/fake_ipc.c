/*
 * fake_ipc.c - the faked perf boundary of fake_ipc.h.  The fds are a
 * table of slots: a new fd takes the first free slot after the last one
 * taken (wrapping round), so a group's members, opened just after their
 * leader, sit just after it, and a read looks at its group's own few
 * slots even with tens of thousands open.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/fake_ipc.h"

static struct slot {
	int used, leader, cg, config;
	size_t size;		/* a leader's: its group's open fds */
	uint64_t value, enabled;
} *slots;
static size_t nr_slots, next_slot;
static struct fake_ipc fake;

int
fake_ipc_init(const struct fake_ipc *how, size_t max_fds)
{
	free(slots);
	if ((slots = calloc(max_fds, sizeof(*slots))) == NULL)
		return -ENOMEM;
	nr_slots = max_fds;
	next_slot = 0;
	fake = *how;
	return 0;
}

void
fake_ipc_fini(void)
{
	free(slots);
	slots = NULL;
	nr_slots = 0;
}

static struct slot *
slot_of(int fd)
{
	return &slots[fd - fake.fd_base];
}

/* The cgroup of a directory fd: the caller's index of its name. */
static int
cg_of(int fd)
{
	char link[64], path[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) < 0)
		return -1;
	path[n] = '\0';
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	return fake.cgroup_index(base);
}

static int
f_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    unsigned long flags)
{
	size_t k, i = next_slot;
	struct slot *s;

	(void)cpu;
	for (k = 0; k < nr_slots && slots[i].used; k++)
		i = (i + 1) % nr_slots;
	if (k == nr_slots) {
		errno = EMFILE;
		return -1;
	}
	next_slot = (i + 1) % nr_slots;
	s = &slots[i];
	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->leader = group_fd == -1 ? fake.fd_base + (int)i : group_fd;
	s->cg = (flags & PERF_FLAG_PID_CGROUP) ? cg_of(pid) : -1;
	s->config = attr->type == PERF_TYPE_HARDWARE ? (int)attr->config : -1;
	slot_of(s->leader)->size++;
	return fake.fd_base + (int)i;
}

static int
f_ioctl(int fd, unsigned long req, unsigned long arg)
{
	if (req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = (uint64_t)fd * 7;
		return 0;
	}
	return req == PERF_EVENT_IOC_ENABLE ? 0 : (errno = EINVAL, -1);
}

/* One interval of the leader's cgroup, in PERF_FORMAT_GROUP's layout. */
static ssize_t
f_read(int fd, void *buf, size_t len)
{
	size_t li = (size_t)(fd - fake.fd_base), i, k, n = 0;
	struct slot *f = &slots[li];
	uint64_t *out = buf, ins = 0;

	if (f->cg >= 0)
		ins = (uint64_t)(fake.cpu[f->cg] * fake.ns_per_read);
	f->enabled += ins;
	out[1] = out[2] = f->enabled;
	for (k = 0, i = li; k < nr_slots && n < f->size; k++,
	    i = (i + 1) % nr_slots) {
		struct slot *m = &slots[i];

		if (!m->used || m->leader != fd)
			continue;
		if (m->config == PERF_COUNT_HW_INSTRUCTIONS)
			m->value += ins;
		else if (m->config == PERF_COUNT_HW_CPU_CYCLES && f->cg >= 0)
			m->value += (uint64_t)((double)ins * fake.cpi[f->cg]);
		if ((5 + 2 * n) * sizeof(uint64_t) > len)
			return -1;
		out[3 + 2 * n] = m->value;
		out[4 + 2 * n] = (uint64_t)(fake.fd_base + (int)i) * 7;
		n++;
	}
	out[0] = n;
	return (ssize_t)((3 + 2 * n) * sizeof(uint64_t));
}

static int
f_close(int fd)
{
	struct slot *s = slot_of(fd);

	if (s->leader != fd && slot_of(s->leader)->used)
		slot_of(s->leader)->size--;
	s->used = 0;
	return 0;
}

const struct perf_ops fake_ipc_ops = { f_open, f_ioctl, f_read, f_close,
    NULL };	/* its times are scripted: no clock bounds them */

void
fake_ipc_quiet(int prio, const struct log_fields *lf, const char *fmt, ...)
{
	(void)prio;
	(void)lf;
	(void)fmt;
}
