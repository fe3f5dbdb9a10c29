/*
 * instance.c - group instances: one config group on one CPU for one
 * target (see instance.h).  Opening one, reporting why it could
 * not be (an event the CPU lacks, a cgroup without perf_event state, no
 * fds or no privilege), adopting an unchanged one across a reload and
 * inheriting a failed one's counts when it is reopened.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/asks.h"
#include "collectors/collector/cgroot.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/report.h"
#include "collectors/collector/source.h"
#include "collectors/perf/perf_sys.h"

/* ---- instances ---------------------------------------------------- */

static int
inst_init(struct inst *in, int cpu, size_t nr_events)
{
	memset(in, 0, sizeof(*in));
	in->cpu = cpu;
	in->state = INST_CLOSED;
	/* One block: the readings and sums first, then the errors. */
	in->prev = calloc(nr_events + 1, sizeof(*in->prev) +
	    sizeof(*in->cur) + sizeof(*in->acc) + sizeof(*in->err));
	if (in->prev == NULL)
		return -ENOMEM;
	in->cur = in->prev + nr_events + 1;
	in->acc = (struct scaled *)(void *)(in->cur + nr_events + 1);
	in->err = (int *)(void *)(in->acc + nr_events + 1);
	return 0;
}

/* Close the source (if any): the instance reads nothing until reopened. */
void
inst_close(struct inst *in, enum inst_state state)
{
	source_close(in->src);
	in->src = NULL;
	in->state = state;
}

void
inst_fini(struct inst *in)
{
	source_close(in->src);
	in->src = NULL;
	free(in->prev);			/* the block inst_init made */
	in->prev = in->cur = NULL;
	in->acc = NULL;
	in->err = NULL;
}

static void
report_open_error(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *tg, int cpu, int e)
{
	const struct plan_group *g = &x->k->ps->cfg->groups[tg->gi];
	struct rlimit rl;
	char why[1536];

	if (e == EMFILE || e == ENFILE) {
		if (x->said->emfile++)
			return;
		getrlimit(RLIMIT_NOFILE, &rl);
		REPORT(x->k->rp, LOG_ERR, it->cgroup, g->name, NULL, cpu, e,
		    "cannot open group \"%s\" on cpu %d for %s: %s; "
		    "the open-files limit is %llu: raise it (LimitNOFILE= "
		    "in the unit, or ulimit -n) or count fewer targets",
		    g->name, cpu, it->name, strerror(e),
		    (unsigned long long)rl.rlim_cur);
	} else if (e == EACCES || e == EPERM) {
		/* Once: the reason is the process's, not the group's. */
		if (x->said->denied != DENIED_NONE)
			return;
		x->said->denied = denied_explain(x->procfs, e, why,
		    sizeof(why));
		REPORT(x->k->rp, LOG_ERR, it->cgroup, g->name, NULL, cpu, e,
		    "perf_event_open for group \"%s\" on cpu %d: %s: %s",
		    g->name, cpu, strerror(e), why);
	} else if (it->cgroup && (e == EBADF || e == ENOENT)) {
		REPORT(x->k->rp, LOG_DEBUG, it->cgroup, g->name, NULL, cpu, e,
		    "cgroup %s vanished while opening group \"%s\"",
		    it->cgroup, g->name);
	} else {
		REPORT(x->k->rp, LOG_WARNING, it->cgroup, g->name, NULL, cpu, e,
		    "cannot open group \"%s\" on cpu %d for %s: %s",
		    g->name, cpu, it->name, strerror(e));
	}
}

/*
 * Every event of a group failed with ENOENT in cgroup mode on a cgroup
 * that still exists, and a software event fails the same way: the kernel
 * has no perf_event state for the cgroup.  On cgroup v2 that is a root
 * whose cgroup.subtree_control was never written (systemd writes it at
 * boot, a bare initramfs or a minimal container host may not), and
 * perf_event_open's bare ENOENT reads like "the CPU lacks these events".
 * Say what is wrong and what to write, once; the instance is retried at
 * the next full rescan.
 */
static void
report_no_perf_cgroup(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *tg, int cpu)
{
	const struct plan_group *g = &x->k->ps->cfg->groups[tg->gi];
	char ctl[256];

	if (x->said->no_perf_cgroup++) {
		REPORT(x->k->rp, LOG_DEBUG, it->cgroup, g->name, NULL, cpu,
		    ENOENT,
		    "cgroup %s has no perf_event controller state either",
		    it->cgroup);
		return;
	}
	if (x->k->cg->v2 && cgroupfs_subtree_control(x->k->cg->path, ctl,
	    sizeof(ctl)) == 0 && ctl[0] == '\0')
		REPORT(x->k->rp, LOG_ERR, it->cgroup, g->name, NULL, cpu,
		    ENOENT,
		    "cgroup %s cannot be counted: perf_event_open in cgroup "
		    "mode fails with ENOENT (%s) even for a software event, "
		    "because the kernel has not set up the perf_event "
		    "controller for it: %s/cgroup.subtree_control is empty, "
		    "nothing has ever enabled a controller in this cgroup2 "
		    "hierarchy (systemd does at boot; a bare initramfs or a "
		    "minimal container host does not). Enable one, for "
		    "example: echo +cpu > %s/cgroup.subtree_control; "
		    "cgroups are tried again at the next rescan "
		    "(cgroup_rescan_interval) or reload", it->cgroup,
		    strerror(ENOENT), x->k->cg->path, x->k->cg->path);
	else
		REPORT(x->k->rp, LOG_ERR, it->cgroup, g->name, NULL, cpu,
		    ENOENT,
		    "cgroup %s cannot be counted: perf_event_open in cgroup "
		    "mode fails with ENOENT (%s) even for a software event: "
		    "the kernel has no perf_event controller state for it "
		    "(cgroup2 at %s: enable a controller in its "
		    "cgroup.subtree_control; cgroup v1: mount the perf_event "
		    "controller); it is tried again at the next rescan",
		    it->cgroup, strerror(ENOENT), x->k->cg->path);
}

/* in starts counting now, at enabled time enabled (inst_excess). */
static void
inst_origin(struct inst *in, uint64_t enabled)
{
	in->origin_ns = perf_ops->now_ns ? perf_ops->now_ns() : 0;
	in->origin_enabled = enabled;
	in->unjumped = 0;
}

/*
 * Open one instance's source, of its group's kind (source.h);
 * unsupported events are reported once per event.
 */
static int
inst_open(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *tg, struct inst *in, struct asks *as)
{
	const struct plan_group *g = &x->k->ps->cfg->groups[tg->gi];
	struct source_at at = { it->cgroup, tg->gi, in->cpu,
	    source_held(it->attached, tg->kind) };
	struct source_opened o = { in->err, 0 };
	struct source *src = NULL;
	size_t i;
	int r;

	source_close(in->src);
	in->src = NULL;
	in->no_perf_cgroup = 0;
	/* Before the open: its events are enabled from then on. */
	inst_origin(in, 0);
	r = source_open(x->k, tg->kind, &at, it->cgfd, &o, &src);
	in->no_perf_cgroup = o.no_perf_cgroup;
	if (r == -ENOMEM)
		return r;
	for (i = 0; i < g->nr_events; i++) {
		int e = in->err[i];

		if (e == 0 || in->no_perf_cgroup || (r < 0 && (e == EMFILE ||
		    e == ENFILE || e == EACCES || e == EPERM || e == EBADF)))
			continue;
		if (x->k->ps->ev_logged[tg->gi][i]++)
			continue;
		REPORT(x->k->rp, LOG_WARNING, it->cgroup, g->name,
		    g->events[i].name, in->cpu, e,
		    "%s:%d:%d: event \"%s\" in group \"%s\" cannot be "
		    "counted on cpu %d: %s; the rest keep counting",
		    x->k->ps->cfg->source, g->events[i].line, g->events[i].col,
		    g->events[i].name, g->name, in->cpu, strerror(e));
	}
	if (r < 0) {
		if (in->no_perf_cgroup)
			report_no_perf_cgroup(x, it, tg, in->cpu);
		else
			report_open_error(x, it, tg, in->cpu, -r);
		in->state = INST_BROKEN;
		/* A CPU that went away while we opened, or a cgroup the
		 * controller was not set up for yet: try again later. */
		if (r == -ENODEV || in->no_perf_cgroup)
			as->retry = 1;
		/* A CPU whose online bit is set before perf can open events
		 * on it: a moment later it can. */
		if (r == -ENODEV)
			as->retry_soon = 1;
		return r;
	}
	in->src = src;
	memset(in->prev, 0, g->nr_events * sizeof(*in->prev));
	in->prev_enabled = in->prev_running = 0;
	in->state = INST_OK;
	return 0;
}

/*
 * What a reading's enabled time has grown by, since the instance started
 * counting, past the real time since then by the clock it runs by: on one
 * CPU it cannot grow faster.  The kernel's cgroup clock can: on a CPU
 * where a cgroup was never timed (its task cloned into it, as runc starts
 * a container, and running when its event is installed) the first
 * sched-out adds the time since boot to enabled and running alike, seen
 * as 1,435 s in the first second of a podman container here.  Measured
 * from the start, not from the last reading: an event multiplexed off the
 * counters reports times that lag and then catch up (the arm64 guest's
 * multiplex tests), which is no excess.  A margin of 1/256 and 2 ms for
 * the clocks' own difference; 0 within it.
 */
static uint64_t
inst_excess(struct inst *in, uint64_t enabled)
{
	uint64_t el, grown;

	if (perf_ops->now_ns == NULL || in->origin_ns == 0 ||
	    enabled < in->origin_enabled + in->unjumped)
		return 0;
	el = perf_ops->now_ns() - in->origin_ns;
	grown = enabled - in->origin_enabled - in->unjumped;
	if (grown <= el + el / 256 + 2000000)
		return 0;
	in->unjumped += grown - el;
	return grown - el;
}

/*
 * The reading's times less the excess (inst_excess): the last reading
 * taken as later by as much, so the deltas are the real ones and the
 * events' values (which the jump does not touch) are scaled by them.
 */
static void
inst_unjump(struct inst *in, const struct source *src)
{
	size_t i, ev = src->evidx[0];
	uint64_t x = in->cur[ev].enabled >= in->prev_enabled ?
	    inst_excess(in, in->cur[ev].enabled) : 0, xr;

	if (x == 0)
		return;
	xr = in->cur[ev].running - in->prev_running;
	xr = x < xr ? x : xr;
	for (i = 0; i < src->nr; i++) {
		in->prev[src->evidx[i]].enabled += x;
		in->prev[src->evidx[i]].running += xr;
	}
	in->prev_enabled += x;
	in->prev_running += xr;
}

/*
 * One reading of in's source: each event's delta since the last one,
 * scaled by the interval's own enabled/running deltas (scale.h), added to
 * its accumulator, and the group's enabled and running time summed; times
 * no CPU can have run are left out (inst_unjump).  0; 1 when there were
 * no deltas to add (the source counts nothing here, or this reading was
 * its starting point); -EAGAIN when there was no reading; another -errno
 * when the source is broken.
 */
int
inst_read(struct inst *in)
{
	struct source *src = in->src;
	size_t i, ev;
	uint64_t de, dr;
	int r;

	if (src == NULL)
		return -EAGAIN;
	if ((r = source_read(src, in->cur)) < 0)
		return r;
	if (src->nr == 0)
		return 1;
	if (src->baseline) {
		/* Counts from before this instance (a shared slot that
		 * another group already charged): its starting point. */
		for (i = 0; i < src->nr; i++)
			in->prev[src->evidx[i]] = in->cur[src->evidx[i]];
		in->prev_enabled = in->cur[src->evidx[0]].enabled;
		in->prev_running = in->cur[src->evidx[0]].running;
		inst_origin(in, in->prev_enabled);
		src->baseline = 0;
		return 1;
	}
	inst_unjump(in, src);
	for (i = 0; i < src->nr; i++) {
		ev = src->evidx[i];
		scale_accumulate(&in->acc[ev], &in->prev[ev], &in->cur[ev]);
		in->prev[ev] = in->cur[ev];
	}
	ev = src->evidx[0];
	de = in->cur[ev].enabled - in->prev_enabled;
	dr = in->cur[ev].running - in->prev_running;
	if (in->cur[ev].enabled >= in->prev_enabled &&
	    in->cur[ev].running >= in->prev_running) {
		in->enabled_ns += de;
		in->running_ns += dr;
	}
	in->last_de = de;
	in->last_dr = dr;
	in->prev_enabled = in->cur[ev].enabled;
	in->prev_running = in->cur[ev].running;
	return 0;
}

/*
 * During a rebuild: whether og, the old group tg takes over from, has
 * the very same events (its instances may be adopted whole) or other
 * ones (old_event maps them).
 */
static int
old_same(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *og, const struct tgroup *tg)
{
	return plan_group_same(&it->old_cfg->groups[og->gi],
	    &x->k->ps->cfg->groups[tg->gi]);
}

/* The index in the old group of the new group's event e (the same name
 * and attr), or -1: an event the group did not count before. */
static int
old_event(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *og, const struct tgroup *tg, size_t e)
{
	const struct plan_group *had = &it->old_cfg->groups[og->gi];
	const struct plan_event *ev = &x->k->ps->cfg->groups[tg->gi].events[e];
	size_t i;

	for (i = 0; i < had->nr_events; i++)
		if (strcmp(had->events[i].name, ev->name) == 0 &&
		    memcmp(&had->events[i].perf.attr, &ev->perf.attr,
		    sizeof(ev->perf.attr)) == 0)
			return (int)i;
	return -1;
}

static struct inst *
old_inst(struct tgroup *og, int cpu)
{
	size_t k;

	for (k = 0; og && k < og->cpus.nr; k++)
		if (og->inst[k].cpu == cpu)
			return &og->inst[k];
	return NULL;
}

/* The old group's closed instance keeping an offline CPU's counts. */
static struct inst *
old_off(struct tgroup *og, int cpu)
{
	size_t k;

	for (k = 0; og && k < og->nr_off; k++)
		if (og->off[k].cpu == cpu)
			return &og->off[k];
	return NULL;
}

/*
 * A per-CPU series whose CPU tg no longer has (gone offline): a closed
 * instance in tg->off keeps its counts (of the events tg keeps), for its
 * series to go on from them when the CPU comes back (inst_inherit).
 */
static int
carry_off(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *og, struct tgroup *tg, const struct inst *in)
{
	size_t ne = x->k->ps->cfg->groups[tg->gi].nr_events, e;
	struct inst *off;
	int oe, r;

	if (cpumap_has(&tg->cpus, in->cpu) || in->acc == NULL)
		return 0;
	if (tg->nr_off == tg->cap_off) {
		if ((off = realloc(tg->off, (tg->nr_off + 1) * sizeof(*off))) ==
		    NULL)
			return -ENOMEM;
		tg->off = off;
		tg->cap_off = tg->nr_off + 1;
	}
	off = tg->off + tg->nr_off;
	if ((r = inst_init(off, in->cpu, ne)) < 0)
		return r;
	tg->nr_off++;
	for (e = 0; e < ne; e++)
		if ((oe = old_event(x, it, og, tg, e)) >= 0)
			off->acc[e] = in->acc[oe];
	off->enabled_ns = in->enabled_ns;
	off->running_ns = in->running_ns;
	return 0;
}

/*
 * During a rebuild: a series keeps the counts of the CPUs its group no
 * longer has (gone offline) but its old group og had, so that it does
 * not go back: a cgroup series summed over CPUs in tg->gone, a per-CPU
 * one in tg->off; of a group whose events changed, those of the events
 * it keeps.
 */
int
inst_carry_gone(const struct inst_ctx *x, const struct inst_target *it,
    struct tgroup *tg, struct tgroup *og)
{
	size_t ne = x->k->ps->cfg->groups[tg->gi].nr_events, k, e;
	int *oe, r;

	if (it->cgroup == NULL || tg->per_cpu) {
		for (k = 0; k < og->cpus.nr; k++)
			if ((r = carry_off(x, it, og, tg, &og->inst[k])) < 0)
				return r;
		for (k = 0; k < og->nr_off; k++)
			if ((r = carry_off(x, it, og, tg, &og->off[k])) < 0)
				return r;
		return 0;
	}
	if (tg->gone == NULL && (tg->gone = calloc(ne, sizeof(*tg->gone))) ==
	    NULL)
		return -ENOMEM;
	/* Each new event's index in the old group, found once. */
	if ((oe = malloc((ne + 1) * sizeof(*oe))) == NULL)
		return -ENOMEM;
	for (e = 0; e < ne; e++)
		oe[e] = old_event(x, it, og, tg, e);
	for (e = 0; og->gone && e < ne; e++)
		if (oe[e] >= 0)
			scale_add(&tg->gone[e], &og->gone[oe[e]]);
	tg->gone_enabled_ns += og->gone_enabled_ns;
	tg->gone_running_ns += og->gone_running_ns;
	for (k = 0; k < og->cpus.nr; k++) {
		const struct inst *in = &og->inst[k];

		if (cpumap_has(&tg->cpus, in->cpu) || in->acc == NULL)
			continue;
		for (e = 0; e < ne; e++)
			if (oe[e] >= 0)
				scale_add(&tg->gone[e], &in->acc[oe[e]]);
		tg->gone_enabled_ns += in->enabled_ns;
		tg->gone_running_ns += in->running_ns;
	}
	free(oe);
	return 0;
}

/*
 * Take over og's instance on the same CPU (og: the old group of the same
 * target, see inst_take), with its fds and accumulators, so its series
 * continue.  Returns 1 if dst now holds it.
 */
static int
inst_adopt(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *tg, struct tgroup *og, int cpu, struct inst *dst,
    struct asks *as)
{
	struct inst *in;
	int r, same = old_same(x, it, og, tg);

	in = old_inst(og, cpu);
	if (in == NULL || !same || in->state != INST_OK || it->renew)
		return 0;
	*dst = *in;
	/* The old slot is left empty: freeing it closes and frees nothing. */
	memset(in, 0, sizeof(*in));
	in->state = INST_CLOSED;
	/* Its source no longer the one to read (what its kind built was
	 * rebuilt): a new one, the counts so far kept, with a last reading
	 * of the old one (what it counted since the last collection). */
	if (!source_current(tg->kind, source_held(it->attached, tg->kind),
	    dst->src)) {
		(void)inst_read(dst);	/* the last of the old source */
		inst_close(dst, INST_CLOSED);
		if ((r = inst_open(x, it, tg, dst, as)) == -ENOMEM)
			return r;
	}
	return 1;
}

/*
 * A new instance takes over the counts of the old one it replaces, so its
 * series continue instead of restarting at 0: all of them from a failed
 * instance of the same group being reopened, from the closed one that
 * kept a per-CPU series' counts while its CPU was offline, or from one
 * counting the cgroup that was removed and made again at the path (after
 * one last reading); from a group whose events changed, those of the
 * events it keeps (after one last reading), while new events start at 0
 * and removed ones are gone.
 */
static void
inst_inherit(const struct inst_ctx *x, const struct inst_target *it,
    const struct tgroup *tg, struct tgroup *og, struct inst *dst)
{
	size_t ne = x->k->ps->cfg->groups[tg->gi].nr_events, e;
	struct inst *in;
	int same = old_same(x, it, og, tg), oe;

	/* A CPU back online: its per-CPU series goes on from tg->off. */
	if ((in = old_inst(og, dst->cpu)) == NULL)
		in = old_off(og, dst->cpu);
	else if (in->acc == NULL ||
	    (same && in->state != INST_BROKEN && !it->renew))
		return;
	if (in == NULL)
		return;
	if ((!same || it->renew) && in->state == INST_OK)
		inst_read(in);		/* what it counted since the last */
	for (e = 0; e < ne; e++)
		if ((oe = old_event(x, it, og, tg, e)) >= 0)
			dst->acc[e] = in->acc[oe];
	dst->enabled_ns = in->enabled_ns;
	dst->running_ns = in->running_ns;
}

/*
 * Instance j of tg (on CPU tg->cpus.cpu[j]): during a rebuild (og, the
 * old group, not NULL), og's adopted when it stays the same; else a new
 * one opened and, during a rebuild, given the counts of the one it
 * replaces (also when it failed: its counts wait for the retry).  0;
 * -ENOMEM; another -errno when it did not open (EBADF: the cgroup went).
 */
int
inst_take(const struct inst_ctx *x, const struct inst_target *it,
    struct tgroup *tg, struct tgroup *og, size_t j, struct asks *as)
{
	struct inst *in = &tg->inst[j];
	int cpu = tg->cpus.cpu[j], r;

	if (og && (r = inst_adopt(x, it, tg, og, cpu, in, as)) != 0)
		return r < 0 ? r : 0;
	if ((r = inst_init(in, cpu,
	    x->k->ps->cfg->groups[tg->gi].nr_events)) < 0)
		return r;
	r = inst_open(x, it, tg, in, as);
	if (r == -ENOMEM || (r == -EBADF && it->cgroup))
		return r;
	if (og)
		inst_inherit(x, it, tg, og, in);
	return r;
}
