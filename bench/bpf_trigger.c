/*
 * bpf_trigger.c - which event should run the BPF cgroup counter?  The
 * daemon's (the BTF-typed sched_switch tracepoint, returning at once when
 * the switch stays in one cgroup), the fallback where the kernel has no
 * BTF (the sched_switch raw tracepoint: every context switch), or perf's
 * bperf's (the cgroup-switches software event: only when the cgroup
 * changes).  Loads the BPF cgroup counter (collectors/bpf/bpfcg.h) with
 * one of them, counts {context-switches, task-clock} on every CPU, tracks
 * two cgroups, runs a ping-pong between them (bench/pingpong -R, which
 * prints each side's own context switches), and prints what each side was
 * charged and how often the program ran:
 *
 *   bpf_trigger [-e|-c] [-C CPUS] PINGPONG ROUNDS CGROUP_DIR_A CGROUP_DIR_B
 *
 *   -e       every context switch (default: the daemon's, cgroup changes)
 *   -c       the cgroup-switches trigger
 *   -C CPUS  pingpong's -c: free (default), one CPU, or A,B
 *
 *   TRUTH side=a csw=N cpu_ns=N          (from pingpong)
 *   CHARGED side=a csw=N task_ns=N
 *   STATS trigger=T cpus=N switch_runs=N switches=N misses=N unseen=N
 *
 * With the same directory for both sides, both lines CHARGED are the one
 * cgroup's.  switches: cgroup switches the kernel counted (-c only).
 * misses: runs the kernel skipped (bpf_prog_info.recursion_misses).
 * unseen: switches the sched_switch tracepoint did not show (0 with -c,
 * which does not look).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "collectors/bpf/bpfcg.h"
#include "collectors/cgroup/cgroupfs.h"

static int
open_counter(int cpu, int config, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = (__u64)config;
	a.disabled = group < 0;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, group,
	    PERF_FLAG_FD_CLOEXEC);
}

static int
track(struct bpfcg *b, const char *dir, uint32_t *slot)
{
	uint64_t id;
	int fd, r;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	r = cgroupfs_id(fd, &id);
	close(fd);
	return r < 0 ? r : bpfcg_track(b, id, slot);
}

/* The options: the trigger's flags and pingpong's -c.  Moves argv past
 * them; -1 when what is left is not PINGPONG ROUNDS A B. */
static int
parse_args(int *argc, char ***argv, unsigned *flags, const char **where)
{
	for (;;) {
		if (*argc > 1 && (strcmp((*argv)[1], "-c") == 0 ||
		    strcmp((*argv)[1], "-e") == 0)) {
			*flags = (*argv)[1][1] == 'c' ? BPFCG_CGROUP_SWITCHES :
			    BPFCG_EVERY_SWITCH;
			(*argv)++;
			(*argc)--;
		} else if (*argc > 2 && strcmp((*argv)[1], "-C") == 0) {
			*where = (*argv)[2];
			*argv += 2;
			*argc -= 2;
		} else
			break;
	}
	if (*argc != 5) {
		fprintf(stderr, "usage: bpf_trigger [-e|-c] [-C CPUS] PINGPONG "
		    "ROUNDS CGROUP_DIR_A CGROUP_DIR_B\n");
		return -1;
	}
	return 0;
}

/* {context-switches, task-clock} on every CPU, enabled, in the
 * program's counter slots 0 and 1. */
static int
open_counters(struct bpfcg *b, const struct cpumap *cpus)
{
	int cpu, lead, fd;
	size_t k;

	for (k = 0; k < cpus->nr; k++) {
		cpu = cpus->cpu[k];
		lead = open_counter(cpu, PERF_COUNT_SW_CONTEXT_SWITCHES, -1);
		fd = lead < 0 ? -1 :
		    open_counter(cpu, PERF_COUNT_SW_TASK_CLOCK, lead);
		if (fd < 0 || bpfcg_set_counter(b, cpu, 0, lead) < 0 ||
		    bpfcg_set_counter(b, cpu, 1, fd) < 0) {
			perror("bpf_trigger: counters");
			return -1;
		}
		ioctl(lead, PERF_EVENT_IOC_ENABLE, 0);
	}
	return 0;
}

/* PINGPONG -n ROUNDS -c WHERE -R -a A -b B, to its end: its TRUTH lines
 * go to our stdout. */
static int
run_pingpong(char **argv, const char *where)
{
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		execl(argv[1], argv[1], "-n", argv[2], "-c", where, "-R", "-a",
		    argv[3], "-b", argv[4], (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bpf_trigger: pingpong failed\n");
		return -1;
	}
	return 0;
}

/* What each side was charged, summed over the CPUs, then the program's
 * statistics. */
static void
print_counts(struct bpfcg *b, const struct cpumap *cpus,
    const uint32_t slot[2])
{
	static const char *const names[] = { "cgroup-change", "sched_switch",
	    "cgroup-switches" };
	struct bpfcg_stats st;
	struct count v;
	size_t k, i;

	bpfcg_refresh(b);
	for (k = 0; k < 2; k++) {
		double csw = 0, ns = 0;

		for (i = 0; i < cpus->nr; i++) {
			bpfcg_read(b, slot[k], 0, cpus->cpu[i], &v);
			csw += (double)v.value;
			bpfcg_read(b, slot[k], 1, cpus->cpu[i], &v);
			ns += (double)v.value;
		}
		printf("CHARGED side=%s csw=%.0f task_ns=%.0f\n", k ? "b" : "a",
		    csw, ns);
	}
	bpfcg_get_stats(b, &st);
	printf("STATS trigger=%s cpus=%d switch_runs=%llu switches=%llu "
	    "misses=%llu unseen=%llu\n", names[bpfcg_trigger(b, NULL)],
	    (int)cpus->nr, (unsigned long long)st.switch_runs,
	    (unsigned long long)st.switches,
	    (unsigned long long)st.prog_misses,
	    (unsigned long long)st.unseen);
}

int
main(int argc, char **argv)
{
	struct bpfcg *b;
	struct cpumap cpus;
	uint32_t slot[2];
	char why[512];
	const char *where = "free";
	unsigned flags = 0;

	if (parse_args(&argc, &argv, &flags, &where) < 0)
		return 2;
	if (cpumap_online("/sys", &cpus) < 0)
		return 1;
	if (bpfcg_open(2, 16, flags, &b, why, sizeof(why)) < 0) {
		fprintf(stderr, "bpf_trigger: %s\n", why);
		return 1;
	}
	if (open_counters(b, &cpus) < 0)
		return 1;
	if (bpfcg_attach(b, &cpus, why, sizeof(why)) < 0) {
		fprintf(stderr, "bpf_trigger: %s\n", why);
		return 1;
	}
	if (track(b, argv[3], &slot[0]) < 0 || track(b, argv[4], &slot[1]) < 0) {
		fprintf(stderr, "bpf_trigger: tracking the cgroups failed\n");
		return 1;
	}
	if (run_pingpong(argv, where) < 0)
		return 1;
	print_counts(b, &cpus, slot);
	bpfcg_close(b);
	cpumap_free(&cpus);
	return 0;
}
