/*
 * fake_pmu.c - a scripted kernel behind perf_ops (fake_pmu.h), and what
 * the collector's tests build on it: a collector made from YAML that
 * logs into a buffer, a scratch cgroup2 "mount", one tick.  Each fd is
 * an entry of fake.fds; a read adds fake.step_enabled and step_running to
 * its times and rate x (config + 1) x step_running to each member, so a
 * test knows every count exactly.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/perf/group.h"
#include "config/config.h"
#include "tests/lib/fake_pmu.h"

/* What the kernel would refuse, or the fake cannot answer: counted in
 * fake.broken (each test's main checks it is 0), said where. */
#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		fake.broken++;						\
		fprintf(stderr, "%s:%d: the fake PMU expected %s\n",	\
		    __FILE__, __LINE__, #cond);				\
	}								\
} while (0)

struct fake_pmu fake = {
	.rate = 3.0,
	.zero_read_cpu = -1,
	.missing = PERF_COUNT_HW_BUS_CYCLES,
	.mountinfo = "/nonexistent",
};

/* One tick of the collector thread: what is due, then a collection. */
void
fake_tick(struct collector *c)
{
	collector_tend(c);
	collector_collect(c);
}

#define FAKE_FD(i) (1000 + (i))

static int
fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    unsigned long flags)
{
	int i;

	EXPECT(flags & PERF_FLAG_FD_CLOEXEC);
	/* A cgroup whose perf_event controller state the kernel never set
	 * up (cgroup2 with an empty root subtree_control): every event in
	 * cgroup mode, the collector's software probe included, is ENOENT. */
	if (fake.no_perf_cgroup && (flags & PERF_FLAG_PID_CGROUP)) {
		errno = ENOENT;
		return -1;
	}
	if (attr->type == PERF_TYPE_SOFTWARE &&
	    attr->config == PERF_COUNT_SW_DUMMY) {
		EXPECT(flags & PERF_FLAG_PID_CGROUP);	/* only the probe */
		for (i = 0; i < FAKE_MAXFD && fake.fds[i].used; i++)
			;
		fake.fds[i].used = 1;
		fake.fds[i].leader = FAKE_FD(i);
		return FAKE_FD(i);
	}
	EXPECT(attr->read_format == (PERF_FORMAT_GROUP | PERF_FORMAT_ID |
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING));
	/* Leaders start disabled, members enabled. */
	EXPECT(attr->disabled == (group_fd == -1));
	if (fake.deny) {
		errno = fake.deny;
		return -1;
	}
	if (fake.vanish && pid >= 0) {
		errno = EBADF;		/* the cgroup was removed meanwhile */
		return -1;
	}
	if (attr->config == fake.missing) {
		errno = ENOENT;
		return -1;
	}
	/* Like the msr PMU: no guest/host exclusion. */
	if (attr->config == PERF_COUNT_HW_REF_CPU_CYCLES &&
	    (attr->exclude_guest || attr->exclude_host)) {
		errno = EINVAL;
		return -1;
	}
	if (fake.open_delay_ns) {
		/* A slow open (a kernel busy with cgroups): nanosleep sleeps
		 * at least this long, so a test can bound time from below. */
		struct timespec ts = {
			(time_t)(fake.open_delay_ns / 1000000000ULL),
			(long)(fake.open_delay_ns % 1000000000ULL) };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		fake.delayed++;
	}
	for (i = 0; i < FAKE_MAXFD && fake.fds[i].used; i++)
		;
	if (i == FAKE_MAXFD) {
		errno = EMFILE;
		return -1;
	}
	memset(&fake.fds[i], 0, sizeof(fake.fds[i]));
	fake.fds[i].used = 1;
	fake.fds[i].cpu = cpu;
	fake.fds[i].config = attr->config;
	fake.fds[i].leader = group_fd == -1 ? FAKE_FD(i) : group_fd;
	return FAKE_FD(i);
}

static int
fake_ioctl(int fd, unsigned long req, unsigned long arg)
{
	struct fake_fd *f = &fake.fds[fd - 1000];
	int i;

	if (req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = (uint64_t)fd * 7;
		return 0;
	}
	if (req == PERF_EVENT_IOC_ENABLE) {
		EXPECT(arg == PERF_IOC_FLAG_GROUP);
		EXPECT(f->leader == fd);
		for (i = 0; i < FAKE_MAXFD; i++)
			if (fake.fds[i].used && fake.fds[i].leader == fd)
				fake.fds[i].enabled = 1;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

static ssize_t
fake_read(int fd, void *buf, size_t len)
{
	struct fake_fd *f = &fake.fds[fd - 1000];
	uint64_t *out = buf;
	size_t n = 0, i;

	if (f->cpu == fake.zero_read_cpu)
		return 0;
	for (i = 0; i < FAKE_MAXFD; i++)
		n += fake.fds[i].used && fake.fds[i].leader == fd;
	out[1] = f->time_enabled += fake.step_enabled + fake.jump_ns;
	/* A PMU with fake.counters counters never schedules a bigger group. */
	out[2] = f->time_running += (fake.counters && n > (size_t)fake.counters)
	    ? 0 : fake.step_running + fake.jump_ns;
	n = 0;
	for (i = 0; i < FAKE_MAXFD; i++) {
		if (!fake.fds[i].used || fake.fds[i].leader != fd)
			continue;
		EXPECT(fake.fds[i].enabled);
		if (!(fake.counters && out[2] == 0))
			fake.fds[i].value += (uint64_t)(fake.rate *
			    (double)fake.step_running *
			    (double)(fake.fds[i].config + 1));
		EXPECT((3 + 2 * n + 2) * sizeof(uint64_t) <= len);
		out[3 + 2 * n] = fake.fds[i].value;
		out[4 + 2 * n] = (uint64_t)FAKE_FD(i) * 7;
		n++;
	}
	out[0] = n;
	/* The kernel's order is the group's, but ids are what tell. */
	for (i = 0; fake.read_reversed && i < n / 2; i++) {
		uint64_t v = out[3 + 2 * i], id = out[4 + 2 * i];

		out[3 + 2 * i] = out[3 + 2 * (n - 1 - i)];
		out[4 + 2 * i] = out[4 + 2 * (n - 1 - i)];
		out[3 + 2 * (n - 1 - i)] = v;
		out[4 + 2 * (n - 1 - i)] = id;
	}
	return (ssize_t)((3 + 2 * n - (fake.read_short ? 1 : 0)) *
	    sizeof(uint64_t));
}

static int
fake_close(int fd)
{
	EXPECT(fd >= 1000 && fake.fds[fd - 1000].used);
	fake.fds[fd - 1000].used = 0;
	fake.fds[fd - 1000].closed++;
	return 0;
}

static uint64_t
fake_now(void)
{
	static uint64_t far;

	return fake.clock_ns ? fake.clock_ns : (far += 1000000000000000ULL);
}

const struct perf_ops fake_ops = {
	fake_open, fake_ioctl, fake_read, fake_close, fake_now,
};

void
fake_capture(int prio, const struct log_fields *lf, const char *fmt, ...)
{
	size_t o = strlen(fake.log);
	va_list ap;

	(void)lf;
	if (prio < fake.max_prio)
		fake.max_prio = prio;
	va_start(ap, fmt);
	vsnprintf(fake.log + o, sizeof(fake.log) - o - 1, fmt, ap);
	va_end(ap);
	strcat(fake.log, "\n");
}

const struct snap_row *
fake_row(const struct snapshot *s, int cpu)
{
	size_t i;

	for (i = 0; i < s->nr_rows; i++)
		if (s->rows[i].cpu == cpu && s->rows[i].cgroup == NULL)
			return &s->rows[i];
	return NULL;
}

int
fake_open_fds(void)
{
	int i, n = 0;

	for (i = 0; i < FAKE_MAXFD; i++)
		n += fake.fds[i].used;
	return n;
}

struct collector *
fake_make(const char *yaml, struct plan **cfg, const char *sysfs)
{
	struct collector_opts o = {
		.sysfs = sysfs,
		.mountinfo = fake.mountinfo,
		.log = fake_capture,
		.procfs = fake.procfs,
	};
	struct collector *c = NULL;
	char err[512];

	EXPECT(config_parse(NULL, "t.yaml", yaml, strlen(yaml), cfg, err,
	    sizeof(err)) == 0);
	EXPECT(collector_new(*cfg, &o, &c, err, sizeof(err)) == 0);
	return c;
}

/* A scratch directory dir/name as the cgroup2 mount: mountinfo (written
 * to mi) names it, and the collector is made to read that mountinfo. */
void
fake_mount(const char *dir, const char *name, char *mi, size_t len)
{
	FILE *f;

	snprintf(mi, len, "%s/mountinfo.%s", dir, name);
	f = fopen(mi, "w");
	EXPECT(f != NULL);
	fprintf(f, "41 31 0:38 / %s/%s rw,relatime - cgroup2 cgroup2 rw\n",
	    dir, name);
	fclose(f);
	fake.mountinfo = mi;
}


/* Whether the real kernel lets this process count a software event
 * system-wide: 1, or 0 with why in why. */
static int
kernel_counts(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "perf_event_open of cpu-clock on CPU 0: %s",
		    strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

int
fake_free(struct collector *c, struct plan *cfg)
{
	collector_free(c);
	plan_free(cfg);
	fake.mountinfo = "/nonexistent";
	return fake_open_fds();
}

struct collector *
fake_kernel_make(const char *yaml, struct plan **cfg)
{
	char why[256];

	*cfg = NULL;
	if (!kernel_counts(why, sizeof(why))) {
		printf("real fds not checked: %s\n", why);
		return NULL;
	}
	perf_ops = &perf_ops_kernel;
	return fake_make(yaml, cfg, "/sys");
}

void
fake_kernel_free(struct collector *c, struct plan *cfg)
{
	collector_free(c);
	plan_free(cfg);
	perf_ops = &fake_ops;
}

int
fake_begin(char *dir)
{
	char path[4200];
	FILE *f;

	perf_ops = &fake_ops;
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/devices", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("0-1\n", f);
	return fclose(f) == 0 ? 0 : -1;
}

int
fake_end(const char *dir)
{
	char path[4200];

	snprintf(path, sizeof(path), "rm -r %s", dir);
	if (system(path) != 0 || fake.broken)
		return -1;
	return 0;
}
