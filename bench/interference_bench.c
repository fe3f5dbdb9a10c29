/*
 * interference_bench.c - what the interference analysis costs at N
 * cgroups (default 10,000): its memory per cgroup, and its CPU per
 * interval against the collection that made the snapshot, in the same
 * run.
 *
 *   interference_bench [-n CGROUPS] [-k ROUNDS] [-w WINDOW_S]
 *
 * No PMU is needed: perf_ops is faked by tests/lib/fake_ipc.c, as in
 * tests/unit/interference_test.c (every read returns the next interval's
 * counts at once), and the
 * cgroups are N empty directories under a scratch "cgroup2 mount" in
 * /tmp, removed at exit.  The collector counts group ipc = {cycles,
 * instructions} on every one of them, on one CPU, and is driven by
 * calling collector_tend and collector_collect directly; each snapshot
 * is then handed to interference_feed.  Both are timed with
 * CLOCK_THREAD_CPUTIME_ID, one after the other for every interval, so
 * they see the same caches: the collection (its reads cost almost
 * nothing here, so it is the scaling and the snapshot build of N
 * cgroups) against the analysis of the snapshot it built.  A real
 * collection also makes one read() per cgroup and CPU, which the fake
 * skips: N read()s of a real perf event (task-clock on this thread, a
 * software event every kernel has) are timed in the same loop, as the
 * floor a real collection of N cgroups on one CPU cannot go below.
 *
 * The window is 1 minute at interval 1 s by default (-w 60), so that
 * every interval closes a sample: the worst case.  -w 600, the default
 * config's window, closes one every 10th interval.  After the baseline
 * is learnt (40 samples), 32 antagonists start, each using 0.5 to 2 CPUs at random,
 * and 32 cgroups' CPI rises with one of them each, so the last rounds
 * have at least the most victims the analysis looks for suspects of
 * (INTERFERENCE_MAX_VICTIMS), each correlated with every other cgroup.
 * It says for how many of them the injected antagonist came first, and
 * how many victims there were besides (chance outliers of the others,
 * whose CPI is uniform noise).
 * Prints medians and the ratio, and one RESULT line.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "analysis/interference.h"
#include "collectors/collector/collector.h"
#include "collectors/perf/perf_sys.h"
#include "config/config.h"
#include "tests/lib/fake_ipc.h"
#include "tests/lib/xorshift.h"
#include "util/clock.h"

static double *cg_cpu, *cg_cpi;
static uint64_t rng = XORSHIFT_SEED;

static double
uniform(void)
{
	return xorshift_uniform(&rng);
}

/* The cgroups' directories are named by their index, c<N>. */
static int
cg_index(const char *name)
{
	return name[0] == 'c' ? atoi(name + 1) : -1;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* One run: what it was asked, what it set up, and what it measured. */
struct run {
	size_t n, rounds, window_s;
	size_t per;		/* intervals per sample */
	size_t warm;		/* intervals before the antagonists start */
	char dir[sizeof("/tmp/interference_bench.XXXXXX")];
	char mi[4300];
	struct interference_config ic;
	struct interference *ifr;
	struct collector *c;
	struct plan *cfg;
	int pfd;		/* task-clock on this thread: the real reads */
	double *tc, *ta, *tr;	/* per round: collection, analysis, reads */
	double sum_c, sum_a, sum_r;
	long rss0, rss1;
};

/* What the analysis found at the end of the run, and what it holds. */
struct tally {
	size_t victims, suspects, right, analysed;
	size_t tracked, bytes, result_bytes;
};

static int
parse_args(int argc, char **argv, struct run *run)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:k:w:")) != -1) {
		if (opt == 'n')
			run->n = strtoul(optarg, NULL, 10);
		else if (opt == 'k')
			run->rounds = strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			run->window_s = strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: interference_bench [-n CGROUPS] "
			    "[-k ROUNDS] [-w WINDOW_S]\n");
			return -1;
		}
	}
	run->per = run->window_s / 60 ? run->window_s / 60 : 1;
	run->warm = 40 * run->per;
	return 0;
}

/* The fds for 4 per cgroup, the loads, the timings and the scratch
 * directory. */
static int
alloc_run(struct run *run)
{
	struct fake_ipc how = { .ns_per_read = 1e9, .cgroup_index = cg_index,
	    .fd_base = 100000 };
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	cg_cpu = calloc(run->n, sizeof(double));
	cg_cpi = calloc(run->n, sizeof(double));
	how.cpu = cg_cpu;
	how.cpi = cg_cpi;
	run->tc = calloc(run->rounds, sizeof(double));
	run->ta = calloc(run->rounds, sizeof(double));
	run->tr = calloc(run->rounds, sizeof(double));
	if (fake_ipc_init(&how, 4 * run->n + 64) < 0 || !cg_cpu || !cg_cpi ||
	    !run->tc || !run->ta || !run->tr || !mkdtemp(run->dir))
		return -1;
	return 0;
}

/* task-clock on this thread, a software event every kernel has. */
static int
open_task_clock(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
	if ((fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0)) < 0)
		perror("perf_event_open task-clock");
	return fd;
}

/* One CPU online, c0..c<n-1> under a cgroup2 "mount" that mountinfo
 * names. */
static int
make_scratch_tree(struct run *run)
{
	char cmd[4300];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/devices/system/cpu %s/cg && "
	    "echo 0 > %s/devices/system/cpu/online && cd %s/cg && "
	    "seq 0 %zu | sed 's/^/c/' | xargs mkdir", run->dir, run->dir,
	    run->dir, run->dir, run->n - 1);
	if (system(cmd) != 0)
		return -1;
	snprintf(run->mi, sizeof(run->mi), "%s/mountinfo", run->dir);
	if ((f = fopen(run->mi, "w")) == NULL)
		return -1;
	fprintf(f, "41 31 0:38 / %s/cg rw,relatime - cgroup2 cgroup2 rw\n",
	    run->dir);
	fclose(f);
	return 0;
}

/* Group ipc on every cgroup, and the analysis over it. */
static int
start_collector(struct run *run)
{
	struct collector_opts o = { .log = fake_ipc_quiet };
	char yaml[512], err[512];

	perf_ops = &fake_ipc_ops;
	o.sysfs = run->dir;
	o.mountinfo = run->mi;
	snprintf(yaml, sizeof(yaml), "interval: 1s\nmax_fds: %zu\n"
	    "cgroup_rescan_interval: 1h\n"
	    "groups:\n  - name: ipc\n    events: [cycles, instructions]\n"
	    "cgroups:\n  - path: /*\n    groups: [ipc]\n"
	    "interference:\n  window: %zus\n  victim_window: %zus\n",
	    4 * run->n + 64, run->window_s, run->window_s / 2);
	if (config_parse_all(NULL, "bench.yaml", yaml, strlen(yaml), &run->cfg,
	    &run->ic, err, sizeof(err)) < 0 || !run->ic.enabled) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (collector_new(run->cfg, &o, &run->c, err, sizeof(err)) < 0 ||
	    interference_new(&run->ic, &run->ifr) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	collector_enable(run->c);
	return 0;
}

/* Interval i's CPU use and CPI of every cgroup. */
static void
set_load(const struct run *run, size_t i)
{
	size_t k;

	for (k = 0; k < run->n; k++) {
		cg_cpu[k] = k < 32 ? 1.0 : 0.3 + 0.7 * uniform();
		cg_cpi[k] = 1.0 + 0.05 * uniform();
	}
	/* Cgroups 32..63 start at interval 40, using 0.5 to 2
	 * CPUs, and 0..31 each suffer from one of them. */
	for (k = 0; k < 32 && k + 32 < run->n; k++) {
		cg_cpu[k + 32] = i < run->warm ? 0.05 : 0.5 + 1.5 * uniform();
		cg_cpi[k] *= 1.0 + 0.5 * (cg_cpu[k + 32] - 0.05);
	}
}

/* Every interval: the collection, the analysis of its snapshot and n
 * real reads, each timed; the rounds after the warm-up are kept. */
static int
measure(struct run *run)
{
	double t0, t1, t2, t3;
	struct snapshot *s;
	uint64_t rbuf[4];
	size_t i, k;

	run->rss0 = rss_kb();
	for (i = 0; i < run->warm + run->rounds; i++) {
		set_load(run, i);
		t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		collector_tend(run->c);
		collector_collect(run->c);
		t1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		s = collector_snapshot(run->c);
		interference_feed(run->ifr, s);
		t2 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		snapshot_unref(s);
		for (k = 0; k < run->n; k++)
			if (read(run->pfd, rbuf, sizeof(rbuf)) < 0)
				return -1;
		t3 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (i >= run->warm) {
			run->tc[i - run->warm] = t1 - t0;
			run->ta[i - run->warm] = t2 - t1;
			run->tr[i - run->warm] = t3 - t2;
			run->sum_c += t1 - t0;
			run->sum_a += t2 - t1;
			run->sum_r += t3 - t2;
		}
	}
	run->rss1 = rss_kb();
	return 0;
}

static void
tally_result(const struct run *run, const struct interference_result *r,
    struct tally *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; r && i < r->nr_cgroups; i++)
		t->victims += r->cgroups[i].victim;
	t->suspects = r ? r->nr_suspects : 0;
	t->analysed = r ? r->nr_cgroups : 0;
	/* Victim c<k> (k < 32) should name c<k+32> first. */
	for (i = 0; r && i < r->nr_suspects; i++) {
		const struct interference_suspect *sp = &r->suspects[i];

		if (sp->rank == 1 && atoi(sp->row->cgroup + 2) ==
		    atoi(r->cgroups[sp->victim].row->cgroup + 2) + 32)
			t->right++;
	}
	if (r)
		t->result_bytes = sizeof(*r) + r->nr_cgroups *
		    sizeof(*r->cgroups) + r->nr_suspects * sizeof(*r->suspects);
	t->tracked = interference_tracked(run->ifr);
	t->bytes = interference_state_bytes(run->ifr);
}

static void
print_results(struct run *run, const struct tally *t)
{
	size_t n = run->n, rounds = run->rounds;
	double sum_c = run->sum_c, sum_a = run->sum_a, sum_r = run->sum_r;

	qsort(run->tc, rounds, sizeof(double), cmp);
	qsort(run->ta, rounds, sizeof(double), cmp);
	qsort(run->tr, rounds, sizeof(double), cmp);
	printf("cgroups %zu (tracked %zu, analysed %zu), victims %zu, "
	    "suspects named %zu, the injected one first for %zu victims\n", n,
	    t->tracked, t->analysed, t->victims, t->suspects, t->right);
	printf("analysis state %zu bytes = %.0f bytes per cgroup; its result "
	    "%zu bytes = %.0f per cgroup; RSS grew %ld kB over the rounds\n",
	    t->bytes, (double)t->bytes / (double)n, t->result_bytes,
	    (double)t->result_bytes / (double)n, run->rss1 - run->rss0);
	printf("window %zus (a sample every %zu intervals); per interval, "
	    "median / mean of %zu: collection (scaling, snapshot build) "
	    "%.3f / %.3f ms, %zu read()s of a real perf event %.3f / %.3f ms, "
	    "analysis %.3f / %.3f ms\n", run->window_s, run->per, rounds,
	    run->tc[rounds / 2] * 1e3, sum_c / rounds * 1e3, n,
	    run->tr[rounds / 2] * 1e3, sum_r / rounds * 1e3,
	    run->ta[rounds / 2] * 1e3, sum_a / rounds * 1e3);
	printf("analysis / (collection + reads), means: %.2fx\n",
	    sum_a / (sum_c + sum_r));
	printf("RESULT cgroups=%zu window_s=%zu state_bytes_per_cgroup=%.0f "
	    "result_bytes_per_cgroup=%.0f collect_ms=%.3f reads_ms=%.3f "
	    "analysis_ms=%.3f ratio=%.3f victims=%zu right=%zu\n", n,
	    run->window_s, (double)t->bytes / (double)n,
	    (double)t->result_bytes / (double)n, sum_c / rounds * 1e3,
	    sum_r / rounds * 1e3, sum_a / rounds * 1e3,
	    sum_a / (sum_c + sum_r), t->victims, t->right);
}

int
main(int argc, char **argv)
{
	struct run run = { .n = 10000, .rounds = 60, .window_s = 60,
	    .dir = "/tmp/interference_bench.XXXXXX" };
	struct interference_result *r;
	struct tally t;
	char cmd[4300];

	if (parse_args(argc, argv, &run) < 0)
		return 2;
	if (alloc_run(&run) < 0 || (run.pfd = open_task_clock()) < 0 ||
	    make_scratch_tree(&run) < 0 || start_collector(&run) < 0 ||
	    measure(&run) < 0)
		return 1;
	r = interference_result(run.ifr);
	tally_result(&run, r, &t);
	print_results(&run, &t);
	interference_result_unref(r);
	collector_free(run.c);
	interference_free(run.ifr);
	interference_config_fini(&run.ic);
	plan_free(run.cfg);
	fake_ipc_fini();
	free(run.tc);
	free(run.ta);
	free(run.tr);
	free(cg_cpu);
	free(cg_cpi);
	snprintf(cmd, sizeof(cmd), "rm -r %s", run.dir);
	return system(cmd) == 0 ? 0 : 1;
}
