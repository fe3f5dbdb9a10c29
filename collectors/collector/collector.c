/*
 * collector.c - the collector's life: made from a plan, its thread (a
 * timerfd loop that collects, beats a heartbeat and takes requests:
 * a reload, a failed reload's note, stop), and collector.h's API.  The
 * data's shape and the parts each file takes: docs/architecture.md,
 * "Layers and threads".
 *
 * Top to bottom, the folder's files, each calling and including only
 * files on the rows below its own (tests/integration/map.test reads the
 * objects' symbols, the includes and this list; docs/architecture.md's
 * table keeps its order):
 *
 *   probe.c        --check-config: each kind's lines, the targets left
 *                  unopened and why, the groups never scheduled
 *   collector.c    the collector's life, its thread and requests
 *   interval.c     its time: the timer, the schedule, one collection
 *   snapbuild.c    the immutable snapshot of the target set, read only
 *   collector_int.h  struct collector, for the four files above
 *   hotplug.c      the online CPUs, and the last reads of those gone
 *   targetset.c    the target set and the one pass that changes it
 *   share.c        each delegated subtree's share of a pass
 *   discovery.c    the cgroup side of a pass: the hierarchy, every
 *                  entry's matches, the inotify watch set
 *   wanted.c       the wanted set, a pure function of plan and cgroups
 *   cgnews.c       what a pass says of the cgroups come and gone
 *   departed.c     the counts of cgroups gone, kept a while by path
 *   target.c       one target: its groups, opening and enabling them
 *   instance.c     one group on one CPU: taken over or opened
 *   source.c       the kinds table and every call through it
 *   source_*.c     one kind of counter source each, with its own state
 *   bpfobj.c       a kind's object (source_bpf.c's): program, map, slots
 *   source.h       the kinds' interface, which the kinds implement
 *   planstate.c    the running plan and what is made for it
 *   plan.c         the plan: groups, targets, the kinds' descriptions
 *   snapshot.c     a snapshot's arena and its references
 *   asks.h, cgroot.h, online.h, opts.h, report.h  parts many files name
 *
 * Some calls go through pointers, which no object shows.  Down: a kind's
 * hooks and what it holds for a target (source.c only), and an instance's
 * source (read, enable, close: source.h's inline calls, from instance.c,
 * target.c and probe.c).  Up, two: the daemon's hooks in collector_opts,
 * published (the analysis's feed, once a collection) and log (at each
 * report).
 */
#include "autoconf.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "collectors/collector/collector.h"
#include "collectors/collector/collector_int.h"
#include "collectors/collector/departed.h"
#include "collectors/collector/discovery.h"
#include "collectors/collector/hotplug.h"
#include "collectors/collector/interval.h"
#include "collectors/collector/online.h"
#include "collectors/collector/targetset.h"
#include "util/clock.h"

/* A reload (cfg) or a failed reload's note (cfg NULL), and the reply. */
struct collector_req {
	const struct plan *cfg;
	int ok;
	double when;
	int done, result;
};

static void
nolog(int prio, const struct log_fields *f, const char *fmt, ...)
{
	(void)prio;
	(void)f;
	(void)fmt;
}

/* What is due (interval.c's schedule), then a collection. */
static void
tick(struct collector *c)
{
	interval_tend(c);
	interval_collect(c);
}

/* The thread's two calls, for tests and benchmarks (collector.h). */
void
collector_tend(struct collector *c)
{
	interval_tend(c);
}

void
collector_collect(struct collector *c)
{
	interval_collect(c);
}

/*
 * A request carried out, by the thread (or, before it starts, the
 * caller): the new plan applied, its interval armed (as interval.c
 * decides), and the self-metrics
 * told how the reload went.  0; -ECANCELED when memory ran out before
 * anything changed (the running plan is kept); -ENOMEM when it ran out
 * after (the new plan runs, what did not open waits for the next rescan).
 */
static int
carry_out(struct collector *c, const struct collector_req *q)
{
	int r = 0;

	if (q->cfg)
		r = interval_replan(c, q->cfg, RECONCILE_RELOAD);
	c->th.reload_ok = q->ok && r == 0;
	if (c->th.reload_ok)
		c->th.reload_success_s = q->when;
	return r;
}

/* On the thread: take the pending request, carry it out, reply. */
static void
serve_request(struct collector *c)
{
	struct collector_req *q;
	uint64_t n;
	int r = 0;

	if (read(c->th.reqfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		SAY(&c->rep, LOG_ERR, errno, "collector "
		    "request: %s", strerror(errno));
	pthread_mutex_lock(&c->th.lock);
	q = c->th.req;
	c->th.req = NULL;
	pthread_mutex_unlock(&c->th.lock);
	if (q == NULL)
		return;
	r = carry_out(c, q);
	/* The reply follows a collection (of the new plan, or showing the
	 * failed reload), so that what the caller reports next is true. */
	tick(c);
	pthread_mutex_lock(&c->th.lock);
	q->result = r;
	q->done = 1;
	pthread_cond_broadcast(&c->th.done);
	pthread_mutex_unlock(&c->th.lock);
}

static void *
collector_main(void *arg)
{
	struct collector *c = arg;
	struct pollfd pfd[4];

	pfd[0] = (struct pollfd){ .fd = interval_timer_fd(c),
	    .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = c->th.stopfd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = c->th.reqfd, .events = POLLIN };
	for (;;) {
		/* A reload may have made the watch. */
		pfd[3] = (struct pollfd){ .fd = c->cg.watch ?
		    cgwatch_fd(c->cg.watch) : -1, .events = POLLIN };
		if (poll(pfd, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			SAY(&c->rep, LOG_ERR, errno,
			    "collector poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[2].revents)
			serve_request(c);
		if (pfd[3].revents && c->cg.watch)
			interval_cgroups_changed(c);
		if (pfd[0].revents && interval_expired(c))
			tick(c);
	}
	return NULL;
}

/* ---- public ------------------------------------------------------- */

int
collector_new(const struct plan *cfg, const struct collector_opts *o,
    struct collector **out, char *err, size_t errlen)
{
	struct collector *c;
	int r;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return -ENOMEM;
	c->o = *o;
	c->online.fd = -1;
	if (c->o.log == NULL)
		c->o.log = nolog;
	c->rep.log = c->o.log;
	if (c->o.sysfs == NULL)
		c->o.sysfs = "/sys";
	if (c->o.mountinfo == NULL)
		c->o.mountinfo = "/proc/self/mountinfo";
	if (c->o.procfs == NULL)
		c->o.procfs = "/proc";
	c->cg.mountinfo = c->o.mountinfo;
	c->kinds = (struct kinds){ .ps = &c->ps, .online = &c->online.map,
	    .cg = &c->cg, .rp = &c->rep };
	c->set.ps = &c->ps;
	c->set.cg = &c->cg;
	c->set.ix = (struct inst_ctx){ &c->kinds, &c->said, c->o.procfs };
	c->set.rp = &c->rep;
	c->th.stopfd = c->th.reqfd = -1;
	interval_init(c);
	snapshot_slot_init(&c->slot);
	atomic_init(&c->col.heartbeat, 0);
	pthread_mutex_init(&c->th.lock, NULL);
	pthread_cond_init(&c->th.done, NULL);
	/* The config just loaded is the last successful load. */
	c->th.reload_ok = 1;
	c->th.reload_success_s = wall_s();

	if ((r = cpumap_online(c->o.sysfs, &c->online.map)) < 0) {
		snprintf(err, errlen, "%s/devices/system/cpu/online: %s",
		    c->o.sysfs, strerror(-r));
		goto fail;
	}
	hotplug_open(&c->online, c->o.sysfs);
	if (source_kinds_init(c->kinds.state) < 0)
		goto nomem;
	if ((r = interval_replan(c, cfg, RECONCILE_START)) < 0)
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
	targetset_enable(&c->set);
}

int
collector_start(struct collector *c)
{
	int r;

	collector_enable(c);
	/* The first collection, so that readiness means real readings,
	 * named. */
	interval_first(c);

	if (c->th.stopfd < 0 &&
	    (c->th.stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -errno;
	if (c->th.reqfd < 0 &&
	    (c->th.reqfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -errno;
	if ((r = interval_arm(c)) < 0)
		return r;
	/* From here on the thread owns every target, instance and fd. */
	if ((r = pthread_create(&c->th.id, NULL, collector_main, c)) != 0)
		return -r;
	c->th.started = 1;
	return 0;
}

/* Stop the thread (if started); fds stay open until collector_free. */
static void
collector_stop(struct collector *c)
{
	uint64_t one = 1;

	if (c == NULL || !c->th.started)
		return;
	if (write(c->th.stopfd, &one, sizeof(one)) < 0)
		SAY(&c->rep, LOG_ERR, errno,
		    "stopping the collector: %s", strerror(errno));
	pthread_join(c->th.id, NULL);
	/* Drain the stop request so that the thread can be started again. */
	if (read(c->th.stopfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		SAY(&c->rep, LOG_ERR, errno,
		    "stopping the collector: %s", strerror(errno));
	c->th.started = 0;
}

/*
 * A request to the thread, and the wait for its reply.  Before the thread
 * starts (and after it stops) the caller owns everything and does it
 * itself.
 */
static int
request(struct collector *c, const struct plan *cfg, int ok, double when)
{
	struct collector_req q = { cfg, ok, when, 0, 0 };
	uint64_t one = 1;

	if (!c->th.started)
		return carry_out(c, &q);
	pthread_mutex_lock(&c->th.lock);
	c->th.req = &q;
	pthread_mutex_unlock(&c->th.lock);
	if (write(c->th.reqfd, &one, sizeof(one)) < 0) {
		pthread_mutex_lock(&c->th.lock);
		c->th.req = NULL;	/* never seen: nothing changed */
		pthread_mutex_unlock(&c->th.lock);
		return -ECANCELED;
	}
	pthread_mutex_lock(&c->th.lock);
	while (!q.done)
		pthread_cond_wait(&c->th.done, &c->th.lock);
	pthread_mutex_unlock(&c->th.lock);
	return q.result;
}

int
collector_reload(struct collector *c, const struct plan *cfg, double when)
{
	return request(c, cfg, 1, when);
}

void
collector_reload_failed(struct collector *c)
{
	request(c, NULL, 0, 0);
}

size_t
collector_open_fds(const struct collector *c)
{
	return targetset_fds(&c->set);
}

enum denied_cause
collector_denied(const struct collector *c)
{
	return c->said.denied;
}

void
collector_free(struct collector *c)
{
	if (c == NULL)
		return;
	collector_stop(c);
	targetset_fini(&c->set);
	source_kinds_fini(c->kinds.state);
	planstate_fini(c->ps.cfg, &c->ps);
	cpumap_free(&c->online.map);
	cgwatch_free(c->cg.watch);
	if (c->online.fd >= 0)
		close(c->online.fd);
	pthread_mutex_destroy(&c->th.lock);
	pthread_cond_destroy(&c->th.done);
	snapshot_slot_fini(&c->slot);
	if (c->th.stopfd >= 0)
		close(c->th.stopfd);
	if (c->th.reqfd >= 0)
		close(c->th.reqfd);
	interval_fini(c);
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
	return atomic_load(&c->col.heartbeat);
}

void
collector_summary(const struct snapshot *s, char *buf, size_t len)
{
	if (s == NULL) {
		snprintf(buf, len, "nothing yet");
		return;
	}
	snprintf(buf, len, "%zu group%s on %zu CPU%s and %zu cgroup%s "
	    "(%zu perf fds); %zu event%s unsupported", s->nr_groups,
	    s->nr_groups == 1 ? "" : "s", s->cpus_covered,
	    s->cpus_covered == 1 ? "" : "s", s->cgroups_opened,
	    s->cgroups_opened == 1 ? "" : "s", s->open_fds, s->nr_unsupported,
	    s->nr_unsupported == 1 ? "" : "s");
}
