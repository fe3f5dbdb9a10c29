/*
 * group.c - opening, enabling and reading one perf group (group.h).
 * Design: docs/architecture.md, "collectors/perf/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/perf/group.h"
#include "collectors/perf/perf_sys.h"

int
group_init(struct perf_group *pg, size_t nr_events)
{
	size_t i;

	memset(pg, 0, sizeof(*pg));
	pg->nr_cfg = nr_events;
	pg->fd = malloc(nr_events * sizeof(*pg->fd));
	pg->id = calloc(nr_events, sizeof(*pg->id));
	pg->evidx = calloc(nr_events, sizeof(*pg->evidx));
	pg->err = calloc(nr_events, sizeof(*pg->err));
	pg->buflen = (3 + 2 * nr_events) * sizeof(uint64_t);
	pg->buf = malloc(pg->buflen);
	if (!pg->fd || !pg->id || !pg->evidx || !pg->err || !pg->buf) {
		group_fini(pg);
		return -ENOMEM;
	}
	for (i = 0; i < nr_events; i++)
		pg->fd[i] = -1;
	return 0;
}

/* Errors that are about this process or target, not about the event. */
static int
fatal_errno(int e)
{
	return e == EMFILE || e == ENFILE || e == EACCES || e == EPERM ||
	    e == EBADF || e == ENOMEM || e == ENODEV || e == ESRCH;
}

int
group_open(struct perf_group *pg, const struct perf_event_attr *attrs,
    pid_t pid, int cpu, unsigned long flags)
{
	struct perf_event_attr attr;
	size_t i;
	int fd, e, first_err = 0;

	group_close(pg);
	for (i = 0; i < pg->nr_cfg; i++) {
		attr = attrs[i];
		attr.size = sizeof(attr);
		attr.read_format = GROUP_READ_FORMAT;
		attr.disabled = pg->nr == 0;
		attr.inherit = 0;
		fd = perf_ops->open(&attr, pid, cpu,
		    pg->nr ? pg->fd[0] : -1, flags | PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL &&
		    (attr.exclude_guest || attr.exclude_host)) {
			attr.exclude_guest = attr.exclude_host = 0;
			fd = perf_ops->open(&attr, pid, cpu,
			    pg->nr ? pg->fd[0] : -1,
			    flags | PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			e = errno;
			pg->err[i] = e;
			if (!first_err)
				first_err = e;
			/* ENODEV for a vanished CPU, EBADF for a dead cgroup. */
			if (fatal_errno(e) && !(e == ENODEV && pg->nr > 0)) {
				size_t k;

				/* Nothing of this group is open now. */
				group_close(pg);
				for (k = 0; k < pg->nr_cfg; k++)
					pg->err[k] = e;
				return -e;
			}
			continue;
		}
		if (perf_ops->ioctl(fd, PERF_EVENT_IOC_ID,
		    (unsigned long)&pg->id[pg->nr]) < 0) {
			e = errno;
			perf_ops->close(fd);
			pg->err[i] = e;
			if (!first_err)
				first_err = e;
			continue;
		}
		pg->err[i] = 0;
		pg->evidx[pg->nr] = i;
		pg->fd[pg->nr++] = fd;
	}
	return pg->nr ? 0 : -(first_err ? first_err : EINVAL);
}

int
group_uses_counter(const struct perf_event_attr *attr)
{
	return attr->type != PERF_TYPE_SOFTWARE &&
	    attr->type != PERF_TYPE_TRACEPOINT &&
	    attr->type != PERF_TYPE_BREAKPOINT;
}

int
group_probe(const struct perf_event_attr *attr, pid_t pid, int cpu,
    unsigned long flags)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.size = sizeof(a);
	a.disabled = 1;
	fd = perf_ops->open(&a, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	perf_ops->close(fd);
	return 0;
}

int
group_probe_cgroup(int cgfd, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	return group_probe(&attr, cgfd, cpu, PERF_FLAG_PID_CGROUP);
}

int
group_enable(struct perf_group *pg, int on)
{
	if (pg->nr == 0)
		return -EBADF;
	if (perf_ops->ioctl(pg->fd[0], on ? PERF_EVENT_IOC_ENABLE :
	    PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	return 0;
}

int
group_read(struct perf_group *pg, struct count *out)
{
	size_t want = (3 + 2 * pg->nr) * sizeof(uint64_t), i, j;
	uint64_t nr, enabled, running;
	ssize_t n;

	if (pg->nr == 0)
		return -EBADF;
	n = perf_ops->read(pg->fd[0], pg->buf, pg->buflen);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENODATA;
	if ((size_t)n < want)
		return -EIO;
	nr = pg->buf[0];
	enabled = pg->buf[1];
	running = pg->buf[2];
	if (nr != pg->nr)
		return -EIO;
	for (i = 0; i < nr; i++) {
		uint64_t value = pg->buf[3 + 2 * i], id = pg->buf[4 + 2 * i];

		/* Members come back in open order; fall back to a search. */
		j = pg->id[i] == id ? i : pg->nr;
		if (j == pg->nr)
			for (j = 0; j < pg->nr && pg->id[j] != id; j++)
				;
		if (j == pg->nr)
			return -EIO;
		out[pg->evidx[j]].value = value;
		out[pg->evidx[j]].enabled = enabled;
		out[pg->evidx[j]].running = running;
	}
	return 0;
}

void
group_close(struct perf_group *pg)
{
	size_t i;

	if (pg->fd == NULL)
		return;
	/* Members first, leader last. */
	for (i = pg->nr; i-- > 0;) {
		if (pg->fd[i] >= 0)
			perf_ops->close(pg->fd[i]);
		pg->fd[i] = -1;
	}
	pg->nr = 0;
}

void
group_fini(struct perf_group *pg)
{
	if (pg == NULL)
		return;
	group_close(pg);
	free(pg->fd);
	free(pg->id);
	free(pg->evidx);
	free(pg->err);
	free(pg->buf);
	memset(pg, 0, sizeof(*pg));
}
