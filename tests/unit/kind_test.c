/*
 * kind_test.c - a source kind added beside the product's, in one file
 * (tests/unit/source_null.c) and one line (source_kind_add, in main),
 * counts through the collector as perf and bpf do: its mode name, its
 * options and fallback: are learnt by config/ from its description,
 * its counts reach the snapshot scaled, and an entry it refuses gets
 * its fallback (perf, here a fake PMU; or skip).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/collector.h"
#include "collectors/collector/snapshot.h"
#include "collectors/collector/source.h"
#include "collectors/perf/perf_sys.h"
#include "config/config.h"
#include "tests/lib/check.h"
#include "tests/lib/kinds.h"
#include "tests/lib/scratch.h"

extern const struct source_kind source_null_kind;	/* source_null.c */

/* ---- a fake PMU for the fallback: each read adds 7 per event ------- */

#define NFD 64
static struct { int used, leader; uint64_t value, t; } fds[NFD];
static size_t perf_opens;

static int
fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    unsigned long flags)
{
	int i;

	(void)attr, (void)pid, (void)cpu, (void)flags;
	for (i = 0; i < NFD && fds[i].used; i++)
		;
	if (i == NFD) {
		errno = EMFILE;
		return -1;
	}
	memset(&fds[i], 0, sizeof(fds[i]));
	fds[i].used = 1;
	fds[i].leader = group_fd == -1 ? 100 + i : group_fd;
	perf_opens++;
	return 100 + i;
}

static int
fake_ioctl(int fd, unsigned long req, unsigned long arg)
{
	if (req == PERF_EVENT_IOC_ID)
		*(uint64_t *)arg = (uint64_t)fd;
	return 0;
}

static ssize_t
fake_read(int fd, void *buf, size_t len)
{
	uint64_t *out = buf;
	size_t n = 0;
	int i;

	out[1] = out[2] = fds[fd - 100].t += 1000000000ULL;
	for (i = 0; i < NFD; i++)
		if (fds[i].used && fds[i].leader == fd &&
		    (3 + 2 * n + 2) * sizeof(uint64_t) <= len) {
			out[3 + 2 * n] = fds[i].value += 7;
			out[4 + 2 * n] = (uint64_t)(100 + i);
			n++;
		}
	out[0] = n;
	return (ssize_t)((3 + 2 * n) * sizeof(uint64_t));
}

static int
fake_close(int fd)
{
	fds[fd - 100].used = 0;
	return 0;
}

static const struct perf_ops fake_ops = {
	fake_open, fake_ioctl, fake_read, fake_close,
	NULL,			/* scripted times: no clock bounds them */
};

/* ---- the collector over a scratch cgroup mount --------------------- */

static char logbuf[16384];
static char mountinfo[4300];

static void
capture(int prio, const struct log_fields *lf, const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	(void)prio, (void)lf;
	va_start(ap, fmt);
	vsnprintf(logbuf + n, sizeof(logbuf) - n, fmt, ap);
	va_end(ap);
	n = strlen(logbuf);
	if (n + 1 < sizeof(logbuf))
		strcpy(logbuf + n, "\n");
}

/* The config's groups and the one cgroups entry, with its mode's
 * lines (mode, fallback, layout) in entry. */
#define GROUP "groups:\n  - name: g\n    events: [task-clock, page-faults]\n"
#define ENTRY "cgroups:\n  - path: /x\n    groups: [g]\n    layout: nl\n"

/* The collector on yaml after ticks collections; its snapshot. */
static struct snapshot *
run(const char *yaml, const char *sysfs, int ticks)
{
	struct collector_opts o = { .sysfs = sysfs, .mountinfo = mountinfo,
	    .log = capture };
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char err[512];

	logbuf[0] = '\0';
	if (config_parse(NULL, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		CHECK(0);
		return NULL;
	}
	CHECK(collector_new(cfg, &o, &c, err, sizeof(err)) == 0);
	collector_enable(c);
	while (ticks-- > 0) {
		collector_tend(c);
		collector_collect(c);
	}
	s = collector_snapshot(c);
	collector_free(c);
	plan_free(cfg);
	return s;
}

/* Its row of cgroup /x, or NULL. */
static const struct snap_row *
row_x(const struct snapshot *s)
{
	size_t i;

	for (i = 0; s && i < s->nr_rows; i++)
		if (s->rows[i].cgroup && strcmp(s->rows[i].cgroup, "/x") == 0)
			return &s->rows[i];
	return NULL;
}

/* mode: null counts: each read (one a collection) adds step x (the
 * event's place + 1) on each of the 2 CPUs, from 0 at its open. */
static void
test_counts(const char *dir)
{
	const struct snap_row *r;
	struct snapshot *s;
	size_t k, reads = 3;

	s = run("modes:\n  null:\n    step: 5\n" GROUP ENTRY
	    "    mode: null\n", dir, (int)reads);
	r = row_x(s);
	CHECK(r != NULL && r->nr_events == 2);
	for (k = 0; r && k < 2; k++) {
		CHECK(r->counted[k]);
		CHECK(r->values[k] == 2.0 * 5 * (double)(k + 1) *
		    (double)reads);
	}
	CHECK(perf_opens == 0);		/* no perf group, no probe */
	/* After the product's kinds, however many there are. */
	CHECK(s && s->nr_sources == kinds_nr());
	CHECK(s && strcmp(s->sources[kinds_nr() - 1].kind, "null") == 0);
	CHECK_CONTAINS(logbuf, "layout nl: 1 cgroup (mode null)");
	snapshot_unref(s);
}

/* runs: 0, a null kind that cannot run: fallback: perf counts the
 * entry in perf mode (the fake PMU's 7 a read), skip leaves it out. */
static void
test_fallback(const char *dir)
{
	const struct snap_row *r;
	struct snapshot *s;

	s = run("modes:\n  null: {runs: 0}\n" GROUP ENTRY "    mode: null\n",
	    dir, 3);
	r = row_x(s);
	CHECK(r != NULL && r->nr_events == 2 && perf_opens > 0);
	CHECK(r && r->values[0] == 2.0 * 7 * 3 && r->values[1] == 2.0 * 7 * 3);
	CHECK_CONTAINS(logbuf, "mode perf: mode null is not available");
	snapshot_unref(s);
	s = run("modes:\n  null: {runs: 0}\n" GROUP ENTRY "    mode: null\n"
	    "    fallback: skip\n", dir, 2);
	CHECK(s != NULL && row_x(s) == NULL);
	CHECK_CONTAINS(logbuf, "not counted: mode null is not available");
	snapshot_unref(s);
}

/* What config/ learnt from the description: the name among the modes,
 * its options' ranges, fallback:. */
static void
test_config(void)
{
	struct plan *cfg = NULL;
	char err[512], want[512];
	const char *yaml = "modes:\n  null:\n    step: 0\n" GROUP ENTRY
	    "    mode: null\n";

	CHECK(config_parse(NULL, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == -EINVAL);
	CHECK_STR(err, "t.yaml:3:11: step must be a whole number from 1 to "
	    "1000, not \"0\"");
	yaml = GROUP ENTRY "    mode: nul\n";
	CHECK(config_parse(NULL, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == -EINVAL);
	CHECK_STR(err, kinds_said(want, sizeof(want),
	    "t.yaml:8:11: mode must be ", ", not \"nul\""));
	yaml = GROUP ENTRY "    mode: null\n    fallback: refuse\n";
	CHECK(config_parse(NULL, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == 0);
	CHECK(cfg && plan_target_mode_is(&cfg->targets[0], "null") &&
	    cfg->targets[0].fallback == PLAN_FALLBACK_REFUSE &&
	    plan_mode_option(cfg, "null", "step", 0) == 1);
	plan_free(cfg);
	/* The table refuses a second kind of one name. */
	CHECK(source_kind_add(&source_null_kind) == -EEXIST);
}

int
main(void)
{
	char dir[] = "/tmp/kind_test.XXXXXX", cmd[4200];
	FILE *f;

	CHECK(source_kind_add(&source_null_kind) == 0);
	perf_ops = &fake_ops;
	CHECK(mkdtemp(dir) != NULL);
	scratch_put(dir, "devices/system/cpu/online", "0-1\n");
	scratch_put(dir, "cg/x/cgroup.procs", "");
	snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", dir);
	f = fopen(mountinfo, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "41 31 0:38 / %s/cg rw,relatime - cgroup2 cgroup2 "
		    "rw\n", dir);
		fclose(f);
	}
	test_config();
	test_counts(dir);
	test_fallback(dir);
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	CHECK(system(cmd) == 0);
	if (check_failures)
		fprintf(stderr, "log was:\n%s", logbuf);
	return CHECK_DONE();
}
