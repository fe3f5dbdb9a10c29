/*
 * target.c - one target: the system-wide CPUs or one cgroup, with the
 * groups it counts (see target.h).  Its groups by config group (an
 * open-addressing table), its relabelled labels, opening itself within
 * the fd budget it is given (its cgroup's directory, what its kinds
 * attach, every instance: instance.c), enabling, and its last read
 * before it goes.  Which targets the set holds is targetset.c's.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/cgroot.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/report.h"
#include "collectors/collector/target.h"

/* ---- targets ------------------------------------------------------ */

/* Close and free tg's instances. */
static void
insts_free(struct tgroup *tg)
{
	size_t j;

	for (j = 0; j < tg->cpus.nr && tg->inst; j++)
		inst_fini(&tg->inst[j]);
	free(tg->inst);
	tg->inst = NULL;
}

void
target_free(struct target *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->nr_groups; i++) {
		insts_free(&t->groups[i]);
		for (j = 0; j < t->groups[i].nr_off; j++)
			inst_fini(&t->groups[i].off[j]);
		free(t->groups[i].off);
		free(t->groups[i].gone);
		cpumap_free(&t->groups[i].cpus);
	}
	free(t->groups);
	free(t->at);
	/* After the instances: their sources may read what was attached. */
	source_detach(t->attached);
	for (i = 0; i < t->nr_labels; i++) {
		free(t->lname[i]);
		free(t->lvalue[i]);
	}
	free(t->lname);
	free(t->lvalue);
	free(t->cgroup);
	free(t);
}

/* Add label name=value unless the target has that label already. */
static int
target_add_label(struct target *t, const char *name, const char *value)
{
	char **n, **v;
	size_t i;

	for (i = 0; i < t->nr_labels; i++)
		if (strcmp(t->lname[i], name) == 0)
			return 0;
	n = realloc(t->lname, (t->nr_labels + 1) * sizeof(*n));
	if (n == NULL)
		return -ENOMEM;
	t->lname = n;
	v = realloc(t->lvalue, (t->nr_labels + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	t->lvalue = v;
	if ((n[t->nr_labels] = strdup(name)) == NULL)
		return -ENOMEM;
	if ((v[t->nr_labels] = strdup(value)) == NULL) {
		free(n[t->nr_labels]);
		return -ENOMEM;
	}
	t->nr_labels++;
	return 0;
}

struct target *
target_new(const char *cgroup)
{
	struct target *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if (cgroup && (t->cgroup = strdup(cgroup)) == NULL) {
		free(t);
		return NULL;
	}
	t->state = TARGET_UNOPENED;
	t->declined = TARGET_COUNTED;
	return t;
}

/*
 * Every entry naming a target adds its groups through target_find_group,
 * so a target of 20,000 groups must not scan its list for each one.  A
 * target of a few groups (most cgroups: one or two) does scan it, and
 * pays no more memory than its groups; past TARGET_SCAN_MAX, t->at finds
 * them: an open-addressing table of positions in t->groups, kept at most
 * half full.
 */
#define TARGET_SCAN_MAX 8

static size_t
at_home(const struct target *t, size_t gi)
{
	return (size_t)(((uint64_t)gi * 0x9e3779b97f4a7c15ULL) >> 32) &
	    t->at_mask;
}

static struct tgroup *
target_find_group(struct target *t, size_t gi)
{
	size_t i, h;

	if (t->at == NULL) {
		for (i = 0; i < t->nr_groups; i++)
			if (t->groups[i].gi == gi)
				return &t->groups[i];
		return NULL;
	}
	for (h = at_home(t, gi); t->at[h]; h = (h + 1) & t->at_mask)
		if (t->groups[t->at[h] - 1].gi == gi)
			return &t->groups[t->at[h] - 1];
	return NULL;
}

/* Enter t->groups[i] in t->at. */
static void
at_put(struct target *t, size_t i)
{
	size_t h;

	for (h = at_home(t, t->groups[i].gi); t->at[h];
	    h = (h + 1) & t->at_mask)
		;
	t->at[h] = (uint32_t)i + 1;
}

/* Make room for one more group in t->groups (and t->at). */
static int
target_grow(struct target *t)
{
	struct tgroup *tmp;
	size_t cap, i;
	uint32_t *at;

	if (t->nr_groups < t->cap_groups)
		return 0;
	cap = t->cap_groups ? 2 * t->cap_groups : 1;
	if ((tmp = realloc(t->groups, cap * sizeof(*tmp))) == NULL)
		return -ENOMEM;
	t->groups = tmp;
	if (cap <= TARGET_SCAN_MAX) {
		t->cap_groups = cap;
		return 0;
	}
	if ((at = calloc(2 * cap, sizeof(*at))) == NULL)
		return -ENOMEM;
	free(t->at);
	t->at = at;
	t->at_mask = 2 * cap - 1;
	t->cap_groups = cap;
	for (i = 0; i < t->nr_groups; i++)
		at_put(t, i);
	return 0;
}

/* The cgroup's directory, for its sources to open in; -errno. */
static int
target_dir(const struct inst_ctx *x, const struct target *t)
{
	int fd = cgroupfs_open_dir(x->k->cg->path, t->cgroup);

	if (fd < 0)
		REPORT(x->k->rp, LOG_DEBUG, t->cgroup, NULL, NULL, -1, -fd,
		    "cgroup %s: %s%s: "
		    "%s", t->cgroup, x->k->cg->path, t->cgroup, strerror(-fd));
	return fd;
}

/*
 * During a rebuild (ad), the group whose instances tg's take over: the
 * old target's group of the same name counted with the same per_cpu and
 * kind, in any state, with instances or the counts of some (a departed
 * target's, target_depart); NULL if none.
 */
static struct tgroup *
old_group(const struct inst_ctx *x, const struct adopt *ad,
    const struct target *t, const struct tgroup *tg)
{
	const char *want = x->k->ps->cfg->groups[tg->gi].name;
	struct target *o = target_find(ad->old, ad->nr, t->cgroup);
	size_t j;

	for (j = 0; o && j < o->nr_groups; j++) {
		struct tgroup *og = &o->groups[j];

		if ((og->inst != NULL || og->gone || og->nr_off) &&
		    og->per_cpu == tg->per_cpu &&
		    og->kind == tg->kind &&
		    strcmp(ad->cfg->groups[og->gi].name, want) == 0)
			return og;
	}
	return NULL;
}

/*
 * Every instance of t allocated and opened, adopting from ad's old
 * targets during a rebuild (ad NULL: none), enabled if enable is set;
 * the perf fds they hold added to *fds.  An old target counting another
 * cgroup than t's (removed and made again at the path) is not adopted
 * from: its counts go on in t's series (instance.c).  0 or -errno.
 */
static int
target_open_groups(const struct inst_ctx *x, struct target *t,
    const struct adopt *ad, int cgfd, struct asks *as, int enable,
    size_t *fds)
{
	const struct target *o = ad && t->cgroup ?
	    target_find(ad->old, ad->nr, t->cgroup) : NULL;
	const struct inst_target it = { t->cgroup, target_name(t), cgfd,
	    t->attached, ad ? ad->cfg : NULL, o && o->id != t->id };
	size_t i, j;
	int r;

	for (i = 0; i < t->nr_groups; i++) {
		struct tgroup *tg = &t->groups[i];
		struct tgroup *og = ad ? old_group(x, ad, t, tg) : NULL;

		tg->inst = calloc(tg->cpus.nr ? tg->cpus.nr : 1,
		    sizeof(*tg->inst));
		if (tg->inst == NULL)
			return -ENOMEM;
		for (j = 0; j < tg->cpus.nr; j++) {
			r = inst_take(x, &it, tg, og, j, as);
			if (r == -ENOMEM || (r == -EBADF && t->cgroup))
				return r;	/* EBADF: the cgroup went */
			if (tg->inst[j].state != INST_OK)
				continue;
			if (enable)
				source_enable(tg->inst[j].src);
			*fds += tg->inst[j].src->fds;
		}
		if (og && (r = inst_carry_gone(x, &it, tg, og)) < 0)
			return r;
	}
	return 0;
}

/* The kinds t's groups are counted by, each once, into used[SOURCE_KINDS];
 * how many. */
static size_t
target_kinds(const struct target *t, const struct source_kind **used)
{
	size_t i, k, n = 0;

	for (i = 0; i < t->nr_groups; i++) {
		for (k = 0; k < n && used[k] != t->groups[i].kind; k++)
			;
		if (k == n)
			used[n++] = t->groups[i].kind;
	}
	return n;
}

/*
 * Open t if the perf fds it needs fit in budget: its cgroup's directory,
 * what its kinds attach (a kind may give it a slot), every instance;
 * enabled if enable is set.  The perf fds it holds now; -E2BIG over the
 * budget (TARGET_SKIPPED), -ENOSPC no room in its kind (TARGET_NO_ROOM),
 * another
 * -errno when the cgroup vanished, -ENOMEM.
 */
long
target_open(const struct inst_ctx *x, struct target *t, const struct adopt *ad,
    struct asks *as, size_t budget, int enable)
{
	const struct source_kind *used[SOURCE_KINDS];
	size_t need = 0, fds = 0, i;
	int cgfd = -1, r;

	/* A kind whose sources are perf groups of their own: an fd per
	 * event per CPU. */
	for (i = 0; i < t->nr_groups; i++)
		if (t->groups[i].kind->own_fds)
			need += x->k->ps->cfg->groups[t->groups[i].gi].
			    nr_events * t->groups[i].cpus.nr;
	if (need > budget) {
		t->state = TARGET_SKIPPED;
		return -E2BIG;
	}
	t->state = TARGET_UNOPENED;
	if (t->cgroup && (cgfd = target_dir(x, t)) < 0)
		return cgfd;
	/* The cgroup it counts from now on, whatever the walk saw. */
	if (t->cgroup && (r = cgroupfs_ino(cgfd, &t->id)) < 0)
		goto out;
	if (t->cgroup && (r = source_attach(x->k, used, target_kinds(t, used),
	    t->attached, t->cgroup, cgfd)) < 0) {
		if (r == -ENOSPC)
			t->state = TARGET_NO_ROOM;
		goto out;
	}
	if ((r = target_open_groups(x, t, ad, cgfd, as, enable, &fds)) < 0) {
		/* A target that did not open holds nothing: the next pass
		 * opens it whole. */
		for (i = 0; i < t->nr_groups; i++)
			insts_free(&t->groups[i]);
		goto out;
	}
	t->state = TARGET_COUNTED;
out:
	if (cgfd >= 0)
		close(cgfd);
	return r < 0 ? r : (long)fds;
}

/*
 * t counts no more but stays in the set, unopened: its instances closed
 * and what its kinds attached released (a kind's slot may be free again
 * only after the next refresh).  A later pass may open it again.
 */
void
target_close(struct target *t)
{
	size_t i;

	for (i = 0; i < t->nr_groups; i++)
		insts_free(&t->groups[i]);
	source_detach(t->attached);
	t->state = TARGET_UNOPENED;
}

/* Perf fds t holds. */
size_t
target_fds(const struct target *t)
{
	size_t i, k, n = 0;

	for (i = 0; target_is_open(t) && i < t->nr_groups; i++)
		for (k = 0; k < t->groups[i].cpus.nr && t->groups[i].inst; k++)
			n += t->groups[i].inst[k].src ?
			    t->groups[i].inst[k].src->fds : 0;
	return n;
}

void
target_enable(struct target *t)
{
	size_t i, j;

	if (!target_is_open(t))
		return;
	for (i = 0; i < t->nr_groups; i++)
		for (j = 0; j < t->groups[i].cpus.nr; j++)
			if (t->groups[i].inst[j].state == INST_OK)
				source_enable(t->groups[i].inst[j].src);
}

/*
 * Add group gi to t on the CPUs of cpus that are online and that its PMU
 * covers (an uncore PMU's cpumask, a hybrid core PMU's cpus: an event
 * opens only there), or widen the group's CPUs by them.  Any entry
 * asking for the per-CPU split gets it.  Entries asking for different
 * kinds get the default, perf mode, the one every group can count in:
 * a choice the log reports (a warning, once per target and group as it
 * is planned), since one of the entries does not get what it says.
 */
static int
target_add_pmu_group(const struct inst_ctx *x, struct target *t, size_t gi,
    const struct cpumap *cpus, int per_cpu, const struct source_kind *kind)
{
	const struct plan_group *g = &x->k->ps->cfg->groups[gi];
	struct tgroup *tg = target_find_group(t, gi);
	char want[256], have[256];
	int n;

	if (tg) {
		tg->per_cpu |= per_cpu;
		if (tg->kind != kind) {
			REPORT(x->k->rp, LOG_WARNING, t->cgroup, g->name, NULL,
			    -1, 0,
			    "group \"%s\" for %s is asked for in mode %s "
			    "and in mode %s by two cgroups entries: it is "
			    "counted in mode perf", g->name, target_name(t),
			    tg->kind->desc->name, kind->desc->name);
			tg->kind = &source_perf_kind;
		}
	} else {
		if (target_grow(t) < 0)
			return -ENOMEM;
		tg = &t->groups[t->nr_groups];
		memset(tg, 0, sizeof(*tg));
		tg->gi = gi;
		tg->per_cpu = per_cpu;
		tg->kind = kind;
	}
	/* A new group's slot is taken only below: on failure it is not. */
	n = cpumap_merge(&tg->cpus, cpus, x->k->online,
	    g->pmu_cpus ? &g->cpus : NULL);
	if (n < 0)
		return n;
	if (n == 0 && g->pmu_cpus && t->cgroup == NULL)
		REPORT(x->k->rp, LOG_WARNING, NULL, g->name, NULL, -1, 0,
		    "%s:%d:%d: group \"%s\" counts PMU \"%s\", which "
		    "covers CPUs %s only, none of the CPUs %s; it is not "
		    "counted there", x->k->ps->cfg->source, g->line, g->col,
		    g->name,
		    g->pmu, cpumap_format(&g->cpus, have, sizeof(have)),
		    cpumap_format(cpus, want, sizeof(want)));
	if (tg != &t->groups[t->nr_groups])
		return 0;
	if (n == 0 && g->pmu_cpus) {
		cpumap_free(&tg->cpus);	/* on none of its PMU's CPUs */
		return 0;
	}
	if (t->at)
		at_put(t, t->nr_groups);
	t->nr_groups++;
	return 0;
}

/* A target the set no longer holds: one last read, then its fds are
 * closed and it is freed. */
void
target_retire(struct target *t)
{
	size_t i, k;

	for (i = 0; target_is_open(t) && i < t->nr_groups; i++)
		for (k = 0; k < t->groups[i].cpus.nr; k++) {
			struct inst *in = &t->groups[i].inst[k];

			if (in->state == INST_OK)
				source_read(in->src, in->cur);
		}
	target_free(t);
}

/*
 * Room for tg's counts when its target departs (tgroup_fold): a summed
 * series' in tg->gone, a per-CPU one's instances in tg->off.  0 or
 * -ENOMEM.
 */
static int
tgroup_fold_room(struct tgroup *tg, size_t ne, int summed)
{
	struct inst *off;
	size_t want = tg->nr_off + tg->cpus.nr;

	if (summed)
		return tg->gone || (tg->gone = calloc(ne + 1,
		    sizeof(*tg->gone))) ? 0 : -ENOMEM;
	if (want <= tg->cap_off)
		return 0;
	if ((off = realloc(tg->off, want * sizeof(*off))) == NULL)
		return -ENOMEM;
	tg->off = off;
	tg->cap_off = want;
	return 0;
}

/*
 * tg's instances read one last time and folded: a summed cgroup series'
 * counts into tg->gone, a per-CPU one's instances, closed, into tg->off,
 * as hotplug leaves a CPU gone offline (instance.c), so that a later
 * target takes them with inst_inherit and inst_carry_gone.  Without
 * room for them (tgroup_fold_room failed), they are lost: the series
 * starts anew if it comes back.
 */
static void
tgroup_fold(struct tgroup *tg, size_t ne, int summed)
{
	int room = tgroup_fold_room(tg, ne, summed) == 0;
	struct inst *in;
	size_t k, e;

	for (k = 0; k < tg->cpus.nr && tg->inst; k++) {
		in = &tg->inst[k];
		if (in->state == INST_OK)
			(void)inst_read(in);
		inst_close(in, INST_CLOSED);
		if (!room || in->acc == NULL)
			continue;
		if (summed) {
			for (e = 0; e < ne; e++)
				scale_add(&tg->gone[e], &in->acc[e]);
			tg->gone_enabled_ns += in->enabled_ns;
			tg->gone_running_ns += in->running_ns;
		} else {
			tg->off[tg->nr_off++] = *in;	/* its block moves */
			memset(in, 0, sizeof(*in));
		}
	}
	insts_free(tg);
	cpumap_free(&tg->cpus);
}

/* See target.h. */
int
target_depart_room(struct target *t, const struct plan *cfg)
{
	size_t i;

	for (i = 0; target_is_open(t) && i < t->nr_groups; i++)
		if (tgroup_fold_room(&t->groups[i],
		    cfg->groups[t->groups[i].gi].nr_events,
		    t->cgroup != NULL && !t->groups[i].per_cpu) < 0)
			return -ENOMEM;
	return 0;
}

/* See target.h. */
void
target_depart(struct target *t, const struct plan *cfg)
{
	size_t i;

	for (i = 0; target_is_open(t) && i < t->nr_groups; i++)
		tgroup_fold(&t->groups[i],
		    cfg->groups[t->groups[i].gi].nr_events,
		    t->cgroup != NULL && !t->groups[i].per_cpu);
	for (i = 0; i < t->nr_groups; i++)
		insts_free(&t->groups[i]);
	source_detach(t->attached);
	t->state = TARGET_UNOPENED;
}

/* The system-wide target's groups from a cpus: entry, on the CPUs it
 * lists that are online.  0 or -ENOMEM. */
int
target_plan_cpus(const struct inst_ctx *x, struct target *t,
    const struct plan_target *ct)
{
	struct cpumap m = { 0, NULL };
	char want[256], have[256];
	size_t j;
	int r = 0;

	/* target_add_pmu_group takes the online ones. */
	for (j = 0; j < ct->nr_groups && r == 0; j++)
		r = target_add_pmu_group(x, t, ct->groups[j],
		    ct->all_cpus ? x->k->online : &ct->cpus, 1,
		    &source_perf_kind);
	if (r == 0 && !ct->all_cpus && (r = cpumap_merge(&m, &ct->cpus,
	    x->k->online, NULL)) >= 0 && (size_t)r < ct->cpus.nr)
		SAY(x->k->rp, LOG_WARNING, 0,
		    "%s:%d:%d: CPUs %s are listed but only %s of them are "
		    "online; counting those", x->k->ps->cfg->source, ct->line,
		    ct->col,
		    cpumap_format(&ct->cpus, want, sizeof(want)), m.nr ?
		    cpumap_format(&m, have, sizeof(have)) : "none");
	cpumap_free(&m);
	return r < 0 ? r : 0;
}

/*
 * A cgroup target's relabelled labels and groups from a cgroups: entry
 * that matches it, counted by kind unless its fallback: declined it
 * (source.h, struct source_entries).  0 or -ENOMEM.
 */
int
target_plan_entry(const struct inst_ctx *x, struct target *t,
    const struct plan_target *ct, const struct source_kind *kind,
    enum target_why declined)
{
	char value[1024];
	size_t k;

	/* Its kind cannot run, and its fallback is no other kind: the
	 * strongest refusal stays. */
	if (declined == TARGET_REFUSED)
		t->declined = TARGET_REFUSED;
	else if (declined == TARGET_SKIP_ASKED && t->declined == TARGET_COUNTED)
		t->declined = TARGET_SKIP_ASKED;
	for (k = 0; k < ct->nr_relabel; k++)
		if (plan_relabel_apply(&ct->relabel[k], t->cgroup, value,
		    sizeof(value)) && value[0] && target_add_label(t,
		    ct->relabel[k].target_label, value) < 0)
			return -ENOMEM;
	for (k = 0; k < ct->nr_groups && declined == TARGET_COUNTED; k++)
		if (target_add_pmu_group(x, t, ct->groups[k], x->k->online,
		    ct->per_cpu, kind) < 0)
			return -ENOMEM;
	return 0;
}
