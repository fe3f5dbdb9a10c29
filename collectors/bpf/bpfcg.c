/*
 * bpfcg.c - load and drive the BPF cgroup counter (bpfcg.h) through libbpf and
 * the skeletons of its two objects: load one (cgchange first, else cgcount),
 * size its maps, attach its program, free it all.
 * Design: docs/bpf.md; docs/architecture.md, "collectors/bpf/".
 */
#include "autoconf.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpfcg.h"
#include "collectors/bpf/bpfcg_int.h"
#include "util/text.h"
#include "cgcount.skel.h"
#include "cgchange.skel.h"

/* libbpf's own words for the last failure, for the reason we give. */
static __thread char libbpf_said[512];
static pthread_once_t print_once = PTHREAD_ONCE_INIT;

static int
libbpf_capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(libbpf_said, sizeof(libbpf_said), fmt, ap);
	if (strncmp(libbpf_said, "libbpf: ", 8) == 0)
		memmove(libbpf_said, libbpf_said + 8, strlen(libbpf_said + 8) + 1);
	n = strlen(libbpf_said);
	while (n > 0 && libbpf_said[n - 1] == '\n')
		libbpf_said[--n] = '\0';
	return 0;
}

static void
set_print(void)
{
	libbpf_set_print(libbpf_capture);
}

int
bpfcg_built(void)
{
	return 1;
}

static void
explain_load(int e, char *why, size_t len)
{
	if (e == EPERM || e == EACCES)
		snprintf(why, len, "loading the BPF program: %s: it needs "
		    "CAP_BPF and CAP_PERFMON (Linux 5.8 or later; "
		    "CAP_SYS_ADMIN before), or root%s%s", strerror(e),
		    libbpf_said[0] ? "; libbpf: " : "", libbpf_said);
	else if (e == ENOSYS)
		snprintf(why, len, "loading the BPF program: %s: the kernel "
		    "has no bpf(2) (CONFIG_BPF_SYSCALL)", strerror(e));
	else
		snprintf(why, len, "the kernel refused the BPF program: %s "
		    "(it needs Linux 5.13 or later with CONFIG_BPF_EVENTS)%s%s",
		    strerror(e), libbpf_said[0] ? "; libbpf: " : "",
		    libbpf_said);
}

/* Are the possible CPUs exactly 0..n-1? 0, or -EINVAL. */
static int
possible_dense(int n)
{
	struct cpumap m;
	char buf[4096];
	size_t i;
	int r;

	if (text_read_small("/sys/devices/system/cpu/possible", buf,
	    sizeof(buf)) < 0 || cpumap_parse(buf, &m, NULL) < 0)
		return 0;	/* cannot tell: libbpf read it already */
	r = m.nr == (size_t)n ? 0 : -EINVAL;
	for (i = 0; r == 0 && i < m.nr; i++)
		if (m.cpu[i] != (int)i)
			r = -EINVAL;
	cpumap_free(&m);
	return r;
}

/*
 * Cached cgroup paths (cgcount.bpf.h, walk()): one entry per cgroup whose
 * tasks ran, the least recently used dropped past this (and walked again
 * when it runs next).  Preallocated: 0.86 MB of kernel memory in all
 * (bpftool's memlock for the map).
 */
#define BPFCG_PATHS 4096

/* Size the maps of the object opened, before its load. */
static int
size_maps(struct bpfcg *b, char *why, size_t len)
{
	int r;

	if ((r = bpf_map__set_max_entries(b->counters,
	    (__u32)((size_t)b->ncpus * b->nr_events))) < 0 ||
	    (r = bpf_map__set_max_entries(b->slots, (__u32)b->max_slots)) < 0 ||
	    (r = bpf_map__set_max_entries(b->counts,
	    (__u32)(b->max_slots * b->nr_events))) < 0 ||
	    (r = bpf_map__set_max_entries(b->paths, BPFCG_PATHS)) < 0)
		snprintf(why, len, "sizing the BPF maps: %s", strerror(-r));
	return r;
}

static int
explain_open(int e, const char *what, char *why, size_t len)
{
	snprintf(why, len, "opening the BPF object %s: %s%s%s", what,
	    strerror(e), libbpf_said[0] ? "; libbpf: " : "", libbpf_said);
	return -e;
}

/* The object that runs when a switch changes cgroup; the reason it
 * cannot (no kernel BTF, a kernel without tp_btf) in why. */
static int
load_change(struct bpfcg *b, char *why, size_t len)
{
	int r;

	if ((b->cskel = cgchange__open()) == NULL)
		return explain_open(errno, "cgchange", why, len);
	b->obj = b->cskel->obj;
	b->counters = b->cskel->maps.counters;
	b->slots = b->cskel->maps.slots;
	b->counts = b->cskel->maps.counts;
	b->state = b->cskel->maps.state;
	b->paths = b->cskel->maps.paths;
	b->on_switch = b->cskel->progs.on_change;
	b->on_demand = b->cskel->progs.on_demand;
	b->cskel->rodata->nr_events = (__u32)b->nr_events;
	b->cskel->rodata->measure_lag = (__u32)b->lag;
	b->on_lag = b->cskel->progs.on_lag;
	bpf_program__set_autoload(b->on_lag, b->lag);
	if ((r = size_maps(b, why, len)) < 0)
		return r;
	if ((r = cgchange__load(b->cskel)) < 0) {
		snprintf(why, len, "the kernel refused the BPF program on the "
		    "BTF-typed sched_switch tracepoint: %s (it needs the "
		    "kernel's BTF, /sys/kernel/btf/vmlinux, "
		    "CONFIG_DEBUG_INFO_BTF)%s%s", strerror(-r),
		    libbpf_said[0] ? "; libbpf: " : "", libbpf_said);
		return r;
	}
	b->path_gen = &b->cskel->bss->path_gen;
	b->trigger = BPFCG_TRIGGER_CGROUP_CHANGE;
	return 0;
}

/* The object that runs at every context switch (or, for the bench, at
 * cgroup-switches). */
static int
load_every(struct bpfcg *b, char *why, size_t len)
{
	int cs = (b->flags & BPFCG_CGROUP_SWITCHES) != 0, r;

	if ((b->skel = cgcount__open()) == NULL)
		return explain_open(errno, "cgcount", why, len);
	b->obj = b->skel->obj;
	b->counters = b->skel->maps.counters;
	b->slots = b->skel->maps.slots;
	b->counts = b->skel->maps.counts;
	b->state = b->skel->maps.state;
	b->paths = b->skel->maps.paths;
	b->on_switch = cs ? b->skel->progs.on_cgroup_switch :
	    b->skel->progs.on_switch;
	b->on_demand = b->skel->progs.on_demand;
	b->skel->rodata->nr_events = (__u32)b->nr_events;
	b->skel->rodata->measure_lag = (__u32)b->lag;
	b->on_lag = b->skel->progs.on_lag;
	bpf_program__set_autoload(b->on_lag, b->lag);
	bpf_program__set_autoload(b->skel->progs.on_cgroup_switch, cs);
	bpf_program__set_autoload(b->skel->progs.on_switch, !cs);
	if ((r = size_maps(b, why, len)) < 0)
		return r;
	if ((r = cgcount__load(b->skel)) < 0) {
		explain_load(-r, why, len);
		return r;
	}
	b->path_gen = &b->skel->bss->path_gen;
	b->trigger = cs ? BPFCG_TRIGGER_CGROUP_SWITCHES :
	    BPFCG_TRIGGER_EVERY_SWITCH;
	return 0;
}

int
bpfcg_open(size_t nr_events, size_t max_cgroups, unsigned flags,
    struct bpfcg **out, char *why, size_t len)
{
	struct bpfcg *b;
	size_t n;
	int r;

	pthread_once(&print_once, set_print);
	libbpf_said[0] = '\0';
	if (nr_events == 0 || nr_events > CGC_MAX_EVENTS || max_cgroups == 0 ||
	    max_cgroups > (size_t)UINT32_MAX / CGC_MAX_EVENTS) {
		snprintf(why, len, "%zu counters per CPU and %zu cgroups: "
		    "bpf mode takes 1 to %d counters", nr_events, max_cgroups,
		    CGC_MAX_EVENTS);
		return -EINVAL;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return -ENOMEM;
	b->nr_events = nr_events;
	b->max_slots = max_cgroups;
	b->flags = flags;
	b->lag = (flags & BPFCG_MEASURE_LAG) && !(flags &
	    BPFCG_CGROUP_SWITCHES);
	if ((b->ncpus = libbpf_num_possible_cpus()) <= 0) {
		r = b->ncpus < 0 ? b->ncpus : -EINVAL;
		snprintf(why, len, "counting the possible CPUs: %s",
		    strerror(-r));
		goto fail;
	}
	/* Per-CPU values come in possible-CPU order, read here by CPU
	 * number: the same only when the possible CPUs are 0..n-1. */
	if ((r = possible_dense(b->ncpus)) < 0) {
		snprintf(why, len, "/sys/devices/system/cpu/possible has gaps "
		    "(%d possible CPUs): mode: bpf needs them numbered from 0 "
		    "without gaps", b->ncpus);
		goto fail;
	}
	b->slot = calloc(max_cgroups, sizeof(*b->slot));
	for (n = 1; n < 2 * max_cgroups; n <<= 1)
		;
	b->index = calloc(n, sizeof(*b->index));
	b->index_mask = n - 1;
	b->zero = calloc((size_t)b->ncpus, sizeof(*b->zero));
	b->cpu_state = calloc((size_t)b->ncpus, sizeof(*b->cpu_state));
	if (!b->slot || !b->index || !b->zero || !b->cpu_state) {
		r = -ENOMEM;
		snprintf(why, len, "%s", strerror(ENOMEM));
		goto fail;
	}
	if (!(flags & (BPFCG_CGROUP_SWITCHES | BPFCG_EVERY_SWITCH))) {
		if ((r = load_change(b, why, len)) == 0)
			goto loaded;
		/* Said with the trigger that runs instead. */
		snprintf(b->no_change, sizeof(b->no_change), "%s", why);
		cgchange__destroy(b->cskel);
		b->cskel = NULL;
		libbpf_said[0] = '\0';
	} else
		snprintf(b->no_change, sizeof(b->no_change), "%s",
		    flags & BPFCG_CGROUP_SWITCHES ? "asked for cgroup-switches" :
		    "asked for every switch");
	if ((r = load_every(b, why, len)) < 0)
		goto fail;
loaded:
	b->st.capacity = max_cgroups;
	b->st.trigger = b->trigger;
	*out = b;
	return 0;
fail:
	bpfcg_close(b);
	return r;
}

int
bpfcg_set_counter(struct bpfcg *b, int cpu, size_t ev, int fd)
{
	__u32 key = (__u32)((size_t)cpu * b->nr_events + ev);
	__u32 val = (__u32)fd;

	if (cpu < 0 || cpu >= b->ncpus || ev >= b->nr_events)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(b->counters), &key,
	    &val, BPF_ANY) < 0)
		return -errno;
	return 0;
}

/* BPFCG_CGROUP_SWITCHES or the lag probe: prog on a sampling
 * cgroup-switches event per CPU. */
static int
attach_cgroup_switches(struct bpfcg *b, struct bpf_program *prog, char *why,
    size_t len)
{
	struct perf_event_attr a;
	size_t i;
	int fd, e;

	b->cglink = calloc(b->nr_trig + 1, sizeof(*b->cglink));
	b->cgfd = calloc(b->nr_trig + 1, sizeof(*b->cgfd));
	if (!b->cglink || !b->cgfd)
		return -ENOMEM;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CGROUP_SWITCHES;
	a.sample_period = 1;
	a.disabled = 1;
	for (i = 0; i < b->nr_trig; i++) {
		fd = (int)syscall(__NR_perf_event_open, &a, -1, b->trig_cpu[i],
		    -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			e = errno;
			snprintf(why, len, "cgroup-switches on cpu %d: %s "
			    "(Linux 5.13 or later)", b->trig_cpu[i],
			    strerror(e));
			return -e;
		}
		b->cglink[i] = bpf_program__attach_perf_event(prog, fd);
		if (b->cglink[i] == NULL) {
			e = errno;
			close(fd);
			snprintf(why, len, "attaching to cgroup-switches on "
			    "cpu %d: %s", b->trig_cpu[i], strerror(e));
			return -e;
		}
		b->cgfd[i] = fd;
	}
	return 0;
}

/* Undo attach_cgroup_switches, whatever it got to. */
static void
drop_cgroup_switches(struct bpfcg *b)
{
	size_t i;

	/* A link owns its event: destroying it closes cgfd[i]. */
	for (i = 0; b->cglink && i < b->nr_trig; i++)
		bpf_link__destroy(b->cglink[i]);
	free(b->cglink);
	free(b->cgfd);
	b->cglink = NULL;
	b->cgfd = NULL;
}

int
bpfcg_attach(struct bpfcg *b, const struct cpumap *cpus, char *why,
    size_t len)
{
	size_t i;
	int e;

	if ((b->trig_cpu = calloc(cpus->nr + 1, sizeof(int))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < cpus->nr; i++)
		b->trig_cpu[b->nr_trig++] = cpus->cpu[i];
	if (b->flags & BPFCG_CGROUP_SWITCHES) {
		if ((e = attach_cgroup_switches(b, b->on_switch, why, len)) < 0)
			return e;
	} else {
		libbpf_said[0] = '\0';
		/* tp_btf/ or raw_tp/sched_switch, as its section says. */
		b->link = bpf_program__attach(b->on_switch);
		if (b->link == NULL) {
			e = errno;
			snprintf(why, len, "attaching the BPF program to the "
			    "sched_switch tracepoint: %s%s%s", strerror(e),
			    libbpf_said[0] ? "; libbpf: " : "", libbpf_said);
			return -e;
		}
		/* The probe only measures: where the kernel has no
		 * cgroup-switches (before 5.13), counting goes on without it
		 * (bpfcg_stats.lag says so). */
		if (b->lag && attach_cgroup_switches(b, b->on_lag, why,
		    len) < 0) {
			drop_cgroup_switches(b);
			b->lag = 0;
			why[0] = '\0';
		}
	}
	/* The starting point on each CPU. */
	for (i = 0; i < cpus->nr; i++)
		if ((e = bpfcg_run_on(b, cpus->cpu[i])) < 0) {
			snprintf(why, len, "running the BPF program on cpu %d "
			    "(BPF_PROG_TEST_RUN): %s", cpus->cpu[i],
			    strerror(-e));
			return e;
		}
	return 0;
}


int
bpfcg_trigger(const struct bpfcg *b, const char **why)
{
	if (why)
		*why = b->no_change;
	return b->trigger;
}

void
bpfcg_get_stats(const struct bpfcg *b, struct bpfcg_stats *st)
{
	*st = b->st;
	st->entries = b->entries;
	st->full = b->full;
}

size_t
bpfcg_fds(const struct bpfcg *b)
{
	size_t n;

	if (b == NULL || b->obj == NULL)
		return 0;
	/* counters, slots, counts, state, paths, .rodata, .bss; two
	 * programs (three with the lag probe); the object's BTF; the link,
	 * and a link and an event per CPU for cgroup-switches or the lag
	 * probe. */
	n = 7 + 2 + (size_t)b->lag + (bpf_object__btf_fd(b->obj) >= 0) +
	    (b->link != NULL) + (b->cglink ? 2 * b->nr_trig : 0);
	return n;
}

void
bpfcg_close(struct bpfcg *b)
{
	if (b == NULL)
		return;
	bpf_link__destroy(b->link);
	drop_cgroup_switches(b);
	cgchange__destroy(b->cskel);
	cgcount__destroy(b->skel);
	free(b->trig_cpu);
	free(b->slot);
	free(b->index);
	free(b->zero);
	free(b->vals);
	free(b->keys);
	free(b->cpu_state);
	free(b);
}
