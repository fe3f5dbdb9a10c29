/*
 * main.c - pmu_exporter: start-up order, --check-config, signals (taken
 * with sigtimedwait), reload, the watchdog, shutdown; the process's state
 * in one struct daemon (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>
#include <systemd/sd-daemon.h>

#include "analysis/interference.h"
#include "collectors/collector/collector.h"
#include "collectors/events/cpuinfo.h"
#include "collectors/events/event_pfm.h"
#include "collectors/events/event_sys.h"
#include "config/config.h"
#include "daemon/flags.h"
#include "daemon/http/http.h"
#include "daemon/http/webconfig.h"
#include "daemon/load.h"
#include "daemon/log.h"
#include "names/names.h"
#include "util/clock.h"

/*
 * What the process holds while it runs.  Each step below fills its part
 * and says whether to go on; main frees it all in one place
 * (daemon_free), whichever step stopped it.  The HTTP side reads the
 * collector's snapshots through it (current_snapshot, its context).
 */
struct daemon {
	struct options opt;
	char mountinfo[4096];
	struct event_sys es;
	struct cpuinfo cpu;		/* the CPU model per core PMU */
	struct plan *cfg;
	struct interference_config icfg;	/* the interference: block */
	struct webcfg *web;
	struct names *names;
	struct http *http;
	struct http_opts hopts;
	struct collector_opts copts;
	struct collector *collector;
	struct interference *analysis;
	sigset_t sigs;			/* taken by serve() */
	int listen_fd;			/* systemd's socket, or -1 */
};

/* The collector's hook after each publish: the analysis thread's turn. */
static void
offer_snapshot(void *arg, struct snapshot *s)
{
	interference_offer(arg, s);
}

/* --check-config's line for the analysis. */
static void
print_interference(const struct interference_config *ic)
{
	if (!ic->enabled) {
		printf("interference: off: %s\n", ic->why_off ? ic->why_off :
		    "disabled");
		return;
	}
	printf("interference: on: group %s (CPI = %s / %s), window %.0fs, "
	    "cpu_floor %g CPU-s/s, outlier_sigma %g, victim_outliers %u in "
	    "victim_window %.0fs, suspect_threshold %g, suspects %u\n",
	    ic->group, ic->cycles, ic->instructions, (double)ic->window_ns / 1e9,
	    ic->cpu_floor, ic->outlier_sigma, ic->victim_outliers,
	    (double)ic->victim_window_ns / 1e9, ic->suspect_threshold,
	    ic->suspects);
}

/* The name resolver's reports (names.h), like the collector's. */
static void
names_log(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(prio, "%s", msg);
}

static struct snapshot *
current_snapshot(void *ctx)
{
	const struct daemon *d = ctx;

	return collector_snapshot(d->collector);
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_warn("raising RLIMIT_NOFILE to %llu: %s",
		    (unsigned long long)rl.rlim_max, strerror(errno));
}

static void
notify_status(const struct daemon *d, const char *state)
{
	struct snapshot *s = collector_snapshot(d->collector);
	char summary[256];

	collector_summary(s, summary, sizeof(summary));
	snapshot_unref(s);
	sd_notifyf(0, "%sSTATUS=counting %s", state, summary);
}

/*
 * The watchdog: ping only while the collector's heartbeat moves.  It
 * beats once per interval, so it is hung when it has not beaten for two
 * intervals and a second: the interval in effect, as the last snapshot
 * says it (the collector's timer owns it, not the config).
 */
struct watchdog {
	struct collector *c;		/* whose heartbeat it follows */
	uint64_t usec;			/* 0: no watchdog */
	uint64_t last_beat, last_change_ns, stale_ns;
	int withheld;
};

/* The staleness the last snapshot allows; as before if there is none. */
static uint64_t
watchdog_stale_ns(struct collector *c, uint64_t was)
{
	struct snapshot *s = collector_snapshot(c);
	uint64_t ns = was;

	if (s != NULL) {
		ns = 2 * (uint64_t)llround(s->interval_s * 1e9) + 1000000000ULL;
		snapshot_unref(s);
	}
	return ns;
}

static void
watchdog_tick(struct watchdog *w)
{
	uint64_t beat = collector_heartbeat(w->c), now = mono_ns();

	w->stale_ns = watchdog_stale_ns(w->c, w->stale_ns);

	if (beat != w->last_beat) {
		w->last_beat = beat;
		w->last_change_ns = now;
	}
	if (now - w->last_change_ns <= w->stale_ns) {
		if (w->withheld) {
			log_info("the collector is collecting again; "
			    "watchdog pings resume");
			w->withheld = 0;
		}
		sd_notify(0, "WATCHDOG=1");
	} else if (!w->withheld) {
		w->withheld = 1;
		log_error("the collector has not collected for %.1fs; "
		    "withholding watchdog pings",
		    (double)(now - w->last_change_ns) / 1e9);
	}
}

/* SIGHUP: validate the new config; keep the old one if it is bad. */
static void
reload(struct daemon *d)
{
	const struct options *opt = &d->opt;
	struct plan **cfg = &d->cfg;
	struct interference_config *ic = &d->icfg;
	struct interference_config next_ic;
	struct plan *next = NULL;
	int r;

	sd_notifyf(0, "RELOADING=1\nSTATUS=reloading %s\nMONOTONIC_USEC=%llu",
	    opt->config_file ? opt->config_file : "the embedded config",
	    (unsigned long long)(mono_ns() / 1000));
	if (load_config(opt, &d->es.ctx, &next, *cfg, &next_ic, ic) < 0) {
		log_error("reload failed: still running the previous config");
		collector_reload_failed(d->collector);
		notify_status(d, "READY=1\n");
		return;
	}
	/* A request to the collector thread, answered after it collected
	 * with the new config. */
	if ((r = collector_reload(d->collector, next, wall_s())) ==
	    -ECANCELED) {
		/* Out of memory (or the request undelivered) before anything
		 * changed. */
		log_error("reload failed before anything changed (%s): still "
		    "running the previous config", strerror(ENOMEM));
		plan_free(next);
		interference_config_fini(&next_ic);
		notify_status(d, "READY=1\n");
		return;
	}
	if (r < 0)
		log_error("reload: %s: counting with the new config what "
		    "opened; the rest is opened at the next cgroup rescan",
		    strerror(-r));
	plan_free(*cfg);
	*cfg = next;
	/* The analysis takes it at its next snapshot; -ENOMEM keeps the
	 * one it runs. */
	if (interference_reload(d->analysis, &next_ic) < 0)
		log_error("reload: the interference analysis keeps its "
		    "config: %s", strerror(ENOMEM));
	interference_config_fini(ic);
	*ic = next_ic;
	log_info("reloaded %s: counting now", next->source);
	notify_status(d, "READY=1\n");
}

/* The socket systemd passed, or -1; exits on a wrong number of them. */
static int
activated_socket(const struct options *opt)
{
	int n = sd_listen_fds(1);

	if (n < 0) {
		log_error("sd_listen_fds: %s", strerror(-n));
		exit(1);
	}
	if (opt->systemd_socket && n != 1) {
		log_error("--web.systemd-socket: systemd passed %d sockets "
		    "(LISTEN_FDS); expected exactly 1", n);
		exit(1);
	}
	if (n == 0)
		return -1;
	if (n > 1) {
		log_error("systemd passed %d sockets (LISTEN_FDS); expected 1",
		    n);
		exit(1);
	}
	if (sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
		log_error("the socket systemd passed is not a listening "
		    "stream socket");
		exit(1);
	}
	return SD_LISTEN_FDS_START;
}


/* The machine's PMUs and tracefs: what event names mean here.  0, or -1
 * (logged). */
static int
daemon_events(struct daemon *d)
{
	char err[1024];

	snprintf(d->mountinfo, sizeof(d->mountinfo), "%s/self/mountinfo",
	    d->opt.procfs);
	if (event_sys_load(&d->es, d->opt.sysfs, d->mountinfo, err,
	    sizeof(err)) < 0) {
		log_error("reading PMUs: %s", strerror(ENOMEM));
		return -1;
	}
	if (err[0])
		log_warn("%s", err);
	event_sys_identify(&d->es, d->opt.sysfs, d->opt.procfs);
	return 0;
}

/* --list-events and --resolve-event: the exit status. */
static int
event_commands(struct daemon *d)
{
	char err[1024];

	if (d->opt.list_events) {
		event_sys_list(&d->es, stdout);
		return 0;
	}
	if (event_sys_resolve(&d->es, d->opt.resolve_event, stdout, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "pmu_exporter: %s\n", err);
		return 1;
	}
	return 0;
}

/*
 * The config, the web config and the options built from them, checked
 * before the first perf event, cgroup watch or socket is opened; signals
 * blocked before any thread exists (serve takes them).  0, or -1
 * (logged).
 */
static int
daemon_load(struct daemon *d)
{
	char err[1024];

	raise_nofile();
	interference_config_defaults(&d->icfg);
	if (load_config(&d->opt, &d->es.ctx, &d->cfg, NULL, &d->icfg,
	    NULL) < 0)
		return -1;
	if (d->opt.web_config && webcfg_load(d->opt.web_config, &d->web, err,
	    sizeof(err)) < 0) {
		log_error("%s", err);
		return -1;
	}
	d->copts = (struct collector_opts){
		.sysfs = d->opt.sysfs,
		.mountinfo = d->mountinfo,
		.log = log_fields,
		.procfs = d->opt.procfs,
	};

	sigemptyset(&d->sigs);
	sigaddset(&d->sigs, SIGTERM);
	sigaddset(&d->sigs, SIGINT);
	sigaddset(&d->sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &d->sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!d->opt.check_config)
		d->listen_fd = activated_socket(&d->opt);
	d->hopts = d->opt.web;
	d->hopts.listen = d->opt.listen;
	d->hopts.listen_fd = d->listen_fd;
	d->hopts.telemetry_path = d->opt.telemetry_path;
	d->hopts.snapshot = current_snapshot;
	d->hopts.log = log_fields;
	d->hopts.ctx = d;
	d->hopts.web = d->web;
	d->hopts.procfs = d->opt.procfs;
	d->hopts.pfm_version = event_pfm_version();
	cpuinfo_read(d->opt.procfs, &d->es.pmus, &d->cpu);
	d->hopts.cpu = &d->cpu;
	if (http_check(&d->hopts, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return -1;
	}
	return 0;
}

/*
 * The name resolver and its thread, then the collector, every group
 * opened.  The resolver runs before the collector's first collection,
 * which tells it the container ids to look up.  0, or -1 (logged).
 */
static int
daemon_open(struct daemon *d)
{
	char err[1024];
	int r;

	if (!d->opt.check_config) {
		struct names_opts nopts = { d->opt.rootfs, names_log };

		if ((r = names_new(&nopts, &d->names)) < 0 ||
		    (r = names_start(d->names)) < 0) {
			log_error("container names: %s", strerror(-r));
			return -1;
		}
		d->copts.names = d->names;
	}
	/* The analysis reads every snapshot the collector publishes, on its
	 * own thread; the HTTP side renders its latest result. */
	if (!d->opt.check_config) {
		if ((r = interference_new(&d->icfg, &d->analysis)) < 0 ||
		    (r = interference_state_file(d->analysis,
		    d->opt.state_file, names_log)) < 0 ||
		    (r = interference_start(d->analysis)) < 0) {
			log_error("interference analysis: %s", strerror(-r));
			return -1;
		}
		d->copts.published = offer_snapshot;
		d->copts.published_arg = d->analysis;
		d->hopts.interference = d->analysis;
	}
	if (collector_new(d->cfg, &d->copts, &d->collector, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return -1;
	}
	return 0;
}

/* --check-config: what would be counted.  The exit status. */
static int
check_config(const struct daemon *d)
{
	/* A refusal was reported, with its reason, as it happened. */
	int r = probe_check_config(d->collector, stdout, 200);

	print_interference(&d->icfg);
	printf("%s: %s\n", d->cfg->source, r ? "problems found" :
	    "OK, every event can be counted here");
	return r ? 1 : 0;
}

/*
 * Serving: the HTTP server, then the collector's thread with its first
 * collection; only then does systemd hear READY=1.  0, or -1 (logged).
 */
static int
daemon_start(struct daemon *d)
{
	struct snapshot *snap;
	enum denied_cause why;
	char err[1024], summary[256];
	int r;

	if (collector_open_fds(d->collector) == 0 &&
	    (why = collector_denied(d->collector)) != DENIED_NONE) {
		/* The collector said why, and what to change, as it happened. */
		log_error("no perf event could be opened: perf_event_open was "
		    "refused (%s; the message above says what to change)",
		    denied_cause_name(why));
		return -1;
	}
	if (http_start(&d->hopts, &d->http, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return -1;
	}
	if ((r = collector_start(d->collector)) < 0) {
		log_error("starting the collector: %s", strerror(-r));
		return -1;
	}
	snap = collector_snapshot(d->collector);
	collector_summary(snap, summary, sizeof(summary));
	snapshot_unref(snap);
	log_info("pmu_exporter %s listening on %s (%s%s), path %s, counting "
	    "%s, config %s", PACKAGE_VERSION, d->listen_fd >= 0 ?
	    "the socket from systemd" : d->opt.listen,
	    d->web && d->web->tls ? "https" : "http",
	    d->web && d->web->nr_users ? ", basic auth" : "",
	    d->opt.telemetry_path, summary, d->cfg->source);
	notify_status(d, "READY=1\n");
	return 0;
}

/* The signals, until one says stop; the watchdog fed meanwhile, if
 * systemd asked for one.  The exit status. */
static int
serve(struct daemon *d)
{
	struct watchdog wd = { d->collector, 0, 0, 0, 0, 0 };
	struct timespec tick;
	siginfo_t si;
	int sig;

	if (sd_watchdog_enabled(0, &wd.usec) > 0 && wd.usec > 0) {
		wd.last_change_ns = mono_ns();
		wd.last_beat = collector_heartbeat(d->collector);
		log_info("watchdog enabled: pinging every %.3fs while the "
		    "collector runs", (double)wd.usec / 2e6);
	}
	for (;;) {
		if (wd.usec) {
			tick.tv_sec = (time_t)(wd.usec / 2 / 1000000);
			tick.tv_nsec = (long)(wd.usec / 2 % 1000000) * 1000;
			sig = sigtimedwait(&d->sigs, &si, &tick);
		} else
			sig = sigwaitinfo(&d->sigs, &si);
		if (sig < 0) {
			if (errno == EAGAIN) {
				watchdog_tick(&wd);
				continue;
			}
			if (errno == EINTR)
				continue;
			log_error("sigwaitinfo: %s", strerror(errno));
			return 1;
		}
		if (sig == SIGTERM || sig == SIGINT) {
			log_info("received %s, shutting down",
			    sig == SIGTERM ? "SIGTERM" : "SIGINT");
			sd_notify(0, "STOPPING=1\nSTATUS=shutting down");
			return 0;
		}
		if (sig == SIGHUP)
			reload(d);
		if (wd.usec)
			watchdog_tick(&wd);
	}
}

/* Everything main's steps filled, in reverse; what they did not is
 * NULL or zero, which each free takes. */
static void
daemon_free(struct daemon *d)
{
	http_stop(d->http);
	collector_free(d->collector);
	d->collector = NULL;
	interference_free(d->analysis);
	d->analysis = NULL;
	names_free(d->names);
	interference_config_fini(&d->icfg);
	plan_free(d->cfg);
	event_sys_free(&d->es);
	webcfg_free(d->web);
}

/* `pmu_exporter top ...`: the program installed beside this one
 * (top/main.c, docs/top.md), so that the daemon links neither ncurses
 * nor libcurl.  Returns only when it cannot be run. */
static int
run_top(char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	if (n <= 0 || !(dir[n] = '\0', slash = strrchr(dir, '/'))) {
		fprintf(stderr, "pmu_exporter: top: /proc/self/exe: %s\n",
		    strerror(errno));
		return 1;
	}
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/pmu_exporter-top", dir);
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "pmu_exporter: top: %s: %s\n", path, strerror(errno));
	return 1;
}

int
main(int argc, char **argv)
{
	struct daemon d = { .opt = flags_default, .listen_fd = -1 };
	int r, status;

	if (argc > 1 && strcmp(argv[1], "top") == 0)
		return run_top(argv + 1);
	if ((r = flags_parse(argc, argv, &d.opt)) >= 0)
		return r;
	if (daemon_events(&d) < 0)
		status = 1;
	else if (d.opt.list_events || d.opt.resolve_event)
		status = event_commands(&d);
	else if (daemon_load(&d) < 0 || daemon_open(&d) < 0)
		status = 1;
	else if (d.opt.check_config)
		status = check_config(&d);
	else if (daemon_start(&d) < 0)
		status = 1;
	else
		status = serve(&d);
	daemon_free(&d);
	return status;
}
