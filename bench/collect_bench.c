/*
 * collect_bench.c - what one collection costs, measured against the floor
 * it cannot go below: one read() per perf group leader.
 *
 *   collect_bench [-k ROUNDS] [-n CGROUPS] [-e EVENTS] [-C] [-R]
 *                 [-l LABEL] [-t RATIO] [-m MB] [CONFIG.yaml]
 *
 * Everything happens in this one process.  The collector is built with
 * collector_new and collector_enable and driven by calling
 * collector_tend and collector_collect directly (never collector_start),
 * so its thread and timer play no part.  Then the same targets are opened a second time by
 * hand with group_open (rawset.c) -- same attrs, same CPUs, the same cgroup
 * directories with PERF_FLAG_PID_CGROUP -- and a "raw round" is one read()
 * of every leader fd, nothing else.  The two are timed alternately, one
 * collection then one raw round, so that both see the same cache and
 * frequency conditions; each is timed with CLOCK_THREAD_CPUTIME_ID, which
 * counts the CPU this thread spends, syscalls included.  Both sets stay
 * open while timing, so the kernel holds every event twice; each read()
 * only ever touches its own group, so neither side pays for the other.
 * Open times are wall-clock, measured after one event of each kind has
 * been opened and kept open: the very first perf event of a kind costs
 * milliseconds more (kernel static keys, most likely), which the daemon
 * pays once at start-up and which would otherwise land on whichever side
 * opened first.
 *
 * Without a config file a built-in one is used: one group of EVENTS on
 * every CPU (unless -C) and on CGROUPS empty test cgroups that are created
 * under a unique parent, pmu_bench_<pid>, in the perf cgroup hierarchy
 * found in /proc/self/mountinfo, and removed at exit.  With a config file
 * its own targets are used, and cgroups it names must already exist.
 *
 * The cgroup rescan is kept out of the timed collections (the rescan
 * interval is set to an hour after parsing); -R times it separately by
 * running ROUNDS more collections with the interval set to 0, so that
 * every one of them rescans.  The last line is one "RESULT" line of
 * key=value pairs for bench/run.sh; it is left out, and the exit status
 * is 3, when a raw read failed (a CPU went offline meanwhile).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "bench/rawset.h"
#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/collector.h"
#include "collectors/perf/cpumap.h"
#include "collectors/perf/group.h"
#include "config/config.h"
#include "daemon/expo/expo.h"
#include "util/clock.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"

struct opts {
	size_t rounds;
	size_t nr_cgroups;
	const char *events;
	int no_cpus;
	int rescan;
	const char *label;
	double max_ratio;
	double max_rss_mb;
	const char *config_file;
};

/* The test cgroups of the built-in config. */
struct testcg {
	char parent[4096];
	size_t nr;		/* children created so far */
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* VmRSS or VmHWM of this process, in kB; 0 if unreadable. */
static long
status_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long kb = 0;
	FILE *f;

	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			kb = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static void __attribute__((format(printf, 3, 4)))
bench_log(int prio, const struct log_fields *f, const char *fmt, ...)
{
	va_list ap;

	(void)f;
	/* Warnings and errors only: per-cgroup info lines would flood. */
	if (prio > 4)
		return;
	va_start(ap, fmt);
	fputs("collector: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- statistics --------------------------------------------------- */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

struct stats {
	double min_us, median_us, mean_us, p90_us;
};

/* Sorts v in place. */
static struct stats
stats_of(uint64_t *v, size_t n)
{
	struct stats s = { 0, 0, 0, 0 };
	double sum = 0;
	size_t i;

	if (n == 0)
		return s;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)v[i];
	s.min_us = (double)v[0] / 1e3;
	s.median_us = (n % 2 ? (double)v[n / 2] :
	    ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2) / 1e3;
	s.mean_us = sum / (double)n / 1e3;
	s.p90_us = (double)v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] / 1e3;
	return s;
}

static void
print_stats(const char *what, const struct stats *s)
{
	printf("  %-26s median %10.1f us   mean %10.1f us   min %10.1f us   "
	    "p90 %10.1f us\n", what, s->median_us, s->mean_us, s->min_us,
	    s->p90_us);
}

/* ---- test cgroups ------------------------------------------------- */

static void
testcg_remove(struct testcg *t)
{
	char path[8192];

	if (t->parent[0] == '\0')
		return;
	while (t->nr > 0) {
		t->nr--;
		snprintf(path, sizeof(path), "%s/cg%05zu", t->parent, t->nr);
		if (rmdir(path) < 0 && errno != ENOENT)
			fprintf(stderr, "collect_bench: rmdir %s: %s\n", path,
			    strerror(errno));
	}
	if (rmdir(t->parent) < 0 && errno != ENOENT)
		fprintf(stderr, "collect_bench: rmdir %s: %s\n", t->parent,
		    strerror(errno));
	t->parent[0] = '\0';
}

/* Create root/pmu_bench_<pid>/cg00000..; 0 or -errno, with a message. */
static int
testcg_create(struct testcg *t, const char *root, size_t n)
{
	char path[8192];
	int r;

	t->nr = 0;
	if (snprintf(t->parent, sizeof(t->parent), "%s/pmu_bench_%ld", root,
	    (long)getpid()) >= (int)sizeof(t->parent)) {
		t->parent[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (mkdir(t->parent, 0755) < 0) {
		r = -errno;
		fprintf(stderr, "collect_bench: mkdir %s: %s\n", t->parent,
		    strerror(-r));
		t->parent[0] = '\0';
		return r;
	}
	while (t->nr < n && !stop) {
		snprintf(path, sizeof(path), "%s/cg%05zu", t->parent, t->nr);
		if (mkdir(path, 0755) < 0) {
			r = -errno;
			fprintf(stderr, "collect_bench: mkdir %s: %s\n", path,
			    strerror(-r));
			return r;
		}
		t->nr++;
	}
	return stop ? -EINTR : 0;
}

/* ---- config ------------------------------------------------------- */

static int
builtin_config(const struct opts *o, const char *cgparent_rel,
    struct plan **cfg)
{
	char yaml[8192], err[1024], list[2048];
	const char *p;
	size_t n = 0;
	int r;

	/* "a,b" -> "a, b" inside a YAML flow list. */
	for (p = o->events; *p && n + 3 < sizeof(list); p++) {
		list[n++] = *p;
		if (*p == ',')
			list[n++] = ' ';
	}
	list[n] = '\0';
	snprintf(yaml, sizeof(yaml),
	    "interval: 1s\n"
	    "groups:\n"
	    "  - name: bench\n"
	    "    events: [%s]\n"
	    "%s"
	    "%s%s%s",
	    list,
	    o->no_cpus ? "" : "cpus:\n  - cpus: all\n    groups: [bench]\n",
	    o->nr_cgroups ? "cgroups:\n  - path: " : "",
	    o->nr_cgroups ? cgparent_rel : "",
	    o->nr_cgroups ? "/*\n    groups: [bench]\n" : "");
	if ((r = config_parse(NULL, "<collect_bench>", yaml, strlen(yaml), cfg, err,
	    sizeof(err))) < 0)
		fprintf(stderr, "collect_bench: %s\n", err);
	return r;
}

static void
usage(FILE *f)
{
	fprintf(f,
"usage: collect_bench [-k ROUNDS] [-n CGROUPS] [-e EVENTS] [-C] [-R]\n"
"                     [-l LABEL] [-t RATIO] [-m MB] [CONFIG.yaml]\n"
"  -k ROUNDS   timed collections and raw rounds (default 200)\n"
"  -n CGROUPS  built-in config: test cgroups to create (default 8)\n"
"  -e EVENTS   built-in config: comma-separated events of its one group\n"
"              (default " DEFAULT_EVENTS ")\n"
"  -C          built-in config: no cpus: entry, cgroups only\n"
"  -R          also time collections that each include a cgroup rescan\n"
"  -l LABEL    name of this run in the output\n"
"  -t RATIO    target for collect/raw (default 1.5)\n"
"  -m MB       target for VmRSS after collecting (default 16)\n");
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	int ch;

	while ((ch = getopt(argc, argv, "k:n:e:CRl:t:m:h")) != -1) {
		switch (ch) {
		case 'k': o->rounds = strtoul(optarg, NULL, 10); break;
		case 'n': o->nr_cgroups = strtoul(optarg, NULL, 10); break;
		case 'e': o->events = optarg; break;
		case 'C': o->no_cpus = 1; break;
		case 'R': o->rescan = 1; break;
		case 'l': o->label = optarg; break;
		case 't': o->max_ratio = strtod(optarg, NULL); break;
		case 'm': o->max_rss_mb = strtod(optarg, NULL); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind + 1 < argc) {
		usage(stderr);
		return -1;
	}
	if (optind < argc)
		o->config_file = argv[optind];
	if (o->rounds == 0)
		o->rounds = 1;
	return 0;
}

/* One run: its options, what it opened, and what it measured. */
struct run {
	struct opts o;
	struct testcg tcg;
	struct rawset rs, warm;
	struct plan *cfg;
	struct collector *c;
	struct cpumap online;
	char cgroot[4096];
	int have_root;
	uint64_t *tc, *tr;	/* per round: a collection, a raw round */
	uint64_t open_c_ns, open_r_ns, render_ns;
	size_t text_len, ncoll_fds;
	size_t bad;		/* raw reads that failed */
	char summary[256];
	long rss0, rss_c;
	struct stats sc, sr, sx;
	double ratio;
};

/* Signals end the run cleanly; the online CPUs and the perf cgroup
 * hierarchy.  0, or -1 said. */
static int
setup(struct run *run)
{
	struct sigaction sa;
	int v2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	raise_nofile();
	if (cpumap_online("/sys", &run->online) < 0) {
		fprintf(stderr, "collect_bench: cannot read online CPUs\n");
		return -1;
	}
	run->have_root = cgroupfs_find("/proc/self/mountinfo", run->cgroot,
	    sizeof(run->cgroot), &v2) == 0;
	run->rss0 = status_kb("VmRSS");
	return 0;
}

/* CONFIG.yaml, or the built-in config over its test cgroups, with the
 * rescan kept out of the timed collections (see the top). */
static int
load_config(struct run *run)
{
	char rel[4096], err[1024];

	if (run->o.config_file) {
		if (config_load(NULL, run->o.config_file, &run->cfg, err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "collect_bench: %s\n", err);
			return -1;
		}
	} else {
		if (run->o.nr_cgroups && !run->have_root) {
			fprintf(stderr, "collect_bench: no perf cgroup "
			    "hierarchy in /proc/self/mountinfo\n");
			return -1;
		}
		if (run->o.nr_cgroups && testcg_create(&run->tcg, run->cgroot,
		    run->o.nr_cgroups) < 0)
			return -1;
		snprintf(rel, sizeof(rel), "/pmu_bench_%ld", (long)getpid());
		if (builtin_config(&run->o, rel, &run->cfg) < 0)
			return -1;
	}
	run->cfg->rescan_ns = 3600ULL * 1000000000ULL;
	return 0;
}

/* The collector: open (timed), enable, warm up, render once. */
static int
start_collector(struct run *run)
{
	struct collector_opts copts = {
		.sysfs = "/sys",
		.mountinfo = "/proc/self/mountinfo",
		.log = bench_log,
	};
	struct snapshot *snap;
	char err[1024], *text;
	uint64_t t0;
	size_t i;

	t0 = clock_ns(CLOCK_MONOTONIC);
	if (collector_new(run->cfg, &copts, &run->c, err, sizeof(err)) < 0) {
		fprintf(stderr, "collect_bench: %s\n", err);
		return -1;
	}
	run->open_c_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	collector_enable(run->c);
	for (i = 0; i < 3; i++) {
		collector_tend(run->c);
		collector_collect(run->c);
	}
	if ((snap = collector_snapshot(run->c)) != NULL) {
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		text = expo_render(snap, &run->text_len);
		run->render_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (text == NULL)
			run->text_len = 0;
		free(text);
		collector_summary(snap, run->summary, sizeof(run->summary));
		snapshot_unref(snap);
	}
	run->ncoll_fds = collector_open_fds(run->c);
	run->rss_c = status_kb("VmRSS");
	return 0;
}

/* The raw copy of the same targets: open (timed), enable, read once. */
static int
open_raw(struct run *run)
{
	uint64_t t0;
	size_t i;
	int r;

	t0 = clock_ns(CLOCK_MONOTONIC);
	if ((r = rawset_open(&run->rs, run->cfg, &run->online,
	    run->have_root ? run->cgroot : NULL, &stop)) < 0) {
		fprintf(stderr, "collect_bench: opening the raw groups: %s\n",
		    strerror(-r));
		return -1;
	}
	run->open_r_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	for (i = 0; i < run->rs.nr; i++)
		if (run->rs.pg[i].nr)
			group_enable(&run->rs.pg[i], 1);
	rawset_read(&run->rs);
	return 0;
}

static void
print_opened(const struct run *run)
{
	printf("%s: %s\n", run->o.label, run->summary);
	printf("  config %s; raw copy: %zu groups, %zu perf fds%s\n",
	    run->cfg->source, run->rs.nr, run->rs.fds,
	    run->rs.fds == run->ncoll_fds ? "" :
	    " (MISMATCH with the collector)");
	printf("  %-26s collector %9.2f ms   raw %9.2f ms\n", "time to open",
	    (double)run->open_c_ns / 1e6, (double)run->open_r_ns / 1e6);
}

/* Alternate: one collection, one raw round.  -1 when a signal cut it
 * short. */
static int
time_rounds(struct run *run)
{
	uint64_t t0, t1;
	size_t i;

	for (i = 0; i < run->o.rounds && !stop; i++) {
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		collector_tend(run->c);
		collector_collect(run->c);
		t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		run->tc[i] = t1 - t0;
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		run->bad += rawset_read(&run->rs);
		t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		run->tr[i] = t1 - t0;
	}
	return stop ? -1 : 0;
}

static void
print_rounds(struct run *run)
{
	const struct opts *o = &run->o;
	long hwm = status_kb("VmHWM"), rss0 = run->rss0, rss_c = run->rss_c;

	run->sc = stats_of(run->tc, o->rounds);
	run->sr = stats_of(run->tr, o->rounds);
	run->ratio = run->sr.median_us > 0 ?
	    run->sc.median_us / run->sr.median_us : 0;
	printf("  CPU per interval, %zu rounds (CLOCK_THREAD_CPUTIME_ID):\n",
	    o->rounds);
	print_stats("collector_collect()", &run->sc);
	print_stats("raw read() per leader", &run->sr);
	if (run->bad)
		/* A CPU taken offline puts its events in error state. */
		printf("  %zu raw reads failed (CPU hotplug?): this run is "
		    "not valid\n", run->bad);
	printf("  %-26s %.3f (median; mean %.3f); target <= %.2f: %s\n",
	    "collect / raw", run->ratio, run->sr.mean_us > 0 ?
	    run->sc.mean_us / run->sr.mean_us : 0, o->max_ratio,
	    run->ratio <= o->max_ratio ? "met" : "NOT met");
	printf("  %-26s %zu bytes, rendered in %.1f us CPU\n",
	    "/metrics text", run->text_len, (double)run->render_ns / 1e3);
	printf("  %-26s %.1f MB before, %.1f MB with the collector "
	    "(+%.1f MB); target <= %.0f MB: %s\n", "VmRSS",
	    (double)rss0 / 1024, (double)rss_c / 1024,
	    (double)(rss_c - rss0) / 1024, o->max_rss_mb,
	    (double)rss_c / 1024 <= o->max_rss_mb ? "met" : "NOT met");
	printf("  %-26s %.1f MB (collector and raw copy together)\n",
	    "VmHWM", (double)hwm / 1024);
}

/* -R: every collection rescans, the cost of the rescan pass. */
static void
time_rescans(struct run *run)
{
	uint64_t t0;
	size_t i;

	run->cfg->rescan_ns = 0;
	for (i = 0; i < run->o.rounds && !stop; i++) {
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		collector_tend(run->c);
		collector_collect(run->c);
		run->tc[i] = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	}
	run->sx = stats_of(run->tc, i);
	print_stats("collect with rescan", &run->sx);
	run->cfg->rescan_ns = 3600ULL * 1000000000ULL;
}

static void
print_result_line(const struct run *run)
{
	const struct opts *o = &run->o;

	printf("RESULT label=%s targets_fds=%zu collect_us=%.1f raw_us=%.1f "
	    "ratio=%.3f max_ratio=%.2f open_collector_ms=%.2f "
	    "open_raw_ms=%.2f rss_mb=%.1f max_rss_mb=%.0f "
	    "rescan_collect_us=%.1f metrics_bytes=%zu\n", o->label,
	    run->ncoll_fds, run->sc.median_us, run->sr.median_us, run->ratio,
	    o->max_ratio, (double)run->open_c_ns / 1e6,
	    (double)run->open_r_ns / 1e6, (double)run->rss_c / 1024,
	    o->max_rss_mb, run->sx.median_us, run->text_len);
}

static void
run_free(struct run *run)
{
	rawset_free(&run->rs);
	rawset_free(&run->warm);
	collector_free(run->c);
	plan_free(run->cfg);
	cpumap_free(&run->online);
	free(run->tc);
	free(run->tr);
	testcg_remove(&run->tcg);
}

/* 0, 3 when a raw read failed, 1 when a step failed. */
static int
bench(struct run *run)
{
	if (setup(run) < 0)
		return 1;
	if (load_config(run) < 0)
		return 1;
	if ((run->tc = calloc(run->o.rounds, sizeof(*run->tc))) == NULL ||
	    (run->tr = calloc(run->o.rounds, sizeof(*run->tr))) == NULL) {
		fprintf(stderr, "collect_bench: out of memory\n");
		return 1;
	}
	/*
	 * The first perf event of a kind costs milliseconds more than the
	 * rest (kernel static keys, most likely); hold one of each kind open
	 * throughout so that neither timed open pays for it.
	 */
	if (rawset_warm(&run->warm, run->cfg, &run->online,
	    run->have_root ? run->cgroot : NULL) < 0)
		return 1;
	if (start_collector(run) < 0 || open_raw(run) < 0)
		return 1;
	print_opened(run);
	if (time_rounds(run) < 0)
		return 1;
	print_rounds(run);
	if (run->o.rescan)
		time_rescans(run);
	if (run->bad)
		return 3;
	print_result_line(run);
	return 0;
}

int
main(int argc, char **argv)
{
	struct run run = {
		.o = {
			.rounds = 200,
			.nr_cgroups = 8,
			.events = DEFAULT_EVENTS,
			.label = "bench",
			.max_ratio = 1.5,
			.max_rss_mb = 16,
		},
	};
	int status;

	if (parse_opts(argc, argv, &run.o) < 0)
		return 2;
	status = bench(&run);
	run_free(&run);
	return stop ? 130 : status;
}
