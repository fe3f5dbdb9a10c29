/*
 * interval.c - the collector's time: the timer (absolute expiries),
 * the schedule of what is due before a collection (struct schedule),
 * and one collection, read, stamped with its time and published; in one
 * file so that an interval that adapts, or a collection that overruns,
 * changes this file alone.  See docs/architecture.md, "Layers and
 * threads".
 */
#include "autoconf.h"

#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "collectors/cgroup/cgwatch.h"
#include "collectors/collector/collector_int.h"
#include "collectors/collector/hotplug.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/interval.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/snapbuild.h"
#include "collectors/collector/snapshot.h"
#include "collectors/collector/target.h"
#include "collectors/collector/targetset.h"
#include "collectors/perf/group.h"
#include "names/names.h"
#include "util/clock.h"

/* ---- reading ------------------------------------------------------ */

/* Can g wait for a counter?  Only with an event that takes one. */
static int
takes_counters(const struct plan_group *g)
{
	size_t e;

	for (e = 0; e < g->nr_events; e++)
		if (group_uses_counter(&g->events[e].perf.attr))
			return 1;
	return 0;
}

/* One instance's reading in a collection: its deltas added up, or why
 * it had none. */
static void
collect_one(struct collector *c, const struct target *t,
    struct tgroup *tg, struct inst *in)
{
	const struct plan_group *g = &c->ps.cfg->groups[tg->gi];
	int r;

	if (in->state != INST_OK || in->src == NULL)
		return;
	if ((r = inst_read(in)) == -EAGAIN || r == 1)
		return;			/* no deltas this interval */
	if (r < 0) {
		if (r == -ENODATA)
			REPORT(&c->rep, LOG_WARNING, t->cgroup, g->name, NULL,
			    in->cpu, 0,
			    "group \"%s\" on cpu %d for %s is in error "
			    "state (read returned 0 bytes); it stops counting",
			    g->name, in->cpu, target_name(t));
		else
			REPORT(&c->rep, LOG_WARNING, t->cgroup, g->name, NULL,
			    in->cpu, -r,
			    "reading group \"%s\" on cpu %d for %s: "
			    "%s; it stops counting", g->name, in->cpu,
			    target_name(t), strerror(-r));
		inst_close(in, INST_BROKEN);
		/* Reopened at the next full rescan: a CPU that blinked
		 * offline for less than an interval breaks reads like this. */
		c->sched.asks.retry = 1;
		return;
	}
	/*
	 * Never scheduled: enabled for a whole interval, running never.  A
	 * software group of a cgroup can show that on a CPU where the
	 * cgroup has not run since it was opened: not for want of counters.
	 */
	if (in->running_ns == 0 &&
	    in->enabled_ns >= c->ps.cfg->interval_ns / 2 &&
	    !tg->unscheduled && takes_counters(g)) {
		tg->unscheduled = 1;
		REPORT(&c->rep, LOG_WARNING, t->cgroup, g->name, NULL, in->cpu,
		    0,
		    "group \"%s\" for %s has not been scheduled on cpu "
		    "%d (time_running is 0): too many events for the "
		    "counters, or the PMU is in use by someone else",
		    g->name, target_name(t), in->cpu);
	} else if (in->running_ns > 0 && tg->unscheduled == 1 &&
	    in->last_dr > 0) {
		tg->unscheduled = 2;
		REPORT(&c->rep, LOG_INFO, t->cgroup, g->name, NULL, in->cpu, 0,
		    "group \"%s\" for %s is being scheduled now",
		    g->name, target_name(t));
	}
}

/* ---- the timer --------------------------------------------------- */

void
interval_init(struct collector *c)
{
	c->sched = (struct schedule){ .timerfd = -1 };
}

void
interval_fini(struct collector *c)
{
	if (c->sched.timerfd >= 0)
		close(c->sched.timerfd);
	c->sched.timerfd = -1;
}

static struct timespec
timespec_of(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000ULL),
	    (long)(ns % 1000000000ULL) };
}

/* Absolute expiries (first, first + interval, ...), so that each one's
 * time is known here exactly, not guessed from the wake-up. */
int
interval_arm(struct collector *c)
{
	struct schedule *sc = &c->sched;
	uint64_t iv = c->ps.cfg->interval_ns, first;
	struct itimerspec its;

	if (sc->timerfd < 0 && (sc->timerfd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return -errno;
	first = mono_ns() + iv;
	its.it_interval = timespec_of(iv);
	its.it_value = timespec_of(first);
	if (timerfd_settime(sc->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	sc->interval_ns = iv;
	sc->next_ns = first;
	return 0;
}

int
interval_timer_fd(const struct collector *c)
{
	return c->sched.timerfd;
}

int
interval_expired(struct collector *c)
{
	struct schedule *sc = &c->sched;
	uint64_t n;

	if (read(sc->timerfd, &n, sizeof(n)) != (ssize_t)sizeof(n) || n == 0)
		return 0;
	/* n expiries since the last read: this collection is the last's,
	 * the n - 1 before it are skipped (counters are cumulative: one
	 * late collection has all they would have had). */
	sc->missed += n - 1;
	sc->began_ns = sc->next_ns + (n - 1) * sc->interval_ns;
	sc->next_ns = sc->began_ns + sc->interval_ns;
	return 1;
}

/* The interval in effect: the timer's, or before it runs the plan's, at
 * which it will. */
static uint64_t
effective_ns(const struct collector *c)
{
	return c->sched.interval_ns ? c->sched.interval_ns :
	    c->ps.cfg->interval_ns;
}

/* ---- the schedule ------------------------------------------------ */

int
interval_replan(struct collector *c, const struct plan *cfg,
    enum reconcile_reason why)
{
	struct schedule *sc = &c->sched;
	int r, t;

	r = targetset_reconcile(&c->set, cfg, why, &sc->asks);
	if (r != -ECANCELED && sc->interval_ns &&
	    c->ps.cfg->interval_ns != sc->interval_ns &&
	    (t = interval_arm(c)) < 0 && r == 0)
		r = t;
	return r;
}

void
interval_cgroups_changed(struct collector *c)
{
	if (cgwatch_drain(c->cg.watch) != 0)
		c->sched.asks.rescan_soon = 1;
}

/*
 * Is the target set due to change before this collection, and why: a CPU
 * change (its instances on CPUs gone read one last time, hotplug.c); a
 * retry of what failed (soon after ENODEV on a CPU just online, 10 times
 * at most; other failures at the rescan interval); a rescan of the
 * cgroups (one came or went, a kind has room again, or the interval).
 */
static int
due(struct collector *c, enum reconcile_reason *why)
{
	struct schedule *sc = &c->sched;
	struct asks *as = &sc->asks;
	uint64_t t0 = mono_ns();

	if (as->rebuilt_ns) {
		sc->last_rescan_ns = as->rebuilt_ns;
		as->rebuilt_ns = 0;
	}
	if (hotplug_changed(&c->online, &c->set)) {
		sc->soon_tries = 0;
		as->retry_soon = 0;
		*why = RECONCILE_CPU_CHANGE;
	} else if ((as->retry_soon && sc->soon_tries < 10) ||
	    (as->retry && t0 - sc->last_rescan_ns >= c->ps.cfg->rescan_ns)) {
		sc->soon_tries += as->retry_soon;
		/* The full rescan reopens what failed, keeping the rest. */
		SAY(&c->rep, LOG_INFO, 0, "reopening group "
		    "instances that stopped counting");
		*as = (struct asks){ 0 };
		*why = RECONCILE_RETRY;
	} else if (as->rescan_soon || t0 - sc->last_rescan_ns >=
	    c->ps.cfg->rescan_ns) {
		sc->last_rescan_ns = t0;
		as->rescan_soon = 0;
		*why = RECONCILE_RESCAN;
	} else
		return 0;
	return 1;
}

void
interval_tend(struct collector *c)
{
	static const char *const what[] = {
		[RECONCILE_CPU_CHANGE] = "reopening after a CPU change",
		[RECONCILE_RETRY] = "reopening",
		[RECONCILE_RESCAN] = "cgroup rescan",
	};
	enum reconcile_reason why;

	if (c->sched.began_ns == 0)
		c->sched.began_ns = mono_ns();
	if (due(c, &why) &&
	    targetset_reconcile(&c->set, c->ps.cfg, why, &c->sched.asks) < 0)
		SAY(&c->rep, LOG_ERR, ENOMEM, "%s: %s", what[why],
		    strerror(ENOMEM));
}

/* ---- one collection ----------------------------------------------- */

/*
 * What a snapshot saw, acted on: the targets it held out for their names
 * are marked, so the next one shows them; the resolver is told the ids
 * counted now and their cgroups, when the set changed.
 */
static void
act_on_seen(struct collector *c, const struct snapseen *seen)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	const char *p;

	for (i = 0; i < seen->nr_held; i++)
		c->set.v[seen->held[i]]->names_held = 1;
	for (i = 0; i < seen->nr_ids; i++) {
		for (p = seen->ids[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
		for (p = seen->cgs[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xfe) * 1099511628211ULL;
	}
	if (h == c->col.names_told && seen->nr_ids == c->col.names_told_nr)
		return;
	if (names_want(c->o.names, c->cg.found ? c->cg.path : NULL,
	    seen->ids, seen->cgs, seen->nr_ids) == 0) {
		c->col.names_told = h;
		c->col.names_told_nr = seen->nr_ids;
	}
}

/*
 * One collection, its snapshot published; or, with hold_back, not
 * published when it held targets out for their names: 1 then, else 0.
 */
static int
collect(struct collector *c, int hold_back)
{
	uint64_t began = c->sched.began_ns ? c->sched.began_ns : mono_ns();
	struct namemap *nm;
	struct snapseen seen;
	struct snapshot *s;
	struct inst_iter it;
	int held = 0;

	c->sched.began_ns = 0;
	source_kinds_refresh(&c->kinds);
	TARGETSET_FOREACH_INST(&c->set, &it)
		collect_one(c, it.t, it.tg, it.in);
	c->col.seq++;
	nm = c->o.names ? names_map(c->o.names) : NULL;
	s = snapbuild(c, nm, &seen);
	if (s == NULL)
		SAY(&c->rep, LOG_ERR, ENOMEM,
		    "building a snapshot: %s", strerror(ENOMEM));
	else {
		/* Its time, as this file alone knows it. */
		s->interval_s = (double)effective_ns(c) / 1e9;
		s->began_ns = began;
		s->duration_s = (double)(mono_ns() - began) / 1e9;
		s->intervals_missed = c->sched.missed;
		if (nm)
			act_on_seen(c, &seen);
		held = hold_back && seen.nr_held > 0;
		if (held)
			snapshot_unref(s);
		else {
			snapshot_publish(&c->slot, s);
			if (c->o.published)
				c->o.published(c->o.published_arg, s);
		}
	}
	snapseen_free(&seen);
	atomic_fetch_add(&c->col.heartbeat, 1);
	return held;
}

void
interval_collect(struct collector *c)
{
	collect(c, 0);
}

/* The wait for the names at start: at most an interval, and 2 s. */
#define FIRST_NAMES_MAX_NS (2 * 1000000000ULL)

void
interval_first(struct collector *c)
{
	uint64_t wait = effective_ns(c), until;
	const struct timespec tick = { 0, 10 * 1000000 };

	interval_tend(c);
	if (!collect(c, 1))
		return;
	until = mono_ns() + (wait < FIRST_NAMES_MAX_NS ? wait :
	    FIRST_NAMES_MAX_NS);
	while (mono_ns() < until &&
	    snapbuild_unlooked(c, names_map(c->o.names)) > 0)
		nanosleep(&tick, NULL);
	collect(c, 0);
}
