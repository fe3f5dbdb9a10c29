/*
 * collector.c - targets, group instances and the collector thread (see
 * collector.h).
 *
 * Shape of the data:
 *
 *   collector
 *     target[]            system-wide (cgroup == NULL) or one cgroup
 *       tgroup[]          one config group counted on this target
 *         inst[]          the group on one CPU: a perf group and its
 *                         accumulators
 *
 * The thread wakes on a timerfd, reads every instance with one read(),
 * adds the scaled deltas to monotonic accumulators, and builds a snapshot
 * that owns copies of everything it shows.  Nothing here formats text.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "collectors/cgroupfs.h"
#include "collectors/cgwatch.h"
#include "collectors/collector.h"
#include "collectors/event.h"
#include "collectors/group.h"

enum inst_state { INST_OK, INST_CLOSED, INST_BROKEN };

#define PROBE_MAX 32		/* counters probed for at most */

struct inst {
	int cpu;
	enum inst_state state;
	struct perf_group pg;
	struct count *prev;		/* [nr_events] last reading */
	struct count *cur;		/* [nr_events] scratch */
	struct scaled *acc;		/* [nr_events] */
	uint64_t enabled_ns, running_ns;	/* sums of deltas */
	uint64_t prev_enabled, prev_running;
	uint64_t last_de, last_dr;	/* the last interval's deltas */
	int no_perf_cgroup;		/* failed: the cgroup, not the events */
};

struct tgroup {
	size_t gi;			/* index into cfg->groups */
	int per_cpu;
	struct cpumap cpus;
	struct inst *inst;		/* [cpus.nr] */
	int unscheduled;		/* reported as never scheduled */
};

struct target {
	char *cgroup;			/* NULL: system-wide */
	size_t nr_groups;
	struct tgroup *groups;
	size_t nr_labels;		/* from relabel rules */
	char **lname, **lvalue;
	int seen;			/* rescan mark: 0 gone, 1 kept, 2 new */
	int opened;			/* instances exist */
	int skipped;			/* over the fd budget, reported */
};

struct collector {
	const struct config *cfg;
	struct collector_opts o;
	char cgroot[4096];
	int cgroot_v2, have_cgroot;
	struct cpumap online;
	struct perf_event_attr **attrs;	/* [group][event] */
	int **ev_logged;		/* [group][event]: reported unsupported */

	struct target **targets;
	size_t nr_targets, cap_targets;

	struct snapshot_slot slot;
	pthread_t thread;
	int started;
	int stopfd, timerfd;
	uint64_t seq;
	uint64_t last_rescan_ns;
	atomic_uint_fast64_t heartbeat;
	int logged_emfile, logged_eacces, logged_no_perf_cgroup;
	int *pattern_empty;		/* [cfg target]: reported matching none */

	/* Discovery. */
	struct cgwatch *watch;		/* NULL without inotify */
	int rescan_due;			/* inotify saw a change */
	int retry_due;			/* instances failed: reopen at rescan */
	int logged_watch;
	uint64_t max_fds;
	size_t cg_matched, cg_counted, cg_skipped;
	int online_fd;			/* <sysfs>/devices/system/cpu/online */
	char online_text[256];

	/* During a reload: the old targets whose instances may be adopted. */
	struct target **adopt;
	size_t nr_adopt;
	const struct config *adopt_cfg;

	pthread_mutex_t info_lock;	/* guards what main reports to us */
	int reload_ok;
	double reload_success_s;
};

#define REPORT(c, prio, cg, grp, ev, cpu, err, ...)			\
	(c)->o.log((prio), &(const struct log_fields){ (cg), (grp), (ev),	\
	    (cpu), (err) }, __VA_ARGS__)

static int rebuild(struct collector *c, const struct config *cfg);
static int online_changed(struct collector *c);
static void online_open(struct collector *c);
static uint64_t fd_budget(const struct config *cfg);

static void
nolog(int prio, const struct log_fields *f, const char *fmt, ...)
{
	(void)prio;
	(void)f;
	(void)fmt;
}

static uint64_t
now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- instances ---------------------------------------------------- */

static int
inst_init(struct inst *in, int cpu, size_t nr_events)
{
	memset(in, 0, sizeof(*in));
	in->cpu = cpu;
	in->state = INST_CLOSED;
	in->prev = calloc(nr_events, sizeof(*in->prev));
	in->cur = calloc(nr_events, sizeof(*in->cur));
	in->acc = calloc(nr_events, sizeof(*in->acc));
	if (!in->prev || !in->cur || !in->acc)
		return -ENOMEM;
	return group_init(&in->pg, nr_events);
}

static void
inst_fini(struct inst *in)
{
	group_fini(&in->pg);
	free(in->prev);
	free(in->cur);
	free(in->acc);
}

static const char *
target_name(const struct target *t)
{
	return t->cgroup ? t->cgroup : "system-wide";
}

static void
report_open_error(struct collector *c, const struct target *t,
    const struct tgroup *tg, int cpu, int e)
{
	const struct cfg_group *g = &c->cfg->groups[tg->gi];
	struct rlimit rl;

	if (e == EMFILE || e == ENFILE) {
		if (c->logged_emfile++)
			return;
		getrlimit(RLIMIT_NOFILE, &rl);
		REPORT(c, 3, t->cgroup, g->name, NULL, cpu, e,
		    "cannot open group \"%s\" on cpu %d for %s: %s; "
		    "the open-files limit is %llu: raise it (LimitNOFILE= "
		    "in the unit, or ulimit -n) or count fewer targets",
		    g->name, cpu, target_name(t), strerror(e),
		    (unsigned long long)rl.rlim_cur);
	} else if (e == EACCES || e == EPERM) {
		if (c->logged_eacces++)
			return;
		REPORT(c, 3, t->cgroup, g->name, NULL, cpu, e,
		    "perf_event_open for group \"%s\" on cpu %d: %s: "
		    "run as root, or grant CAP_PERFMON (CAP_SYS_ADMIN before "
		    "Linux 5.8), or lower kernel.perf_event_paranoid",
		    g->name, cpu, strerror(e));
	} else if (t->cgroup && (e == EBADF || e == ENOENT)) {
		REPORT(c, 7, t->cgroup, g->name, NULL, cpu, e,
		    "cgroup %s vanished while opening group \"%s\"",
		    t->cgroup, g->name);
	} else {
		REPORT(c, 4, t->cgroup, g->name, NULL, cpu, e,
		    "cannot open group \"%s\" on cpu %d for %s: %s",
		    g->name, cpu, target_name(t), strerror(e));
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
report_no_perf_cgroup(struct collector *c, const struct target *t,
    const struct tgroup *tg, int cpu)
{
	const struct cfg_group *g = &c->cfg->groups[tg->gi];
	char ctl[256];

	if (c->logged_no_perf_cgroup++) {
		REPORT(c, 7, t->cgroup, g->name, NULL, cpu, ENOENT,
		    "cgroup %s has no perf_event controller state either",
		    t->cgroup);
		return;
	}
	if (c->cgroot_v2 && cgroupfs_subtree_control(c->cgroot, ctl,
	    sizeof(ctl)) == 0 && ctl[0] == '\0')
		REPORT(c, 3, t->cgroup, g->name, NULL, cpu, ENOENT,
		    "cgroup %s cannot be counted: perf_event_open in cgroup "
		    "mode fails with ENOENT (%s) even for a software event, "
		    "because the kernel has not set up the perf_event "
		    "controller for it: %s/cgroup.subtree_control is empty, "
		    "nothing has ever enabled a controller in this cgroup2 "
		    "hierarchy (systemd does at boot; a bare initramfs or a "
		    "minimal container host does not). Enable one, for "
		    "example: echo +cpu > %s/cgroup.subtree_control; "
		    "cgroups are tried again at the next rescan "
		    "(cgroup_rescan_interval) or reload", t->cgroup,
		    strerror(ENOENT), c->cgroot, c->cgroot);
	else
		REPORT(c, 3, t->cgroup, g->name, NULL, cpu, ENOENT,
		    "cgroup %s cannot be counted: perf_event_open in cgroup "
		    "mode fails with ENOENT (%s) even for a software event: "
		    "the kernel has no perf_event controller state for it "
		    "(cgroup2 at %s: enable a controller in its "
		    "cgroup.subtree_control; cgroup v1: mount the perf_event "
		    "controller); it is tried again at the next rescan",
		    t->cgroup, strerror(ENOENT), c->cgroot);
}

/* Open one instance; unsupported events are reported once per event. */
static int
inst_open(struct collector *c, struct target *t, struct tgroup *tg,
    struct inst *in, int cgfd)
{
	const struct cfg_group *g = &c->cfg->groups[tg->gi];
	size_t i;
	int r;

	r = group_open(&in->pg, c->attrs[tg->gi], t->cgroup ? cgfd : -1,
	    in->cpu, t->cgroup ? PERF_FLAG_PID_CGROUP : 0);
	/* All ENOENT in cgroup mode: the events, or the cgroup? */
	in->no_perf_cgroup = r == -ENOENT && t->cgroup && cgfd >= 0 &&
	    cgroupfs_alive(cgfd) &&
	    group_probe_cgroup(cgfd, in->cpu) == -ENOENT;
	for (i = 0; i < g->nr_events; i++) {
		int e = in->pg.err[i];

		if (e == 0 || in->no_perf_cgroup || (r < 0 && (e == EMFILE ||
		    e == ENFILE || e == EACCES || e == EPERM || e == EBADF)))
			continue;
		if (c->ev_logged[tg->gi][i]++)
			continue;
		REPORT(c, 4, t->cgroup, g->name, g->events[i].name, in->cpu, e,
		    "%s:%d:%d: event \"%s\" in group \"%s\" cannot be "
		    "counted on cpu %d: %s; the rest keep counting",
		    c->cfg->source, g->events[i].line, g->events[i].col,
		    g->events[i].name, g->name, in->cpu, strerror(e));
	}
	if (r < 0) {
		if (in->no_perf_cgroup)
			report_no_perf_cgroup(c, t, tg, in->cpu);
		else
			report_open_error(c, t, tg, in->cpu, -r);
		in->state = INST_BROKEN;
		/* A CPU that went away while we opened, or a cgroup the
		 * controller was not set up for yet: try again later. */
		if (r == -ENODEV || in->no_perf_cgroup)
			c->retry_due = 1;
		return r;
	}
	memset(in->prev, 0, g->nr_events * sizeof(*in->prev));
	in->prev_enabled = in->prev_running = 0;
	in->state = INST_OK;
	return 0;
}

/* ---- targets ------------------------------------------------------ */

static void
target_free(struct target *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->nr_groups; i++) {
		for (j = 0; j < t->groups[i].cpus.nr && t->groups[i].inst; j++)
			inst_fini(&t->groups[i].inst[j]);
		free(t->groups[i].inst);
		cpumap_free(&t->groups[i].cpus);
	}
	free(t->groups);
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

static struct target *
target_new(const char *cgroup)
{
	struct target *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if (cgroup && (t->cgroup = strdup(cgroup)) == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

static struct tgroup *
target_find_group(struct target *t, size_t gi)
{
	size_t i;

	for (i = 0; i < t->nr_groups; i++)
		if (t->groups[i].gi == gi)
			return &t->groups[i];
	return NULL;
}

/* Add group gi on cpus to t, or widen its CPUs to the union. */
static int
target_add_group(struct target *t, size_t gi, const struct cpumap *cpus,
    int per_cpu)
{
	struct tgroup *tg = target_find_group(t, gi), *tmp;
	struct cpumap u;
	size_t i, n;

	if (tg) {
		/* Any entry asking for the per-CPU split gets it. */
		tg->per_cpu |= per_cpu;
		u.cpu = malloc((tg->cpus.nr + cpus->nr + 1) * sizeof(int));
		if (u.cpu == NULL)
			return -ENOMEM;
		n = 0;
		for (i = 0; i < tg->cpus.nr; i++)
			u.cpu[n++] = tg->cpus.cpu[i];
		for (i = 0; i < cpus->nr; i++)
			if (!cpumap_has(&tg->cpus, cpus->cpu[i]))
				u.cpu[n++] = cpus->cpu[i];
		u.nr = n;
		/* Re-sort through the parser's canonical form. */
		{
			int *a = u.cpu;
			size_t x, y;

			for (x = 1; x < n; x++)
				for (y = x; y > 0 && a[y - 1] > a[y]; y--) {
					int s = a[y];

					a[y] = a[y - 1];
					a[y - 1] = s;
				}
		}
		cpumap_free(&tg->cpus);
		tg->cpus = u;
		return 0;
	}
	tmp = realloc(t->groups, (t->nr_groups + 1) * sizeof(*tmp));
	if (tmp == NULL)
		return -ENOMEM;
	t->groups = tmp;
	tg = &t->groups[t->nr_groups];
	memset(tg, 0, sizeof(*tg));
	tg->gi = gi;
	tg->per_cpu = per_cpu;
	if ((tg->cpus.cpu = malloc((cpus->nr + 1) * sizeof(int))) == NULL)
		return -ENOMEM;
	memcpy(tg->cpus.cpu, cpus->cpu, cpus->nr * sizeof(int));
	tg->cpus.nr = cpus->nr;
	t->nr_groups++;
	return 0;
}

/* Same name and the very same events: a group a reload may keep. */
static int
group_same(const struct cfg_group *a, const struct cfg_group *b)
{
	size_t i;

	if (strcmp(a->name, b->name) != 0 || a->nr_events != b->nr_events)
		return 0;
	for (i = 0; i < a->nr_events; i++)
		if (strcmp(a->events[i].name, b->events[i].name) != 0 ||
		    memcmp(&a->events[i].attr, &b->events[i].attr,
		    sizeof(a->events[i].attr)) != 0)
			return 0;
	return 1;
}

/*
 * During a reload or rebuild: the old instance counting the same group
 * (same name, same events, same per_cpu) on the same CPU for the same
 * target, in any state, or NULL.
 */
static struct inst *
old_inst(struct collector *c, const struct target *t,
    const struct tgroup *tg, int cpu)
{
	const struct cfg_group *want = &c->cfg->groups[tg->gi];
	size_t i, j, k;

	for (i = 0; i < c->nr_adopt; i++) {
		struct target *o = c->adopt[i];

		if ((o->cgroup == NULL) != (t->cgroup == NULL) ||
		    (o->cgroup && strcmp(o->cgroup, t->cgroup) != 0))
			continue;
		for (j = 0; j < o->nr_groups; j++) {
			struct tgroup *og = &o->groups[j];

			if (og->inst == NULL || og->per_cpu != tg->per_cpu ||
			    !group_same(&c->adopt_cfg->groups[og->gi], want))
				continue;
			for (k = 0; k < og->cpus.nr; k++)
				if (og->inst[k].cpu == cpu)
					return &og->inst[k];
		}
		return NULL;
	}
	return NULL;
}

/*
 * Take over the old instance that counts the same group on the same CPU
 * for the same target, with its fds and accumulators, so its series
 * continue.  Returns 1 if dst now holds it.
 */
static int
inst_adopt(struct collector *c, const struct target *t,
    const struct tgroup *tg, int cpu, struct inst *dst)
{
	struct inst *in = old_inst(c, t, tg, cpu);

	if (in == NULL || in->state != INST_OK)
		return 0;
	*dst = *in;
	/* The old slot is left empty: freeing it closes and frees nothing. */
	memset(in, 0, sizeof(*in));
	in->state = INST_CLOSED;
	return 1;
}

/*
 * A failed instance being reopened hands its accumulators on, so its
 * series continue instead of restarting at 0.
 */
static void
inst_inherit(struct collector *c, const struct target *t,
    const struct tgroup *tg, struct inst *dst)
{
	struct inst *in = old_inst(c, t, tg, dst->cpu);

	if (in == NULL || in->state != INST_BROKEN)
		return;
	memcpy(dst->acc, in->acc,
	    c->cfg->groups[tg->gi].nr_events * sizeof(*dst->acc));
	dst->enabled_ns = in->enabled_ns;
	dst->running_ns = in->running_ns;
}

/* Allocate and open every instance of t (adopting during a reload). */
static int
target_open(struct collector *c, struct target *t)
{
	char path[8192];
	size_t i, j;
	int cgfd = -1, r;

	if (t->cgroup) {
		snprintf(path, sizeof(path), "%s%s", c->cgroot,
		    strcmp(t->cgroup, "/") == 0 ? "" : t->cgroup);
		cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0) {
			r = -errno;
			REPORT(c, 7, t->cgroup, NULL, NULL, -1, -r,
			    "cgroup %s: %s: %s", t->cgroup, path,
			    strerror(-r));
			return r;
		}
	}
	for (i = 0; i < t->nr_groups; i++) {
		struct tgroup *tg = &t->groups[i];
		size_t ne = c->cfg->groups[tg->gi].nr_events;

		tg->inst = calloc(tg->cpus.nr ? tg->cpus.nr : 1,
		    sizeof(*tg->inst));
		if (tg->inst == NULL) {
			r = -ENOMEM;
			goto out;
		}
		for (j = 0; j < tg->cpus.nr; j++) {
			if (c->adopt && inst_adopt(c, t, tg, tg->cpus.cpu[j],
			    &tg->inst[j]))
				continue;
			if ((r = inst_init(&tg->inst[j], tg->cpus.cpu[j],
			    ne)) < 0)
				goto out;
			r = inst_open(c, t, tg, &tg->inst[j], cgfd);
			if (r == -EBADF && t->cgroup)
				goto out;	/* the cgroup went away */
			if (r == 0 && c->adopt)
				inst_inherit(c, t, tg, &tg->inst[j]);
		}
	}
	t->opened = 1;
	r = 0;
out:
	if (cgfd >= 0)
		close(cgfd);
	return r;
}

static void
target_enable(struct target *t)
{
	size_t i, j;

	if (!t->opened)
		return;
	for (i = 0; i < t->nr_groups; i++)
		for (j = 0; j < t->groups[i].cpus.nr; j++)
			if (t->groups[i].inst[j].state == INST_OK)
				group_enable(&t->groups[i].inst[j].pg, 1);
}

static int
collector_add_target(struct collector *c, struct target *t)
{
	struct target **tmp;

	if (c->nr_targets == c->cap_targets) {
		size_t cap = c->cap_targets ? c->cap_targets * 2 : 16;

		tmp = realloc(c->targets, cap * sizeof(*tmp));
		if (tmp == NULL)
			return -ENOMEM;
		c->targets = tmp;
		c->cap_targets = cap;
	}
	c->targets[c->nr_targets++] = t;
	return 0;
}

/* Order: the system-wide target first, then cgroups by path. */
static int
cmp_target(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a;
	const struct target *y = *(struct target *const *)b;

	if (x->cgroup == NULL || y->cgroup == NULL)
		return (x->cgroup != NULL) - (y->cgroup != NULL);
	return strcmp(x->cgroup, y->cgroup);
}

/*
 * The target for a cgroup path: binary search over the first nsorted
 * targets (kept sorted between rescans), then the ones added since.
 */
static struct target *
collector_find_cgroup(struct collector *c, const char *path,
    size_t nsorted)
{
	struct target key = { .cgroup = (char *)path }, *kp = &key, **f;
	size_t i;

	f = nsorted == 0 ? NULL : bsearch(&kp, c->targets, nsorted,
	    sizeof(*c->targets), cmp_target);
	if (f)
		return *f;
	for (i = nsorted; i < c->nr_targets; i++)
		if (c->targets[i]->cgroup &&
		    strcmp(c->targets[i]->cgroup, path) == 0)
			return c->targets[i];
	return NULL;
}

/*
 * Add group gi on cpus, narrowed to the CPUs its PMU covers (an uncore
 * PMU's cpumask, a hybrid core PMU's cpus): an event opens only there.
 */
static int
target_add_pmu_group(struct collector *c, struct target *t, size_t gi,
    const struct cpumap *cpus, int per_cpu)
{
	const struct cfg_group *g = &c->cfg->groups[gi];
	struct cpumap m;
	char want[256], have[256];
	int r;

	if (!g->pmu_cpus)
		return target_add_group(t, gi, cpus, per_cpu);
	if ((r = cpumap_intersect(cpus, &g->cpus, &m)) < 0)
		return r;
	if (m.nr == 0 && t->cgroup == NULL)
		REPORT(c, 4, NULL, g->name, NULL, -1, 0,
		    "%s:%d:%d: group \"%s\" counts PMU \"%s\", which "
		    "covers CPUs %s only, none of the CPUs %s; it is not "
		    "counted there", c->cfg->source, g->line, g->col, g->name,
		    g->pmu, cpumap_format(&g->cpus, have, sizeof(have)),
		    cpumap_format(cpus, want, sizeof(want)));
	r = m.nr ? target_add_group(t, gi, &m, per_cpu) : 0;
	cpumap_free(&m);
	return r;
}

/* The system-wide target: the union of every cpus: entry. */
static int
build_cpu_target(struct collector *c, struct target **out)
{
	const struct config *cfg = c->cfg;
	struct target *t = NULL;
	struct cpumap m;
	size_t i, j;
	int r;

	for (i = 0; i < cfg->nr_targets; i++) {
		const struct cfg_target *ct = &cfg->targets[i];

		if (ct->kind != CFG_TARGET_CPU)
			continue;
		if (t == NULL && (t = target_new(NULL)) == NULL)
			return -ENOMEM;
		if (ct->all_cpus) {
			m = c->online;
			m.cpu = NULL;
			if ((r = cpumap_intersect(&c->online, &c->online,
			    &m)) < 0)
				goto fail;
		} else {
			if ((r = cpumap_intersect(&ct->cpus, &c->online,
			    &m)) < 0)
				goto fail;
			if (m.nr < ct->cpus.nr) {
				char want[256], have[256];

				REPORT(c, 4, NULL, NULL, NULL, -1, 0,
				    "%s:%d:%d: CPUs %s are listed but "
				    "only %s of them are online; counting "
				    "those", cfg->source, ct->line, ct->col,
				    cpumap_format(&ct->cpus, want,
				    sizeof(want)), m.nr ? cpumap_format(&m,
				    have, sizeof(have)) : "none");
			}
		}
		for (j = 0; j < ct->nr_groups && r == 0; j++)
			r = target_add_pmu_group(c, t, ct->groups[j], &m, 1);
		cpumap_free(&m);
		if (r < 0)
			goto fail;
	}
	*out = t;
	return 0;
fail:
	target_free(t);
	return r;
}

/* During a reload: was this cgroup counted before it? */
static int
was_counted(const struct collector *c, const char *cgroup)
{
	size_t i;

	for (i = 0; i < c->nr_adopt; i++)
		if (c->adopt[i]->cgroup && strcmp(c->adopt[i]->cgroup,
		    cgroup) == 0)
			return 1;
	return 0;
}

/* Perf fds a target holds. */
static size_t
collector_target_fds(const struct target *t)
{
	size_t i, k, n = 0;

	for (i = 0; t->opened && i < t->nr_groups; i++)
		for (k = 0; k < t->groups[i].cpus.nr; k++)
			n += t->groups[i].inst[k].pg.nr;
	return n;
}

/* Perf fds a target will need. */
static size_t
target_need_fds(const struct collector *c, const struct target *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr_groups; i++)
		n += c->cfg->groups[t->groups[i].gi].nr_events *
		    t->groups[i].cpus.nr;
	return n;
}

/* A vanished cgroup: one last read, then its fds are closed. */
static void
target_last_read(struct target *t)
{
	size_t i, k;

	if (!t->opened)
		return;
	for (i = 0; i < t->nr_groups; i++)
		for (k = 0; k < t->groups[i].cpus.nr; k++) {
			struct inst *in = &t->groups[i].inst[k];

			if (in->state == INST_OK)
				group_read(&in->pg, in->cur);
		}
}

/*
 * Expand every cgroups: entry; open targets for new cgroups (within the fd
 * budget) and close the ones that are gone; then point the inotify
 * watches at the directories the expansion read.  0 or -ENOMEM.
 */
static int
rescan_cgroups(struct collector *c, int enable)
{
	const struct config *cfg = c->cfg;
	struct cgroup_list l, dirs = { 0, 0, NULL };
	struct target *t;
	char value[1024];
	size_t i, j, k, nsorted = c->nr_targets, fds;
	int r, any = 0;

	for (i = 0; i < c->nr_targets; i++)
		c->targets[i]->seen = c->targets[i]->cgroup == NULL;
	for (i = 0; i < cfg->nr_targets; i++) {
		const struct cfg_target *ct = &cfg->targets[i];

		if (ct->kind != CFG_TARGET_CGROUP)
			continue;
		any = 1;
		if (!c->have_cgroot)
			continue;
		r = cgroupfs_expand(c->cgroot, ct->path, ct->depth,
		    ct->exclude, ct->nr_exclude, &l, c->watch ? &dirs : NULL);
		if (r < 0) {
			REPORT(c, 4, ct->path, NULL, NULL, -1, -r,
			    "%s:%d:%d: cgroup path %s: %s",
			    cfg->source, ct->line, ct->col, ct->path,
			    strerror(-r));
			if (r == -ENOMEM)
				goto nomem;
			continue;
		}
		if (l.nr == 0 && !c->pattern_empty[i]) {
			c->pattern_empty[i] = 1;
			REPORT(c, 4, ct->path, NULL, NULL, -1, 0,
			    "%s:%d:%d: cgroup path %s matches no "
			    "cgroup under %s (yet); it is counted as soon as "
			    "it appears", cfg->source, ct->line, ct->col,
			    ct->path, c->cgroot);
		} else if (l.nr > 0)
			c->pattern_empty[i] = 0;
		for (j = 0; j < l.nr; j++) {
			t = collector_find_cgroup(c, l.path[j], nsorted);
			if (t && t->opened) {
				t->seen = 1;	/* already counted */
				continue;
			}
			if (t == NULL) {
				if ((t = target_new(l.path[j])) == NULL ||
				    collector_add_target(c, t) < 0) {
					target_free(t);
					cgroup_list_free(&l);
					goto nomem;
				}
			}
			if (t->seen != 2) {
				/* New, or skipped before: planned afresh. */
				t->seen = 2;
			}
			for (k = 0; k < ct->nr_groups; k++)
				if (target_add_pmu_group(c, t, ct->groups[k],
				    &c->online, ct->per_cpu) < 0) {
					cgroup_list_free(&l);
					goto nomem;
				}
			for (k = 0; k < ct->nr_relabel; k++)
				if (config_relabel_apply(&ct->relabel[k],
				    t->cgroup, value, sizeof(value)) &&
				    value[0] && target_add_label(t,
				    ct->relabel[k].target_label, value) < 0) {
					cgroup_list_free(&l);
					goto nomem;
				}
		}
		cgroup_list_free(&l);
	}
	if (any && !c->have_cgroot)
		return 0;

	/* Close what vanished, open what is new, keep the order stable. */
	fds = collector_open_fds(c);
	c->cg_matched = c->cg_counted = c->cg_skipped = 0;
	for (i = 0, j = 0; i < c->nr_targets; i++) {
		t = c->targets[i];
		if (!t->seen) {
			if (t->opened)
				REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0,
				    "cgroup %s is gone; its series are "
				    "dropped", t->cgroup);
			target_last_read(t);
			fds -= collector_target_fds(t);
			target_free(t);
			continue;
		}
		if (t->cgroup)
			c->cg_matched++;
		if (t->seen == 2) {
			size_t need = target_need_fds(c, t);

			if (fds + need > c->max_fds) {
				if (!t->skipped)
					REPORT(c, 4, t->cgroup, NULL, NULL, -1,
					    0, "cgroup %s is not counted: it "
					    "needs %zu perf fds and %zu of the "
					    "budget of %llu are in use (raise "
					    "max_fds and LimitNOFILE=)",
					    t->cgroup, need, fds,
					    (unsigned long long)c->max_fds);
				t->skipped = 1;
				c->cg_skipped++;
				c->targets[j++] = t;
				continue;
			}
			r = target_open(c, t);
			if (r == -ENOMEM)
				goto nomem;
			if (r < 0) {
				target_free(t);	/* vanished meanwhile */
				c->cg_matched--;
				continue;
			}
			t->skipped = 0;
			fds += collector_target_fds(t);
			if (!was_counted(c, t->cgroup))
				REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0,
				    "counting cgroup %s", t->cgroup);
			if (enable)
				target_enable(t);
		}
		if (t->cgroup && t->opened)
			c->cg_counted++;
		c->targets[j++] = t;
	}
	c->nr_targets = j;
	if (c->nr_targets > 1)
		qsort(c->targets, c->nr_targets, sizeof(*c->targets),
		    cmp_target);

	if (c->watch) {
		cgroup_list_sort_unique(&dirs);
		r = cgwatch_set(c->watch, c->cgroot, &dirs);
		if (r == -ENOSPC && !c->logged_watch++)
			REPORT(c, 4, NULL, NULL, NULL, -1, ENOSPC,
			    "inotify watch limit reached (fs.inotify."
			    "max_user_watches): some new cgroups are found "
			    "only by the rescan every %llus",
			    (unsigned long long)(cfg->rescan_ns / 1000000000ULL));
		else if (r == -ENOMEM)
			goto nomem;
		cgroup_list_free(&dirs);
	}
	return 0;
nomem:
	cgroup_list_free(&dirs);
	return -ENOMEM;
}

/* ---- reading ------------------------------------------------------ */

static void
inst_collect(struct collector *c, struct target *t, struct tgroup *tg,
    struct inst *in)
{
	const struct cfg_group *g = &c->cfg->groups[tg->gi];
	size_t i, ev;
	uint64_t de, dr;
	int r;

	if (in->state != INST_OK)
		return;
	r = group_read(&in->pg, in->cur);
	if (r < 0) {
		if (r == -ENODATA)
			REPORT(c, 4, t->cgroup, g->name, NULL, in->cpu, 0,
			    "group \"%s\" on cpu %d for %s is in error "
			    "state (read returned 0 bytes); it stops counting",
			    g->name, in->cpu, target_name(t));
		else
			REPORT(c, 4, t->cgroup, g->name, NULL, in->cpu, -r,
			    "reading group \"%s\" on cpu %d for %s: "
			    "%s; it stops counting", g->name, in->cpu,
			    target_name(t), strerror(-r));
		in->state = INST_BROKEN;
		group_close(&in->pg);
		/* Reopened at the next full rescan: a CPU that blinked
		 * offline for less than an interval breaks reads like this. */
		c->retry_due = 1;
		return;
	}
	for (i = 0; i < in->pg.nr; i++) {
		ev = in->pg.evidx[i];
		scale_accumulate(&in->acc[ev], &in->prev[ev], &in->cur[ev]);
		in->prev[ev] = in->cur[ev];
	}
	ev = in->pg.evidx[0];
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
	/* Never scheduled: enabled for a whole interval, running never. */
	if (in->running_ns == 0 && in->enabled_ns >= c->cfg->interval_ns / 2 &&
	    !tg->unscheduled) {
		tg->unscheduled = 1;
		REPORT(c, 4, t->cgroup, g->name, NULL, in->cpu, 0,
		    "group \"%s\" for %s has not been scheduled on cpu "
		    "%d (time_running is 0): too many events for the "
		    "counters, or the PMU is in use by someone else",
		    g->name, target_name(t), in->cpu);
	} else if (in->running_ns > 0 && tg->unscheduled == 1 && dr > 0) {
		tg->unscheduled = 2;
		REPORT(c, 6, t->cgroup, g->name, NULL, in->cpu, 0,
		    "group \"%s\" for %s is being scheduled now",
		    g->name, target_name(t));
	}
}

/* ---- snapshots ---------------------------------------------------- */

size_t
collector_open_fds(const struct collector *c)
{
	size_t n = 0, i, j, k;

	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			for (k = 0; k < tg->cpus.nr && tg->inst; k++)
				n += tg->inst[k].pg.nr;
		}
	return n;
}

/*
 * The collector's health for the self-metrics: targets, and per group its
 * open instances, the worst running/enabled ratio of the last interval,
 * the instances that were enabled but never ran (the PMU taken by someone
 * else, or too many events), and open errors per (group, event, errno).
 */
static int
snapshot_health(const struct collector *c, struct snapshot *s,
    const char **gnames, const char ***names)
{
	const struct config *cfg = c->cfg;
	struct snap_open_error *oe;
	size_t i, j, k, e, n, cap = 0;
	int *cpus;

	s->health = snapshot_alloc(s, (cfg->nr_groups + 1) * sizeof(*s->health));
	if (s->health == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++)
		s->health[i] = (struct snap_group_health){ gnames[i], 0, NAN, 0 };
	s->nr_health = cfg->nr_groups;
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			for (k = 0; k < tg->cpus.nr && tg->inst; k++)
				for (e = 0; tg->inst[k].pg.err &&
				    e < cfg->groups[tg->gi].nr_events; e++)
					cap += tg->inst[k].pg.err[e] != 0;
		}
	s->open_errors = snapshot_alloc(s, (cap + 1) * sizeof(*oe));
	cpus = calloc((size_t)c->online.nr + 1, sizeof(*cpus));
	if (s->open_errors == NULL || cpus == NULL) {
		free(cpus);
		return -ENOMEM;
	}
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];
		int no_perf = 0;

		s->nr_cgroups += t->cgroup != NULL;
		for (j = 0; j < t->nr_groups; j++) {
			struct tgroup *tg = &t->groups[j];
			struct snap_group_health *h = &s->health[tg->gi];

			for (k = 0; k < tg->cpus.nr && tg->inst; k++) {
				struct inst *in = &tg->inst[k];

				if (t->cgroup == NULL)
					for (n = 0; n < c->online.nr; n++)
						if (c->online.cpu[n] == in->cpu)
							cpus[n] = 1;
				for (e = 0; in->pg.err &&
				    e < cfg->groups[tg->gi].nr_events; e++) {
					if (in->pg.err[e] == 0)
						continue;
					for (n = 0; n < s->nr_open_errors; n++)
						if (s->open_errors[n].group ==
						    gnames[tg->gi] &&
						    s->open_errors[n].event ==
						    names[tg->gi][e] &&
						    s->open_errors[n].err ==
						    in->pg.err[e] &&
						    s->open_errors[n].no_perf_cgroup
						    == in->no_perf_cgroup)
							break;
					oe = &s->open_errors[n];
					if (n == s->nr_open_errors) {
						*oe = (struct snap_open_error){
						    gnames[tg->gi],
						    names[tg->gi][e],
						    in->pg.err[e],
						    in->no_perf_cgroup, 0 };
						s->nr_open_errors++;
					}
					oe->count++;
				}
				no_perf |= in->no_perf_cgroup;
				if (in->state != INST_OK)
					continue;
				h->instances++;
				if (in->last_de == 0)
					continue;
				if (in->last_dr == 0)
					h->starved++;
				if (!(h->worst_ratio <= (double)in->last_dr /
				    (double)in->last_de))
					h->worst_ratio = (double)in->last_dr /
					    (double)in->last_de;
			}
		}
		s->cgroups_no_perf += (size_t)no_perf;
	}
	for (n = 0; n < c->online.nr; n++)
		s->nr_cpus += (size_t)cpus[n];
	free(cpus);
	return 0;
}

static struct snapshot *
build_snapshot(struct collector *c, double duration_s)
{
	const struct config *cfg = c->cfg;
	struct snapshot *s = snapshot_new();
	const char ***names = NULL;
	const char **gnames = NULL;
	const char *cg;
	size_t i, j, k, e, nrows = 0, row = 0, ne, *base;
	struct timespec ts;
	unsigned char *cnt;
	double *v;

	if (s == NULL)
		return NULL;
	names = snapshot_alloc(s, cfg->nr_groups * sizeof(*names));
	gnames = snapshot_alloc(s, cfg->nr_groups * sizeof(*gnames));
	if (!names || !gnames)
		goto fail;
	for (i = 0; i < cfg->nr_groups; i++) {
		ne = cfg->groups[i].nr_events;
		gnames[i] = snapshot_strdup(s, cfg->groups[i].name);
		names[i] = snapshot_alloc(s, ne * sizeof(**names));
		if (!gnames[i] || !names[i])
			goto fail;
		for (e = 0; e < ne; e++)
			if ((names[i][e] = snapshot_strdup(s,
			    cfg->groups[i].events[e].name)) == NULL)
				goto fail;
	}
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; c->targets[i]->opened &&
		    j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			nrows += (c->targets[i]->cgroup == NULL ||
			    tg->per_cpu) ? tg->cpus.nr : 1;
		}
	s->rows = snapshot_alloc(s, (nrows + 1) * sizeof(*s->rows));
	if (s->rows == NULL)
		goto fail;
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];
		const char **ln = NULL, **lv = NULL;

		if (!t->opened)
			continue;
		cg = NULL;
		if (t->cgroup && (cg = snapshot_strdup(s, t->cgroup)) == NULL)
			goto fail;
		if (t->nr_labels) {
			ln = snapshot_alloc(s, t->nr_labels * sizeof(*ln));
			lv = snapshot_alloc(s, t->nr_labels * sizeof(*lv));
			if (!ln || !lv)
				goto fail;
			for (e = 0; e < t->nr_labels; e++)
				if ((ln[e] = snapshot_strdup(s,
				    t->lname[e])) == NULL ||
				    (lv[e] = snapshot_strdup(s,
				    t->lvalue[e])) == NULL)
					goto fail;
		}
		for (j = 0; j < t->nr_groups; j++) {
			struct tgroup *tg = &t->groups[j];
			int split = t->cgroup == NULL || tg->per_cpu;

			ne = cfg->groups[tg->gi].nr_events;
			for (k = 0; k < tg->cpus.nr; k++) {
				struct inst *in = &tg->inst[k];
				struct snap_row *r;

				if (split || k == 0) {
					r = &s->rows[row++];
					r->cgroup = cg;
					r->nr_labels = t->nr_labels;
					r->label_names = ln;
					r->label_values = lv;
					r->cpu = split ? in->cpu : -1;
					r->group = gnames[tg->gi];
					r->nr_events = ne;
					r->events = names[tg->gi];
					v = snapshot_alloc(s, ne * sizeof(*v));
					cnt = snapshot_alloc(s, ne);
					if (v == NULL || cnt == NULL)
						goto fail;
					memset(v, 0, ne * sizeof(*v));
					memset(cnt, 0, ne);
					r->values = v;
					r->counted = cnt;
					r->enabled_s = r->running_s = 0;
					r->pmu = cfg->groups[tg->gi].hybrid ?
					    snapshot_strdup(s,
					    cfg->groups[tg->gi].pmu) : NULL;
				} else
					r = &s->rows[row - 1];
				v = (double *)r->values;
				cnt = (unsigned char *)r->counted;
				for (e = 0; e < ne; e++)
					v[e] += scale_value(&in->acc[e]) *
					    cfg->groups[tg->gi].events[e].scale;
				for (e = 0; e < in->pg.nr; e++)
					cnt[in->pg.evidx[e]] = 1;
				r->enabled_s += (double)in->enabled_ns / 1e9;
				r->running_s += (double)in->running_ns / 1e9;
			}
		}
	}
	s->nr_rows = row;

	/* Event support: opened on at least one instance anywhere. */
	ne = 0;
	for (i = 0; i < cfg->nr_groups; i++)
		ne += cfg->groups[i].nr_events;
	s->support = snapshot_alloc(s, (ne + 1) * sizeof(*s->support));
	base = snapshot_alloc(s, (cfg->nr_groups + 1) * sizeof(*base));
	if (s->support == NULL || base == NULL)
		goto fail;
	for (i = 0, row = 0; i < cfg->nr_groups; i++)
		for (base[i] = row, e = 0; e < cfg->groups[i].nr_events;
		    e++, row++) {
			s->support[row].group = gnames[i];
			s->support[row].event = names[i][e];
			s->support[row].supported = 0;
			s->support[row].pmu = snapshot_strdup(s,
			    cfg->groups[i].events[e].pmu);
			if (s->support[row].pmu == NULL)
				goto fail;
		}
	s->nr_support = row;
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; c->targets[i]->opened &&
		    j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			for (k = 0; k < tg->cpus.nr; k++)
				for (e = 0; e < tg->inst[k].pg.nr; e++)
					s->support[base[tg->gi] +
					    tg->inst[k].pg.evidx[e]].supported = 1;
		}
	if (snapshot_health(c, s, gnames, names) < 0)
		goto fail;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->timestamp_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	s->duration_s = duration_s;
	s->interval_s = (double)cfg->interval_ns / 1e9;
	s->seq = c->seq;
	s->open_fds = collector_open_fds(c);
	s->cgroups_matched = c->cg_matched;
	s->cgroups_counted = c->cg_counted > s->cgroups_no_perf ?
	    c->cg_counted - s->cgroups_no_perf : 0;
	s->cgroups_skipped = c->cg_skipped;
	pthread_mutex_lock(&c->info_lock);
	s->reload_ok = c->reload_ok;
	s->reload_success_s = c->reload_success_s;
	pthread_mutex_unlock(&c->info_lock);
	return s;
fail:
	snapshot_unref(s);
	return NULL;
}

void
collector_collect(struct collector *c)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC), t1;
	struct snapshot *s;
	size_t i, j, k;

	if (online_changed(c)) {
		if (rebuild(c, c->cfg) < 0)
			REPORT(c, 3, NULL, NULL, NULL, -1, ENOMEM,
			    "reopening after a CPU change: %s",
			    strerror(ENOMEM));
		collector_enable(c);
	} else if (c->retry_due && t0 - c->last_rescan_ns >=
	    c->cfg->rescan_ns) {
		/* The full rescan reopens what failed, keeping the rest. */
		REPORT(c, 6, NULL, NULL, NULL, -1, 0, "reopening group "
		    "instances that stopped counting");
		c->retry_due = 0;
		c->rescan_due = 0;
		if (rebuild(c, c->cfg) < 0)
			REPORT(c, 3, NULL, NULL, NULL, -1, ENOMEM,
			    "reopening: %s", strerror(ENOMEM));
		collector_enable(c);
	} else if (c->rescan_due || t0 - c->last_rescan_ns >=
	    c->cfg->rescan_ns) {
		c->last_rescan_ns = t0;
		c->rescan_due = 0;
		if (rescan_cgroups(c, 1) < 0)
			REPORT(c, 3, NULL, NULL, NULL, -1, ENOMEM,
			    "cgroup rescan: %s", strerror(ENOMEM));
	}
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; c->targets[i]->opened &&
		    j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			for (k = 0; k < tg->cpus.nr; k++)
				inst_collect(c, c->targets[i], tg,
				    &tg->inst[k]);
		}
	c->seq++;
	t1 = now_ns(CLOCK_MONOTONIC);
	s = build_snapshot(c, (double)(t1 - t0) / 1e9);
	if (s == NULL)
		REPORT(c, 3, NULL, NULL, NULL, -1, ENOMEM,
		    "building a snapshot: %s", strerror(ENOMEM));
	else
		snapshot_publish(&c->slot, s);
	atomic_fetch_add(&c->heartbeat, 1);
}

static void *
collector_main(void *arg)
{
	struct collector *c = arg;
	struct pollfd pfd[3] = {
		{ .fd = c->timerfd, .events = POLLIN },
		{ .fd = c->stopfd, .events = POLLIN },
		{ .fd = c->watch ? cgwatch_fd(c->watch) : -1, .events = POLLIN },
	};
	uint64_t expirations;

	for (;;) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			REPORT(c, 3, NULL, NULL, NULL, -1, errno,
			    "collector poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents)
			break;
		/* A cgroup came or went: rescan at the next collection. */
		if (pfd[2].revents && cgwatch_drain(c->watch) != 0)
			c->rescan_due = 1;
		if (pfd[0].revents &&
		    read(c->timerfd, &expirations, sizeof(expirations)) ==
		    (ssize_t)sizeof(expirations) &&
		    !(c->o.hang_after && c->seq >= c->o.hang_after))
			collector_collect(c);
	}
	return NULL;
}

/* ---- config-dependent state ------------------------------------- */

/* The per-config tables: attrs per group, what was reported. */
static int
cfgstate_init(struct collector *c, const struct config *cfg)
{
	size_t i, e;

	c->cfg = cfg;
	c->attrs = calloc(cfg->nr_groups, sizeof(*c->attrs));
	c->ev_logged = calloc(cfg->nr_groups, sizeof(*c->ev_logged));
	c->pattern_empty = calloc(cfg->nr_targets + 1, sizeof(int));
	if (!c->attrs || !c->ev_logged || !c->pattern_empty)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++) {
		size_t ne = cfg->groups[i].nr_events;

		c->attrs[i] = calloc(ne, sizeof(**c->attrs));
		c->ev_logged[i] = calloc(ne, sizeof(**c->ev_logged));
		if (!c->attrs[i] || !c->ev_logged[i])
			return -ENOMEM;
		for (e = 0; e < ne; e++)
			c->attrs[i][e] = cfg->groups[i].events[e].attr;
	}
	return 0;
}

static void
cfgstate_fini(const struct config *cfg, struct perf_event_attr **attrs,
    int **ev_logged, int *pattern_empty)
{
	size_t i;

	for (i = 0; cfg && i < cfg->nr_groups; i++) {
		if (attrs)
			free(attrs[i]);
		if (ev_logged)
			free(ev_logged[i]);
	}
	free(attrs);
	free(ev_logged);
	free(pattern_empty);
}

/* Build and open every target of c->cfg (adopting during a reload). */
static int
open_targets(struct collector *c)
{
	const struct config *cfg = c->cfg;
	struct target *sys = NULL;
	size_t i;
	int r;

	for (i = 0; i < cfg->nr_targets; i++)
		if (cfg->targets[i].kind == CFG_TARGET_CGROUP)
			break;
	if (i < cfg->nr_targets && !c->have_cgroot) {
		r = cgroupfs_find(c->o.mountinfo, c->cgroot,
		    sizeof(c->cgroot), &c->cgroot_v2);
		if (r < 0)
			REPORT(c, 4, NULL, NULL, NULL, -1, -r,
			    "no cgroup hierarchy with the perf_event "
			    "controller in %s (%s): cgroup targets are not "
			    "counted", c->o.mountinfo, strerror(-r));
		else
			c->have_cgroot = 1;
	}
	if ((r = build_cpu_target(c, &sys)) < 0)
		return r;
	if (sys) {
		if ((r = collector_add_target(c, sys)) < 0) {
			target_free(sys);
			return r;
		}
		if ((r = target_open(c, sys)) == -ENOMEM)
			return r;
	}
	c->last_rescan_ns = now_ns(CLOCK_MONOTONIC);
	return rescan_cgroups(c, 0);
}

/* ---- public ------------------------------------------------------- */

int
collector_new(const struct config *cfg, const struct collector_opts *o,
    struct collector **out, char *err, size_t errlen)
{
	struct collector *c;
	size_t i;
	int r;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return -ENOMEM;
	c->o = *o;
	c->online_fd = -1;
	if (c->o.log == NULL)
		c->o.log = nolog;
	if (c->o.sysfs == NULL)
		c->o.sysfs = "/sys";
	if (c->o.mountinfo == NULL)
		c->o.mountinfo = "/proc/self/mountinfo";
	c->stopfd = c->timerfd = -1;
	snapshot_slot_init(&c->slot);
	atomic_init(&c->heartbeat, 0);
	pthread_mutex_init(&c->info_lock, NULL);
	c->reload_ok = 1;

	if ((r = cpumap_online(c->o.sysfs, &c->online)) < 0) {
		snprintf(err, errlen, "%s/devices/system/cpu/online: %s",
		    c->o.sysfs, strerror(-r));
		goto fail;
	}
	online_open(c);
	for (i = 0; i < cfg->nr_targets; i++)
		if (cfg->targets[i].kind == CFG_TARGET_CGROUP &&
		    (r = cgwatch_new(&c->watch)) < 0) {
			REPORT(c, 4, NULL, NULL, NULL, -1, -r,
			    "inotify: %s; new cgroups are found only by the "
			    "rescan every %llus", strerror(-r),
			    (unsigned long long)(cfg->rescan_ns /
			    1000000000ULL));
			break;
		} else if (c->watch)
			break;
	c->max_fds = fd_budget(cfg);
	if ((r = cfgstate_init(c, cfg)) < 0 || (r = open_targets(c)) < 0)
		goto nomem;
	*out = c;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	r = -ENOMEM;
fail:
	collector_free(c);
	return r;
}

void
collector_enable(struct collector *c)
{
	size_t i;

	for (i = 0; i < c->nr_targets; i++)
		target_enable(c->targets[i]);
}

int
collector_start(struct collector *c)
{
	struct itimerspec its;
	int r;

	collector_enable(c);
	/* The first collection, so that readiness means real readings. */
	collector_collect(c);

	if (c->stopfd < 0 &&
	    (c->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -errno;
	if (c->timerfd < 0 && (c->timerfd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return -errno;
	its.it_interval.tv_sec = (time_t)(c->cfg->interval_ns / 1000000000ULL);
	its.it_interval.tv_nsec = (long)(c->cfg->interval_ns % 1000000000ULL);
	its.it_value = its.it_interval;
	if (timerfd_settime(c->timerfd, 0, &its, NULL) < 0)
		return -errno;
	if ((r = pthread_create(&c->thread, NULL, collector_main, c)) != 0)
		return -r;
	c->started = 1;
	return 0;
}

void
collector_stop(struct collector *c)
{
	uint64_t one = 1;

	if (c == NULL || !c->started)
		return;
	if (write(c->stopfd, &one, sizeof(one)) < 0)
		REPORT(c, 3, NULL, NULL, NULL, -1, errno,
		    "stopping the collector: %s", strerror(errno));
	pthread_join(c->thread, NULL);
	/* Drain the stop request so that the thread can be started again. */
	if (read(c->stopfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		REPORT(c, 3, NULL, NULL, NULL, -1, errno,
		    "stopping the collector: %s", strerror(errno));
	c->started = 0;
}

/*
 * The fd budget: max_fds from the config, or a share of the open-files
 * limit that leaves room for HTTP connections and the rest.
 */
static uint64_t
fd_budget(const struct config *cfg)
{
	struct rlimit rl;

	if (cfg->max_fds)
		return cfg->max_fds;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return rl.rlim_cur > 4096 ? rl.rlim_cur - 2048 : rl.rlim_cur / 2;
}

/*
 * Rebuild every target for cfg (which may be the current config, after a
 * CPU change), adopting the instances that stay the same.
 */
static int
rebuild(struct collector *c, const struct config *cfg)
{
	struct perf_event_attr **attrs = c->attrs;
	int **ev_logged = c->ev_logged, *pattern_empty = c->pattern_empty;
	const struct config *old_cfg = c->cfg;
	struct target **old = c->targets;
	size_t nr_old = c->nr_targets, i;
	int r;

	c->max_fds = fd_budget(cfg);
	c->targets = NULL;
	c->nr_targets = c->cap_targets = 0;
	c->attrs = NULL;
	c->ev_logged = NULL;
	c->pattern_empty = NULL;
	c->adopt = old;
	c->nr_adopt = nr_old;
	c->adopt_cfg = old_cfg;
	r = cfgstate_init(c, cfg);
	if (r == 0 && cfg == old_cfg) {
		/* Same config: what was reported stays reported. */
		int **tmp = c->ev_logged, *ptmp = c->pattern_empty;

		c->ev_logged = ev_logged;
		ev_logged = tmp;
		c->pattern_empty = pattern_empty;
		pattern_empty = ptmp;
	}
	if (r == 0)
		r = open_targets(c);
	c->adopt = NULL;
	c->nr_adopt = 0;
	c->adopt_cfg = NULL;
	/* Whatever was not adopted is closed now. */
	for (i = 0; i < nr_old; i++) {
		if (r == 0 && old[i]->cgroup && old[i]->opened &&
		    collector_find_cgroup(c, old[i]->cgroup,
		    c->nr_targets) == NULL)
			REPORT(c, 6, old[i]->cgroup, NULL, NULL, -1, 0,
			    "cgroup %s is gone; its series are dropped",
			    old[i]->cgroup);
		target_free(old[i]);
	}
	free(old);
	cfgstate_fini(old_cfg, attrs, ev_logged, pattern_empty);
	return r;
}

int
collector_reload(struct collector *c, const struct config *cfg)
{
	int was_started = c->started, r;

	collector_stop(c);
	if ((r = rebuild(c, cfg)) < 0)
		return r;
	if (was_started)
		return collector_start(c);
	return 0;
}

/* Keep the online-CPUs file open: one pread per interval tells changes. */
static void
online_open(struct collector *c)
{
	char path[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online",
	    c->o.sysfs);
	c->online_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->online_fd >= 0 && (n = pread(c->online_fd, c->online_text,
	    sizeof(c->online_text) - 1, 0)) > 0)
		c->online_text[n] = '\0';
}

/* Did the set of online CPUs change?  Then c->online is updated. */
static int
online_changed(struct collector *c)
{
	char buf[sizeof(c->online_text)];
	struct cpumap m;
	ssize_t n;

	if (c->online_fd < 0)
		return 0;
	n = pread(c->online_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (strcmp(buf, c->online_text) == 0 ||
	    cpumap_parse(buf, &m, NULL) < 0)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	REPORT(c, 6, NULL, NULL, NULL, -1, 0, "online CPUs are now %s: "
	    "reopening what changed", buf);
	memcpy(c->online_text, buf, sizeof(buf));
	c->online_text[strlen(buf)] = '\n';
	c->online_text[strlen(buf) + 1] = '\0';
	cpumap_free(&c->online);
	c->online = m;
	return 1;
}

void
collector_note_reload(struct collector *c, int ok, double when)
{
	pthread_mutex_lock(&c->info_lock);
	c->reload_ok = ok;
	if (ok)
		c->reload_success_s = when;
	pthread_mutex_unlock(&c->info_lock);
}

int
collector_denied(const struct collector *c)
{
	return c->logged_eacces > 0;
}

size_t
collector_unsupported(const struct collector *c)
{
	const struct config *cfg = c->cfg;
	size_t gi, e, i, j, k, x, n = 0;

	for (gi = 0; gi < cfg->nr_groups; gi++)
		for (e = 0; e < cfg->groups[gi].nr_events; e++) {
			int found = 0;

			for (i = 0; i < c->nr_targets && !found; i++)
				for (j = 0; j < c->targets[i]->nr_groups &&
				    !found; j++) {
					struct tgroup *tg =
					    &c->targets[i]->groups[j];

					if (tg->gi != gi || tg->inst == NULL)
						continue;
					for (k = 0; k < tg->cpus.nr && !found;
					    k++)
						for (x = 0;
						    x < tg->inst[k].pg.nr; x++)
							if (tg->inst[k].pg.evidx[x] == e)
								found = 1;
				}
			n += !found;
		}
	return n;
}

void
collector_free(struct collector *c)
{
	size_t i;

	if (c == NULL)
		return;
	collector_stop(c);
	for (i = 0; i < c->nr_targets; i++)
		target_free(c->targets[i]);
	free(c->targets);
	cfgstate_fini(c->cfg, c->attrs, c->ev_logged, c->pattern_empty);
	cpumap_free(&c->online);
	cgwatch_free(c->watch);
	if (c->online_fd >= 0)
		close(c->online_fd);
	pthread_mutex_destroy(&c->info_lock);
	snapshot_slot_fini(&c->slot);
	if (c->stopfd >= 0)
		close(c->stopfd);
	if (c->timerfd >= 0)
		close(c->timerfd);
	free(c);
}

struct snapshot *
collector_snapshot(struct collector *c)
{
	return snapshot_get(&c->slot);
}

uint64_t
collector_heartbeat(struct collector *c)
{
	return atomic_load(&c->heartbeat);
}

void
collector_summary(const struct collector *c, char *buf, size_t len)
{
	size_t i, j, k, ncg = 0, ncpu = 0, unsup;

	for (i = 0; i < c->nr_targets; i++)
		if (c->targets[i]->cgroup && c->targets[i]->opened)
			ncg++;
	/* CPUs covered by any instance (system-wide or cgroup). */
	for (k = 0; k < c->online.nr; k++) {
		int cpu = c->online.cpu[k], found = 0;

		for (i = 0; i < c->nr_targets && !found; i++)
			for (j = 0; j < c->targets[i]->nr_groups && !found;
			    j++)
				found = c->targets[i]->opened &&
				    cpumap_has(&c->targets[i]->groups[j].cpus,
				    cpu);
		ncpu += found;
	}
	unsup = collector_unsupported(c);
	snprintf(buf, len, "%zu group%s on %zu CPU%s and %zu cgroup%s "
	    "(%zu perf fds); %zu event%s unsupported", c->cfg->nr_groups,
	    c->cfg->nr_groups == 1 ? "" : "s", ncpu, ncpu == 1 ? "" : "s",
	    ncg, ncg == 1 ? "" : "s", collector_open_fds(c), unsup,
	    unsup == 1 ? "" : "s");
}

/* Does the event take a PMU counter (not software, tracepoint...)? */
static int
uses_counter(const struct perf_event_attr *a)
{
	return a->type != PERF_TYPE_SOFTWARE &&
	    a->type != PERF_TYPE_TRACEPOINT && a->type != PERF_TYPE_BREAKPOINT;
}

/*
 * How many copies of attr the PMU schedules at once on cpu: open groups of
 * 1, 2, ... copies and keep the largest one that gets running time (or that
 * the kernel accepts at all: some PMUs refuse an impossible group at open).
 * sysfs does not tell the number of counters, so this asks the PMU itself.
 * Returns the count, or -1 if not even one copy could be measured.
 */
static int
probe_counters(const struct perf_event_attr *attr, int cpu)
{
	struct perf_event_attr copies[PROBE_MAX];
	struct timespec ts = { 0, 20000000 };
	struct perf_group pg;
	struct count cur[PROBE_MAX];
	int k, fits = -1;
	size_t i;

	for (i = 0; i < PROBE_MAX; i++)
		copies[i] = *attr;
	for (k = 1; k <= PROBE_MAX; k++) {
		if (group_init(&pg, (size_t)k) < 0)
			break;
		if (group_open(&pg, copies, -1, cpu, 0) < 0 ||
		    pg.nr != (size_t)k) {
			group_fini(&pg);
			break;
		}
		group_enable(&pg, 1);
		nanosleep(&ts, NULL);
		if (group_read(&pg, cur) < 0 || cur[0].running == 0) {
			group_fini(&pg);
			break;
		}
		group_fini(&pg);
		fits = k;
	}
	return fits;
}

int
collector_check(struct collector *c, FILE *out, unsigned wait_ms)
{
	const struct config *cfg = c->cfg;
	struct timespec ts = { wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L };
	char cpus[256];
	size_t i, j, k, e;
	int problems = 0;

	collector_enable(c);
	nanosleep(&ts, NULL);
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];

		if (!t->opened) {
			fprintf(out, "%s: not counted (over the fd budget of "
			    "%llu)\n", target_name(t),
			    (unsigned long long)c->max_fds);
			problems++;
			continue;
		}
		/* Targets are sorted: descendants follow their ancestor. */
		for (j = i + 1; t->cgroup && j < c->nr_targets; j++) {
			const char *d = c->targets[j]->cgroup;
			size_t n = strlen(t->cgroup);

			if (strcmp(t->cgroup, "/") != 0 &&
			    (strncmp(d, t->cgroup, n) != 0 || d[n] != '/'))
				break;
			fprintf(out, "note: %s is counted and so is its "
			    "descendant %s: a perf cgroup event counts "
			    "descendants too, so %s's work is in both, and "
			    "both compete for counters\n", t->cgroup, d, d);
		}

		for (j = 0; j < t->nr_groups; j++) {
			struct tgroup *tg = &t->groups[j];
			const struct cfg_group *g = &cfg->groups[tg->gi];
			size_t ok_inst = 0, unsched = 0, nhw = 0;
			int ucpu = -1;

			for (k = 0; k < tg->cpus.nr; k++) {
				struct inst *in = &tg->inst[k];

				if (in->state != INST_OK)
					continue;
				ok_inst++;
				if (group_read(&in->pg, in->cur) == 0 &&
				    in->cur[in->pg.evidx[0]].enabled > 0 &&
				    in->cur[in->pg.evidx[0]].running == 0) {
					unsched++;
					ucpu = in->cpu;
				}
			}
			fprintf(out, "%s group %s%s%s on CPUs %s: %zu of %zu "
			    "instances open\n", target_name(t), g->name,
			    g->hybrid ? " pmu " : "", g->hybrid ? g->pmu : "",
			    cpumap_format(&tg->cpus, cpus, sizeof(cpus)),
			    ok_inst, tg->cpus.nr);
			if (ok_inst < tg->cpus.nr)
				problems++;
			if (unsched) {
				const struct perf_event_attr *hw = NULL;
				int n = -1;

				for (e = 0; e < g->nr_events; e++)
					if (uses_counter(&g->events[e].attr)) {
						nhw++;
						if (hw == NULL)
							hw = &c->attrs[tg->gi][e];
					}
				if (hw)
					n = probe_counters(hw, ucpu);
				if (n >= 0 && (size_t)n < nhw)
					fprintf(out, "  never scheduled on %zu "
					    "CPUs: the group has %zu hardware "
					    "events and the PMU showed %d "
					    "counters for them (cpu %d): split "
					    "the group\n", unsched, nhw, n,
					    ucpu);
				else
					fprintf(out, "  never scheduled on %zu "
					    "CPUs: the PMU showed %d counters "
					    "for its %zu hardware events (cpu "
					    "%d), so it is busy: pinned events "
					    "or another user hold them\n",
					    unsched, n, nhw, ucpu);
				problems++;
			}
			for (e = 0; e < g->nr_events; e++) {
				int errnum = 0;

				for (k = 0; k < tg->cpus.nr; k++)
					if (tg->inst[k].pg.err[e])
						errnum = tg->inst[k].pg.err[e];
				if (errnum) {
					fprintf(out, "  %-24s unsupported: %s\n",
					    g->events[e].name, strerror(errnum));
					problems++;
				} else
					fprintf(out, "  %-24s supported\n",
					    g->events[e].name);
			}
		}
	}
	return problems;
}
