/*
 * interference_bench.c - what the interference analysis costs at N
 * cgroups (default 10,000): its memory per cgroup, and its CPU per
 * interval against the collection that made the snapshot, in the same
 * run.
 *
 *   interference_bench [-n CGROUPS] [-k ROUNDS] [-w WINDOW_S]
 *
 * No PMU is needed: perf_ops is faked as in tests/interference_test.c
 * (every read returns the next interval's counts at once), and the
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

static struct pfd {
	int used, leader, cg, config;
	uint64_t value, enabled;
} *pfds;
static size_t nr_pfds;
static double *cg_cpu, *cg_cpi;
static size_t nr_cg;
static uint64_t rng = 88172645463325252ULL;

#define PFD(i) (100000 + (int)(i))

static double
uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* The cgroup of a directory fd: its name is its index, c<N>. */
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
	return base[0] == 'c' ? atoi(base + 1) : -1;
}

static int
b_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    unsigned long flags)
{
	size_t i = nr_pfds++;

	(void)cpu;
	memset(&pfds[i], 0, sizeof(pfds[i]));
	pfds[i].used = 1;
	pfds[i].leader = group_fd == -1 ? PFD(i) : group_fd;
	pfds[i].cg = (flags & PERF_FLAG_PID_CGROUP) ? cg_of(pid) : -1;
	pfds[i].config = attr->type == PERF_TYPE_HARDWARE ?
	    (int)attr->config : -1;
	return PFD(i);
}

static int
b_ioctl(int fd, unsigned long req, unsigned long arg)
{
	if (req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = (uint64_t)fd * 7;
		return 0;
	}
	return req == PERF_EVENT_IOC_ENABLE ? 0 : (errno = EINVAL, -1);
}

/* A leader and its one member, opened one after the other. */
static ssize_t
b_read(int fd, void *buf, size_t len)
{
	size_t li = (size_t)(fd - PFD(0)), i, n = 0;
	struct pfd *f = &pfds[li];
	uint64_t *out = buf, ins = 0;

	if (f->cg >= 0) {
		ins = (uint64_t)(cg_cpu[f->cg] * 1e9);
		f->enabled += ins;
	}
	out[1] = out[2] = f->enabled;
	for (i = li; i < nr_pfds && i < li + 2; i++) {
		if (!pfds[i].used || pfds[i].leader != fd)
			continue;
		if (pfds[i].config == PERF_COUNT_HW_INSTRUCTIONS)
			pfds[i].value += ins;
		else if (pfds[i].config == PERF_COUNT_HW_CPU_CYCLES)
			pfds[i].value += (uint64_t)((double)ins * cg_cpi[f->cg]);
		if ((5 + 2 * n) * sizeof(uint64_t) > len)
			return -1;
		out[3 + 2 * n] = pfds[i].value;
		out[4 + 2 * n] = (uint64_t)PFD(i) * 7;
		n++;
	}
	out[0] = n;
	return (ssize_t)((3 + 2 * n) * sizeof(uint64_t));
}

static int
b_close(int fd)
{
	pfds[fd - PFD(0)].used = 0;
	return 0;
}

static const struct perf_ops fake = { b_open, b_ioctl, b_read, b_close };

static void
quiet(int prio, const struct log_fields *lf, const char *fmt, ...)
{
	(void)prio;
	(void)lf;
	(void)fmt;
}

static double
thread_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/interference_bench.XXXXXX", path[4300], mi[4300];
	char yaml[512], err[512];
	struct collector_opts o = { .log = quiet };
	struct interference_config ic;
	struct interference *ifr = NULL;
	struct interference_result *r;
	struct collector *c = NULL;
	struct plan *cfg = NULL;
	struct snapshot *s;
	struct rlimit rl;
	double *tc, *ta, *tr, t0, t1, t2, t3, sum_a = 0, sum_c = 0, sum_r = 0;
	size_t i, rounds = 60, n = 10000, victims = 0, suspects = 0, per;
	size_t warm, window_s = 60;
	struct perf_event_attr attr;
	uint64_t rbuf[4];
	int pfd;
	size_t tracked, bytes, result_bytes = 0, right = 0;
	long rss0, rss1;
	int opt;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:k:w:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (opt == 'k')
			rounds = strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			window_s = strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: interference_bench [-n CGROUPS] "
			    "[-k ROUNDS] [-w WINDOW_S]\n");
			return 2;
		}
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	nr_cg = n;
	pfds = calloc(4 * n + 64, sizeof(*pfds));
	cg_cpu = calloc(n, sizeof(double));
	cg_cpi = calloc(n, sizeof(double));
	per = window_s / 60 ? window_s / 60 : 1;
	warm = 40 * per;
	tc = calloc(rounds, sizeof(double));
	ta = calloc(rounds, sizeof(double));
	tr = calloc(rounds, sizeof(double));
	if (!pfds || !cg_cpu || !cg_cpi || !tc || !ta || !tr || !mkdtemp(dir))
		return 1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
	if ((pfd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0)) < 0) {
		perror("perf_event_open task-clock");
		return 1;
	}
	snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu %s/cg && "
	    "echo 0 > %s/devices/system/cpu/online && cd %s/cg && "
	    "seq 0 %zu | sed 's/^/c/' | xargs mkdir", dir, dir, dir, dir,
	    n - 1);
	if (system(path) != 0)
		return 1;
	snprintf(mi, sizeof(mi), "%s/mountinfo", dir);
	if ((f = fopen(mi, "w")) == NULL)
		return 1;
	fprintf(f, "41 31 0:38 / %s/cg rw,relatime - cgroup2 cgroup2 rw\n",
	    dir);
	fclose(f);
	perf_ops = &fake;
	o.sysfs = dir;
	o.mountinfo = mi;
	snprintf(yaml, sizeof(yaml), "interval: 1s\nmax_fds: %zu\n"
	    "cgroup_rescan_interval: 1h\n"
	    "groups:\n  - name: ipc\n    events: [cycles, instructions]\n"
	    "cgroups:\n  - path: /*\n    groups: [ipc]\n"
	    "interference:\n  window: %zus\n  victim_window: %zus\n", 4 * n + 64,
	    window_s, window_s / 2);
	if (config_parse_all(NULL, "bench.yaml", yaml, strlen(yaml), &cfg, &ic,
	    err, sizeof(err)) < 0 || !ic.enabled) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (collector_new(cfg, &o, &c, err, sizeof(err)) < 0 ||
	    interference_new(&ic, &ifr) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	collector_enable(c);
	rss0 = rss_kb();
	for (i = 0; i < warm + rounds; i++) {
		size_t k;

		for (k = 0; k < n; k++) {
			cg_cpu[k] = k < 32 ? 1.0 : 0.3 + 0.7 * uniform();
			cg_cpi[k] = 1.0 + 0.05 * uniform();
		}
		/* Cgroups 32..63 start at interval 40, using 0.5 to 2
		 * CPUs, and 0..31 each suffer from one of them. */
		for (k = 0; k < 32 && k + 32 < n; k++) {
			cg_cpu[k + 32] = i < warm ? 0.05 :
			    0.5 + 1.5 * uniform();
			cg_cpi[k] *= 1.0 + 0.5 * (cg_cpu[k + 32] - 0.05);
		}
		t0 = thread_s();
		collector_tend(c);
		collector_collect(c);
		t1 = thread_s();
		s = collector_snapshot(c);
		interference_feed(ifr, s);
		t2 = thread_s();
		snapshot_unref(s);
		for (k = 0; k < n; k++)
			if (read(pfd, rbuf, sizeof(rbuf)) < 0)
				return 1;
		t3 = thread_s();
		if (i >= warm) {
			tc[i - warm] = t1 - t0;
			ta[i - warm] = t2 - t1;
			tr[i - warm] = t3 - t2;
			sum_c += t1 - t0;
			sum_a += t2 - t1;
			sum_r += t3 - t2;
		}
	}
	rss1 = rss_kb();
	r = interference_result(ifr);
	for (i = 0; r && i < r->nr_cgroups; i++)
		victims += r->cgroups[i].victim;
	suspects = r ? r->nr_suspects : 0;
	/* Victim c<k> (k < 32) should name c<k+32> first. */
	for (i = 0; r && i < r->nr_suspects; i++) {
		const struct interference_suspect *sp = &r->suspects[i];

		if (sp->rank == 1 && atoi(sp->row->cgroup + 2) ==
		    atoi(r->cgroups[sp->victim].row->cgroup + 2) + 32)
			right++;
	}
	if (r)
		result_bytes = sizeof(*r) + r->nr_cgroups *
		    sizeof(*r->cgroups) + r->nr_suspects * sizeof(*r->suspects);
	tracked = interference_tracked(ifr);
	bytes = interference_state_bytes(ifr);
	qsort(tc, rounds, sizeof(double), cmp);
	qsort(ta, rounds, sizeof(double), cmp);
	qsort(tr, rounds, sizeof(double), cmp);
	printf("cgroups %zu (tracked %zu, analysed %zu), victims %zu, "
	    "suspects named %zu, the injected one first for %zu victims\n", n,
	    tracked, r ? r->nr_cgroups : 0, victims, suspects, right);
	printf("analysis state %zu bytes = %.0f bytes per cgroup; its result "
	    "%zu bytes = %.0f per cgroup; RSS grew %ld kB over the rounds\n",
	    bytes, (double)bytes / (double)n, result_bytes,
	    (double)result_bytes / (double)n, rss1 - rss0);
	printf("window %zus (a sample every %zu intervals); per interval, "
	    "median / mean of %zu: collection (scaling, snapshot build) "
	    "%.3f / %.3f ms, %zu read()s of a real perf event %.3f / %.3f ms, "
	    "analysis %.3f / %.3f ms\n", window_s, per, rounds,
	    tc[rounds / 2] * 1e3, sum_c / rounds * 1e3, n, tr[rounds / 2] * 1e3,
	    sum_r / rounds * 1e3, ta[rounds / 2] * 1e3, sum_a / rounds * 1e3);
	printf("analysis / (collection + reads), means: %.2fx\n",
	    sum_a / (sum_c + sum_r));
	printf("RESULT cgroups=%zu window_s=%zu state_bytes_per_cgroup=%.0f "
	    "result_bytes_per_cgroup=%.0f collect_ms=%.3f reads_ms=%.3f "
	    "analysis_ms=%.3f ratio=%.3f victims=%zu right=%zu\n", n, window_s,
	    (double)bytes / (double)n, (double)result_bytes / (double)n,
	    sum_c / rounds * 1e3, sum_r / rounds * 1e3, sum_a / rounds * 1e3,
	    sum_a / (sum_c + sum_r), victims, right);
	interference_result_unref(r);
	collector_free(c);
	interference_free(ifr);
	interference_config_fini(&ic);
	plan_free(cfg);
	snprintf(path, sizeof(path), "rm -r %s", dir);
	return system(path) == 0 ? 0 : 1;
}
