/*
 * instance_test.c - one group instance (collectors/collector/instance.c,
 * instance.h): on real software events, its readings scaled into its
 * sums and its close (a broken one reads nothing); then, on the scripted
 * PMU of tests/lib/fake_pmu.h, a broken one reopened at the next full rescan
 * with its series going on, a refusal (EPERM, EACCES) explained once from
 * the procfs given, and a cgroup without perf_event state reported once
 * as such, not per event.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collector/collector_int.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/target.h"
#include "config/config.h"
#include "tests/lib/check.h"
#include "tests/lib/fake_pmu.h"
#include "tests/lib/scratch.h"

/*
 * The system-wide cpu-clock instance on the real kernel: each reading
 * adds its deltas (the clock ran, so enabled and running time grow and
 * so does the count); closed as broken, it holds no source and reads
 * nothing, until a pass opens it again.
 */
static void
test_read_real(void)
{
	struct plan *cfg = NULL;
	struct collector *c;
	struct inst *in;
	uint64_t en;
	double v;

	c = fake_kernel_make("groups:\n  - name: sw\n    events: [cpu-clock]\n"
	    "cpus:\n  - cpus: all\n    groups: [sw]\n", &cfg);
	if (c == NULL)
		return;
	collector_enable(c);
	in = &c->set.v[0]->groups[0].inst[0];
	CHECK(in->state == INST_OK && in->src != NULL);
	CHECK(inst_read(in) >= 0);
	en = in->enabled_ns;
	v = scale_value(&in->acc[0]);
	CHECK(inst_read(in) == 0);
	CHECK(in->enabled_ns > en && in->running_ns > 0);
	CHECK(scale_value(&in->acc[0]) > v);
	CHECK(in->last_de > 0);
	inst_close(in, INST_BROKEN);
	CHECK(in->state == INST_BROKEN && in->src == NULL);
	CHECK(inst_read(in) == -EAGAIN);
	fake_kernel_free(c, cfg);
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

	fake.log[0] = '\0';
	c = fake_make("cgroup_rescan_interval: 100ms\n"
	    "groups:\n  - name: g\n    events: [cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, sysfs);
	collector_enable(c);
	fake.step_enabled = fake.step_running = 1000000000ULL;
	fake_tick(c);
	fake.zero_read_cpu = 1;
	fake_tick(c);		/* cpu 1 fails */
	s = collector_snapshot(c);
	before = fake_row(s, 1) ? fake_row(s, 1)->values[0] : -1;
	CHECK(before == 3e9);
	CHECK(s->open_fds == 1);
	snapshot_unref(s);
	fake.zero_read_cpu = -1;
	nanosleep(&ts, NULL);
	fake_tick(c);		/* rescan due: reopened */
	CHECK(count_of(fake.log, "reopening group instances") == 1);
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(s->open_fds == 2);
	/* The series goes on from before, plus all the new fd counted: its
	 * first read too (3e9 a read), nothing lost, nothing twice. */
	CHECK(fake_row(s, 1) && fake_row(s, 1)->values[0] == before + 2 * 3e9);
	CHECK(fake_row(s, 0) && fake_row(s, 0)->values[0] == 4 * 3e9);	/* untouched */
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
}


/*
 * A reading whose enabled and running times grew by more than the real
 * time since the last one (the kernel's cgroup clock starting from zero:
 * instance.c, inst_excess) adds only the real time to them, and its
 * values are scaled as if it had not jumped; the next reading is whole.
 */
static void
test_clock_jump(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	struct snapshot *s;
	double v;

	fake.log[0] = '\0';
	fake.clock_ns = 1;
	c = fake_make("groups:\n  - name: g\n    events: [cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, sysfs);
	collector_enable(c);
	fake.step_enabled = fake.step_running = 100000000ULL;
	fake.clock_ns += 100000000ULL;
	fake_tick(c);
	fake.jump_ns = 1435ULL * 1000000000ULL;	/* seen with podman */
	fake.clock_ns += 100000000ULL;
	fake_tick(c);
	fake.jump_ns = 0;
	s = collector_snapshot(c);
	CHECK(fake_row(s, 0) != NULL);
	if (fake_row(s, 0)) {
		v = fake_row(s, 0)->values[0];
		/* Two readings of 0.1 s each, 3e8 events each. */
		CHECK(fake_row(s, 0)->enabled_s == 0.2);
		CHECK(fake_row(s, 0)->running_s == 0.2);
		CHECK(v == 6e8);
	}
	snapshot_unref(s);
	/* Multiplexed now, half the time: the next reading is whole. */
	fake.step_running = 50000000ULL;
	fake.clock_ns += 100000000ULL;
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(fake_row(s, 0) && fake_row(s, 0)->enabled_s == 0.3 &&
	    fake_row(s, 0)->running_s == 0.25 &&
	    fake_row(s, 0)->values[0] == 6e8 + 3e8);
	snapshot_unref(s);
	/* Times that lag one reading and catch up the next (a group
	 * multiplexed off the counters, the arm64 guest's kernel): no
	 * excess, since the total never passed the real time. */
	fake.step_enabled = 50000000ULL;
	fake.step_running = 25000000ULL;
	fake.clock_ns += 100000000ULL;
	fake_tick(c);
	fake.step_enabled = 150000000ULL;
	fake.step_running = 75000000ULL;
	fake.clock_ns += 100000000ULL;
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(fake_row(s, 0) && fake_row(s, 0)->enabled_s == 0.5 &&
	    fake_row(s, 0)->running_s == 0.35 &&
	    fake_row(s, 0)->values[0] == 9e8 + 1.5e8 + 4.5e8);
	snapshot_unref(s);
	fake.clock_ns = 0;
	CHECK(fake_free(c, cfg) == 0);
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
	fake.procfs = proc;
	fake.deny = EPERM;
	fake.log[0] = '\0';
	c = fake_make("groups:\n  - name: g\n    events: [cycles, instructions]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, dir);
	CHECK(collector_open_fds(c) == 0);
	CHECK(collector_denied(c) == DENIED_SECCOMP);
	CHECK(count_of(fake.log, "perf_event_open for group") == 1);
	CHECK_CONTAINS(fake.log, "perf_event_open for group \"g\" on cpu 0: "
	    "Operation not permitted: this process holds CAP_PERFMON, but a "
	    "seccomp filter is active (Seccomp: 2, Seccomp_filters: 1)");
	collector_free(c);
	plan_free(cfg);

	/* The kernel's own refusal, by the same process without the
	 * capability. */
	scratch_put(proc, "self/status", "Name:\tpmu_exporter\nUid:\t0\t0\t0\t0\n"
	    "CapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
	    "Seccomp:\t0\nSeccomp_filters:\t0\n");
	fake.deny = EACCES;
	fake.log[0] = '\0';
	c = fake_make("groups:\n  - name: g\n    events: [cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [g]\n", &cfg, dir);
	CHECK(collector_denied(c) == DENIED_NO_CAP);
	CHECK(count_of(fake.log, "perf_event_open for group") == 1);
	CHECK_CONTAINS(fake.log, "Permission denied: this process lacks "
	    "CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8) and "
	    "kernel.perf_event_paranoid is 2;");
	collector_free(c);
	plan_free(cfg);
	fake.deny = 0;
	fake.procfs = NULL;
	CHECK(fake_open_fds() == 0);
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
	fake_mount(dir, "npc", mi, sizeof(mi));
	fake.log[0] = '\0';
	fake.max_prio = 99;
	fake.no_perf_cgroup = 1;
	c = fake_make("cgroup_rescan_interval: 100ms\ngroups:\n  - name: ipc\n"
	    "    events: [cycles, instructions]\ncgroups:\n  - path: /x\n"
	    "    groups: [ipc]\n", &cfg, dir);
	collector_enable(c);
	fake_tick(c);
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
	CHECK(fake.max_prio == 3);
	snprintf(want, sizeof(want), "echo +cpu > %s/npc/cgroup.subtree_control",
	    dir);
	CHECK(strstr(fake.log, want) != NULL);
	CHECK(count_of(fake.log, "cannot be counted:") == 1);
	CHECK(strstr(fake.log, "cannot be counted on cpu") == NULL);

	/* Someone enables a controller: counted from the next rescan on. */
	fake.no_perf_cgroup = 0;
	usleep(150 * 1000);
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->nr_rows == 1 && s->cgroups_counted == 1);
	CHECK(s && s->cgroups_no_perf == 0 && s->nr_open_errors == 0);
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);

	/* An event the PMU lacks: its own message, no cgroup advice. */
	fake.log[0] = '\0';
	c = fake_make("groups:\n  - name: bus\n    events: [bus-cycles]\n"
	    "cgroups:\n  - path: /x\n    groups: [bus]\n", &cfg, dir);
	collector_enable(c);
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->cgroups_no_perf == 0 && s->nr_open_errors == 1 &&
	    s->open_errors[0].no_perf_cgroup == 0);
	snapshot_unref(s);
	CHECK(strstr(fake.log, "cannot be counted on cpu") != NULL);
	CHECK(strstr(fake.log, "subtree_control") == NULL);
	CHECK(fake_free(c, cfg) == 0);
}

int
main(void)
{
	char dir[] = "/tmp/instance_test.XXXXXX";

	CHECK(fake_begin(dir) == 0);
	test_read_real();
	test_retry(dir);
	test_clock_jump(dir);
	test_denied(dir);
	test_no_perf_cgroup(dir);
	CHECK(fake_end(dir) == 0);
	if (check_failures)
		fprintf(stderr, "log was:\n%s", fake.log);
	return CHECK_DONE();
}
