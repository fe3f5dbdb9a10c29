/*
 * source.h - where a group instance's counts come from: the counter
 * source interface a kind implements (source_perf.c, a perf group of its
 * own; source_bpf.c, a slot of mode: bpf's program), its three objects
 * with their ops (the kind, what it holds for a target, an instance's
 * source), the context and answers of its hooks, and source.c's calls
 * through the kinds table.  Adding a kind: HACKING.md; the rest:
 * docs/architecture.md's table.
 */
#ifndef PMU_SOURCE_H
#define PMU_SOURCE_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "collectors/collector/plan.h"
#include "collectors/collector/report.h"
#include "collectors/collector/snapshot.h"
#include "collectors/perf/scale.h"
#include "util/logfields.h"

struct asks;
struct cgroot;
struct planstate;
struct cpumap;
struct perf_event_attr;
struct plan_target;
struct snapshot;
struct snap_source;
struct cgroup_list;
struct source;

struct source_ops {
	/*
	 * One reading into out[evidx[i]] for i < nr.  0; -EAGAIN when there
	 * is no reading this time (the next interval tries again); any other
	 * -errno when the source is broken (the instance closes it and the
	 * full rescan opens a new one): -ENODATA for a group in error state.
	 */
	int (*read)(struct source *s, struct count *out);
	/* Start counting (sources open disabled).  0 or -errno. */
	int (*enable)(struct source *s);
	/* Close and free. */
	void (*close)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	size_t nr;			/* events it counts */
	const size_t *evidx;		/* [nr]: their index in the group */
	size_t fds;			/* perf fds it holds itself, from
					   open to close */
	int baseline;			/* the first reading is where this
					   instance starts, not its counts */
};

static inline int
source_read(struct source *s, struct count *out)
{
	return s->ops->read(s, out);
}

static inline int
source_enable(struct source *s)
{
	return s->ops->enable ? s->ops->enable(s) : 0;
}

static inline void
source_close(struct source *s)
{
	if (s)
		s->ops->close(s);
}

/*
 * What a kind's hooks see of the collector: the plan and its attrs, the
 * online CPUs, the cgroup mount, the kind's own state, the log, and the
 * asks of the pass that calls it, to ask for a retry at the next
 * collection (source_retry_soon; a rescan's start only).
 * source.c makes one for each call, the only file that calls a hook; a
 * hook reaches no other field of the collector.
 */
struct source_ctx {
	const struct plan *cfg;
	struct perf_event_attr *const *attrs;	/* [group][event] */
	int *const *ev_logged;		/* [group][event]: said unsupported */
	const struct cpumap *online;
	const char *cgroot;		/* the cgroup mount; NULL: none */
	int cgroot_v2;
	void *state;			/* the kind's own (state_size) */
	log_fields_fn log;
	int *retry_soon;		/* the caller's ask (source_retry_soon);
					   NULL but at a rescan's start */
};

/*
 * What a kind holds for one target while the target lives (attach): a
 * cgroup's slot in a program's map, say.  Its ops are its own, as a
 * source's are, so the kind table need not know it: the collector keeps
 * it in the target and releases it when the target goes.  Both ops are
 * required.
 */
struct source_hold;
struct source_hold_ops {
	/* May an instance adopted across a reload keep reading s, opened
	 * from what was held before (a new object or slot: no)?  1 or 0. */
	int (*current)(const struct source_hold *h, const struct source *s);
	/* The target goes, after its instances: give back and free. */
	void (*release)(struct source_hold *h);
};

struct source_hold {
	const struct source_hold_ops *ops;
};

/* Where an instance's source opens (source_kind.open): read only. */
struct source_at {
	const char *cgroup;		/* NULL: system-wide */
	size_t gi;			/* its group in the plan */
	int cpu;
	const struct source_hold *held;	/* what the kind's attach left for
					   the target; NULL: nothing */
};

/* What an open tells of itself beside its return (source_kind.open). */
struct source_opened {
	int *err;			/* [events]: 0 or why one is out */
	int no_perf_cgroup;		/* failed: the cgroup, not the events */
};

/*
 * Why a target is not counted, or that it is: the one list of reasons.
 * A target's open sets its state, an entry whose kind cannot run gets
 * what its fallback: declines (source.c), target_why (target.h) says
 * which one holds, and the kinds' check hooks are told it.
 */
enum target_why {
	TARGET_UNOPENED,		/* new, closed, or its open failed */
	TARGET_COUNTED,			/* open: instances exist; or, as what
					   was declined, nothing */
	TARGET_SKIPPED,			/* over the fd budget */
	TARGET_NO_ROOM,			/* a source kind had no room for it */
	TARGET_SHARE_REFUSED,		/* its subtree had its share, or it
					   gave its room to a cgroup not
					   delegated (share.c) */
	TARGET_REFUSED,			/* an entry's kind cannot run and its
					   fallback: refuses: a problem */
	TARGET_SKIP_ASKED		/* ... skips: not counted, as asked */
};

/*
 * Each reason's words, spelled here only: its label in
 * pmu_exporter_cgroups_skipped{reason=} (NULL: none: counted, or a
 * failure the next pass retries), and what the log and --check-config
 * say of it.  The reasons a kind gives (no room, refused or skipped) are
 * labelled after its name (source_why_label), and their texts are the
 * kind's to make precise (source_check_ops.unopened).
 */
static inline const char *
target_why_label(enum target_why why)
{
	static const char *const label[] = {
		[TARGET_SKIPPED] = "fd_budget",
		[TARGET_NO_ROOM] = "map_full",
		[TARGET_SHARE_REFUSED] = "delegated_share",
		[TARGET_REFUSED] = "refused",
		[TARGET_SKIP_ASKED] = "refused",
	};

	return label[why];
}

static inline const char *
target_why_text(enum target_why why)
{
	static const char *const text[] = {
		[TARGET_UNOPENED] = "not opened",
		[TARGET_COUNTED] = "counted",
		[TARGET_SKIPPED] = "over the fd budget",
		[TARGET_NO_ROOM] = "no room in its mode",
		[TARGET_SHARE_REFUSED] = "its delegated subtree has its share",
		[TARGET_REFUSED] = "its mode is not available and fallback "
		    "is refuse",
		[TARGET_SKIP_ASKED] = "its mode is not available and "
		    "fallback is skip",
	};

	return text[why];
}

/* A hook's ask, at a rescan's start: again at the next collection (a
 * CPU just online).  Set in the caller's asks through the context, so a
 * kind calls nothing above it to ask. */
static inline void
source_retry_soon(const struct source_ctx *x)
{
	*x->retry_soon = 1;
}

/*
 * What a cgroup rescan tells the kinds (source_kind.rescan), at its two
 * ends: at its start (done 0), before its targets are planned, what it
 * matched; at its end (done 1), once it completed, what it left out.
 */
struct source_rescan {
	int done;
	/* The start.  matched: the cgroups each plan target matches (NULL:
	 * none, no cgroup hierarchy).  rebuild: at start, a reload, a
	 * retry or a CPU change, when what the kind built may be replaced
	 * (at a plain rescan the existing targets still use it). */
	const struct cgroup_list *matched;
	int rebuild;
	/* The end: cgroups this kind had no room for (named in names),
	 * and cgroups it refused. */
	size_t no_room, refused;
	const char *names;
};

/*
 * The head of a kind's state, which the collector reads: what the
 * fd budget and the exporter's own figures count, kept current by the
 * kind (as a source keeps its fds, struct source).
 */
struct source_state {
	size_t fds;			/* fds the kind holds itself (perf
					   events, a program's), beside its
					   sources' */
};

/*
 * What --check-config (probe.c, through source.c) asks a kind, in a
 * table of its own: a kind that says nothing there leaves it out, and
 * what only one kind knows (a perf group's counters) stays that kind's.
 * Each may be NULL: nothing to say.
 */
struct source_check_ops {
	/* The kind's own line: 1 when it tells of a problem, else 0. */
	int (*line)(const struct source_ctx *x, FILE *out);
	/* Why the target named name, unopened, is not counted, from what
	 * the collector knows of it (why), when it is this kind's doing: 1
	 * a problem, 0 as the config asks; -1 not its. */
	int (*unopened)(const struct source_ctx *x, const char *name,
	    enum target_why why, FILE *out);
	/* Group gi's instances were enabled and never ran on unsched
	 * CPUs (cpu one of them): why, at a guess.  1 when that is a
	 * problem (said), 0 when nothing waited for a counter. */
	int (*unscheduled)(const struct source_ctx *x, size_t gi,
	    size_t unsched, int cpu, FILE *out);
};

/*
 * How the groups of a target are counted: seven hooks, each for one
 * thing the kind does at one moment of the collector's life; NULL hooks
 * do nothing.
 *
 *   takes     a cgroups entry: is it this kind's?  (planning)
 *   rescan    a rescan's start and end: build for what it matched; say
 *             what it left out
 *   refresh   a collection, before its reads
 *   attach    a target, before its instances open: what it holds for it
 *             is a struct source_hold, with its own ops (when to stop
 *             reading an adopted source; release)
 *   open      an instance: its source, with its own ops (source_ops)
 *   stats     the snapshot: its part of the exporter's own metrics
 *   fini      the collector goes: what the state holds
 *
 * Lifetimes sit with their objects, not in this table: a source closes
 * itself, a hold releases itself, and the kind's state is zeroed memory
 * of state_size bytes made and freed by source.c (fini gives back what
 * it holds first).  The fds a kind holds itself are a field of its
 * state's head, as a source's are of the source.  The two ends of a
 * rescan are one hook: one call prepares what the other reports on,
 * and a kind that does one does both.
 */
struct source_kind {
	/* Its name and what a plan may say of it (plan.h): the mode
	 * names, fallback: and the options config/ knows come from here. */
	const struct plan_kind *desc;
	/* Bytes of its state (c->kstate[k], reached as source_ctx.state),
	 * which begins with a struct source_state; 0: none.  The
	 * collector holds it for the kind and never looks past the
	 * head. */
	size_t state_size;
	/* Its instances open a perf group each, one fd per event (the fd
	 * budget counts them before they open); else they hold none. */
	int own_fds;
	/* What it says in --check-config (source_check_ops); NULL:
	 * nothing. */
	const struct source_check_ops *check;
	/*
	 * Which kind counts a cgroups entry: the kinds are asked from the
	 * last to the first, and the first that takes it decides (perf,
	 * the first, takes what is left).  1: this kind counts its
	 * cgroups, *mode saying how, for the log's layout lines; 0:
	 * another kind's; -EOPNOTSUPP: this kind's, but it cannot run,
	 * and source.c gives the entry what its fallback: asks for (perf,
	 * refuse, skip), and says so.
	 */
	int (*takes)(const struct source_ctx *x, const struct plan_target *ct,
	    const char **mode);
	/*
	 * At every cgroup rescan (struct source_rescan).  At its start:
	 * 0 or -ENOMEM; x->retry_soon is the pass's ask
	 * (source_retry_soon).  At its end: the kind reports the change; 1 when it had no room for
	 * some and room is freed that the next collection can give (a
	 * rescan then, not a rescan interval later); else 0.
	 */
	int (*rescan)(const struct source_ctx *x,
	    const struct source_rescan *r);
	/* Once per collection, before the instances are read. */
	void (*refresh)(const struct source_ctx *x);
	/* Per target with groups of this kind, before their instances
	 * open; cgfd is the cgroup's directory (-1 system-wide), cgroup
	 * its name (NULL: system-wide).  0, with what the kind holds for
	 * the target in *out (the collector keeps it, source.c); -ENOSPC
	 * when there is no room for it now (the collector marks the
	 * target, and the next rescan tries again); another -errno. */
	int (*attach)(const struct source_ctx *x, const char *cgroup,
	    int cgfd, struct source_hold **out);
	/*
	 * The source of one instance (at), opened disabled.  Fills
	 * o->err[] (0, or the errno that kept an event out) and may set
	 * o->no_perf_cgroup.  0, or -errno when nothing opened.
	 */
	int (*open)(const struct source_ctx *x, const struct source_at *at,
	    int cgfd, struct source_opened *o, struct source **out);
	/* Its part of the snapshot's statistics: out, whose kind is set,
	 * filled from s's arena (snapshot.h).  0 or -ENOMEM. */
	int (*stats)(const void *state, struct snapshot *s,
	    struct snap_source *out);
	/* Give back what the state holds; source.c frees the state. */
	void (*fini)(void *state);
};

/* Kind's label for why, its name first ("bpf_map_full"), in s's arena
 * (a kind's stats hook); NULL: out of memory. */
static inline const char *
source_why_label(struct snapshot *s, const char *kind, enum target_why why)
{
	size_t n = strlen(kind) + strlen(target_why_label(why)) + 2;
	char *p = snapshot_alloc(s, n);

	if (p)
		snprintf(p, n, "%s_%s", kind, target_why_label(why));
	return p;
}

/*
 * The kinds table (source.c): the product's kinds, then those added
 * before anything reads it (source_kind_add); NULL in the slots left.
 */
#define SOURCE_KINDS PLAN_KINDS_MAX
extern const struct source_kind *source_kinds[SOURCE_KINDS];
/* The kind that counts what no other kind takes (source_perf.c). */
extern const struct source_kind source_perf_kind;

/*
 * Add kind k after the product's: a kind built beside the product, as a
 * test's (tests/unit/source_null.c), named by this one call before any
 * config is parsed or collector made, on the thread that makes them.
 * 0; -ENOSPC when the table is full; -EEXIST when its name is taken.
 */
int source_kind_add(const struct source_kind *k);

/*
 * The kinds as the collector holds them: each kind's own state, and
 * what their hooks are shown of the rest (each call's source_ctx is made
 * from it): the running plan and its tables, the online CPUs, the
 * cgroup mount, the log.  The collector points it at its parts once.
 */
struct kinds {
	void *state[SOURCE_KINDS];
	const struct planstate *ps;
	const struct cpumap *online;
	const struct cgroot *cg;
	const struct report *rp;
};

/*
 * source.c: every call through source_kinds[], hooks a kind leaves NULL
 * skipped, each hook's context made for the call from struct kinds (the
 * collector is the only thing that calls these).  The _kinds_ functions ask every kind in
 * turn.
 */
int source_kinds_init(void **kstate);		/* 0 or -ENOMEM */
void source_kinds_fini(void *const *kstate);
size_t source_kinds_fds(const struct kinds *ks);
int source_kinds_stats(const struct kinds *ks, struct snapshot *s,
    struct snap_source *out);	/* out[SOURCE_KINDS]: how many filled */
int source_kinds_check_config(const struct kinds *ks, FILE *out);
/* The entries a pass plans from (source_kinds_begin): for each cgroups
 * entry of the plan, the kind that counts it, what its fallback:
 * declined when its kind cannot run (TARGET_COUNTED: nothing,
 * TARGET_REFUSED, TARGET_SKIP_ASKED), and how it counts in the log's
 * words ("mode perf" by default). */
struct source_entries {
	const struct source_kind **kind;	/* [cfg->nr_targets] */
	enum target_why *declined;
	const char **mode;
};
/* The start of a pass: every kind told what the cgroups entries matched
 * (matched NULL: none, no cgroup hierarchy; rebuild: see struct
 * source_rescan), then each entry's kind into e.  0 or -ENOMEM. */
int source_kinds_begin(const struct kinds *ks,
    const struct cgroup_list *matched, int rebuild, struct asks *as,
    struct source_entries *e);
/* 1: room is freed for what had none, at the next collection. */
int source_kinds_tally(const struct kinds *ks, size_t no_room,
    size_t refused, const char *names);
/* What each kind gathers for its sources before they are read: a
 * collection and a CPU change call it before their read loop. */
void source_kinds_refresh(const struct kinds *ks);
/* 1 or 0 as a kind says why the target named name is unopened, from
 * what the collector knows of it (why); -1 no kind says. */
int source_check_unopened(const struct kinds *ks, const char *name,
    enum target_why why, FILE *out);
/* The guess of kind, group gi's, why it never ran on unsched CPUs (cpu
 * one): 1 a problem (said), 0 nothing to say. */
int source_check_unscheduled(const struct kinds *ks,
    const struct source_kind *kind, size_t gi, size_t unsched, int cpu,
    FILE *out);
/* A target's holds (attached[SOURCE_KINDS]) from the kinds of its groups
 * (used[nused], each once) that attach, for the target cgroup whose
 * directory is cgfd: 0; -ENOSPC no room in one; another -errno.
 * source_detach: every hold released, attached[] emptied. */
int source_attach(const struct kinds *ks,
    const struct source_kind *const *used, size_t nused,
    struct source_hold **attached, const char *cgroup, int cgfd);
void source_detach(struct source_hold **attached);
/* What kind holds for a target whose kinds hold attached[SOURCE_KINDS]
 * (NULL: nothing), for its instances' sources to open from (at->held). */
const struct source_hold *source_held(struct source_hold *const *attached,
    const struct source_kind *kind);
/* An instance's source (at), of kind: its hook's answer (source_kind.open). */
int source_open(const struct kinds *ks, const struct source_kind *kind,
    const struct source_at *at, int cgfd, struct source_opened *o,
    struct source **out);
/* May an adopted instance of kind keep s, the kind holding h for its
 * target? */
int source_current(const struct source_kind *kind, const struct source_hold *h,
    const struct source *s);

#endif
