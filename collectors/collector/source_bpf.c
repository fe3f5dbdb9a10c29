/*
 * source_bpf.c - the "mode: bpf" source kind (source.h): its state, when
 * its object (bpfobj.c) is built or kept, which entries it takes, its
 * fallback, and what it shows (the pmu_exporter_bpf_* metrics).
 * Design: docs/architecture.md, "collectors/collector/: the source kinds".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpfcg.h"
#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/bpfobj.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/snapshot.h"
#include "collectors/collector/source.h"
#include "collectors/perf/cpumap.h"
#include "collectors/perf/group.h"

extern const struct source_kind source_bpf_kind;	/* at the end */

/*
 * The kind's own state (source_ctx.state, source.h): the
 * object in use, and what the snapshot and --check-config say of it.
 */
#define BPF_WHY 512
struct bpfmode_state {
	struct source_state head;	/* fds: cur's: its program's and
					   its counters */
	struct bpfobj *cur;		/* NULL: none asked for, or failed */
	int wanted;			/* some cgroups entry asks for it */
	char why[BPF_WHY];		/* why it is not running */
	struct bpfcg_stats base;	/* counted by objects gone before */
	size_t full;			/* cgroups without a slot */
	size_t refused;			/* ... not counted: fallback:
					   refuse */
	size_t full_logged;		/* full, as the log last said */
};

static struct bpfmode_state *
bpfmode_st(const struct source_ctx *x)
{
	return x->state;
}

/* Does cgroups entry t ask for this kind (mode: bpf)? */
static int
mine(const struct plan_target *t)
{
	return plan_target_mode_is(t, source_bpf_kind.desc->name);
}

/* modes.bpf.max_cgroups: slots in the program's map. */
static size_t
max_cgroups(const struct plan *cfg)
{
	uint64_t v = plan_mode_option(cfg, source_bpf_kind.desc->name,
	    "max_cgroups", 1024);

	return v ? (size_t)v : 1024;
}

/* The plan groups bpf-mode entries count: want[gi] = 1.  How many. */
static size_t
wanted_groups(const struct source_ctx *x, unsigned char *want)
{
	const struct plan *cfg = x->cfg;
	size_t i, k, n = 0;

	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *t = &cfg->targets[i];

		if (!mine(t))
			continue;
		for (k = 0; k < t->nr_groups; k++)
			if (!want[t->groups[k]]++)
				n++;
	}
	for (i = 0; i < cfg->nr_groups; i++)
		want[i] = want[i] != 0;
	return n;
}

/* dst += the counters of src (not entries, capacity and trigger, which
 * are an object's own). */
static void
stats_add(struct bpfcg_stats *dst, const struct bpfcg_stats *src)
{
	size_t i;

	dst->runs += src->runs;
	dst->switch_runs += src->switch_runs;
	dst->read_errors += src->read_errors;
	dst->prog_misses += src->prog_misses;
	dst->unseen += src->unseen;
	dst->full += src->full;
	for (i = 0; i < CGC_CHANGE_NR; i++) {
		dst->lag_ns[i] += src->lag_ns[i];
		dst->lag_n[i] += src->lag_n[i];
	}
}

/*
 * The object goes (a plan that asks for other groups, CPUs or capacity,
 * or none): what its program counted is kept, so that the exported
 * counters of runs, charges and misses never go back.  Its counts are
 * fetched once more first: the sources that still read it (an instance
 * adopted into the new object reads its old source a last time,
 * instance.c) then see what it charged since the last collection.
 */
static void
retire(struct bpfmode_state *bs)
{
	struct bpfcg_stats st;

	if (bs->cur == NULL)
		return;
	(void)bpfcg_refresh(bs->cur->cg);	/* stale on failure: -EAGAIN */
	bpfcg_get_stats(bs->cur->cg, &st);
	stats_add(&bs->base, &st);
	bpfobj_unref(bs->cur);
	bs->cur = NULL;
	bs->head.fds = 0;
}

/* Does some bpf-mode entry match a cgroup? */
static int
bpfmode_matched(const struct plan *cfg, const struct cgroup_list *matched)
{
	size_t i;

	for (i = 0; matched && i < cfg->nr_targets; i++)
		if (mine(&cfg->targets[i]) && matched[i].nr > 0)
			return 1;
	return 0;
}

/*
 * Why the kind's object could not be made, said once per reason, not at
 * every rescan; kept in bs->why until the next rebuild.
 */
static void
say_unavailable(const struct source_ctx *x, struct bpfmode_state *bs,
    const char *why, int r)
{
	const struct plan *cfg = x->cfg;
	int refuse = 0, skip = 0;
	size_t i;

	for (i = 0; i < cfg->nr_targets; i++) {
		refuse |= mine(&cfg->targets[i]) &&
		    cfg->targets[i].fallback == PLAN_FALLBACK_REFUSE;
		skip |= mine(&cfg->targets[i]) &&
		    cfg->targets[i].fallback == PLAN_FALLBACK_SKIP;
	}
	if (strcmp(why, bs->why) != 0)
		SAY(x, refuse ? LOG_ERR : LOG_WARNING, -r,
		    "mode: bpf is not available: %s; %s", why,
		    refuse || skip ? "the cgroups of the entries with "
		    "fallback: refuse or skip are not counted, the "
		    "others are counted in perf mode" : "their cgroups "
		    "are counted in perf mode instead (fallback: "
		    "perf)");
	snprintf(bs->why, BPF_WHY, "%s", why);
}

/* What the loaded object counts, and when its program runs. */
static void
say_loaded(const struct source_ctx *x, const struct bpfobj *b)
{
	const char *no_change;

	if (bpfcg_trigger(b->cg, &no_change) == BPFCG_TRIGGER_CGROUP_CHANGE)
		SAY(x, LOG_INFO, 0, "mode: bpf: %zu group%s "
		    "opened once on each of %zu CPUs, charged by a BPF program "
		    "to up to %zu cgroups; it runs when a context switch "
		    "changes cgroup (BTF-typed sched_switch tracepoint)",
		    b->nr_groups, b->nr_groups == 1 ? "" : "s", b->cpus.nr,
		    b->max_cgroups);
	else
		SAY(x, LOG_NOTICE, 0, "mode: bpf: %zu group%s "
		    "opened once on each of %zu CPUs, charged by a BPF program "
		    "to up to %zu cgroups; it runs at every context switch "
		    "(sched_switch raw tracepoint), also between tasks of one "
		    "cgroup, because %s", b->nr_groups,
		    b->nr_groups == 1 ? "" : "s", b->cpus.nr, b->max_cgroups,
		    bpfobj_every_switch() ? "PMU_EXPORTER_BPF_TRIGGER=every_switch "
		    "asks for it" : no_change);
}

/*
 * Before a rescan plans its targets: make the kind's object serve the plan's
 * bpf-mode entries, or say why it cannot.  The program is loaded when a
 * bpf-mode entry first matches a cgroup (the embedded default names
 * container layouts most machines do not run: no program on their context
 * switches, and no warning where it cannot run).  It is kept, or its
 * failure is, until the next rebuild: the last container of a host going
 * and a new one coming neither unloads and loads it again nor says its
 * failure twice; a rebuild that finds no match retires it.  -ENOMEM only;
 * any other failure leaves no object, with the reason in the state's why.
 */
static int
bpfmode_setup(const struct source_ctx *x, const struct cgroup_list *matched,
    int rebuild)
{
	const struct plan *cfg = x->cfg;
	struct bpfmode_state *bs = bpfmode_st(x);
	unsigned char *want;
	struct bpfobj *b = NULL;
	char why[BPF_WHY];
	size_t nwant;
	int r;

	if ((want = calloc(cfg->nr_groups + 1, 1)) == NULL)
		return -ENOMEM;
	nwant = x->cgroot != NULL && bpfmode_matched(cfg, matched) ?
	    wanted_groups(x, want) : 0;
	if (nwant == 0) {
		if (rebuild) {
			retire(bs);
			bs->why[0] = '\0';
			bs->wanted = 0;
		}
		free(want);
		return 0;
	}
	bs->wanted = 1;
	/* At a plain rescan the targets use what there is: kept, or the
	 * failure kept until the next rebuild. */
	if ((bs->cur && (!rebuild || bpfobj_fits(x, bs->cur, want, nwant,
	    max_cgroups(x->cfg)))) ||
	    (bs->cur == NULL && !rebuild && bs->why[0])) {
		free(want);
		return 0;
	}
	retire(bs);
	why[0] = '\0';
	if (!x->cgroot_v2) {
		/* The program sees cgroup2 ids only; v1 ids are another
		 * numbering and would match the wrong cgroups. */
		snprintf(why, sizeof(why), "the cgroups are counted in the "
		    "cgroup v1 perf_event hierarchy at %.300s, and the BPF "
		    "program sees cgroup2 ids only", x->cgroot);
		r = -EOPNOTSUPP;
	} else
		r = bpfobj_build(x, want, nwant, max_cgroups(x->cfg), &b,
		    why, sizeof(why));
	free(want);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		say_unavailable(x, bs, why, r);
		return 0;
	}
	bs->why[0] = '\0';
	bs->cur = b;
	bs->head.fds = bpfcg_fds(b->cg) + bpfobj_counters(b);
	say_loaded(x, b);
	return 0;
}

/* At each collection, before the instances are read. */
static void
bpfmode_refresh(const struct source_ctx *x)
{
	int r;

	if (bpfmode_st(x)->cur == NULL)
		return;
	if ((r = bpfcg_refresh(bpfmode_st(x)->cur->cg)) < 0)
		SAY(x, LOG_WARNING, -r, "reading the BPF "
		    "program's counts: %s", strerror(-r));
}

/*
 * What mode: bpf shows of itself (bpfmode_stats), in this order: whether the
 * program runs, its trigger (only while it runs), its map, and what it
 * did.  The values are filled in from the program's statistics.
 */
enum {
	M_ACTIVE, M_TRIGGER, M_CGROUPS, M_CGROUPS_MAX, M_MAP_FULL, M_RUNS,
	M_MISSES, M_UNSEEN, M_READ_ERRORS, M_LAG, M_LAG_N, M_NR
};

/* Values a metric has at most (M_LAG's: one per enum cgc_change). */
#define M_VALUES CGC_CHANGE_NR

static const char *const runs_by[] = { "switch", "collection" };
static const char *const changes[] = { "between", "into_root",
    "out_of_root" };
static const char *const trigger_change[] = { "cgroup_change" };
static const char *const trigger_every[] = { "every_switch" };

static const struct snap_metric bpfmode_metrics[M_NR] = {
	[M_ACTIVE] = { "pmu_exporter_bpf_active", "gauge",
	    "1 while the BPF program counts the mode: bpf cgroups; 0 when "
	    "it could not be loaded (the log says why) and they are counted "
	    "in perf mode (fallback: perf) or not at all (refuse).", 1,
	    NULL, NULL, NULL },
	[M_TRIGGER] = { "pmu_exporter_bpf_trigger", "gauge",
	    "When the BPF program runs, as a label: cgroup_change (at "
	    "context switches between cgroups; it needs the kernel's "
	    "BTF) or every_switch (at every context switch; the log "
	    "says why).", 1, "trigger", NULL, NULL },
	[M_CGROUPS] = { "pmu_exporter_bpf_cgroups", "gauge",
	    "cgroups the BPF program charges now (map entries).", 1, NULL,
	    NULL, NULL },
	[M_CGROUPS_MAX] = { "pmu_exporter_bpf_cgroups_max", "gauge",
	    "cgroups it can charge at most (modes.bpf.max_cgroups).", 1, NULL,
	    NULL, NULL },
	[M_MAP_FULL] = { "pmu_exporter_bpf_map_full_total", "counter",
	    "Times a cgroup found no free map entry (raise "
	    "modes.bpf.max_cgroups).", 1, NULL, NULL, NULL },
	[M_RUNS] = { "pmu_exporter_bpf_program_runs_total", "counter",
	    "Runs of the BPF program: at a context switch (one that changed "
	    "cgroup, with the cgroup_change trigger), or on each CPU at a "
	    "collection.", 2, "trigger", runs_by, NULL },
	[M_MISSES] = { "pmu_exporter_bpf_program_misses_total", "counter",
	    "Context switches the program did not run for (the kernel's "
	    "recursion guard: bpf_prog_info.recursion_misses); their time "
	    "went to the next cgroup to switch out.", 1, NULL, NULL, NULL },
	[M_UNSEEN] = { "pmu_exporter_bpf_unseen_switches_total", "counter",
	    "Context switches the sched_switch tracepoint did not show (a "
	    "task switched out that no switch had switched in), at least: "
	    "what ran after one went with the next cgroup charged on that "
	    "CPU.  0 on a stock kernel.", 1, NULL, NULL, NULL },
	[M_READ_ERRORS] = { "pmu_exporter_bpf_read_errors_total", "counter",
	    "Counter reads in the program that failed (an event not open "
	    "on that CPU).", 1, NULL, NULL, NULL },
	[M_LAG] = { "pmu_exporter_bpf_switch_lag_seconds_total", "counter",
	    "With PMU_EXPORTER_BPF_LAG=1 only: time from the program's "
	    "reading at the sched_switch tracepoint to perf's cgroup switch "
	    "in perf_event_task_sched_out(), by the kind of change "
	    "(between cgroups, into the root cgroup, out of it).",
	    CGC_CHANGE_NR,
	    "transition", changes, NULL },
	[M_LAG_N] = { "pmu_exporter_bpf_switch_lag_samples_total",
	    "counter", "With PMU_EXPORTER_BPF_LAG=1 only: the switches "
	    "pmu_exporter_bpf_switch_lag_seconds_total timed.", CGC_CHANGE_NR,
	    "transition", changes, NULL },
};

/*
 * The kind's part of the snapshot, while some entry asks for it: the
 * cgroups it left out (no slot; refused) and bpfmode_metrics.  The counters
 * go on across objects (base); entries, capacity and trigger are the
 * current object's own.
 */
static int
bpfmode_stats(const void *state, struct snapshot *s, struct snap_source *out)
{
	const struct bpfmode_state *bs = state;
	struct bpfcg_stats st = bs->base, now;
	double *v;
	size_t i;

	out->wanted = bs->wanted;
	if (!bs->wanted)
		return 0;
	if (bs->cur != NULL) {
		bpfcg_get_stats(bs->cur->cg, &now);
		stats_add(&st, &now);
		st.trigger = now.trigger;
		st.lag = now.lag;
		st.entries = now.entries;
		st.capacity = now.capacity;
	}
	out->skipped = snapshot_alloc(s, 2 * sizeof(*out->skipped));
	out->metrics = snapshot_alloc(s, M_NR * sizeof(*out->metrics));
	v = snapshot_alloc(s, M_VALUES * M_NR * sizeof(*v));
	if (out->skipped == NULL || out->metrics == NULL || v == NULL)
		return -ENOMEM;
	out->skipped[0] = (struct snap_skip){ source_why_label(s, out->kind,
	    TARGET_NO_ROOM), bs->full };
	out->skipped[1] = (struct snap_skip){ source_why_label(s, out->kind,
	    TARGET_REFUSED), bs->refused };
	if (out->skipped[0].reason == NULL || out->skipped[1].reason == NULL)
		return -ENOMEM;
	out->nr_skipped = 2;
	/* [M_VALUES * M]: metric M's values. */
	memset(v, 0, M_VALUES * M_NR * sizeof(*v));
	v[M_VALUES * M_ACTIVE] = bs->cur != NULL ? 1.0 : 0.0;
	v[M_VALUES * M_TRIGGER] = 1.0;
	v[M_VALUES * M_CGROUPS] = (double)st.entries;
	v[M_VALUES * M_CGROUPS_MAX] = (double)st.capacity;
	v[M_VALUES * M_MAP_FULL] = (double)st.full;
	v[M_VALUES * M_RUNS] = (double)st.switch_runs;
	v[M_VALUES * M_RUNS + 1] = (double)(st.runs - st.switch_runs);
	v[M_VALUES * M_MISSES] = (double)st.prog_misses;
	v[M_VALUES * M_UNSEEN] = (double)st.unseen;
	v[M_VALUES * M_READ_ERRORS] = (double)st.read_errors;
	for (i = 0; i < CGC_CHANGE_NR; i++) {
		v[M_VALUES * M_LAG + i] = (double)st.lag_ns[i] / 1e9;
		v[M_VALUES * M_LAG_N + i] = (double)st.lag_n[i];
	}
	out->nr_metrics = 0;
	for (i = 0; i < M_NR; i++) {
		struct snap_metric *m = &out->metrics[out->nr_metrics];

		if (i == M_TRIGGER && bs->cur == NULL)
			continue;
		if ((i == M_LAG || i == M_LAG_N) && !st.lag)
			continue;
		*m = bpfmode_metrics[i];
		m->values = &v[M_VALUES * i];
		if (i == M_TRIGGER)
			m->label_values = st.trigger !=
			    BPFCG_TRIGGER_CGROUP_CHANGE ? trigger_every :
			    trigger_change;
		out->nr_metrics++;
	}
	return 0;
}

/* --check-config: the kind's line. */
static int
bpfmode_line(const struct source_ctx *x, FILE *out)
{
	const struct bpfmode_state *bs = x->state;

	if (!bs->wanted)
		return 0;
	if (bs->cur) {
		fprintf(out, "mode: bpf: the BPF program is loaded and "
		    "attached (%zu fds in all, whatever the number of "
		    "cgroups)\n", bs->head.fds);
		return 0;
	}
	/* Not a problem in itself: what each entry's cgroups get then is
	 * what its fallback asks for (the embedded default's: perf
	 * mode, or for pods nothing); a refusal is a problem of its
	 * targets (bpf_check). */
	fprintf(out, "mode: bpf: not available: %s; the cgroups of those "
	    "entries are counted as their fallback says\n", bs->why);
	return 0;
}

/* The state's object; source.c frees the state. */
static void
bpfmode_fini(void *state)
{
	struct bpfmode_state *bs = state;

	bpfobj_unref(bs->cur);
}

/* mode: bpf entries are this kind's while the program runs. */
static int
bpfmode_takes(const struct source_ctx *x, const struct plan_target *ct,
    const char **mode)
{
	if (!mine(ct))
		return 0;
	if (bpfmode_st(x)->cur != NULL) {
		*mode = "mode bpf";
		return 1;
	}
	return -EOPNOTSUPP;
}

/* --check-config: a cgroup without a slot, or refused or skipped. */
static int
bpfmode_unopened(const struct source_ctx *x, const char *name,
    enum target_why why, FILE *out)
{
	if (why == TARGET_NO_ROOM)
		fprintf(out, "%s: not counted (mode: bpf tracks "
		    "modes.bpf.max_cgroups = %zu cgroups already)\n", name,
		    max_cgroups(x->cfg));
	else if (why == TARGET_REFUSED)
		fprintf(out, "%s: not counted (mode: bpf is not available and "
		    "fallback is refuse)\n", name);
	else if (why == TARGET_SKIP_ASKED) {
		/* As the config asks: not a problem. */
		fprintf(out, "%s: not counted (mode: bpf is not available and "
		    "fallback is skip)\n", name);
		return 0;
	} else
		return -1;
	return 1;
}

static const struct source_check_ops bpfmode_check_ops = {
	.line = bpfmode_line,
	.unopened = bpfmode_unopened,
};

/* Slots freed this interval are reusable after the next refresh. */
static int
room_soon(const struct bpfmode_state *bs)
{
	return bs->cur && bpfcg_pending(bs->cur->cg) > 0;
}

/*
 * What a rescan found: cgroups left out for want of a slot (named in
 * full_names) and cgroups refused.  The log says when the first changes.
 * 1 when some were left out and a slot is freed for the next collection.
 */
static int
bpfmode_tally(const struct source_ctx *x, size_t full, size_t refused,
    const char *full_names)
{
	struct bpfmode_state *bs = bpfmode_st(x);

	bs->full = full;
	bs->refused = refused;
	if (full != bs->full_logged && full)
		SAY(x, LOG_WARNING, ENOSPC, "%zu cgroup%s not "
		    "counted: mode: bpf tracks %zu cgroups already: %s; raise "
		    "modes.bpf.max_cgroups", full, full == 1 ? " is" : "s are",
		    max_cgroups(x->cfg), full_names);
	else if (full != bs->full_logged)
		SAY(x, LOG_INFO, 0, "every cgroup left out "
		    "for want of a BPF slot is counted now");
	bs->full_logged = full;
	return full && room_soon(bs);
}

/* A rescan: the object set up at its start, what it left out at its
 * end (source_rescan). */
static int
bpfmode_rescan(const struct source_ctx *x, const struct source_rescan *r)
{
	if (!r->done)
		return bpfmode_setup(x, r->matched, r->rebuild);
	return bpfmode_tally(x, r->no_room, r->refused, r->names);
}

/* Give the target's cgroup a slot: charged from now on.  -ENOSPC when
 * modes.bpf.max_cgroups are tracked (the rescan says so and tries again). */
static int
bpfmode_attach(const struct source_ctx *x, const char *cgroup, int cgfd,
    struct source_hold **out)
{
	struct bpfmode_state *bs = bpfmode_st(x);
	uint64_t id;
	int r;

	if (bs->cur == NULL || cgfd < 0)
		return -ENOENT;
	if ((r = cgroupfs_id(cgfd, &id)) < 0) {
		REPORT(x, LOG_WARNING, cgroup, NULL, NULL, -1, -r, "cgroup %s: "
		    "reading its id (name_to_handle_at): %s", cgroup,
		    strerror(-r));
		return r;
	}
	return bpfobj_hold(bs->cur, id, out);
}

/* The instance's source reads the slot its target holds. */
static int
bpfmode_open(const struct source_ctx *x, const struct source_at *at,
    int cgfd, struct source_opened *o, struct source **out)
{
	(void)cgfd;
	return bpfobj_slot_open(at, x->cfg->groups[at->gi].nr_events, o, out);
}

/* Why a build without BPF cannot run it; NULL in a build with. */
static const char *
bpfmode_unbuilt(void)
{
	return bpfcg_built() ? NULL : "this pmu_exporter was built without "
	    "BPF support (configure --enable-bpf, which needs clang, "
	    "bpftool and libbpf-dev)";
}

/*
 * Can mode: bpf run here (plan_kind.runs_here)?  Its program is loaded
 * and attached once, on one CPU, then closed; the cgroups must be
 * cgroup2's, which is all the program sees.
 */
static int
bpfmode_runs_here(const char *procfs, const char *sysfs, char *why,
    size_t len)
{
	struct bpfcg *b = NULL;
	struct cpumap online, one;
	char root[4096], path[4096];
	int r, v2 = 1;

	snprintf(path, sizeof(path), "%s/self/mountinfo", procfs);
	if (cgroupfs_find(path, root, sizeof(root), &v2) == 0 && !v2) {
		snprintf(why, len, "the cgroups are counted in the cgroup v1 "
		    "perf_event hierarchy at %.300s, and the BPF program sees "
		    "cgroup2 ids only", root);
		return -EOPNOTSUPP;
	}
	if ((r = cpumap_online(sysfs, &online)) < 0) {
		snprintf(why, len, "%s/devices/system/cpu/online: %s", sysfs,
		    strerror(-r));
		return r;
	}
	one.nr = online.nr ? 1 : 0;
	one.cpu = online.cpu;
	if ((r = bpfcg_open(1, 1, 0, &b, why, len)) == 0)
		r = bpfcg_attach(b, &one, why, len);
	bpfcg_close(b);
	cpumap_free(&online);
	return r;
}

/* What a plan may say of mode: bpf (plan.h): its slots, its fallback
 * (under its older names too), and the groups it cannot count. */
static const struct plan_kind_option bpfmode_options[] = {
	{ "max_cgroups", "bpf_max_cgroups", 1, 1000000, 1024 },
};

static const struct plan_kind bpfmode_desc = {
	.name = "bpf",
	.falls_back = 1,
	.old_fallback = "bpf_fallback",
	.nr_options = 1,
	.options = bpfmode_options,
	.max_events = BPFCG_MAX_EVENTS,
	/* perf-metrics are read through their leader, as one group
	 * (tools/perf/Documentation/topdown.txt); bpf mode reads each
	 * counter alone. */
	.no_preset = "on Intel perf-metrics the topdown-* counts exist "
	    "only as fractions of slots read through the group leader as one "
	    "group, and bpf mode reads each counter alone "
	    "(bpf_perf_event_read_value)",
	.unbuilt = bpfmode_unbuilt,
	.runs_here = bpfmode_runs_here,
};

const struct source_kind source_bpf_kind = {
	.desc = &bpfmode_desc,
	.state_size = sizeof(struct bpfmode_state),
	.takes = bpfmode_takes,
	.rescan = bpfmode_rescan,
	.refresh = bpfmode_refresh,
	.attach = bpfmode_attach,
	.open = bpfmode_open,
	.stats = bpfmode_stats,
	.check = &bpfmode_check_ops,
	.fini = bpfmode_fini,
};
