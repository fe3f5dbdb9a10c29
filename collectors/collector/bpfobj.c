/*
 * bpfobj.c - mode: bpf's object (bpfobj.h): the program, its map and the
 * counters on every online CPU; a target's slot in the map and the
 * sources that read it, which live with the object.
 * Design: docs/architecture.md, "collectors/collector/: the source kinds".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpfcg.h"
#include "collectors/collector/bpfobj.h"
#include "collectors/collector/source.h"

static void
bpfobj_free(struct bpfobj *b)
{
	size_t i, j, k;

	if (b == NULL)
		return;
	bpfcg_close(b->cg);	/* before the counters it reads */
	for (i = 0; i < b->nr_groups; i++) {
		struct bgroup *g = &b->g[i];

		for (k = 0; g->pg && k < b->cpus.nr; k++)
			group_fini(&g->pg[k]);
		free(g->pg);
		for (j = 0; g->id.events && j < g->id.nr_events; j++)
			free(g->id.events[j].name);
		free(g->id.events);
		free(g->id.name);
	}
	free(b->g);
	cpumap_free(&b->cpus);
	free(b);
}

static struct bpfobj *
bpfobj_ref(struct bpfobj *b)
{
	b->refs++;
	return b;
}

void
bpfobj_unref(struct bpfobj *b)
{
	if (b != NULL && --b->refs == 0)
		bpfobj_free(b);
}

/*
 * Can b serve the plan as it is?  Then its groups are pointed at the
 * plan's indices.
 */
int
bpfobj_fits(const struct source_ctx *x, struct bpfobj *b,
    const unsigned char *want, size_t nwant, size_t max_cgroups)
{
	const struct plan *cfg = x->cfg;
	size_t i, k, found = 0;

	if (b->incomplete || b->max_cgroups != max_cgroups ||
	    b->nr_groups != nwant ||
	    b->cpus.nr != x->online->nr || memcmp(b->cpus.cpu, x->online->cpu,
	    b->cpus.nr * sizeof(int)) != 0)
		return 0;
	for (i = 0; i < cfg->nr_groups; i++)
		for (k = 0; want[i] && k < b->nr_groups; k++)
			if (plan_group_same(&b->g[k].id, &cfg->groups[i])) {
				found++;
				break;
			}
	if (found != nwant)
		return 0;
	for (i = 0; i < cfg->nr_groups; i++)
		for (k = 0; want[i] && k < b->nr_groups; k++)
			if (plan_group_same(&b->g[k].id, &cfg->groups[i]))
				b->g[k].gi = i;
	return 1;
}

/* Open group g on every CPU; report events the CPUs lack, once. */
static int
open_counters(const struct source_ctx *x, struct bpfobj *b,
    struct bgroup *g,
    char *why, size_t len)
{
	const struct plan_group *pg = &x->cfg->groups[g->gi];
	size_t k, i;
	int r;

	if ((g->pg = calloc(b->cpus.nr + 1, sizeof(*g->pg))) == NULL)
		return -ENOMEM;
	for (k = 0; k < b->cpus.nr; k++) {
		int cpu = b->cpus.cpu[k];

		if ((r = group_init(&g->pg[k], g->id.nr_events)) < 0)
			return r;
		if (pg->pmu_cpus && !cpumap_has(&pg->cpus, cpu))
			continue;	/* a hybrid PMU's other CPUs */
		r = group_open(&g->pg[k], x->attrs[g->gi], -1, cpu, 0);
		if (r == -EACCES || r == -EPERM || r == -EMFILE ||
		    r == -ENFILE || r == -ENOMEM) {
			snprintf(why, len, "opening group \"%s\" on cpu %d: "
			    "%s%s", g->id.name, cpu, strerror(-r),
			    r == -EACCES || r == -EPERM ? ": it needs "
			    "CAP_PERFMON, or root" : "");
			return r;
		}
		if (r == -ENODEV) {
			/* Online but not ready for perf yet: again soon. */
			b->incomplete = 1;
			source_retry_soon(x);
			continue;
		}
		for (i = 0; i < g->id.nr_events; i++) {
			int e = g->pg[k].err[i];

			if (e == 0 || x->ev_logged[g->gi][i]++)
				continue;
			REPORT(x, LOG_WARNING, NULL, pg->name, pg->events[i].name, cpu,
			    e, "%s:%d:%d: event \"%s\" in group \"%s\" cannot "
			    "be counted on cpu %d: %s; the rest keep counting",
			    x->cfg->source, pg->events[i].line,
			    pg->events[i].col, pg->events[i].name, pg->name,
			    cpu, strerror(e));
		}
		for (i = 0; i < g->pg[k].nr; i++)
			if ((r = bpfcg_set_counter(b->cg, cpu, g->base +
			    g->pg[k].evidx[i], g->pg[k].fd[i])) < 0) {
				snprintf(why, len, "putting the counters of "
				    "group \"%s\" on cpu %d in the BPF map: %s",
				    g->id.name, cpu, strerror(-r));
				return r;
			}
	}
	return 0;
}

/*
 * PMU_EXPORTER_BPF_TRIGGER=every_switch: the program that runs at every
 * context switch, as on a kernel without BTF, for the tests of that path
 * and for comparing the two.
 */
int
bpfobj_every_switch(void)
{
	const char *e = getenv("PMU_EXPORTER_BPF_TRIGGER");

	return e && strcmp(e, "every_switch") == 0;
}

/*
 * PMU_EXPORTER_BPF_LAG=1: the lag probe beside the program (bpfcg.h,
 * BPFCG_MEASURE_LAG), for tests/integration/bpf.test and bench/bpf_accuracy.sh,
 * which compare mode: bpf with perf mode: it costs a second program run
 * at every cgroup switch, so it is not on by default.
 */
static unsigned
lag_probe(void)
{
	const char *e = getenv("PMU_EXPORTER_BPF_LAG");

	return e && strcmp(e, "1") == 0 ? BPFCG_MEASURE_LAG : 0;
}

/* A new object for the plan's bpf-mode groups; the reason in why. */
int
bpfobj_build(const struct source_ctx *x, const unsigned char *want,
    size_t nwant, size_t max_cgroups, struct bpfobj **out, char *why,
    size_t len)
{
	const struct plan *cfg = x->cfg;
	struct bpfobj *b;
	size_t i, e, n = 0, nev = 0;
	int r;

	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->g = calloc(nwant + 1, sizeof(*b->g))) == NULL ||
	    (b->cpus.cpu = malloc((x->online->nr + 1) * sizeof(int))) ==
	    NULL) {
		bpfobj_free(b);
		return -ENOMEM;
	}
	b->refs = 1;
	b->max_cgroups = max_cgroups;
	memcpy(b->cpus.cpu, x->online->cpu, x->online->nr * sizeof(int));
	b->cpus.nr = x->online->nr;
	for (i = 0; i < cfg->nr_groups; i++) {
		const struct plan_group *pg = &cfg->groups[i];
		struct bgroup *g = &b->g[n];

		if (!want[i])
			continue;
		b->nr_groups = ++n;
		g->gi = i;
		g->base = nev;
		g->id.nr_events = pg->nr_events;
		nev += pg->nr_events;
		g->id.name = strdup(pg->name);
		g->id.events = calloc(pg->nr_events, sizeof(*g->id.events));
		if (!g->id.name || !g->id.events)
			goto nomem;
		for (e = 0; e < pg->nr_events; e++) {
			g->id.events[e].perf.attr = pg->events[e].perf.attr;
			if ((g->id.events[e].name = strdup(pg->events[e].name)) ==
			    NULL)
				goto nomem;
		}
	}
	if ((r = bpfcg_open(nev, b->max_cgroups, bpfobj_every_switch() ?
	    BPFCG_EVERY_SWITCH : lag_probe(), &b->cg, why, len)) < 0)
		goto fail;
	for (i = 0; i < b->nr_groups; i++)
		if ((r = open_counters(x, b, &b->g[i], why, len)) < 0)
			goto fail;
	if (bpfobj_counters(b) == 0) {
		/* Nothing to charge: no program on the context switches. */
		snprintf(why, len, "no event of the bpf-mode groups could be "
		    "opened on any CPU");
		r = -ENOENT;
		goto fail;
	}
	if ((r = bpfcg_attach(b->cg, &b->cpus, why, len)) < 0)
		goto fail;
	for (i = 0; i < b->nr_groups; i++)
		for (e = 0; e < b->cpus.nr; e++)
			if (b->g[i].pg[e].nr)
				group_enable(&b->g[i].pg[e], 1);
	*out = b;
	return 0;
nomem:
	r = -ENOMEM;
	snprintf(why, len, "%s", strerror(ENOMEM));
fail:
	bpfobj_free(b);
	return r;
}

size_t
bpfobj_counters(const struct bpfobj *b)
{
	size_t i, k, n = 0;

	for (i = 0; i < b->nr_groups; i++)
		for (k = 0; k < b->cpus.nr; k++)
			n += b->g[i].pg[k].nr;
	return n;
}

/* b's group for plan group gi, or NULL. */
static const struct bgroup *
bpfobj_group(const struct bpfobj *b, size_t gi)
{
	size_t i;

	for (i = 0; i < b->nr_groups; i++)
		if (b->g[i].gi == gi)
			return &b->g[i];
	return NULL;
}

/* ---- a cgroup's slot, and the sources that read it --------------- */

/* What attaching a target leaves: its cgroup's slot in an object. */
struct bpfobj_hold {
	struct source_hold h;
	struct bpfobj *b;
	uint32_t slot;
	int existing;			/* the slot had counts already */
};

/* One instance: a slot's counts for one group on one CPU. */
struct bpfobj_reader {
	struct source s;
	struct bpfobj *b;		/* a reference */
	const struct bgroup *g;
	uint32_t slot;
	int cpu;
};

static int
reader_read(struct source *s, struct count *out)
{
	struct bpfobj_reader *p = (struct bpfobj_reader *)s;
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (bpfcg_read(p->b->cg, p->slot, p->g->base + s->evidx[i],
		    p->cpu, &out[s->evidx[i]]) < 0)
			return -EAGAIN;	/* no reading this interval */
	return 0;
}

static void
reader_close(struct source *s)
{
	struct bpfobj_reader *p = (struct bpfobj_reader *)s;

	bpfobj_unref(p->b);
	free(p);
}

static const struct source_ops reader_ops = {
	.read = reader_read,
	.close = reader_close,
};

/* An instance adopted across a reload keeps its source while it reads
 * the same object's same slot. */
static int
hold_current(const struct source_hold *h, const struct source *s)
{
	const struct bpfobj_hold *tr = (const struct bpfobj_hold *)h;
	const struct bpfobj_reader *p = (const struct bpfobj_reader *)s;

	return s && p->b == tr->b && p->slot == tr->slot;
}

/* The target goes: its slot is freed (reusable after the next
 * refresh), and its reference on the object dropped. */
static void
hold_release(struct source_hold *h)
{
	struct bpfobj_hold *tr = (struct bpfobj_hold *)h;

	bpfcg_untrack(tr->b->cg, tr->slot);
	bpfobj_unref(tr->b);
	free(tr);
}

static const struct source_hold_ops hold_ops = {
	.current = hold_current,
	.release = hold_release,
};

int
bpfobj_hold(struct bpfobj *b, uint64_t id, struct source_hold **out)
{
	struct bpfobj_hold *tr;
	int r;

	if ((tr = calloc(1, sizeof(*tr))) == NULL)
		return -ENOMEM;
	if ((r = bpfcg_track(b->cg, id, &tr->slot)) < 0) {
		free(tr);
		return r;
	}
	tr->h.ops = &hold_ops;
	tr->existing = r == 1;
	tr->b = bpfobj_ref(b);
	*out = &tr->h;
	return 0;
}

int
bpfobj_slot_open(const struct source_at *at, size_t ne,
    struct source_opened *o, struct source **out)
{
	const struct bpfobj_hold *tr = (const struct bpfobj_hold *)at->held;
	const struct perf_group *pg = NULL;
	struct bpfobj_reader *p;
	size_t k;

	if (tr == NULL)
		return -ENOENT;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	p->g = bpfobj_group(tr->b, at->gi);
	for (k = 0; p->g && k < tr->b->cpus.nr; k++)
		if (tr->b->cpus.cpu[k] == at->cpu && p->g->pg[k].nr)
			pg = &p->g->pg[k];
	/* What the counters on this CPU could not open. */
	if (pg)
		memcpy(o->err, pg->err, ne * sizeof(*o->err));
	else
		memset(o->err, 0, ne * sizeof(*o->err));
	p->s.ops = &reader_ops;
	p->s.nr = pg ? pg->nr : 0;	/* none opened here: reads nothing */
	p->s.evidx = pg ? pg->evidx : NULL;
	p->s.fds = 0;			/* the object's are counted once */
	/* A slot that had counts: they are not this instance's. */
	p->s.baseline = tr->existing;
	p->b = bpfobj_ref(tr->b);
	p->slot = tr->slot;
	p->cpu = at->cpu;
	*out = &p->s;
	return 0;
}
