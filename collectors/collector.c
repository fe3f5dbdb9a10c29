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
#include "collectors/collector.h"
#include "collectors/group.h"

enum inst_state { INST_OK, INST_CLOSED, INST_BROKEN };

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
	int seen;			/* rescan mark */
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
	int logged_emfile, logged_eacces;
	int *pattern_empty;		/* [cfg target]: reported matching none */

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
	for (i = 0; i < g->nr_events; i++) {
		int e = in->pg.err[i];

		if (e == 0 || (r < 0 && (e == EMFILE || e == ENFILE ||
		    e == EACCES || e == EPERM || e == EBADF)))
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
		report_open_error(c, t, tg, in->cpu, -r);
		in->state = INST_BROKEN;
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
	free(t->cgroup);
	free(t);
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
 * During a reload: take over the old instance that counts the same group
 * on the same CPU for the same target, with its fds and accumulators, so
 * its series continue.  Returns 1 if dst now holds it.
 */
static int
inst_adopt(struct collector *c, const struct target *t,
    const struct tgroup *tg, int cpu, struct inst *dst)
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
			for (k = 0; k < og->cpus.nr; k++) {
				struct inst *in = &og->inst[k];

				if (in->cpu != cpu || in->state != INST_OK)
					continue;
				*dst = *in;
				/* The old slot is left empty: freeing it
				 * closes and frees nothing. */
				memset(in, 0, sizeof(*in));
				in->state = INST_CLOSED;
				return 1;
			}
		}
		return 0;
	}
	return 0;
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
		}
	}
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

static struct target *
collector_find_cgroup(struct collector *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nr_targets; i++)
		if (c->targets[i]->cgroup &&
		    strcmp(c->targets[i]->cgroup, path) == 0)
			return c->targets[i];
	return NULL;
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
			r = target_add_group(t, ct->groups[j], &m, 1);
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

/*
 * Expand every cgroups: entry; open targets for new paths and close the
 * ones no longer there.  Returns 0 or -ENOMEM.
 */
static int
rescan_cgroups(struct collector *c, int enable)
{
	const struct config *cfg = c->cfg;
	struct cgroup_list l;
	struct target *t;
	size_t i, j, k;
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
		r = cgroupfs_expand(c->cgroot, ct->path, &l);
		if (r < 0) {
			REPORT(c, 4, ct->path, NULL, NULL, -1, -r,
			    "%s:%d:%d: cgroup path %s: %s",
			    cfg->source, ct->line, ct->col, ct->path,
			    strerror(-r));
			continue;
		}
		if (l.nr == 0 && !c->pattern_empty[i]) {
			c->pattern_empty[i] = 1;
			REPORT(c, 4, ct->path, NULL, NULL, -1, 0,
			    "%s:%d:%d: cgroup path %s matches no "
			    "cgroup under %s (yet); it is looked for again "
			    "every %llus", cfg->source, ct->line, ct->col,
			    ct->path, c->cgroot,
			    (unsigned long long)(cfg->rescan_ns / 1000000000ULL));
		} else if (l.nr > 0)
			c->pattern_empty[i] = 0;
		for (j = 0; j < l.nr; j++) {
			t = collector_find_cgroup(c, l.path[j]);
			if (t && t->nr_groups && t->groups[0].inst) {
				t->seen = 1;	/* already open */
				continue;
			}
			if (t == NULL) {
				if ((t = target_new(l.path[j])) == NULL ||
				    collector_add_target(c, t) < 0) {
					target_free(t);
					cgroup_list_free(&l);
					return -ENOMEM;
				}
			}
			t->seen = 2;	/* new: open below */
			for (k = 0; k < ct->nr_groups; k++)
				if (target_add_group(t, ct->groups[k],
				    &c->online, ct->per_cpu) < 0) {
					cgroup_list_free(&l);
					return -ENOMEM;
				}
		}
		cgroup_list_free(&l);
	}
	if (any && !c->have_cgroot)
		return 0;
	/* Close what vanished, open what is new, keep the order stable. */
	for (i = 0, j = 0; i < c->nr_targets; i++) {
		t = c->targets[i];
		if (!t->seen) {
			REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0,
			    "cgroup %s is gone; its series are dropped",
			    t->cgroup);
			target_free(t);
			continue;
		}
		if (t->seen == 2) {
			r = target_open(c, t);
			if (r == -ENOMEM)
				return r;
			if (r < 0) {
				target_free(t);	/* vanished meanwhile */
				continue;
			}
			if (!was_counted(c, t->cgroup))
				REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0,
				    "counting cgroup %s", t->cgroup);
			if (enable)
				target_enable(t);
		}
		c->targets[j++] = t;
	}
	c->nr_targets = j;
	return 0;
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
						    in->pg.err[e])
							break;
					oe = &s->open_errors[n];
					if (n == s->nr_open_errors) {
						*oe = (struct snap_open_error){
						    gnames[tg->gi],
						    names[tg->gi][e],
						    in->pg.err[e], 0 };
						s->nr_open_errors++;
					}
					oe->count++;
				}
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
	size_t i, j, k, e, nrows = 0, row = 0, ne;
	struct timespec ts;
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
		for (j = 0; j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			nrows += (c->targets[i]->cgroup == NULL ||
			    tg->per_cpu) ? tg->cpus.nr : 1;
		}
	s->rows = snapshot_alloc(s, (nrows + 1) * sizeof(*s->rows));
	if (s->rows == NULL)
		goto fail;
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];

		cg = NULL;
		if (t->cgroup && (cg = snapshot_strdup(s, t->cgroup)) == NULL)
			goto fail;
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
					r->cpu = split ? in->cpu : -1;
					r->group = gnames[tg->gi];
					r->nr_events = ne;
					r->events = names[tg->gi];
					v = snapshot_alloc(s, ne * sizeof(*v));
					if (v == NULL)
						goto fail;
					memset(v, 0, ne * sizeof(*v));
					r->values = v;
					r->enabled_s = r->running_s = 0;
				} else
					r = &s->rows[row - 1];
				v = (double *)r->values;
				for (e = 0; e < ne; e++)
					v[e] += scale_value(&in->acc[e]);
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
	if (s->support == NULL)
		goto fail;
	for (i = 0, row = 0; i < cfg->nr_groups; i++)
		for (e = 0; e < cfg->groups[i].nr_events; e++, row++) {
			s->support[row].group = gnames[i];
			s->support[row].event = names[i][e];
			s->support[row].supported = 0;
		}
	s->nr_support = row;
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];
			size_t base = 0;

			for (k = 0; k < tg->gi; k++)
				base += cfg->groups[k].nr_events;
			for (k = 0; k < tg->cpus.nr; k++)
				for (e = 0; e < tg->inst[k].pg.nr; e++)
					s->support[base +
					    tg->inst[k].pg.evidx[e]].supported = 1;
		}
	if (snapshot_health(c, s, gnames, names) < 0)
		goto fail;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->timestamp_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	s->duration_s = duration_s;
	s->seq = c->seq;
	s->open_fds = collector_open_fds(c);
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

	if (t0 - c->last_rescan_ns >= c->cfg->rescan_ns) {
		c->last_rescan_ns = t0;
		if (rescan_cgroups(c, 1) < 0)
			REPORT(c, 3, NULL, NULL, NULL, -1, ENOMEM,
			    "cgroup rescan: %s", strerror(ENOMEM));
	}
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; j < c->targets[i]->nr_groups; j++) {
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
	struct pollfd pfd[2] = {
		{ .fd = c->timerfd, .events = POLLIN },
		{ .fd = c->stopfd, .events = POLLIN },
	};
	uint64_t expirations;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			REPORT(c, 3, NULL, NULL, NULL, -1, errno,
			    "collector poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents)
			break;
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
	int r;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return -ENOMEM;
	c->o = *o;
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

int
collector_reload(struct collector *c, const struct config *cfg)
{
	struct perf_event_attr **attrs = c->attrs;
	int **ev_logged = c->ev_logged, *pattern_empty = c->pattern_empty;
	const struct config *old_cfg = c->cfg;
	struct target **old = c->targets;
	size_t nr_old = c->nr_targets, i;
	int was_started = c->started, r;

	collector_stop(c);
	c->targets = NULL;
	c->nr_targets = c->cap_targets = 0;
	c->attrs = NULL;
	c->ev_logged = NULL;
	c->pattern_empty = NULL;
	c->adopt = old;
	c->nr_adopt = nr_old;
	c->adopt_cfg = old_cfg;
	r = cfgstate_init(c, cfg);
	if (r == 0)
		r = open_targets(c);
	c->adopt = NULL;
	c->nr_adopt = 0;
	c->adopt_cfg = NULL;
	/* Whatever was not adopted is closed now. */
	for (i = 0; i < nr_old; i++)
		target_free(old[i]);
	free(old);
	cfgstate_fini(old_cfg, attrs, ev_logged, pattern_empty);
	if (r < 0)
		return r;
	if (was_started)
		return collector_start(c);
	return 0;
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
	size_t i, ncg = 0, ncpu = 0, unsup;

	for (i = 0; i < c->nr_targets; i++) {
		if (c->targets[i]->cgroup)
			ncg++;
		else if (c->targets[i]->nr_groups)
			ncpu = c->targets[i]->groups[0].cpus.nr;
	}
	unsup = collector_unsupported(c);
	snprintf(buf, len, "%zu group%s on %zu CPU%s and %zu cgroup%s "
	    "(%zu perf fds); %zu event%s unsupported", c->cfg->nr_groups,
	    c->cfg->nr_groups == 1 ? "" : "s", ncpu, ncpu == 1 ? "" : "s",
	    ncg, ncg == 1 ? "" : "s", collector_open_fds(c), unsup,
	    unsup == 1 ? "" : "s");
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

		for (j = 0; j < t->nr_groups; j++) {
			struct tgroup *tg = &t->groups[j];
			const struct cfg_group *g = &cfg->groups[tg->gi];
			size_t ok_inst = 0, unsched = 0;

			for (k = 0; k < tg->cpus.nr; k++) {
				struct inst *in = &tg->inst[k];

				if (in->state != INST_OK)
					continue;
				ok_inst++;
				if (group_read(&in->pg, in->cur) == 0 &&
				    in->cur[in->pg.evidx[0]].enabled > 0 &&
				    in->cur[in->pg.evidx[0]].running == 0)
					unsched++;
			}
			fprintf(out, "%s group %s on CPUs %s: %zu of %zu "
			    "instances open\n", target_name(t), g->name,
			    cpumap_format(&tg->cpus, cpus, sizeof(cpus)),
			    ok_inst, tg->cpus.nr);
			if (ok_inst < tg->cpus.nr)
				problems++;
			if (unsched) {
				fprintf(out, "  never scheduled on %zu CPUs: "
				    "too many events for the counters, or "
				    "the PMU is busy\n", unsched);
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
