/*
 * interference_test.c - the interference analysis (analysis/interference.h)
 * on generated traces with known answers, and the whole daemon's path
 * through its perf boundary: a scripted PMU (perf_ops faked by
 * tests/fake_ipc.c, on 2 CPUs) -> the collector -> its snapshots -> the
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
 * a result and the config block.
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
#include "daemon/expo.h"
#include "tests/fake_ipc.h"
#include "tests/scratch.h"
#include "tests/xorshift.h"
#include "tests/check.h"

/* ---- generated traces ------------------------------------------------ */

#define MAXCG 16

/* A node of cgroups: cumulative counts, one snapshot per interval. */
struct node {
	size_t nr;
	const char *path[MAXCG];
	double cyc[MAXCG], ins[MAXCG], en[MAXCG];
	double cpu[MAXCG], cpi[MAXCG];	/* this interval's */
	uint64_t seq;
	size_t nr_labels;		/* on every row: app=<i> */
};

static uint64_t rng = XORSHIFT_SEED;

/* Uniform in [0, 1), the same every run. */
static double
uniform(void)
{
	return xorshift_uniform(&rng);
}

static const char *const events[2] = { "cycles", "instructions" };
static const unsigned char counted[2] = { 1, 1 };

/* One interval of n's cgroups as a snapshot (interval 1 s). */
static struct snapshot *
node_step(struct node *n)
{
	struct snapshot *s = snapshot_new();
	size_t i;

	n->seq++;
	s->seq = n->seq;
	s->interval_s = 1;
	s->rows = snapshot_alloc(s, n->nr * sizeof(*s->rows));
	for (i = 0; i < n->nr; i++) {
		struct snap_row *r = &s->rows[s->nr_rows++];
		double *v = snapshot_alloc(s, 2 * sizeof(double));
		double ins = round(1e9 * n->cpu[i]);

		n->ins[i] += ins;
		n->cyc[i] += round(ins * n->cpi[i]);
		n->en[i] += n->cpu[i];
		memset(r, 0, sizeof(*r));
		r->cgroup = n->path[i];
		r->cpu = -1;
		r->group = "ipc";
		r->nr_events = 2;
		r->events = (const char **)events;
		r->counted = counted;
		v[0] = n->cyc[i];
		v[1] = n->ins[i];
		r->values = v;
		r->enabled_s = r->running_s = n->en[i];
	}
	return s;
}

static struct interference_config
cfg_small(void)
{
	struct interference_config c;

	interference_config_defaults(&c);
	c.enabled = 1;
	c.group = "ipc";
	c.cycles = "cycles";
	c.instructions = "instructions";
	/* A 60 s window at interval 1 s: a sample every interval. */
	c.window_ns = 60ULL * 1000000000ULL;
	c.victim_window_ns = 30ULL * 1000000000ULL;
	return c;
}

static struct interference *
analysis(const struct interference_config *c)
{
	struct interference *ifr = NULL;

	CHECK(interference_new(c, &ifr) == 0);
	return ifr;
}

/* Feed one interval. */
static void
feed(struct interference *ifr, struct node *n)
{
	struct snapshot *s = node_step(n);

	interference_feed(ifr, s);
	snapshot_unref(s);
}

static const struct interference_cgroup *
analysed(const struct interference_result *r, const char *path)
{
	size_t i;

	for (i = 0; r && i < r->nr_cgroups; i++)
		if (strcmp(r->cgroups[i].row->cgroup, path) == 0)
			return &r->cgroups[i];
	return NULL;
}

static int
victims(const struct interference_result *r)
{
	size_t i;
	int n = 0;

	for (i = 0; r && i < r->nr_cgroups; i++)
		n += r->cgroups[i].victim;
	return n;
}

/* The suspect of victim path at rank, or NULL. */
static const struct interference_suspect *
suspect(const struct interference_result *r, const char *victim,
    unsigned rank)
{
	size_t i;

	for (i = 0; r && i < r->nr_suspects; i++)
		if (strcmp(r->cgroups[r->suspects[i].victim].row->cgroup,
		    victim) == 0 && r->suspects[i].rank == rank)
			return &r->suspects[i];
	return NULL;
}

static int
named(const struct interference_result *r, const char *path)
{
	size_t i;

	for (i = 0; r && i < r->nr_suspects; i++)
		if (strcmp(r->suspects[i].row->cgroup, path) == 0)
			return 1;
	return 0;
}

/* CPI around base with a 3% spread. */
static double
noisy(double base)
{
	return base * (1 + 0.03 * (uniform() * 2 - 1) * 1.7);
}

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

/* Every cgroup's CPI rises by half at once: the node's change, no
 * victim; and the same rise in one cgroup alone makes it one. */
static void
test_workload_wide(int alone)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 4, .path = { "/w1", "/w2", "/w3", "/w4" } };
	struct interference_result *r;
	int t, i, any = 0;

	for (t = 0; t < 200; t++) {
		for (i = 0; i < 4; i++) {
			double rise = t >= 100 && (!alone || i == 0) ? 1.5 : 1;

			n.cpu[i] = 1.0;
			n.cpi[i] = noisy(1.0 + 0.2 * i) * rise;
		}
		feed(ifr, &n);
		r = interference_result(ifr);
		any += victims(r);
		interference_result_unref(r);
	}
	if (alone)
		CHECK(any > 0);
	else
		CHECK(any == 0);
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

/*
 * A victim's own ancestors and descendants are never its suspects: their
 * use contains its own, which here drives its CPI.  /pod/c's CPI follows
 * its own use; /pod uses what /pod/c does, /pod/c/t a share of it;
 * /pod/cx, no kin of /pod/c whatever its name starts with, uses the same
 * and is named.
 */
static void
test_related(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node n = { .nr = 4, .path = { "/pod/c", "/pod", "/pod/c/t",
	    "/pod/cx" } };
	struct interference_result *r;
	int t, victim = 0, kin = 0, cx = 0;

	rng = 777;
	for (t = 0; t < 90; t++) {
		double u = t < 60 ? 1.0 : 1.0 + uniform();

		n.cpu[0] = u;
		n.cpu[1] = u + 0.1;
		n.cpu[2] = u / 2;
		n.cpu[3] = u;
		n.cpi[0] = noisy(1.0 + 0.5 * (u - 1.0));
		n.cpi[1] = n.cpi[2] = n.cpi[3] = 1.0;
		feed(ifr, &n);
		r = interference_result(ifr);
		if (analysed(r, "/pod/c") && analysed(r, "/pod/c")->victim) {
			victim++;
			cx += suspect(r, "/pod/c", 1) && strcmp(suspect(r,
			    "/pod/c", 1)->row->cgroup, "/pod/cx") == 0;
		}
		kin += named(r, "/pod") || named(r, "/pod/c/t");
		interference_result_unref(r);
	}
	CHECK(victim > 10);
	CHECK(cx == victim);
	CHECK(kin == 0);
	interference_free(ifr);
}

/* ---- each threshold at its edge -------------------------------------- */

/*
 * One cgroup /e: 59 samples alternating CPI 1.0 and 1.2 (mean and sigma
 * computed here as the analysis does, from floats), then a probe sample
 * of CPI probe at CPU use cpu.  Is the probe an outlier?  -1: the cgroup
 * was not analysed.
 */
static int
probe_outlier(double sigma, double probe_sd, double rel, double cpu,
    double floor_)
{
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node n = { .nr = 1, .path = { "/e" } };
	struct interference_result *r;
	const struct interference_cgroup *g;
	double sum = 0, sq = 0, mean, sd, x;
	int t, out;

	c.outlier_sigma = sigma;
	c.cpu_floor = floor_;
	ifr = analysis(&c);
	for (t = 0; t < 60; t++) {
		n.cpu[0] = 1.0;
		n.cpi[0] = t % 2 ? 1.2 : 1.0;
		feed(ifr, &n);
		/* The first sample has no deltas: 59 in the ring. */
		if (t > 0) {
			x = (float)n.cpi[0];
			sum += x;
		}
	}
	mean = sum / 59;
	for (t = 1; t < 60; t++) {
		x = (float)(t % 2 ? 1.2 : 1.0);
		sq += (x - mean) * (x - mean);
	}
	sd = sqrt(sq / 58);
	n.cpu[0] = cpu;
	n.cpi[0] = (mean + probe_sd * sd) * rel;
	feed(ifr, &n);
	r = interference_result(ifr);
	g = analysed(r, "/e");
	out = g ? (int)g->outliers : -1;
	interference_result_unref(r);
	interference_free(ifr);
	return out;
}

static void
test_edges_outlier(void)
{
	/* outlier_sigma 2: just above mean + 2 sigma, just below. */
	CHECK(probe_outlier(2, 2, 1.0001, 1.0, 0.25) == 1);
	CHECK(probe_outlier(2, 2, 0.9999, 1.0, 0.25) == 0);
	/* outlier_sigma 3: 2.5 sigma is not one, 3 just above is. */
	CHECK(probe_outlier(3, 2.5, 1, 1.0, 0.25) == 0);
	CHECK(probe_outlier(3, 3, 1.0001, 1.0, 0.25) == 1);
	/* The floor: at it the cgroup is analysed, just under it not. */
	CHECK(probe_outlier(2, 4, 1, 0.25, 0.25) == 1);
	CHECK(probe_outlier(2, 4, 1, 0.2499, 0.25) == -1);
	CHECK(probe_outlier(2, 4, 1, 0.5, 0.5) == 1);
	CHECK(probe_outlier(2, 4, 1, 0.4999, 0.5) == -1);
}

/*
 * victim_outliers and victim_window: /e steady (CPI 1.0/1.2), then three
 * spikes `gap` samples apart.  With victim_window 30 samples the first
 * spike still counts at the third when 2 * gap < 30.  Returns whether
 * /e was a victim right after the last spike, and its periods.
 */
static int
probe_victim(unsigned need, unsigned spikes, int gap, double *periods)
{
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node n = { .nr = 1, .path = { "/e" } };
	struct interference_result *r;
	const struct interference_cgroup *g;
	int t, victim;

	c.victim_outliers = need;
	ifr = analysis(&c);
	for (t = 0; t < 60; t++) {
		n.cpu[0] = 1.0;
		n.cpi[0] = t % 2 ? 1.2 : 1.0;
		feed(ifr, &n);
	}
	/* Spikes at 0, gap, 2 gap...; the ordinary samples go on
	 * alternating. */
	for (t = 0; t < (int)(spikes - 1) * gap + 1; t++) {
		n.cpi[0] = t % gap == 0 ? 3.0 : t % 2 ? 1.2 : 1.0;
		feed(ifr, &n);
	}
	r = interference_result(ifr);
	g = analysed(r, "/e");
	victim = g ? g->victim : -1;
	*periods = g ? g->victim_periods : -1;
	CHECK(g && g->outliers == spikes);
	interference_result_unref(r);
	interference_free(ifr);
	return victim;
}

static void
test_edges_victim(void)
{
	double p;

	CHECK(probe_victim(3, 3, 5, &p) == 1 && p == 1);
	CHECK(probe_victim(3, 2, 5, &p) == 0 && p == 0);
	CHECK(probe_victim(2, 2, 5, &p) == 1 && p == 1);
	/* The window: 30 samples; spikes 14 apart span 28, 15 apart 30. */
	CHECK(probe_victim(3, 3, 14, &p) == 1);
	CHECK(probe_victim(3, 3, 15, &p) == 0);
}

/*
 * A victim /v whose CPI follows X, the use of a hidden antagonist, and
 * four neighbours whose CPU use is X plus noise of their own, 0, 1, 2
 * and 4 times as much (/n4 none: the best correlated, /n1 the least).
 * First 60 s steady (X = 0), then 25 s of X uniform in [0, 1).  Run
 * with threshold and k; the result after the last sample.
 */
static struct interference_result *
run_ranked(double threshold, unsigned k, struct interference **ifrp)
{
	static const double amp[5] = { 0, 4, 2, 1, 0 };
	struct interference_config c = cfg_small();
	struct interference *ifr;
	struct node n = { .nr = 5, .path = { "/v", "/n1", "/n2", "/n3",
	    "/n4" } };
	int t, i;

	c.suspect_threshold = threshold;
	c.suspects = k;
	ifr = analysis(&c);
	rng = 12345;
	for (t = 0; t < 85; t++) {
		double x = t < 60 ? 0 : uniform();

		n.cpu[0] = 1.0;
		for (i = 1; i <= 4; i++) {
			n.cpu[i] = x + amp[i] * (t < 60 ? 0.5 : uniform());
			n.cpi[i] = 1.0;
		}
		n.cpi[0] = noisy(1.0 + 0.8 * x);
		feed(ifr, &n);
	}
	*ifrp = ifr;
	return interference_result(ifr);
}

static void
test_edges_suspects(void)
{
	struct interference *ifr;
	struct interference_result *r;
	const struct interference_suspect *s;
	double r3;
	unsigned k;

	/* k = 4 at threshold 0: all four, ranked by correlation, the
	 * strongest driver first. */
	r = run_ranked(0, 4, &ifr);
	CHECK(analysed(r, "/v") && analysed(r, "/v")->victim);
	for (k = 1; k <= 4; k++) {
		s = suspect(r, "/v", k);
		CHECK(s != NULL);
		if (s && k > 1 && suspect(r, "/v", k - 1))
			CHECK(suspect(r, "/v", k - 1)->correlation >=
			    s->correlation);
	}
	CHECK(suspect(r, "/v", 1) &&
	    strcmp(suspect(r, "/v", 1)->row->cgroup, "/n4") == 0);
	CHECK(suspect(r, "/v", 2) &&
	    strcmp(suspect(r, "/v", 2)->row->cgroup, "/n3") == 0);
	CHECK(suspect(r, "/v", 5) == NULL);
	interference_result_unref(r);
	interference_free(ifr);

	/* k = 3: the three best, in the same order. */
	r = run_ranked(0, 3, &ifr);
	CHECK(r && r->nr_suspects == 3);
	CHECK(suspect(r, "/v", 1) &&
	    strcmp(suspect(r, "/v", 1)->row->cgroup, "/n4") == 0);
	CHECK(suspect(r, "/v", 4) == NULL);
	s = suspect(r, "/v", 3);
	r3 = s ? s->correlation : 2;
	CHECK(s && strcmp(s->row->cgroup, "/n2") == 0);
	interference_result_unref(r);
	interference_free(ifr);

	/* The threshold at the third's correlation: just under it the
	 * third is named, at it (not above) it is not. */
	r = run_ranked(r3 - 1e-9, 3, &ifr);
	CHECK(r && r->nr_suspects == 3);
	interference_result_unref(r);
	interference_free(ifr);
	r = run_ranked(r3, 3, &ifr);
	CHECK(r && r->nr_suspects == 2);
	CHECK(suspect(r, "/v", 3) == NULL);
	interference_result_unref(r);
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
	    "suspect_cgroup=\"/k/b\xef\xbf\xbd\",suspect_namespace=\"batch\","
	    "suspect_pod=\"job-\xef\xbf\xbd\",suspect_container=\"x\\\"y\","
	    "rank=\"1\"} 0.75\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_interference_victim{cgroup=\"/k/a\","
	    "namespace=\"shop\",pod=\"web-1\",container=\"nginx\"} 1\n");
	CHECK_CONTAINS(b.p, "# TYPE pmu_cgroup_cpi_outliers_total counter\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_cpi_outliers_total{cgroup=\"/k/a\","
	    "namespace=\"shop\",pod=\"web-1\",container=\"nginx\"} 4\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_interference_victim_periods_total{"
	    "cgroup=\"/k/b\xef\xbf\xbd\",namespace=\"batch\"");
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
	CHECK_CONTAINS(err, "t.yaml:8:20: interference.victim_outliers must "
	    "be a whole number from 1 to 30");
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

static void
hook(void *arg, struct snapshot *s)
{
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

	rng = 4242;
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
		    "suspect_app=\"antagonist\",rank=\"1\"} 0.");
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
	test_workload_wide(0);
	test_workload_wide(1);
	test_thread();
	test_related();
	test_edges_outlier();
	test_edges_victim();
	test_edges_suspects();
	test_expo();
	test_config();

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
