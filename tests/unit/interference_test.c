/*
 * interference_test.c - the interference analysis (analysis/interference.h)
 * on generated traces with known answers, and the whole daemon's path
 * through its perf boundary: a scripted PMU (perf_ops faked by
 * tests/lib/fake_ipc.c, on 2 CPUs) -> the collector -> its snapshots -> the
 * analysis -> the exposition -> promtool.
 *
 * The traces: a victim whose CPI rises with one neighbour's CPU use (that
 * neighbour named first, the decoys with use of their own never); a
 * change of CPI that every cgroup shares (no victim); a cgroup under the
 * CPU floor (never analysed); a victim's own ancestors and descendants
 * (never its suspects); the analysis on its own thread (for the
 * sanitizers); and each threshold on both sides of its edge: the floor,
 * outlier_sigma, victim_outliers within victim_window, suspect_threshold,
 * and the number of suspects with their ranking.  Then the exposition of
 * a result, the time a sample spans (the snapshots' own), and the config
 * block.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/interference.h"
#include "collectors/collector/collector.h"
#include "collectors/perf/perf_sys.h"
#include "config/config.h"
#include "daemon/expo/expo.h"
#include "daemon/expo/expo_interference.h"
#include "tests/lib/check.h"
#include "tests/lib/fake_ipc.h"
#include "tests/lib/ifr_trace.h"
#include "tests/lib/scratch.h"
#include "tests/lib/xorshift.h"

/*
 * The injected antagonist: the victim's CPI rises with /a's CPU use; /d1
 * and /d2 use CPU of their own, /low is under the floor with a wild CPI.
 * /a is named first whenever the victim is one, and no decoy ever is.
 */
static void
test_antagonist(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 6, .path = { "/v", "/a", "/d1", "/d2", "/low",
	    "/b" } };
	struct interference_result *r;
	int t, on = 0, left = 0, victim_seen = 0, first = 0, decoy = 0;
	int low_seen = 0;

	for (t = 0; t < 600; t++) {
		/* /a: bursts of 5 to 20 s on and off after the baseline. */
		if (t >= 120 && left-- <= 0) {
			on = !on;
			left = 5 + (int)(uniform() * 15);
		}
		n.cpu[0] = 1.0;
		n.cpu[1] = on ? 2.0 : 0.05;
		n.cpu[2] = 0.3 + uniform() * 1.5;
		n.cpu[3] = uniform() < 0.5 ? 0.3 : 1.8;
		n.cpu[4] = 0.2;
		n.cpu[5] = 0.8;
		n.cpi[0] = noisy(1.0 + 0.6 * n.cpu[1] / 2.0);
		n.cpi[1] = noisy(2.0);
		n.cpi[2] = noisy(1.5);
		n.cpi[3] = noisy(0.8);
		n.cpi[4] = uniform() * 10;
		n.cpi[5] = noisy(1.2);
		feed(ifr, &n);
		r = interference_result(ifr);
		if (analysed(r, "/v") && analysed(r, "/v")->victim) {
			const struct interference_suspect *s1 =
			    suspect(r, "/v", 1);

			victim_seen++;
			first += s1 && strcmp(s1->row->cgroup, "/a") == 0;
			if (getenv("DBG")) fprintf(stderr, "t=%d s1=%s r=%g\n", t, s1 ? s1->row->cgroup : "-", s1 ? s1->correlation : 0);
		}
		decoy += named(r, "/d1") || named(r, "/d2") ||
		    named(r, "/b") || named(r, "/low");
		low_seen += analysed(r, "/low") != NULL;
		interference_result_unref(r);
	}
	CHECK(victim_seen > 50);
	CHECK(first == victim_seen);	/* /a first, every time */
	CHECK(decoy == 0);
	CHECK(low_seen == 0);		/* under the floor: never analysed */
	r = interference_result(ifr);
	CHECK(r && r->enabled && r->nr_cgroups == (on ? 5u : 4u));
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim_periods >= 1);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->outliers >= 3);
	interference_result_unref(r);
	interference_free(ifr);
}

/*
 * The analysis on its own thread: snapshots offered (each dropped
 * reference the thread's to release), results taken meanwhile, a
 * reload, then free with a snapshot still pending.  What it finds is
 * the synchronous path's; this is for the sanitizers (check.sh's
 * ThreadSanitizer pass sees the handing over).
 */
static void
test_thread(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 3, .path = { "/t1", "/t2", "/t3" } };
	struct interference_result *r;
	int t, i, seen = 0;

	CHECK(interference_start(ifr) == 0);
	for (t = 0; t < 300; t++) {
		struct snapshot *s;

		for (i = 0; i < 3; i++) {
			n.cpu[i] = 1.0;
			n.cpi[i] = noisy(1.0);
		}
		s = node_step(&n);
		interference_offer(ifr, s);
		snapshot_unref(s);
		if (t == 150) {
			c.suspects = 2;
			CHECK(interference_reload(ifr, &c) == 0);
		}
		r = interference_result(ifr);
		seen += r != NULL && r->enabled;
		interference_result_unref(r);
	}
	CHECK(seen == 300);
	interference_free(ifr);
}

/* ---- exposition ------------------------------------------------------ */

/* The families, labels through the UTF-8-safe writer, names prefixed. */
static void
test_expo(void)
{
	static const char *const ln[] = { "namespace", "pod", "container" };
	static const char *const lv[2][3] = {
		{ "shop", "web-1", "nginx" }, { "batch", "job-\xff", "x\"y" } };
	struct snapshot *s = snapshot_new();
	struct interference_result r;
	struct interference_cgroup cg[2];
	struct interference_suspect su = { 0, NULL, 1, 0.75 };
	struct expo_buf b = { NULL, 0, 0, 0, 0 };
	int i;

	s->rows = snapshot_alloc(s, 2 * sizeof(*s->rows));
	memset(s->rows, 0, 2 * sizeof(*s->rows));
	for (i = 0; i < 2; i++) {
		s->rows[i].cgroup = i ? "/k/b\xc3" : "/k/a";
		s->rows[i].nr_labels = 3;
		s->rows[i].label_names = (const char **)ln;
		s->rows[i].label_values = (const char **)lv[i];
		cg[i] = (struct interference_cgroup){ &s->rows[i], !i, 4 + i,
		    1 };
	}
	su.row = &s->rows[1];
	memset(&r, 0, sizeof(r));
	r.enabled = 1;
	r.nr_cgroups = 2;
	r.cgroups = cg;
	r.nr_suspects = 1;
	r.suspects = &su;
	expo_interference(&b, &r, 1);
	expo_reserve(&b, 1);
	b.p[b.len] = '\0';
	CHECK_CONTAINS(b.p, "# TYPE pmu_cgroup_interference_suspect gauge\n"
	    "pmu_cgroup_interference_suspect{cgroup=\"/k/a\","
	    "namespace=\"shop\",pod=\"web-1\",container=\"nginx\","
	    "suspect_cgroup=\"/k/b\xef\xbf\xbd" "c3\",suspect_namespace=\"batch\","
	    "suspect_pod=\"job-\xef\xbf\xbd" "ff\",suspect_container=\"x\\\"y\","
	    "rank=\"1\"} 0.75\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_interference_victim{cgroup=\"/k/a\","
	    "namespace=\"shop\",pod=\"web-1\",container=\"nginx\"} 1\n");
	CHECK_CONTAINS(b.p, "# TYPE pmu_cgroup_cpi_outliers_total counter\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_cpi_outliers_total{cgroup=\"/k/a\","
	    "namespace=\"shop\",pod=\"web-1\",container=\"nginx\"} 4\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_interference_victim_periods_total{"
	    "cgroup=\"/k/b\xef\xbf\xbd" "c3\",namespace=\"batch\"");
	CHECK_CONTAINS(b.p, "pmu_exporter_interference_enabled 1\n");
	CHECK_CONTAINS(b.p, "pmu_exporter_interference_cgroups 2\n");
	free(b.p);

	/* OpenMetrics: the counter families lose _total, samples keep it. */
	memset(&b, 0, sizeof(b));
	b.om = 1;
	expo_interference(&b, &r, 0);
	expo_reserve(&b, 1);
	b.p[b.len] = '\0';
	CHECK_CONTAINS(b.p, "# TYPE pmu_cgroup_cpi_outliers counter\n");
	CHECK(strstr(b.p, "pmu_exporter_interference") == NULL);
	free(b.p);

	/* Off: only enabled 0. */
	memset(&b, 0, sizeof(b));
	expo_interference(&b, NULL, 1);
	expo_reserve(&b, 1);
	b.p[b.len] = '\0';
	CHECK_CONTAINS(b.p, "pmu_exporter_interference_enabled 0\n");
	CHECK(strstr(b.p, "pmu_cgroup_") == NULL);
	free(b.p);
	snapshot_unref(s);
}

/* ---- time ------------------------------------------------------------ */

/*
 * Five snapshots of one cgroup running 0.4 s of CPU in each, the t-th
 * stamped at t x apart seconds, saying an interval of 1 s (jitter: 1.001
 * s every other one, as an adaptive interval would); the results after
 * them in which it was analysed (over the CPU floor).
 */
static int
analysed_of(uint64_t apart, int jitter)
{
	static struct node n;
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct interference_result *r;
	struct snapshot *s;
	int t, seen = 0;

	memset(&n, 0, sizeof(n));
	n.nr = 1;
	n.path[0] = "/x";
	for (t = 1; t <= 5; t++) {
		n.cpu[0] = 0.4;
		n.cpi[0] = 1.0;
		s = node_step(&n);
		s->began_ns = (uint64_t)t * apart * 1000000000ULL;
		s->interval_s = jitter && t % 2 == 0 ? 1.001 : 1.0;
		interference_feed(ifr, s);
		snapshot_unref(s);
		r = interference_result(ifr);
		seen += analysed(r, "/x") != NULL;
		interference_result_unref(r);
	}
	interference_free(ifr);
	return seen;
}

/*
 * A sample's CPU use is what a cgroup ran over the time that really
 * elapsed between the snapshots (their began_ns), not their count times
 * the interval: the same 0.4 s of CPU a snapshot is over the floor (0.25)
 * when they are 1 s apart, under it when they are 2 s apart though each
 * says its interval is 1 s (every collection late).  And an interval
 * that changes at every collection changes the sample's geometry but
 * keeps what was analysed.  The first snapshot only starts the count.
 */
static void
test_elapsed(void)
{
	CHECK(analysed_of(1, 0) == 4);
	CHECK(analysed_of(2, 0) == 0);
	CHECK(analysed_of(1, 1) == 4);
}

/*
 * Samples of 4 intervals (a 240 s window at 1 s), fed 8 snapshots after
 * the first: the samples closed.  Each collection late (lag s after the
 * one before, each saying its interval is 1 s), a sample still closes
 * once its 4 s have passed, not after 4 collections: a loaded node's
 * late collector must not stretch the window.
 */
static int
samples_closed(double lag)
{
	static struct node n;
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct interference_result *r, *prev;
	struct snapshot *s;
	int t, closed = 0;

	c.window_ns = 240ULL * 1000000000ULL;
	c.victim_window_ns = 120ULL * 1000000000ULL;
	ifr = analysis(&c);
	memset(&n, 0, sizeof(n));
	n.nr = 1;
	n.path[0] = "/x";
	prev = interference_result(ifr);
	for (t = 0; t <= 8; t++) {
		n.cpu[0] = 1.0;
		n.cpi[0] = 1.0;
		s = node_step(&n);
		s->began_ns = (uint64_t)llround(t * lag * 1e9);
		interference_feed(ifr, s);
		snapshot_unref(s);
		r = interference_result(ifr);
		closed += r != prev;
		interference_result_unref(prev);
		prev = r;
	}
	interference_result_unref(prev);
	interference_free(ifr);
	return closed;
}

static void
test_late(void)
{
	CHECK(samples_closed(1.0) == 2);	/* 4 intervals, 4 s */
	CHECK(samples_closed(2.0) == 4);	/* 2 late ones, 4 s */
	/* To within half an interval: 2 x 1.8 = 3.6 s is 4 s, 2 x 1.6
	 * = 3.2 s is not (3 x 1.6 s then). */
	CHECK(samples_closed(1.8) == 4);
	CHECK(samples_closed(1.6) == 2);
}

/* ---- config ---------------------------------------------------------- */

static int
parse(const char *yaml, struct interference_config *ic, char *err,
    size_t len)
{
	struct plan *p = NULL;
	int r;

	r = config_parse_all(NULL, "t.yaml", yaml, strlen(yaml), &p, ic, err,
	    len);
	plan_free(p);
	return r;
}

#define IPC "groups:\n  - name: ipc\n    events: [cycles, instructions]\n"
#define ON_CG "cgroups:\n  - path: /x\n    groups: [ipc]\n"

/* One geometry (interference_geometry) for --check-config and the
 * analysis, the messages naming only what the user wrote. */
static void
test_config_geometry(void)
{
	struct interference_config ic;
	char err[512];

	/* One geometry: at interval 1s, window 90s makes samples of 2s
	 * (1.5s rounded), so victim_window 30s holds 15: 15 outliers can be
	 * reached, 20 cannot, and the message says why with the keys as
	 * written. */
	CHECK(parse("interval: 1s\n" IPC ON_CG "interference:\n  window: 90s\n"
	    "  victim_window: 30s\n  victim_outliers: 15\n", &ic, err,
	    sizeof(err)) == 0);
	interference_config_fini(&ic);
	CHECK(parse("interval: 1s\n" IPC ON_CG "interference:\n  window: 90s\n"
	    "  victim_window: 30s\n  victim_outliers: 16\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:11:20: interference.victim_outliers (16) "
	    "can never be reached: victim_window (30s) holds 15 samples of "
	    "2s at this interval");
	/* A long interval stretches the window and the default victim
	 * window with it: a block of enabled: true alone is fine. */
	CHECK(parse("interval: 3m\n" IPC ON_CG "interference:\n"
	    "  enabled: true\n", &ic, err, sizeof(err)) == 0);
	CHECK(ic.enabled && ic.window_ns == 60ULL * 180000000000ULL &&
	    ic.victim_window_ns == 30ULL * 180000000000ULL);
	interference_config_fini(&ic);
	/* The victim window's range in words. */
	CHECK(parse(IPC ON_CG "interference:\n  victim_window: 11m\n", &ic,
	    err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "interference.victim_window: 11m is out of range "
	    "(1s to 10m)");
}


/* Decimal numbers only, and each bound as the docs say it (issue 50,
 * item 10): "0x10m" read as 16 minutes, 0.5 taken where the docs say
 * below 0.5, a leading space taken. */
static void
test_config_numbers(void)
{
	struct interference_config ic;
	char err[512];

	CHECK(parse(IPC ON_CG "interference:\n  window: 0x10m\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:8:11: interference.window");
	CHECK(parse(IPC ON_CG "interference:\n  suspect_significance: 0.5\n",
	    &ic, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:8:25: interference.suspect_significance "
	    "must be a number from 0 (excluded) to 0.5 (excluded), not \"0.5\"");
	CHECK(parse(IPC ON_CG "interference:\n  suspect_significance: 1e-4\n",
	    &ic, err, sizeof(err)) == 0 && ic.suspect_significance == 1e-4);
	interference_config_fini(&ic);
	CHECK(parse(IPC ON_CG "interference:\n  cpu_floor: ' 0.3'\n", &ic,
	    err, sizeof(err)) < 0);
	CHECK(parse(IPC ON_CG "interference:\n  cpu_floor: 0x1p-2\n", &ic,
	    err, sizeof(err)) < 0);
	CHECK(parse(IPC ON_CG "interference:\n  cpu_floor: nan\n", &ic,
	    err, sizeof(err)) < 0);
	CHECK(parse(IPC ON_CG "interference:\n  suspects: ' 2'\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK(parse(IPC ON_CG "interference:\n  suspects: 0x2\n", &ic, err,
	    sizeof(err)) < 0);
}

static void
test_config(void)
{
	struct interference_config ic;
	char err[512];

	/* On by default where ipc is counted on cgroups. */
	CHECK(parse(IPC ON_CG, &ic, err, sizeof(err)) == 0);
	CHECK(ic.enabled && strcmp(ic.group, "ipc") == 0 &&
	    strcmp(ic.cycles, "cycles") == 0 && ic.suspects == 3 &&
	    ic.window_ns == 600000000000ULL && ic.cpu_floor == 0.25 &&
	    ic.outlier_sigma == 2 && ic.victim_outliers == 3 &&
	    ic.victim_window_ns == 300000000000ULL &&
	    ic.suspect_threshold == 0.35);
	interference_config_fini(&ic);
	/* Off, with why, where it is not. */
	CHECK(parse(IPC "cpus:\n  - cpus: all\n    groups: [ipc]\n", &ic, err,
	    sizeof(err)) == 0);
	CHECK(!ic.enabled);
	CHECK_STR(ic.why_off, "group \"ipc\" is counted on no cgroup");
	interference_config_fini(&ic);
	CHECK(parse("groups:\n  - name: sw\n    events: [task-clock]\n"
	    "cgroups:\n  - path: /x\n    groups: [sw]\n", &ic, err,
	    sizeof(err)) == 0);
	CHECK(!ic.enabled);
	CHECK_STR(ic.why_off, "no group \"ipc\" is defined");
	interference_config_fini(&ic);
	/* Every key. */
	CHECK(parse("groups:\n  - name: g\n    events: [instructions, "
	    "cpu-cycles]\n" "cgroups:\n  - path: /x\n    groups: [g]\n"
	    "interference:\n  group: g\n  window: 20m\n  cpu_floor: 0.5\n"
	    "  outlier_sigma: 3\n  victim_outliers: 4\n  victim_window: 10m\n"
	    "  suspect_threshold: 0.5\n  suspects: 5\n", &ic, err,
	    sizeof(err)) == 0);
	CHECK(ic.enabled && strcmp(ic.cycles, "cpu-cycles") == 0 &&
	    strcmp(ic.instructions, "instructions") == 0 &&
	    ic.window_ns == 1200000000000ULL && ic.cpu_floor == 0.5 &&
	    ic.outlier_sigma == 3 && ic.victim_outliers == 4 &&
	    ic.victim_window_ns == 600000000000ULL &&
	    ic.suspect_threshold == 0.5 && ic.suspects == 5);
	interference_config_fini(&ic);
	/* Errors at file:line:column. */
	CHECK(parse(IPC ON_CG "interference:\n  enabled: true\n  group: nope\n",
	    &ic, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:9:10: interference.enabled is true but "
	    "no group \"nope\" is defined");
	CHECK(parse(IPC ON_CG "interference:\n  suspect_threshold: 1\n", &ic,
	    err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:8:22: interference.suspect_threshold "
	    "must be a number from 0 to 1 (excluded)");
	CHECK(parse(IPC ON_CG "interference:\n  window: 30s\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:8:11: interference.window: 30s is out of "
	    "range");
	CHECK(parse(IPC ON_CG "interference:\n  victim_outliers: 31\n", &ic,
	    err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "t.yaml:8:20: interference.victim_outliers (31) "
	    "can never be reached: the default victim_window, half the "
	    "window, (5m) holds 30 samples of 10s at this interval");
	CHECK(parse(IPC ON_CG "interference:\n  suspcts: 2\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK_CONTAINS(err, "suspects");
	CHECK(parse(IPC ON_CG "interference:\n  cpu_floor: -1\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK(parse(IPC ON_CG "interference:\n  outlier_sigma: 0\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK(parse(IPC ON_CG "interference:\n  enabled: maybe\n", &ic, err,
	    sizeof(err)) < 0);
	CHECK(parse(IPC "cgroups:\n  - path: /x\n    groups: [ipc]\n"
	    "    relabel:\n      - regex: \"/(.*)\"\n"
	    "        target_label: suspect_app\n", &ic, err,
	    sizeof(err)) < 0);
	/* Explicitly off. */
	CHECK(parse(IPC ON_CG "interference:\n  enabled: false\n", &ic, err,
	    sizeof(err)) == 0);
	CHECK(!ic.enabled);
	interference_config_fini(&ic);
}

/* ---- the daemon's path, through a scripted PMU ------------------------ */

static char cgname[MAXCG][16];
static size_t nr_cg;
static double cg_cpu[MAXCG], cg_cpi[MAXCG];	/* this interval's */

static int
cg_index(const char *name)
{
	size_t i;

	for (i = 0; i < nr_cg; i++)
		if (strcmp(cgname[i], name) == 0)
			return (int)i;
	return -1;
}

/* Each collection fed to the analysis as it is published.  The fake
 * kernel's time is one interval (1 s) a collection, however fast the
 * test makes them, and the analysis divides by the time the snapshots
 * say elapsed: so they are stamped with the fake kernel's clock. */
static void
hook(void *arg, struct snapshot *s)
{
	s->began_ns = s->seq * 1000000000ULL;
	interference_feed(arg, s);
}

/* victim, antagonist, decoy1, decoy2 and idle under dir/cg, a cgroup2
 * "mount" that dir/mountinfo names. */
static void
make_cgroups(const char *dir, char *mi, size_t mi_size)
{
	static const char *const names[] = { "victim", "antagonist", "decoy1",
	    "decoy2", "idle" };
	char path[4800];
	size_t i;
	FILE *f;

	nr_cg = 5;
	for (i = 0; i < nr_cg; i++) {
		snprintf(cgname[i], sizeof(cgname[i]), "%s", names[i]);
		snprintf(path, sizeof(path), "mkdir -p %s/cg/%s", dir, names[i]);
		CHECK(system(path) == 0);
	}
	snprintf(mi, mi_size, "%s/mountinfo", dir);
	f = fopen(mi, "w");
	CHECK(f != NULL);
	fprintf(f, "41 31 0:38 / %s/cg rw,relatime - cgroup2 cgroup2 rw\n",
	    dir);
	fclose(f);
}

/* Group ipc on every cgroup, each published snapshot fed to the analysis
 * ifr. */
static struct collector *
start_collector(const char *dir, const char *mi, struct plan **cfg,
    struct interference_config *ic, struct interference **ifr)
{
	struct collector_opts o = { .log = fake_ipc_quiet };
	struct collector *c = NULL;
	char err[512];
	const char *yaml = "interval: 1s\n"
	    "groups:\n  - name: ipc\n    events: [cycles, instructions]\n"
	    "cgroups:\n  - path: /*\n    groups: [ipc]\n"
	    "    relabel:\n      - regex: \"/(.*)\"\n"
	    "        target_label: app\n"
	    "interference:\n  window: 1m\n  victim_window: 30s\n";

	o.sysfs = dir;
	o.mountinfo = mi;
	CHECK(config_parse_all(NULL, "t.yaml", yaml, strlen(yaml), cfg, ic,
	    err, sizeof(err)) == 0);
	CHECK(ic->enabled);
	CHECK(interference_new(ic, ifr) == 0);
	o.published = hook;
	o.published_arg = *ifr;
	CHECK(collector_new(*cfg, &o, &c, err, sizeof(err)) == 0);
	collector_enable(c);
	return c;
}

/* 220 intervals: steady for 70 s, then the antagonist's bursts, then on
 * for the last 20 s.  The victim, once one, names the antagonist first,
 * and no decoy is ever named. */
static void
run_bursts(struct collector *c, struct interference *ifr)
{
	struct interference_result *r;
	int t, on = 0, left = 0, victim_ticks = 0, first = 0, decoys = 0;

	ifr_rng = 4242;
	for (t = 0; t < 220; t++) {
		if (t >= 200)
			on = 1;
		else if (t >= 70 && left-- <= 0) {
			on = !on;
			left = 4 + (int)(uniform() * 12);
		}
		cg_cpu[0] = 1.0;
		cg_cpu[1] = on ? 1.8 : 0.1;
		cg_cpu[2] = 0.3 + uniform() * 1.2;
		cg_cpu[3] = uniform() < 0.5 ? 0.4 : 1.6;
		cg_cpu[4] = 0.05;
		cg_cpi[0] = noisy(1.0 + 0.5 * cg_cpu[1] / 1.8);
		cg_cpi[1] = noisy(2.5);
		cg_cpi[2] = noisy(1.1);
		cg_cpi[3] = noisy(0.9);
		cg_cpi[4] = noisy(3.0);
		collector_tend(c);
		collector_collect(c);
		r = interference_result(ifr);
		if (analysed(r, "/victim") && analysed(r, "/victim")->victim) {
			victim_ticks++;
			first += suspect(r, "/victim", 1) && strcmp(suspect(r,
			    "/victim", 1)->row->cgroup, "/antagonist") == 0;
		}
		decoys += named(r, "/decoy1") || named(r, "/decoy2") ||
		    named(r, "/idle");
		interference_result_unref(r);
	}
	CHECK(victim_ticks > 20);
	CHECK(first == victim_ticks);
	CHECK(decoys == 0);
}

/* The scrape while the victim is one: its suspect line, and promtool
 * content with the whole body. */
static void
check_scrape(const char *dir, struct collector *c, struct interference *ifr)
{
	struct expo_opts eo = { .exporter_metrics = 1, .interference = ifr };
	char path[4800], text_path[4300], *text;
	struct snapshot *s;
	size_t len;
	FILE *f;

	s = collector_snapshot(c);
	text = expo_render_body(s, EXPO_TEXT, &eo, &len);
	snapshot_unref(s);
	CHECK(text != NULL);
	CHECK_CONTAINS(text, "pmu_exporter_interference_enabled 1\n");
	CHECK_CONTAINS(text, "pmu_exporter_interference_cgroups 4\n");
	CHECK(count_of(text, "pmu_cgroup_interference_suspect{") == 1);
	CHECK_CONTAINS(text, "pmu_cgroup_cpi_outliers_total{cgroup=\"/victim\","
	    "app=\"victim\"} ");
	CHECK_CONTAINS(text, "pmu_cgroup_interference_victim{cgroup="
	    "\"/victim\",app=\"victim\"} 1\n");
	CHECK_CONTAINS(text, "pmu_cgroup_interference_suspect{cgroup="
		    "\"/victim\",app=\"victim\",suspect_cgroup=\"/antagonist\","
		    "suspect_app=\"antagonist\",rank=\"1\"} ");
	snprintf(text_path, sizeof(text_path), "%s/scrape.txt", dir);
	f = fopen(text_path, "w");
	CHECK(f != NULL);
	if (f && text) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "promtool check metrics < %s", text_path);
	CHECK(system(path) == 0);
	free(text);
}

static void
test_daemon(const char *dir)
{
	struct interference_config ic;
	struct interference *ifr = NULL;
	struct plan *cfg = NULL;
	struct collector *c;
	char mi[4300];

	make_cgroups(dir, mi, sizeof(mi));
	c = start_collector(dir, mi, &cfg, &ic, &ifr);
	run_bursts(c, ifr);
	check_scrape(dir, c, ifr);
	collector_free(c);
	interference_free(ifr);
	interference_config_fini(&ic);
	plan_free(cfg);
}

int
main(void)
{
	char dir[] = "/tmp/interference_test.XXXXXX", path[4200];

	test_antagonist();
	test_thread();
	test_expo();
	test_elapsed();
	test_late();
	test_config();
	test_config_numbers();
	test_config_geometry();

	if (system("command -v promtool >/dev/null") != 0) {
		fprintf(stderr, "promtool not installed (deps.sh test "
		    "installs it)\n");
		return 1;
	}
	CHECK(fake_ipc_init(&(struct fake_ipc){ .cpu = cg_cpu, .cpi = cg_cpi,
	    .ns_per_read = 0.5e9, .cgroup_index = cg_index, .fd_base = 2000 },
	    256) == 0);
	perf_ops = &fake_ipc_ops;
	CHECK(mkdtemp(dir) != NULL);
	scratch_put(dir, "devices/system/cpu/online", "0-1\n");
	test_daemon(dir);
	fake_ipc_fini();
	snprintf(path, sizeof(path), "rm -r %s", dir);
	CHECK(system(path) == 0);
	return CHECK_DONE();
}
