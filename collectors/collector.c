/*
 * collector.c - the collector's life: creating it from a plan, the
 * thread (a timerfd loop that collects, beats a heartbeat and takes
 * reloads), and the public API of collector.h.
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
 *
 * The rest lives beside it, one job a file, all on the collector thread
 * and sharing collector_int.h: instance.c (group instances), target.c
 * (the target set, reload and hotplug), rescan.c (cgroup discovery),
 * collect.c (reading and scaling), snapbuild.c (snapshots), probe.c
 * (--check-config).
 */
#include "autoconf.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "collectors/collector_int.h"

static void
nolog(int prio, const struct log_fields *f, const char *fmt, ...)
{
	(void)prio;
	(void)f;
	(void)fmt;
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
int
cfgstate_init(struct collector *c, const struct plan *cfg)
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

void
cfgstate_fini(const struct plan *cfg, struct perf_event_attr **attrs,
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

/* ---- public ------------------------------------------------------- */

int
collector_new(const struct plan *cfg, const struct collector_opts *o,
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
	target_online_open(c);
	for (i = 0; i < cfg->nr_targets; i++)
		if (cfg->targets[i].kind == PLAN_TARGET_CGROUP &&
		    (r = cgwatch_new(&c->watch)) < 0) {
			REPORT(c, 4, NULL, NULL, NULL, -1, -r,
			    "inotify: %s; new cgroups are found only by the "
			    "rescan every %llus", strerror(-r),
			    (unsigned long long)(cfg->rescan_ns /
			    1000000000ULL));
			break;
		} else if (c->watch)
			break;
	c->max_fds = target_fd_budget(cfg);
	if ((r = cfgstate_init(c, cfg)) < 0 || (r = target_open_all(c)) < 0)
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
collector_reload(struct collector *c, const struct plan *cfg)
{
	int was_started = c->started, r;

	collector_stop(c);
	if ((r = target_rebuild(c, cfg)) < 0)
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
	const struct plan *cfg = c->cfg;
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
						    x < inst_pg(&tg->inst[k])->nr; x++)
							if (inst_pg(&tg->inst[k])->evidx[x] == e)
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
	bpfmode_unref(c->bpf);
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
