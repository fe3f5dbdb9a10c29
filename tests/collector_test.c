/*
 * collector_test.c - the collector against a fake PMU.
 *
 * perf_ops is pointed at a scripted kernel so the arithmetic and the error
 * handling can be checked exactly, without hardware: multiplexing, an
 * interval with no running time, an event the CPU lacks, a group whose
 * read returns 0 bytes, a group that is never scheduled, a refusal
 * (EPERM) explained once from the procfs given, and that every fd opened
 * is closed again.  And the embedded default's cgroup layouts against a
 * tree made from tests/fixtures/layouts.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/collector/collector.h"
#include "collectors/events/pmu.h"
#include "collectors/perf/group.h"
#include "collectors/perf/perf_sys.h"
#include "config/config.h"
#include "daemon/expo.h"
#include "names/names.h"
#include "tests/check.h"
#include "tests/scratch.h"

#define MAXFD 512

/* One tick of the collector thread: what is due, then a collection. */
static void
tick(struct collector *c)
{
	collector_tend(c);
	collector_collect(c);
}

static struct fake {
	int used, closed, leader, cpu, enabled;
	unsigned long long config;
	uint64_t value, time_enabled, time_running;
} fds[MAXFD];

static uint64_t step_enabled, step_running;	/* next read's increments */
static double rate = 3.0;			/* events per ns running */
static int zero_read_cpu = -1;			/* this CPU's reads return 0 */
static unsigned long long missing = PERF_COUNT_HW_BUS_CYCLES;
static int vanish;				/* cgroup opens fail EBADF */
static int no_perf_cgroup;			/* cgroup opens fail ENOENT */
static int deny;				/* >0: opens fail with it */
static int fake_counters;			/* >0: bigger groups never run */
static int read_reversed;			/* members in reverse order */
static int read_short;				/* one word short */
static int max_prio_seen;
static char logbuf[65536];

#define FAKE_FD(i) (1000 + (i))

static int
fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    unsigned long flags)
{
	int i;

	CHECK(flags & PERF_FLAG_FD_CLOEXEC);
	/* A cgroup whose perf_event controller state the kernel never set
	 * up (cgroup2 with an empty root subtree_control): every event in
	 * cgroup mode, the collector's software probe included, is ENOENT. */
	if (no_perf_cgroup && (flags & PERF_FLAG_PID_CGROUP)) {
		errno = ENOENT;
		return -1;
	}
	if (attr->type == PERF_TYPE_SOFTWARE &&
	    attr->config == PERF_COUNT_SW_DUMMY) {
		CHECK(flags & PERF_FLAG_PID_CGROUP);	/* only the probe */
		for (i = 0; i < MAXFD && fds[i].used; i++)
			;
		fds[i].used = 1;
		fds[i].leader = FAKE_FD(i);
		return FAKE_FD(i);
	}
	CHECK(attr->read_format == (PERF_FORMAT_GROUP | PERF_FORMAT_ID |
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING));
	/* Leaders start disabled, members enabled. */
	CHECK(attr->disabled == (group_fd == -1));
	if (deny) {
		errno = deny;
		return -1;
	}
	if (vanish && pid >= 0) {
		errno = EBADF;		/* the cgroup was removed meanwhile */
		return -1;
	}
	if (attr->config == missing) {
		errno = ENOENT;
		return -1;
	}
	/* Like the msr PMU: no guest/host exclusion. */
	if (attr->config == PERF_COUNT_HW_REF_CPU_CYCLES &&
	    (attr->exclude_guest || attr->exclude_host)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < MAXFD && fds[i].used; i++)
		;
	if (i == MAXFD) {
		errno = EMFILE;
		return -1;
	}
	memset(&fds[i], 0, sizeof(fds[i]));
	fds[i].used = 1;
	fds[i].cpu = cpu;
	fds[i].config = attr->config;
	fds[i].leader = group_fd == -1 ? FAKE_FD(i) : group_fd;
	return FAKE_FD(i);
}

static int
fake_ioctl(int fd, unsigned long req, unsigned long arg)
{
	struct fake *f = &fds[fd - 1000];
	int i;

	if (req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = (uint64_t)fd * 7;
		return 0;
	}
	if (req == PERF_EVENT_IOC_ENABLE) {
		CHECK(arg == PERF_IOC_FLAG_GROUP);
		CHECK(f->leader == fd);
		for (i = 0; i < MAXFD; i++)
			if (fds[i].used && fds[i].leader == fd)
				fds[i].enabled = 1;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

static ssize_t
fake_read(int fd, void *buf, size_t len)
{
	struct fake *f = &fds[fd - 1000];
	uint64_t *out = buf;
	size_t n = 0, i;

	if (f->cpu == zero_read_cpu)
		return 0;
	for (i = 0; i < MAXFD; i++)
		n += fds[i].used && fds[i].leader == fd;
	out[1] = f->time_enabled += step_enabled;
	/* A PMU with fake_counters counters never schedules a bigger group. */
	out[2] = f->time_running += (fake_counters && n > (size_t)fake_counters)
	    ? 0 : step_running;
	n = 0;
	for (i = 0; i < MAXFD; i++) {
		if (!fds[i].used || fds[i].leader != fd)
			continue;
		CHECK(fds[i].enabled);
		if (!(fake_counters && out[2] == 0))
			fds[i].value += (uint64_t)(rate * (double)step_running *
			    (double)(fds[i].config + 1));
		CHECK((3 + 2 * n + 2) * sizeof(uint64_t) <= len);
		out[3 + 2 * n] = fds[i].value;
		out[4 + 2 * n] = (uint64_t)FAKE_FD(i) * 7;
		n++;
	}
	out[0] = n;
	/* The kernel's order is the group's, but ids are what tell. */
	for (i = 0; read_reversed && i < n / 2; i++) {
		uint64_t v = out[3 + 2 * i], id = out[4 + 2 * i];

		out[3 + 2 * i] = out[3 + 2 * (n - 1 - i)];
		out[4 + 2 * i] = out[4 + 2 * (n - 1 - i)];
		out[3 + 2 * (n - 1 - i)] = v;
		out[4 + 2 * (n - 1 - i)] = id;
	}
	return (ssize_t)((3 + 2 * n - (read_short ? 1 : 0)) * sizeof(uint64_t));
}

static int
fake_close(int fd)
{
	CHECK(fd >= 1000 && fds[fd - 1000].used);
	fds[fd - 1000].used = 0;
	fds[fd - 1000].closed++;
	return 0;
}

static const struct perf_ops fake_ops = {
	fake_open, fake_ioctl, fake_read, fake_close,
};

static void
capture(int prio, const struct log_fields *lf, const char *fmt, ...)
{
	size_t o = strlen(logbuf);
	va_list ap;

	(void)lf;
	if (prio < max_prio_seen)
		max_prio_seen = prio;
	va_start(ap, fmt);
	vsnprintf(logbuf + o, sizeof(logbuf) - o - 1, fmt, ap);
	va_end(ap);
	strcat(logbuf, "\n");
}

static const struct snap_row *
row(const struct snapshot *s, int cpu)
{
	size_t i;

	for (i = 0; i < s->nr_rows; i++)
		if (s->rows[i].cpu == cpu && s->rows[i].cgroup == NULL)
			return &s->rows[i];
	return NULL;
}

static int
open_fds(void)
{
	int i, n = 0;

	for (i = 0; i < MAXFD; i++)
		n += fds[i].used;
	return n;
}

/*
 * One group read, straight through group.c: members matched back by
 * their ids whatever order they come in, and a short read refused.
 */
static void
test_group_read(void)
{
	struct perf_event_attr a[3];
	struct perf_group pg;
	struct count out[3];
	size_t i;

	memset(a, 0, sizeof(a));
	for (i = 0; i < 3; i++) {
		a[i].type = PERF_TYPE_HARDWARE;
		a[i].config = i;	/* the fake counts config + 1 per step */
	}
	CHECK(group_init(&pg, 3) == 0);
	CHECK(group_open(&pg, a, -1, 0, 0) == 0 && pg.nr == 3);
	CHECK(group_enable(&pg, 1) == 0);
	step_enabled = step_running = 1000;
	read_reversed = 1;
	memset(out, 0, sizeof(out));
	CHECK(group_read(&pg, out) == 0);
	read_reversed = 0;
	CHECK(out[0].value == (uint64_t)(rate * 1000));
	CHECK(out[1].value == 2 * out[0].value);
	CHECK(out[2].value == 3 * out[0].value);
	CHECK(out[0].enabled == 1000 && out[2].running == 1000);
	read_short = 1;
	CHECK(group_read(&pg, out) == -EIO);
	read_short = 0;
	group_fini(&pg);
	step_enabled = step_running = 0;
	CHECK(open_fds() == 0);
}

static const char *mountinfo = "/nonexistent";
static const char *procfs;			/* NULL: /proc */

static struct collector *
make(const char *yaml, struct plan **cfg, const char *sysfs)
{
	struct collector_opts o = {
		.sysfs = sysfs,
		.mountinfo = mountinfo,
		.log = capture,
		.procfs = procfs,
	};
	struct collector *c = NULL;
	char err[512];

	CHECK(config_parse(NULL, "t.yaml", yaml, strlen(yaml), cfg, err,
	    sizeof(err)) == 0);
	CHECK(collector_new(*cfg, &o, &c, err, sizeof(err)) == 0);
	return c;
}

/*
 * After three intervals (fully counted, multiplexed at 50%, not
 * scheduled): CPU 1's row holds the scaled truth, bus-cycles is counted
 * nowhere and has no series, only its supported 0.
 */
static void
check_scaled(struct collector *c, double truth_c, double truth_i)
{
	struct snapshot *s = collector_snapshot(c);
	const struct snap_row *r;
	size_t len;
	char *text;

	CHECK(s != NULL && s->nr_rows == 2 && s->seq == 3);
	r = row(s, 1);
	CHECK(r != NULL);
	if (r) {
		CHECK(r->nr_events == 4);
		CHECK(r->values[0] == truth_c);
		CHECK(r->values[1] == truth_i);
		CHECK(r->values[2] == 0);
		CHECK(r->values[3] == truth_c * 10);	/* config 9 */
		CHECK(r->counted[0] && r->counted[1] && !r->counted[2] &&
		    r->counted[3]);
		CHECK(r->pmu == NULL);
		CHECK(r->enabled_s == 3.0);
		CHECK(r->running_s == 1.5);
	}
	CHECK(s->nr_support == 4 && s->support[0].supported == 1 &&
	    s->support[2].supported == 0 && s->support[3].supported == 1);
	CHECK_STR(s->support[0].pmu, "cpu");
	CHECK(s->open_fds == 6);
	text = expo_render(s, &len);
	CHECK(count_of(text, "_events_total{cpu=\"0\",group=\"ipc\","
	    "event=\"bus-cycles\"") == 0);
	CHECK_CONTAINS(text, "pmu_exporter_event_supported{group=\"ipc\","
	    "event=\"bus-cycles\",pmu=\"cpu\"} 0\n");
	CHECK_CONTAINS(text, "pmu_exporter_collection_interval_seconds 1\n");
	free(text);
	snapshot_unref(s);
}

/* 4: CPU 1's group fails (0-byte read): reported once, CPU 0 goes on,
 * CPU 1's last counts are kept. */
static void
check_error_state(struct collector *c, double truth_c)
{
	struct snapshot *s;

	step_running = step_enabled;
	zero_read_cpu = 1;
	tick(c);
	tick(c);
	CHECK(count_of(logbuf, "group \"ipc\" on cpu 1 for system-wide is in "
	    "error state (read returned 0 bytes)") == 1);
	s = collector_snapshot(c);
	CHECK(row(s, 0) && row(s, 0)->values[0] == truth_c + 6e9);
	CHECK(row(s, 1) && row(s, 1)->values[0] == truth_c);	/* kept */
	CHECK(s->open_fds == 3);
	snapshot_unref(s);
	zero_read_cpu = -1;
}

static void
test_counting(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	/* cycles = config 0, instructions = 1: rates 3 and 6 per ns. */
	double truth_c = 0, truth_i = 0;

	logbuf[0] = '\0';
	c = make("interval: 1s\n"
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions, bus-cycles, ref-cycles]\n"
	    "cpus:\n"
	    "  - cpus: all\n"
	    "    groups: [ipc]\n"
	    "  - cpus: \"1\"\n"
	    "    groups: [ipc]\n", &cfg, sysfs);
	/*
	 * Two CPUs, three fds each (bus-cycles missing, ref-cycles opened
	 * again without exclude_guest), despite the overlap.
	 */
	CHECK(open_fds() == 6);
	CHECK(collector_open_fds(c) == 6);
	CHECK(count_of(logbuf, "t.yaml:4:36: event \"bus-cycles\" in group "
	    "\"ipc\" cannot be counted on cpu 0: No such file or directory; "
	    "the rest keep counting") == 1);
	CHECK(count_of(logbuf, "bus-cycles") == 1);	/* once, not per CPU */
	collector_enable(c);

	/* 1: fully counted. */
	step_enabled = step_running = 1000000000ULL;
	tick(c);
	truth_c += 3e9;
	truth_i += 6e9;
	/* 2: multiplexed at 50%: the estimate fills the gap. */
	step_running = 500000000ULL;
	tick(c);
	truth_c += 3e9;
	truth_i += 6e9;
	/* 3: not scheduled at all: nothing is added, no spike, no zero. */
	step_running = 0;
	tick(c);
	check_scaled(c, truth_c, truth_i);
	check_error_state(c, truth_c);

	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
}

static void
test_unscheduled(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	int i;

	logbuf[0] = '\0';
	c = make("groups:\n  - name: big\n    events: [cycles]\n"
	    "cpus:\n  - cpus: \"0\"\n    groups: [big]\n", &cfg, sysfs);
	collector_enable(c);
	step_enabled = 1000000000ULL;
	step_running = 0;
	for (i = 0; i < 5; i++)
		tick(c);
	CHECK(count_of(logbuf, "group \"big\" for system-wide has not been "
	    "scheduled on cpu 0 (time_running is 0)") == 1);
	step_running = step_enabled;
	tick(c);
	CHECK(count_of(logbuf, "is being scheduled now") == 1);
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
}

/*
 * A software group that shows enabled time and no running time (a cgroup
 * that has not run on that CPU since it was opened, on Linux 6.18) waits
 * for no counter: nothing logged, and --check-config finds no problem.
 */
static void
test_unscheduled_software(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int i;

	logbuf[0] = '\0';
	c = make("groups:\n  - name: sw\n    events: [task-clock, "
	    "context-switches]\n"
	    "cpus:\n  - cpus: \"0\"\n    groups: [sw]\n", &cfg, sysfs);
	collector_enable(c);
	step_enabled = 1000000000ULL;
	step_running = 0;
	for (i = 0; i < 5; i++)
		tick(c);
	CHECK(count_of(logbuf, "has not been scheduled") == 0);
	out = open_memstream(&text, &len);
	CHECK(probe_check_config(c, out, 1) == 0);
	fclose(out);
	CHECK(strstr(text, "never scheduled") == NULL);
	free(text);
	step_enabled = step_running = 0;
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
}

/*
 * --check-config on a group bigger than the PMU's counters: it says so,
 * with the number of counters the PMU showed when probed.
 */
static void
test_check_counters(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	logbuf[0] = '\0';
	fake_counters = 3;
	step_enabled = step_running = 1000000000ULL;
	c = make("groups:\n  - name: big\n"
	    "    events: [cycles, instructions, branches, branch-misses]\n"
	    "cpus:\n  - cpus: \"0\"\n    groups: [big]\n", &cfg, sysfs);
	CHECK(probe_check_config(c, out, 1) >= 1);
	fclose(out);
	CHECK_CONTAINS(text, "never scheduled on 1 CPUs: the group has 4 "
	    "hardware events and the PMU showed 3 counters for them (cpu 0): "
	    "split the group");
	free(text);
	collector_free(c);
	plan_free(cfg);
	fake_counters = 0;
	CHECK(open_fds() == 0);
}

/*
 * The system-wide target is the union of the cpus: entries, each group
 * once, in the order the entries first name them (--check-config prints
 * them so): 40 groups, the first entry naming g19..g0, the second g10..g39,
 * so half are found again and widened, through every growth of the
 * target's group list.
 */
static void
test_union(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	char yaml[4096], line[64], *text = NULL;
	const char *at;
	size_t len = 0, n, i, in_order = 0, once = 0;
	FILE *out = open_memstream(&text, &len);

	n = (size_t)snprintf(yaml, sizeof(yaml), "groups:\n");
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
		    "  - {name: g%zu, events: [cycles]}\n", i);
	n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
	    "cpus:\n  - cpus: \"0\"\n    groups: [");
	for (i = 20; i-- > 0;)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n, "g%zu%s", i,
		    i ? ", " : "]\n");
	n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
	    "  - cpus: \"1\"\n    groups: [");
	for (i = 10; i < 40; i++)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n, "g%zu%s", i,
		    i < 39 ? ", " : "]\n");
	logbuf[0] = '\0';
	step_enabled = step_running = 1000000000ULL;
	c = make(yaml, &cfg, sysfs);
	/* g0-g9 on CPU 0, g10-g19 on both, g20-g39 on CPU 1. */
	CHECK(open_fds() == 50);
	CHECK(probe_check_config(c, out, 1) == 0);
	fclose(out);
	for (at = text, i = 0; i < 40; i++) {
		size_t g = i < 20 ? 19 - i : i;

		snprintf(line, sizeof(line), "system-wide group g%zu on CPUs "
		    "%s:", g, g < 10 ? "0" : g < 20 ? "0-1" : "1");
		once += count_of(text, line) == 1;
		if (at && (at = strstr(at, line)) != NULL)
			in_order++;
	}
	CHECK(once == 40 && in_order == 40);
	free(text);
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
}

/*
 * An instance whose reads fail (a CPU that blinked offline) is reopened at
 * the next full rescan, and its series go on from where they stopped.
 */
static void
test_retry(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	struct snapshot *s;
	struct timespec ts = { 0, 120000000 };
	double before;

	logbuf[0] = '\0';
	c = make("cgroup_rescan_interval: 100ms\n"
	    "groups:\n  - name: g\n    events: [cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, sysfs);
	collector_enable(c);
	step_enabled = step_running = 1000000000ULL;
	tick(c);
	zero_read_cpu = 1;
	tick(c);		/* cpu 1 fails */
	s = collector_snapshot(c);
	before = row(s, 1) ? row(s, 1)->values[0] : -1;
	CHECK(before == 3e9);
	CHECK(s->open_fds == 1);
	snapshot_unref(s);
	zero_read_cpu = -1;
	nanosleep(&ts, NULL);
	tick(c);		/* rescan due: reopened */
	CHECK(count_of(logbuf, "reopening group instances") == 1);
	tick(c);
	s = collector_snapshot(c);
	CHECK(s->open_fds == 2);
	/* The series goes on from before, plus all the new fd counted: its
	 * first read too (3e9 a read), nothing lost, nothing twice. */
	CHECK(row(s, 1) && row(s, 1)->values[0] == before + 2 * 3e9);
	CHECK(row(s, 0) && row(s, 0)->values[0] == 4 * 3e9);	/* untouched */
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
}


/*
 * perf_event_open says EPERM on every CPU: the reason is told once, from
 * the procfs the collector was given (a podman container's status: uid 0
 * holding CAP_PERFMON under a seccomp filter), and the daemon can ask
 * what it was.
 */
static void
test_denied(const char *dir)
{
	char proc[512], path[1100];
	struct plan *cfg = NULL;
	struct collector *c;

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(path, sizeof(path), "mkdir -p %s/self %s/sys/kernel", proc,
	    proc);
	CHECK(system(path) == 0);
	scratch_put(proc, "self/status", "Name:\tpmu_exporter\nUid:\t0\t0\t0\t0\n"
	    "CapEff:\t000000c000000000\nCapBnd:\t000000c000000000\n"
	    "Seccomp:\t2\nSeccomp_filters:\t1\n");
	scratch_put(proc, "self/uid_map", "         0          0 4294967295\n");
	scratch_put(proc, "sys/kernel/perf_event_paranoid", "2\n");
	procfs = proc;
	deny = EPERM;
	logbuf[0] = '\0';
	c = make("groups:\n  - name: g\n    events: [cycles, instructions]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, dir);
	CHECK(collector_open_fds(c) == 0);
	CHECK(collector_denied(c) == DENIED_SECCOMP);
	CHECK(count_of(logbuf, "perf_event_open for group") == 1);
	CHECK_CONTAINS(logbuf, "perf_event_open for group \"g\" on cpu 0: "
	    "Operation not permitted: this process holds CAP_PERFMON, but a "
	    "seccomp filter is active (Seccomp: 2, Seccomp_filters: 1)");
	collector_free(c);
	plan_free(cfg);

	/* The kernel's own refusal, by the same process without the
	 * capability. */
	scratch_put(proc, "self/status", "Name:\tpmu_exporter\nUid:\t0\t0\t0\t0\n"
	    "CapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
	    "Seccomp:\t0\nSeccomp_filters:\t0\n");
	deny = EACCES;
	logbuf[0] = '\0';
	c = make("groups:\n  - name: g\n    events: [cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, dir);
	CHECK(collector_denied(c) == DENIED_NO_CAP);
	CHECK(count_of(logbuf, "perf_event_open for group") == 1);
	CHECK_CONTAINS(logbuf, "Permission denied: this process lacks "
	    "CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8) and "
	    "kernel.perf_event_paranoid is 2;");
	collector_free(c);
	plan_free(cfg);
	deny = 0;
	procfs = NULL;
	CHECK(open_fds() == 0);
}

/* A scratch directory dir/name as the cgroup2 mount: mountinfo (written
 * to mi) names it, and the collector is made to read that mountinfo. */
static void
scratch_mount(const char *dir, const char *name, char *mi, size_t len)
{
	FILE *f;

	snprintf(mi, len, "%s/mountinfo.%s", dir, name);
	f = fopen(mi, "w");
	CHECK(f != NULL);
	fprintf(f, "41 31 0:38 / %s/%s rw,relatime - cgroup2 cgroup2 rw\n",
	    dir, name);
	fclose(f);
	mountinfo = mi;
}

/*
 * A cgroup removed between discovery and perf_event_open: one debug line,
 * nothing louder, and no series.  The cgroup "mount" is a scratch dir.
 */
static void
test_vanished(const char *dir)
{
	char mi[8400], cg[4200], yaml[512];
	struct plan *cfg = NULL;
	struct collector *c;
	struct snapshot *s;

	snprintf(cg, sizeof(cg), "mkdir -p %s/cg/x", dir);
	CHECK(system(cg) == 0);
	scratch_mount(dir, "cg", mi, sizeof(mi));
	snprintf(yaml, sizeof(yaml), "groups:\n  - name: sw\n"
	    "    events: [cycles]\ncgroups:\n  - path: /*\n"
	    "    groups: [sw]\n");
	logbuf[0] = '\0';
	max_prio_seen = 99;
	vanish = 1;
	c = make(yaml, &cfg, dir);
	vanish = 0;
	collector_enable(c);
	tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->nr_rows == 0 && s->cgroups_counted == 0);
	snapshot_unref(s);
	CHECK(max_prio_seen == 7);
	CHECK(count_of(logbuf, "vanished") == 1);
	CHECK(open_fds() == 0);
	collector_free(c);
	plan_free(cfg);

	/* Present: counted (the fake PMU takes any cgroup fd). */
	logbuf[0] = '\0';
	c = make(yaml, &cfg, dir);
	collector_enable(c);
	tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->nr_rows == 1 && s->cgroups_counted == 1);
	CHECK(s && s->rows[0].cgroup && strcmp(s->rows[0].cgroup, "/x") == 0);
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
	mountinfo = "/nonexistent";
}

/*
 * A cgroup2 root whose cgroup.subtree_control was never written: cgroup
 * mode fails with ENOENT for every event.  The log says what to write
 * (not "the CPU lacks cycles"), the open errors carry the reason, no
 * series is exported, and once the controller is enabled the next rescan
 * counts the cgroup.  An event the PMU really lacks, alone in a group,
 * still gets the event message.
 */
static void
test_no_perf_cgroup(const char *dir)
{
	char mi[8400], path[8400], want[8600];
	struct plan *cfg = NULL;
	struct collector *c;
	struct snapshot *s;
	size_t i, n = 0;

	snprintf(path, sizeof(path), "mkdir -p %s/npc/x && : > %s/npc/x/"
	    "cgroup.procs && : > %s/npc/cgroup.subtree_control", dir, dir,
	    dir);
	CHECK(system(path) == 0);
	scratch_mount(dir, "npc", mi, sizeof(mi));
	logbuf[0] = '\0';
	max_prio_seen = 99;
	no_perf_cgroup = 1;
	c = make("cgroup_rescan_interval: 100ms\ngroups:\n  - name: ipc\n"
	    "    events: [cycles, instructions]\ncgroups:\n  - path: /x\n"
	    "    groups: [ipc]\n", &cfg, dir);
	collector_enable(c);
	tick(c);
	s = collector_snapshot(c);
	/* A row that counts nothing exports no series (expo's row_counts). */
	for (i = 0; s && i < s->nr_rows; i++)
		CHECK(!s->rows[i].counted[0] && !s->rows[i].counted[1]);
	CHECK(s && s->cgroups_no_perf == 1 && s->cgroups_counted == 0);
	for (i = 0; s && i < s->nr_open_errors; i++) {
		CHECK(s->open_errors[i].err == ENOENT);
		CHECK(s->open_errors[i].no_perf_cgroup == 1);
		n += s->open_errors[i].count;
	}
	CHECK(n == 2 * 2);		/* 2 events on 2 CPUs */
	snapshot_unref(s);
	CHECK(max_prio_seen == 3);
	snprintf(want, sizeof(want), "echo +cpu > %s/npc/cgroup.subtree_control",
	    dir);
	CHECK(strstr(logbuf, want) != NULL);
	CHECK(count_of(logbuf, "cannot be counted:") == 1);
	CHECK(strstr(logbuf, "cannot be counted on cpu") == NULL);

	/* Someone enables a controller: counted from the next rescan on. */
	no_perf_cgroup = 0;
	usleep(150 * 1000);
	tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->nr_rows == 1 && s->cgroups_counted == 1);
	CHECK(s && s->cgroups_no_perf == 0 && s->nr_open_errors == 0);
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);

	/* An event the PMU lacks: its own message, no cgroup advice. */
	logbuf[0] = '\0';
	c = make("groups:\n  - name: bus\n    events: [bus-cycles]\n"
	    "cgroups:\n  - path: /x\n    groups: [bus]\n", &cfg, dir);
	collector_enable(c);
	tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->cgroups_no_perf == 0 && s->nr_open_errors == 1 &&
	    s->open_errors[0].no_perf_cgroup == 0);
	snapshot_unref(s);
	CHECK(strstr(logbuf, "cannot be counted on cpu") != NULL);
	CHECK(strstr(logbuf, "subtree_control") == NULL);
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
	mountinfo = "/nonexistent";
}

/* The hybrid fixture's 16 CPUs x 3 events, plus data_read on CPU 0
 * only: cycles and instructions with cpu_core's extended type (4) on
 * CPUs 0-7, cpu_atom's (10) on 8-15. */
static void
check_hybrid_fds(void)
{
	size_t core = 0, atom = 0;
	int k;

	CHECK(open_fds() == 16 * 3 + 1);
	for (k = 0; k < MAXFD; k++) {
		if (!fds[k].used || fds[k].config == 0x20ff)
			continue;
		if (fds[k].config == 1ULL)	/* task-clock */
			continue;
		if (fds[k].cpu < 8)
			core += fds[k].config >> 32 == 4;
		else
			atom += fds[k].config >> 32 == 10;
	}
	CHECK(core == 16 && atom == 16);
}

/* One row per CPU, each naming its core PMU, and the uncore row on CPU
 * 0 scaled by its sysfs scale. */
static void
check_hybrid_rows(const struct snapshot *s)
{
	size_t i, core = 0, atom = 0;

	CHECK(s && s->nr_rows == 17);
	for (i = 0; s && i < s->nr_rows; i++) {
		const struct snap_row *r = &s->rows[i];

		if (strcmp(r->group, "imc") == 0) {
			CHECK(r->cpu == 0 && r->pmu == NULL);
			/* 3/ns * (0x20ff + 1) counts, times the sysfs scale. */
			CHECK(r->values[0] == 3e9 * 0x2100 * 6.103515625e-5);
			continue;
		}
		CHECK(r->pmu != NULL);
		if (r->pmu && strcmp(r->pmu, "cpu_core") == 0)
			core += r->cpu < 8;
		else if (r->pmu && strcmp(r->pmu, "cpu_atom") == 0)
			atom += r->cpu >= 8;
	}
	CHECK(core == 8 && atom == 8);
	CHECK(s && s->nr_support == 7);
	CHECK(s && strcmp(s->support[6].pmu, "uncore_imc_free_running_0") == 0);
	CHECK(s && strcmp(s->support[2].pmu, "software") == 0);
}

/*
 * The Intel hybrid fixture: a generic group becomes one group per core
 * PMU, each opened only on that PMU's CPUs with its extended type, and
 * an uncore event opens only on its cpumask CPU, its counts scaled.
 */
static void
test_pmus(void)
{
	struct collector_opts o = {
		.mountinfo = "/nonexistent",
		.log = capture,
	};
	const char *top = getenv("top_srcdir");
	struct pmu_list l;
	struct event_ctx ctx = { &l, NULL, 1, NULL };
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char sysfs[4096], err[1024];
	static const char yaml[] =
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions, task-clock]\n"
	    "  - name: imc\n"
	    "    events: [uncore_imc_free_running_0/data_read/]\n"
	    "cpus:\n"
	    "  - cpus: all\n"
	    "    groups: [ipc, imc]\n"
	    "  - cpus: \"9\"\n"
	    "    groups: [imc]\n";

	logbuf[0] = '\0';
	snprintf(sysfs, sizeof(sysfs), "%s/tests/fixtures/sysfs-intel-hybrid",
	    top ? top : ".");
	o.sysfs = sysfs;
	CHECK(pmu_scan(sysfs, &l, err, sizeof(err)) == 0);
	CHECK(config_parse(&ctx, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == 0);
	CHECK(cfg && cfg->nr_groups == 3);
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		pmu_list_free(&l);
		return;
	}
	CHECK(collector_new(cfg, &o, &c, err, sizeof(err)) == 0);
	check_hybrid_fds();
	CHECK(count_of(logbuf, "group \"imc\" counts PMU "
	    "\"uncore_imc_free_running_0\", which covers CPUs 0 only, none of "
	    "the CPUs 9") == 1);
	collector_enable(c);
	step_enabled = step_running = 1000000000ULL;
	tick(c);
	s = collector_snapshot(c);
	check_hybrid_rows(s);
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);
	pmu_list_free(&l);
	CHECK(open_fds() == 0);
}

/*
 * The hybrid fixture with its E-cores offline: a cgroup's group copy for
 * cpu_atom covers none of the online CPUs, so the cgroup has no such
 * group (no summed row of zeros); cpu_core's counts.
 */
static void
test_pmu_offline(const char *dir)
{
	struct collector_opts o = { .log = capture };
	const char *top = getenv("top_srcdir");
	struct pmu_list l;
	struct event_ctx ctx = { &l, NULL, 1, NULL };
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char sysfs[4200], cmd[8800], mi[8400], err[1024], *text;
	size_t len;
	FILE *out;
	static const char yaml[] =
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions]\n"
	    "cgroups:\n"
	    "  - path: /x\n"
	    "    groups: [ipc]\n";

	snprintf(sysfs, sizeof(sysfs), "%s/hybrid-off", dir);
	snprintf(cmd, sizeof(cmd), "cp -r %s/tests/fixtures/sysfs-intel-hybrid "
	    "%s && mkdir -p %s/cgo/x", top ? top : ".", sysfs, dir);
	CHECK(system(cmd) == 0);
	scratch_put(sysfs, "devices/system/cpu/online", "0-7\n");
	scratch_mount(dir, "cgo", mi, sizeof(mi));
	o.sysfs = sysfs;
	o.mountinfo = mi;
	CHECK(pmu_scan(sysfs, &l, err, sizeof(err)) == 0);
	CHECK(config_parse(&ctx, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == 0);
	CHECK(cfg && cfg->nr_groups == 2);
	if (cfg && collector_new(cfg, &o, &c, err, sizeof(err)) == 0) {
		collector_enable(c);
		step_enabled = step_running = 1000000000ULL;
		tick(c);
		s = collector_snapshot(c);
		CHECK(s && s->nr_rows == 1);
		CHECK(s && s->nr_rows && s->rows[0].pmu &&
		    strcmp(s->rows[0].pmu, "cpu_core") == 0);
		snapshot_unref(s);
		/* --check-config shows no cpu_atom copy on no CPUs. */
		text = NULL;
		len = 0;
		out = open_memstream(&text, &len);
		CHECK(probe_check_config(c, out, 1) == 0);
		fclose(out);
		CHECK_CONTAINS(text, "/x group ipc pmu cpu_core on CPUs 0-7: "
		    "8 of 8 instances open");
		CHECK(text && strstr(text, "cpu_atom on") == NULL);
		free(text);
		collector_free(c);
	}
	plan_free(cfg);
	pmu_list_free(&l);
	CHECK(open_fds() == 0);
	mountinfo = "/nonexistent";
}

/* One line of tests/fixtures/layouts. */
struct layout_case {
	char path[1024];
	char layouts[128];		/* "docker", "top,lxc"; "-": none */
	char labels[1024];		/* "k=v k=v", sorted */
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort the space-separated words of s in place. */
static void
sort_words(char *s)
{
	char buf[1024], *w[32], *save = NULL, *t;
	size_t n = 0, i, o = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, " ", &save); t && n < 32;
	    t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	qsort(w, n, sizeof(*w), cmp_str);
	s[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, 1024 - o, "%s%s", i ? " " : "",
		    w[i]);
}

static size_t
read_layout_cases(struct layout_case *lc, size_t max)
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[4096];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/layouts",
	    top ? top : ".");
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f) && n < max) {
		char *p, *l;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '/')
			continue;
		p = strchr(line, ' ');
		CHECK(p != NULL);
		if (p == NULL)
			continue;
		*p++ = '\0';
		l = strchr(p, ' ');
		if (l)
			*l++ = '\0';
		snprintf(lc[n].path, sizeof(lc[n].path), "%.1000s", line);
		snprintf(lc[n].layouts, sizeof(lc[n].layouts), "%.100s", p);
		snprintf(lc[n].labels, sizeof(lc[n].labels), "%.1000s",
		    l ? l : "");
		sort_words(lc[n].labels);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static int
in_layout(const struct layout_case *lc, const char *layout)
{
	char buf[128], *save = NULL, *t;

	snprintf(buf, sizeof(buf), "%s", lc->layouts);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strcmp(t, layout) == 0)
			return 1;
	return 0;
}

/* The summed row of cgroup path, or NULL. */
static const struct snap_row *
cgroup_row(const struct snapshot *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nr_rows; i++)
		if (s->rows[i].cgroup && s->rows[i].cpu == -1 &&
		    strcmp(s->rows[i].cgroup, path) == 0)
			return &s->rows[i];
	return NULL;
}

/*
 * Each case of one pass: counted with exactly its labels if it is in a
 * layout (other than those in uncounted, ","-separated), not counted
 * otherwise, and nothing else counted.
 */
static void
check_layout_rows(const struct snapshot *s, const struct layout_case *lc,
    size_t n, const char *uncounted)
{
	char got[1024];
	size_t i, j, o, rows = 0, want_rows = 0;

	for (i = 0; i < n; i++) {
		const struct snap_row *r = cgroup_row(s, lc[i].path);
		int want = strcmp(lc[i].layouts, "-") != 0 &&
		    strcmp(lc[i].layouts, uncounted) != 0;

		want_rows += want;
		if (!want != !r)
			fprintf(stderr, "%s: %s, want %s\n", lc[i].path,
			    r ? "counted" : "not counted", want ? "counted" :
			    "not counted");
		CHECK(!want == !r);
		if (r == NULL || !want)
			continue;
		for (j = 0, o = 0, got[0] = '\0'; j < r->nr_labels; j++)
			o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s=%s",
			    j ? " " : "", r->label_names[j], r->label_values[j]);
		sort_words(got);
		if (strcmp(got, lc[i].labels) != 0)
			fprintf(stderr, "%s:\n", lc[i].path);
		CHECK_STR(got, lc[i].labels);
	}
	for (i = 0; i < s->nr_rows; i++)
		rows += s->rows[i].cgroup && s->rows[i].cpu == -1;
	CHECK(rows == want_rows);
}

/*
 * The embedded default on the cgroups of every layout it knows, as their
 * runtimes make them (tests/fixtures/layouts), through the real
 * discovery: patterns, excludes, relabel rules, labels merged from
 * several entries, and one log line per layout with its count.  First as
 * it is, where mode: bpf cannot run (the fake PMU's fds are no perf
 * events to the BPF map): containers in perf mode, pods not counted;
 * then with every entry in perf mode, pods with their labels.
 */
/* The cgroups of every layout case under dir/lay, parents first. */
static void
make_layout_dirs(const char *dir, const struct layout_case *lc, size_t n)
{
	char path[8400], *q;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%.4000s/lay%.1000s", dir,
		    lc[i].path);
		for (q = path + strlen(dir) + 1; (q = strchr(q + 1, '/'));) {
			*q = '\0';
			(void)mkdir(path, 0755);
			*q = '/';
		}
		(void)mkdir(path, 0755);
	}
}

/* One line per layout, with its count and mode. */
static void
check_layout_lines(const struct plan *cfg, const struct layout_case *lc,
    size_t n)
{
	char want[512];
	size_t l, i, count;

	for (l = 0; l < cfg->nr_layouts; l++) {
		int pods = strcmp(cfg->layouts[l], "kubernetes-pod") == 0;
		int bpf = 0;

		for (i = 0; i < cfg->nr_targets; i++)
			bpf |= cfg->targets[i].layout == l + 1 &&
			    cfg->targets[i].mode != NULL;
		for (i = 0, count = 0; i < n; i++)
			count += in_layout(&lc[i], cfg->layouts[l]);
		CHECK(count > 0);
		snprintf(want, sizeof(want), "layout %s: "
		    "%zu cgroup%s (%s)\n", cfg->layouts[l], count,
		    count == 1 ? "" : "s", !bpf ? "mode perf" : pods ?
		    "not counted: mode bpf is not available" :
		    "mode perf: mode bpf is not available");
		if (count_of(logbuf, want) != 1)
			fprintf(stderr, "no line \"%s\"\n", want);
		CHECK(count_of(logbuf, want) == 1);
	}
}

/* The embedded default over the layouts' cgroups, as it is (pass 0) or
 * with every entry in perf mode (pass 1).  -1 when it could not start. */
static int
layouts_pass(const char *dir, const struct layout_case *lc, size_t n,
    int pass)
{
	struct collector_opts o = {
		.sysfs = dir,
		.mountinfo = mountinfo,
		.log = capture,
	};
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char err[8400];
	size_t i;

	logbuf[0] = '\0';
	CHECK(config_parse(NULL, "<default>", config_default_yaml,
	    strlen(config_default_yaml), &cfg, err, sizeof(err)) == 0);
	if (cfg == NULL)
		return -1;
	for (i = 0; pass == 1 && i < cfg->nr_targets; i++) {
		free(cfg->targets[i].mode);
		cfg->targets[i].mode = NULL;
	}
	CHECK(collector_new(cfg, &o, &c, err, sizeof(err)) == 0);
	if (c == NULL)
		return -1;
	collector_enable(c);
	tick(c);
	s = collector_snapshot(c);
	CHECK(s != NULL);
	if (s)
		check_layout_rows(s, lc, n, pass == 0 ? "kubernetes-pod" : "");
	snapshot_unref(s);
	check_layout_lines(cfg, lc, n);
	/* Layouts the machine does not run are not warned about. */
	CHECK(count_of(logbuf, "matches no cgroup") == 0);
	collector_free(c);
	plan_free(cfg);
	CHECK(open_fds() == 0);
	return 0;
}

static void
test_layouts(const char *dir)
{
	static struct layout_case lc[256];
	char mi[8400], path[8400];
	size_t n;
	int pass;

	n = read_layout_cases(lc, 256);
	CHECK(n > 50);
	make_layout_dirs(dir, lc, n);
	scratch_mount(dir, "lay", mi, sizeof(mi));
	for (pass = 0; pass < 2; pass++)
		if (layouts_pass(dir, lc, n, pass) < 0)
			return;
	snprintf(path, sizeof(path), "rm -r %s/lay", dir);
	CHECK(system(path) == 0);
	mountinfo = "/nonexistent";
}

/* The value of label name on row r, or NULL. */
static const char *
row_label(const struct snap_row *r, const char *name)
{
	size_t i;

	for (i = 0; r && i < r->nr_labels; i++)
		if (strcmp(r->label_names[i], name) == 0)
			return r->label_values[i];
	return NULL;
}

/* How many labels name has on row r. */
static size_t
label_count(const struct snap_row *r, const char *name)
{
	size_t i, n = 0;

	for (i = 0; r && i < r->nr_labels; i++)
		n += strcmp(r->label_names[i], name) == 0;
	return n;
}

/* Whether the resolver n comes to know both the container ctr at cpath
 * and the sandbox pod at ppath, within 5 s. */
static int
names_known(struct names *n, const char *ctr, const char *cpath,
    const char *pod, const char *ppath)
{
	const struct namemap_entry *e, *f;
	struct namemap *m;
	int i, known = 0;

	for (i = 0; i < 500 && !known; i++) {
		m = names_map(n);
		e = namemap_find(m, ctr, cpath);
		f = namemap_find(m, pod, ppath);
		known = e && e->found && f && f->found;
		namemap_unref(m);
		if (!known)
			usleep(10000);
	}
	return known;
}

/* The container's row carries its pod's names; the sandbox's is hidden,
 * without names, still counted. */
static void
check_sandbox_rows(const struct snapshot *s, const char *ctr,
    const char *cpath, const char *pod, const char *ppath)
{
	CHECK(s != NULL && s->cgroups_counted == 2);
	CHECK_STR(row_label(cgroup_row(s, cpath), "container_id"), ctr);
	CHECK_STR(row_label(cgroup_row(s, cpath), "pod"), "web-7d4b9");
	CHECK_STR(row_label(cgroup_row(s, cpath), "container"), "nginx");
	/* A label the path gave is kept, once, over the resolver's. */
	CHECK_STR(row_label(cgroup_row(s, cpath), "namespace"), "besteffort");
	CHECK(label_count(cgroup_row(s, cpath), "namespace") == 1);
	CHECK(cgroup_row(s, cpath) && !cgroup_row(s, cpath)->hidden);
	CHECK(cgroup_row(s, ppath) && cgroup_row(s, ppath)->hidden);
	CHECK(row_label(cgroup_row(s, ppath), "pod") == NULL);
	CHECK_STR(row_label(cgroup_row(s, ppath), "container_id"), pod);
	CHECK(s != NULL && s->nr_rows == 2);
}

/*
 * Container names on the rows (names/, reading the containerd state
 * captured in tests/fixtures/names): a CRI container's series carry its
 * pod's names; its pod's sandbox (pause) container, whose cgroup the
 * path cannot tell from a container's, once the resolver knows it is
 * one, is shown apart (its rows hidden: pmu_cgroup_hidden_*), without
 * names, still counted: nothing disappears.
 */
static void
test_names_sandbox(const char *dir)
{
	static const char ctr[] =
	    "4e7feab8eafb14e4d6a2a2ab2f92f7ef1ebfa44e754a0b548899c5a15a20789f";
	static const char pod[] =
	    "67d1b6990fe1f5eb4c8e8a5e85ab3249fed65f99e2449baf164d161c533b6cf8";
	const char *top = getenv("top_srcdir");
	char mi[8400], path[8400], root[4200], cpath[200], ppath[200];
	struct names_opts no = { root, NULL };
	struct collector_opts o = {
		.sysfs = dir,
		.log = capture,
	};
	struct names *n = NULL;
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;

	snprintf(root, sizeof(root), "%s/tests/fixtures/names/root",
	    top ? top : ".");
	/* Where containerd's records put them. */
	snprintf(cpath, sizeof(cpath), "/kubepods/besteffort/"
	    "pod1a2b3c4d-0000-4000-8000-000000000001/%s", ctr);
	snprintf(ppath, sizeof(ppath), "/kubepods/besteffort/"
	    "pod1a2b3c4d-0000-4000-8000-000000000001/%s", pod);
	snprintf(path, sizeof(path), "mkdir -p %s/nm%s %s/nm%s", dir, cpath,
	    dir, ppath);
	CHECK(system(path) == 0);
	scratch_mount(dir, "nm", mi, sizeof(mi));
	o.mountinfo = mountinfo;
	CHECK(names_new(&no, &n) == 0 && names_start(n) == 0);
	o.names = n;
	snprintf(path, sizeof(path), "groups:\n  - name: sw\n"
	    "    events: [cycles]\ncgroups:\n  - path: /kubepods/*/*/*\n"
	    "    groups: [sw]\n    relabel:\n"
	    "      - regex: '.*/([0-9a-f]{64})'\n"
	    "        target_label: container_id\n"
	    "      - regex: '/kubepods/([a-z]+)/.*'\n"
	    "        target_label: namespace\n");
	CHECK(config_parse(NULL, "t.yaml", path, strlen(path), &cfg, mi,
	    sizeof(mi)) == 0);
	CHECK(cfg && collector_new(cfg, &o, &c, mi, sizeof(mi)) == 0);
	if (c == NULL) {
		names_free(n);
		plan_free(cfg);
		return;
	}
	collector_enable(c);
	/* The first collection tells the resolver both ids; wait until it
	 * knows them. */
	tick(c);
	CHECK(names_known(n, ctr, cpath, pod, ppath));
	tick(c);
	s = collector_snapshot(c);
	check_sandbox_rows(s, ctr, cpath, pod, ppath);
	collector_free(c);
	names_free(n);
	/* The snapshot holds the map its name labels point into: they
	 * outlive the resolver. */
	CHECK_STR(row_label(cgroup_row(s, cpath), "pod"), "web-7d4b9");
	snapshot_unref(s);
	plan_free(cfg);
	CHECK(open_fds() == 0);
	snprintf(path, sizeof(path), "rm -r %s/nm", dir);
	CHECK(system(path) == 0);
	mountinfo = "/nonexistent";
}

int
main(void)
{
	char dir[] = "/tmp/collector_test.XXXXXX", path[4200];

	perf_ops = &fake_ops;
	CHECK(mkdtemp(dir) != NULL);
	scratch_put(dir, "devices/system/cpu/online", "0-1\n");

	test_group_read();
	test_counting(dir);
	test_unscheduled(dir);
	test_retry(dir);
	test_check_counters(dir);
	test_unscheduled_software(dir);
	test_union(dir);
	test_vanished(dir);
	test_no_perf_cgroup(dir);
	test_denied(dir);
	test_pmus();
	test_pmu_offline(dir);
	test_layouts(dir);
	test_names_sandbox(dir);

	snprintf(path, sizeof(path), "rm -r %s", dir);
	CHECK(system(path) == 0);
	if (check_failures)
		fprintf(stderr, "log was:\n%s", logbuf);
	return CHECK_DONE();
}
