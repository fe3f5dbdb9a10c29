/*
 * pingpong.c - the context-switch cost that per-cgroup counting adds.
 *
 *   pingpong [-n ROUNDS] [-w WARMUP] [-c CPU|A,B|free] [-a CGROUP_DIR]
 *            [-b CGROUP_DIR] [-R]
 *
 * Two processes pass one byte back and forth over two pipes, as
 * `perf bench sched pipe` does, both pinned to the same CPU so that every
 * hop is a context switch on that CPU.  With -a and -b the parent moves
 * itself into the first cgroup directory and the child into the second
 * (by writing 0 to cgroup.procs), so every switch also crosses cgroups:
 * the worst case for perf's cgroup events, which the kernel switches out
 * and in whenever the cgroup on a CPU changes.
 *
 * With -c free neither is pinned (the scheduler spreads them over the
 * CPUs, and each hop may go through the idle task).  With -c A,B the
 * parent is pinned to CPU A and the child to CPU B: on two CPUs every
 * hop is then a switch out on one CPU and a switch in on the other,
 * through whatever ran there meanwhile (the idle task on a quiet machine).  With -R each side
 * prints what it did itself between joining its cgroup and finishing,
 * from the kernel's own accounting, as the truth for the tests of
 * per-cgroup counting:
 *
 *   TRUTH side=a csw=N cpu_ns=N
 *
 * csw: voluntary and involuntary context switches (getrusage); cpu_ns:
 * time on a CPU (the first field of /proc/self/schedstat).
 *
 * Prints the wall time per round trip (two switches) in microseconds, and
 * a "RESULT us_per_roundtrip=..." line for the scripts.  Exits 3, printing
 * no result, if the parent lost its pinning meanwhile (the CPU was taken
 * offline), since the figure would then be meaningless.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
join_cgroup(const char *dir)
{
	char path[4096];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

/* This process's context switches and CPU time so far. */
struct truth {
	long csw;
	unsigned long long cpu_ns;
};

static void
truth_now(struct truth *t)
{
	struct rusage ru;
	FILE *f;

	getrusage(RUSAGE_SELF, &ru);
	t->csw = ru.ru_nvcsw + ru.ru_nivcsw;
	t->cpu_ns = 0;
	if ((f = fopen("/proc/self/schedstat", "r")) != NULL) {
		if (fscanf(f, "%llu", &t->cpu_ns) != 1)
			t->cpu_ns = 0;
		fclose(f);
	}
}

static void
truth_print(const char *side, const struct truth *t0)
{
	struct truth t1;

	truth_now(&t1);
	printf("TRUTH side=%s csw=%ld cpu_ns=%llu\n", side, t1.csw - t0->csw,
	    t1.cpu_ns - t0->cpu_ns);
	fflush(stdout);
}

static int
pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;	/* -c free */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

static int
still_pinned(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 1;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

/* Full-length read or write of one byte, retrying on EINTR. */
static int
xfer(int fd, char *b, int wr)
{
	ssize_t n;

	do
		n = wr ? write(fd, b, 1) : read(fd, b, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: pingpong [-n ROUNDS] [-w WARMUP] [-c CPU|A,B|free] "
	    "[-a CGROUP_DIR] [-b CGROUP_DIR] [-R]\n");
}

struct opts {
	long rounds, warmup;
	const char *cga, *cgb;	/* the parent's cgroup, the child's */
	int cpu, cpub;		/* the parent's CPU, the child's; -1: free */
	int report;		/* -R: each side prints its TRUTH */
};

/* 0, or 1 after -h (usage printed), or -1 on a bad command line. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	char *comma;
	int ch;

	while ((ch = getopt(argc, argv, "n:w:c:a:b:Rh")) != -1) {
		switch (ch) {
		case 'n': o->rounds = strtol(optarg, NULL, 10); break;
		case 'w': o->warmup = strtol(optarg, NULL, 10); break;
		case 'c':
			o->cpu = strcmp(optarg, "free") == 0 ? -1 : atoi(optarg);
			comma = strchr(optarg, ',');
			o->cpub = comma ? atoi(comma + 1) : -2;
			break;
		case 'R': o->report = 1; break;
		case 'a': o->cga = optarg; break;
		case 'b': o->cgb = optarg; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (o->cpub == -2)
		o->cpub = o->cpu;	/* both on one CPU, or both free */
	if (o->rounds <= 0 || o->warmup < 0 || optind != argc || o->cpub < -1) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Into the cgroup directory cg (if any), then onto cpu: 0, or -1 said. */
static int
settle(const char *cg, int cpu)
{
	int r;

	if (cg && (r = join_cgroup(cg)) < 0) {
		fprintf(stderr, "pingpong: joining %s: %s\n", cg, strerror(-r));
		return -1;
	}
	if ((r = pin(cpu)) < 0) {
		fprintf(stderr, "pingpong: pinning to cpu %d: %s\n", cpu,
		    strerror(-r));
		return -1;
	}
	return 0;
}

/* The child: echoes every byte on ping back on pong until the parent
 * closes its end. */
static void
child_echo(const struct opts *o, int ping[2], int pong[2])
{
	struct truth base;
	char b;

	close(ping[1]);
	close(pong[0]);
	if (settle(o->cgb, o->cpub) < 0)
		_exit(1);
	truth_now(&base);
	while (xfer(ping[0], &b, 0) == 0)
		if (xfer(pong[1], &b, 1) < 0)
			_exit(1);
	if (o->report)
		truth_print("b", &base);
	_exit(0);
}

/* The parent's round trips: the warm-up, then the timed rounds, in
 * microseconds per round trip; -1 when the pipe broke. */
static int
time_rounds(const struct opts *o, int ping[2], int pong[2], double *us)
{
	struct timespec t0, t1;
	struct truth base;
	char b = 'x';
	long i;

	truth_now(&base);
	for (i = 0; i < o->warmup; i++)
		if (xfer(ping[1], &b, 1) < 0 || xfer(pong[0], &b, 0) < 0)
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < o->rounds; i++)
		if (xfer(ping[1], &b, 1) < 0 || xfer(pong[0], &b, 0) < 0)
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o->report)
		truth_print("a", &base);
	*us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
	    (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)o->rounds;
	return 0;
}

static void
print_result(const struct opts *o, double us)
{
	char cpus[64];

	if (o->cpub != o->cpu)
		snprintf(cpus, sizeof(cpus), "cpus %d and %d", o->cpu, o->cpub);
	else
		snprintf(cpus, sizeof(cpus), "cpu %d", o->cpu);
	printf("pingpong: %ld round trips on %s%s%s%s%s: %.3f us per round "
	    "trip\n", o->rounds, cpus, o->cga ? ", parent in " : "",
	    o->cga ? o->cga : "", o->cgb ? ", child in " : "",
	    o->cgb ? o->cgb : "", us);
	printf("RESULT us_per_roundtrip=%.3f rounds=%ld\n", us, o->rounds);
}

int
main(int argc, char **argv)
{
	struct opts o = { .rounds = 200000, .warmup = 10000, .cpu = 0,
	    .cpub = -2 };
	int ping[2], pong[2], r, wstatus;
	pid_t child;
	double us;

	if ((r = parse_args(argc, argv, &o)) != 0)
		return r > 0 ? 0 : 2;
	if (pipe2(ping, O_CLOEXEC) < 0 || pipe2(pong, O_CLOEXEC) < 0) {
		perror("pingpong: pipe");
		return 1;
	}
	if ((child = fork()) < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (child == 0)
		child_echo(&o, ping, pong);
	close(ping[0]);
	close(pong[1]);
	if (settle(o.cga, o.cpu) < 0)
		goto fail;
	if (time_rounds(&o, ping, pong, &us) < 0) {
		fprintf(stderr, "pingpong: the pipe broke (child died?)\n");
		goto fail;
	}
	close(ping[1]);
	waitpid(child, &wstatus, 0);
	/* The kernel widens the affinity of tasks whose CPU went offline. */
	if (!still_pinned(o.cpu)) {
		fprintf(stderr, "pingpong: no longer pinned to cpu %d (was it "
		    "taken offline?); this run is not valid\n", o.cpu);
		return 3;
	}
	print_result(&o, us);
	return 0;
fail:
	close(ping[1]);
	kill(child, SIGTERM);
	waitpid(child, &wstatus, 0);
	return 1;
}
