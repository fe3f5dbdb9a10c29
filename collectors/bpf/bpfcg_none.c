/*
 * bpfcg_none.c - bpfcg.h when the daemon was built without BPF support:
 * bpfcg_built() says no, so config/ refuses "mode: bpf", and every bpfcg_open
 * fails with the reason.
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectors/bpf/bpfcg.h"

int
bpfcg_built(void)
{
	return 0;
}

int
bpfcg_open(size_t nr_events, size_t max_cgroups, unsigned flags,
    struct bpfcg **out, char *why, size_t len)
{
	(void)nr_events;
	(void)max_cgroups;
	(void)flags;
	*out = NULL;
	snprintf(why, len, "this pmu_exporter was built without BPF support "
	    "(configure --enable-bpf needs clang, bpftool and libbpf-dev)");
	return -ENOTSUP;
}

int
bpfcg_set_counter(struct bpfcg *b, int cpu, size_t ev, int fd)
{
	(void)b;
	(void)cpu;
	(void)ev;
	(void)fd;
	return -ENOTSUP;
}

int
bpfcg_attach(struct bpfcg *b, const struct cpumap *cpus, char *why,
    size_t len)
{
	(void)b;
	(void)cpus;
	snprintf(why, len, "built without BPF support");
	return -ENOTSUP;
}

int
bpfcg_track(struct bpfcg *b, uint64_t cgid, uint32_t *slot)
{
	(void)b;
	(void)cgid;
	(void)slot;
	return -ENOTSUP;
}

void
bpfcg_untrack(struct bpfcg *b, uint32_t slot)
{
	(void)b;
	(void)slot;
}

size_t
bpfcg_pending(const struct bpfcg *b)
{
	(void)b;
	return 0;
}

int
bpfcg_refresh(struct bpfcg *b)
{
	(void)b;
	return -ENOTSUP;
}

int
bpfcg_read(const struct bpfcg *b, uint32_t slot, size_t ev, int cpu,
    struct count *out)
{
	(void)b;
	(void)slot;
	(void)ev;
	(void)cpu;
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

int
bpfcg_trigger(const struct bpfcg *b, const char **why)
{
	(void)b;
	if (why)
		*why = "this build has no mode: bpf";
	return BPFCG_TRIGGER_EVERY_SWITCH;
}

void
bpfcg_get_stats(const struct bpfcg *b, struct bpfcg_stats *st)
{
	(void)b;
	memset(st, 0, sizeof(*st));
}

size_t
bpfcg_fds(const struct bpfcg *b)
{
	(void)b;
	return 0;
}

void
bpfcg_close(struct bpfcg *b)
{
	(void)b;
}
