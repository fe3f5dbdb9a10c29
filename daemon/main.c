/*
 * main.c - pmu_exporter: flags, start-up order, signals, shutdown.
 *
 * Start-up runs in dependency order: logger, limits, config, the
 * container name resolver and its thread (names/), collector (opens every
 * group), HTTP, then the collector thread with its first collection; only
 * then does systemd hear READY=1.  Signals are blocked in
 * every thread and taken synchronously here with sigtimedwait, so no code
 * runs in signal context at all; the same loop feeds the watchdog, but
 * only while the collector's heartbeat advances, so a hung collector gets
 * the service restarted.  Without NOTIFY_SOCKET the sd_notify calls do
 * nothing and the daemon runs in the foreground as usual.
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>
#include <linux/perf_event.h>
#include <microhttpd.h>
#include <systemd/sd-daemon.h>

#include "analysis/interference.h"
#include "collectors/collector/collector.h"
#include "collectors/events/cpuinfo.h"
#include "collectors/events/event_pfm.h"
#include "collectors/events/event_sys.h"
#include "collectors/perf/group.h"
#include "config/config.h"
#include "daemon/http.h"
#include "daemon/log.h"
#include "daemon/webconfig.h"
#include "names/names.h"
#include "util/text.h"
#include "util/clock.h"

struct options {
	const char *config_file;
	const char *listen;
	const char *telemetry_path;
	const char *sysfs;
	const char *procfs;
	const char *rootfs;
	int check_config;
	int systemd_socket;
	int list_events;
	const char *resolve_event;
	const char *web_config;
	struct http_opts web;		/* the limits and exporter metrics */
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: pmu_exporter [options]\n"
"\n"
"Exports hardware performance counters per CPU and per cgroup to Prometheus.\n"
"\n"
"  --config.file=FILE          YAML config (default: the embedded one)\n"
"  --web.listen-address=ADDR   [host]:port to listen on (default :10101)\n"
"  --web.telemetry-path=PATH   path of the metrics (default /metrics)\n"
"  --web.systemd-socket        use the listening socket systemd passes\n"
"                              (socket activation) instead of binding\n"
"  --web.config.file=FILE      TLS, basic auth and headers (the Prometheus\n"
"                              exporter-toolkit web config format)\n"
"  --web.max-requests=N        scrapes in flight before 503 (default 40;\n"
"                              0: no limit)\n"
"  --web.max-requests-per-ip=N  scrapes in flight from one client address\n"
"                              before 429 (default 10; 0: no limit)\n"
"  --web.max-connections=N     open connections (default 512)\n"
"  --web.max-connections-per-ip=N  per client address (default 64; 0: none)\n"
"  --web.read-header-timeout=D time a client has to send its whole\n"
"                              request, e.g. 10s (default 10s; 0: none)\n"
"  --web.max-header-bytes=N    memory for one request's headers\n"
"                              (default 16384)\n"
"  --web.auth-failures-per-minute=N  failed password checks allowed per\n"
"                              client address: a burst of N, then N a\n"
"                              minute; beyond it 429 (default 10; 0: none)\n"
"  --web.disable-exporter-metrics  serve only the pmu_cpu_* and\n"
"                              pmu_cgroup_* series: no pmu_exporter_*,\n"
"                              no process_*\n"
"  --log.level=LEVEL           debug, info, warn or error (default info)\n"
"  --log.format=FORMAT         logfmt or json (default: the journal when\n"
"                              stderr is connected to it, else logfmt)\n"
"  --path.sysfs=DIR            sysfs mount point (default /sys)\n"
"  --path.procfs=DIR           procfs mount point (default /proc)\n"
"  --path.rootfs=DIR           the host's root, where container runtimes\n"
"                              keep their state (default /; /host when\n"
"                              the daemon runs in a container)\n"
"  --check-config              validate the config, open every group once,\n"
"                              print what would be counted, exit 0 or 1\n"
"  --list-events               print the events this machine offers\n"
"  --resolve-event=EVENT       print the perf_event_attr EVENT becomes\n"
"                              (preset:topdown: what the preset opens)\n"
"  --version                   print the version and exit\n"
"  --help                      this text\n");
}

static struct collector *running;
static struct interference *analysis;

/* The collector's hook after each publish: the analysis thread's turn. */
static void
offer_snapshot(void *arg, struct snapshot *s)
{
	interference_offer(arg, s);
}

/* Say why the interference analysis is off, once: at start, and on a
 * reload only when the reason changed. */
static void
log_interference(const struct interference_config *ic,
    const struct interference_config *prev)
{
	if (ic->enabled || (prev && !prev->enabled && prev->why_off &&
	    ic->why_off && strcmp(prev->why_off, ic->why_off) == 0))
		return;
	log_info("interference analysis is off: %s", ic->why_off ?
	    ic->why_off : "disabled");
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
	(void)ctx;
	return collector_snapshot(running);
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

/* Can this machine count cycles at all?  0, or the errno that says no. */
static int
probe_hardware(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return -group_probe(&attr, 0, -1, 0);
}

/* Say what an embedded config counts: its groups and their events, and
 * the layouts whose cgroups it counts (each then says what it found). */
static void
log_embedded(const struct plan *p)
{
	char what[512], layouts[512];
	size_t i, j, n = 0, l = 0;

	what[0] = '\0';
	for (i = 0; i < p->nr_groups && n < sizeof(what); i++) {
		const struct plan_group *g = &p->groups[i];

		/* A hybrid machine's per-PMU copies share the name. */
		if (i > 0 && strcmp(g->name, p->groups[i - 1].name) == 0)
			continue;
		n += snprintf(what + n, sizeof(what) - n, "%sgroup %s = {",
		    n ? ", " : "", g->name);
		for (j = 0; j < g->nr_events && n < sizeof(what); j++)
			n += snprintf(what + n, sizeof(what) - n, "%s%s",
			    j ? ", " : "", g->events[j].name);
		if (n < sizeof(what))
			n += snprintf(what + n, sizeof(what) - n, "}");
	}
	layouts[0] = '\0';
	for (i = 0; i < p->nr_layouts && l < sizeof(layouts); i++)
		l += snprintf(layouts + l, sizeof(layouts) - l, "%s%s",
		    i ? ", " : "", p->layouts[i]);
	log_info("the embedded default counts %s on every CPU and on the "
	    "cgroups of the layouts it knows: %s", what, layouts);
}

/* prev had the same preset copy lacking the same: said already. */
static int
preset_said(const struct plan *prev, const struct plan_group *g)
{
	size_t i;

	for (i = 0; prev && i < prev->nr_groups; i++) {
		const struct plan_group *o = &prev->groups[i];

		if (o->preset && strcmp(o->name, g->name) == 0 &&
		    (o->pmu == NULL) == (g->pmu == NULL) &&
		    (!o->pmu || strcmp(o->pmu, g->pmu) == 0) &&
		    o->nr_missing == g->nr_missing &&
		    o->nr_events == g->nr_events)
			return 1;
	}
	return 0;
}

/*
 * A topdown preset group that counts nothing on a PMU, or less than its
 * definition wants, says so once (a reload to the same says nothing);
 * the other groups count on.
 */
static void
log_presets(const struct plan *p, const struct plan *prev)
{
	size_t i;

	for (i = 0; i < p->nr_groups; i++) {
		const struct plan_group *g = &p->groups[i];

		if (!g->preset || g->nr_missing == 0 || preset_said(prev, g))
			continue;
		if (g->nr_events == 0)
			log_warn("group %s%s%s: this machine's PMU offers no "
			    "top-down events (%s); the group counts nothing "
			    "here and the others count as configured", g->name,
			    g->pmu ? " on PMU " : "", g->pmu ? g->pmu : "",
			    g->why ? g->why : "no definition");
		else
			log_warn("group %s on PMU %s (%s): %s; counting the "
			    "%zu event%s it offers, top-down level %d",
			    g->name, g->pmu, g->definition, g->why ? g->why :
			    "events missing", g->nr_events,
			    g->nr_events == 1 ? "" : "s", g->level);
	}
}

static int load_plan(const struct options *opt,
    const struct event_ctx *ectx, struct plan **cfg,
    struct interference_config *ic);

/* Load into *cfg and *ic; prev and prev_ic are what runs (NULL at
 * start). */
static int
load_config(const struct options *opt, const struct event_ctx *ectx,
    struct plan **cfg, const struct plan *prev,
    struct interference_config *ic, const struct interference_config *prev_ic)
{
	if (load_plan(opt, ectx, cfg, ic) < 0)
		return -1;
	log_presets(*cfg, prev);
	log_interference(ic, prev_ic);
	return 0;
}

static int
load_plan(const struct options *opt, const struct event_ctx *ectx,
    struct plan **cfg, struct interference_config *ic)
{
	char err[1024];
	int e;

	/*
	 * A file of comments only (as packages ship it) means the embedded
	 * default, fallback included: the file documents it, and uncommenting
	 * anything replaces it.
	 */
	if (opt->config_file) {
		e = config_load_all(ectx, opt->config_file, cfg, ic, err,
		    sizeof(err));
		if (e == -ENODATA) {
			log_info("%s sets nothing (only comments): running the "
			    "embedded default", opt->config_file);
			goto embedded;
		}
		if (e < 0) {
			log_error("%s", err);
			return -1;
		}
		/* mode: bpf with bpf_fallback: refuse, where it cannot run. */
		if (config_bpf_check(*cfg, opt->procfs, opt->sysfs, err,
		    sizeof(err)) < 0) {
			log_error("%s", err);
			interference_config_fini(ic);
			plan_free(*cfg);
			*cfg = NULL;
			return -1;
		}
		return 0;
	}
embedded:
	e = probe_hardware();
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL) {
		log_warn("this machine has no hardware counters (cycles: %s); "
		    "the embedded default counts software events instead",
		    strerror(e));
		if (config_parse_all(ectx, "<default>", config_fallback_yaml,
		    strlen(config_fallback_yaml), cfg, ic, err,
		    sizeof(err)) < 0)
			goto bad;
		/* The reason that matters is the machine's. */
		free(ic->why_off);
		ic->why_off = strdup("this machine has no hardware counters "
		    "(the embedded default counts software events): no "
		    "cycles and instructions to take CPI from");
		log_embedded(*cfg);
		return 0;
	}
	if (config_parse_all(ectx, "<default>", config_default_yaml,
	    strlen(config_default_yaml), cfg, ic, err, sizeof(err)) < 0)
		goto bad;
	log_embedded(*cfg);
	return 0;
bad:
	log_error("embedded config: %s", err);
	return -1;
}

/* The --web.* limits, in the order of their option codes. */
static int
parse_web_limit(int which, const char *arg, struct http_opts *w)
{
	static const char *const names[] = { "web.max-requests",
	    "web.max-connections", "web.max-connections-per-ip",
	    "web.read-header-timeout", "web.max-header-bytes",
	    "web.auth-failures-per-minute", "web.max-requests-per-ip" };
	unsigned long long v;
	uint64_t ns;
	char *end;

	if (which == 3) {
		if (strcmp(arg, "0") == 0)
			ns = 0;
		else if (text_parse_duration(arg, &ns) < 0 ||
		    ns > 3600ULL * 1000000000ULL)
			goto bad;
		/* Whole seconds, rounded up: 0 would switch it off. */
		w->header_timeout_s = (unsigned)((ns + 999999999ULL) /
		    1000000000ULL);
		return 0;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > 1000000000ULL ||
	    (which == 1 && v == 0) || (which == 4 && v < 1024))
		goto bad;
	switch (which) {
	case 0: w->max_requests = (unsigned)v; break;
	case 1: w->max_connections = (unsigned)v; break;
	case 2: w->max_connections_per_ip = (unsigned)v; break;
	case 4: w->max_header_bytes = (size_t)v; break;
	case 5: w->auth_failures_per_minute = (unsigned)v; break;
	default: w->max_requests_per_ip = (unsigned)v; break;
	}
	return 0;
bad:
	fprintf(stderr, "pmu_exporter: --%s: invalid value \"%s\"%s\n",
	    names[which], arg, which == 3 ? " (a duration such as 10s)" :
	    which == 4 ? " (a byte count, at least 1024)" :
	    which == 1 ? " (a positive number)" : " (a number)");
	return -1;
}

/* The flags (usage() says what each does). */
enum {
	O_CONFIG = 256, O_LISTEN, O_PATH, O_LEVEL, O_FORMAT, O_SYSFS,
	O_PROCFS, O_CHECK, O_VERSION, O_HELP, O_SOCKET, O_LIST_EVENTS,
	O_RESOLVE_EVENT, O_WEBCFG, O_MAXREQ, O_MAXCONN, O_MAXPERIP,
	O_HDRTIMEOUT, O_HDRBYTES, O_AUTHFAIL, O_MAXREQIP, O_NOSELF, O_ROOTFS
};

static const struct option longopts[] = {
	{ "config.file", required_argument, NULL, O_CONFIG },
	{ "web.listen-address", required_argument, NULL, O_LISTEN },
	{ "web.telemetry-path", required_argument, NULL, O_PATH },
	{ "web.systemd-socket", no_argument, NULL, O_SOCKET },
	{ "web.config.file", required_argument, NULL, O_WEBCFG },
	{ "web.max-requests", required_argument, NULL, O_MAXREQ },
	{ "web.max-requests-per-ip", required_argument, NULL, O_MAXREQIP },
	{ "web.max-connections", required_argument, NULL, O_MAXCONN },
	{ "web.max-connections-per-ip", required_argument, NULL,
	    O_MAXPERIP },
	{ "web.read-header-timeout", required_argument, NULL,
	    O_HDRTIMEOUT },
	{ "web.max-header-bytes", required_argument, NULL, O_HDRBYTES },
	{ "web.auth-failures-per-minute", required_argument, NULL,
	    O_AUTHFAIL },
	{ "web.disable-exporter-metrics", no_argument, NULL, O_NOSELF },
	{ "log.level", required_argument, NULL, O_LEVEL },
	{ "log.format", required_argument, NULL, O_FORMAT },
	{ "path.sysfs", required_argument, NULL, O_SYSFS },
	{ "path.procfs", required_argument, NULL, O_PROCFS },
	{ "path.rootfs", required_argument, NULL, O_ROOTFS },
	{ "check-config", no_argument, NULL, O_CHECK },
	{ "list-events", no_argument, NULL, O_LIST_EVENTS },
	{ "resolve-event", required_argument, NULL, O_RESOLVE_EVENT },
	{ "version", no_argument, NULL, O_VERSION },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static int
parse_args(int argc, char **argv, struct options *opt)
{
	int c, level = LOG_INFO;
	enum log_format fmt = log_stderr_is_journal() ? LOG_FORMAT_JOURNAL :
	    LOG_FORMAT_LOGFMT;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_CONFIG: opt->config_file = optarg; break;
		case O_LISTEN: opt->listen = optarg; break;
		case O_PATH: opt->telemetry_path = optarg; break;
		case O_SYSFS: opt->sysfs = optarg; break;
		case O_PROCFS: opt->procfs = optarg; break;
		case O_ROOTFS: opt->rootfs = optarg; break;
		case O_CHECK: opt->check_config = 1; break;
		case O_SOCKET: opt->systemd_socket = 1; break;
		case O_LIST_EVENTS: opt->list_events = 1; break;
		case O_RESOLVE_EVENT: opt->resolve_event = optarg; break;
		case O_WEBCFG: opt->web_config = optarg; break;
		case O_NOSELF: opt->web.exporter_metrics = 0; break;
		case O_MAXREQ:
		case O_MAXCONN:
		case O_MAXPERIP:
		case O_HDRTIMEOUT:
		case O_HDRBYTES:
		case O_AUTHFAIL:
		case O_MAXREQIP:
			if (parse_web_limit(c - O_MAXREQ, optarg, &opt->web) < 0)
				return 1;
			break;
		case O_LEVEL:
			if ((level = log_parse_level(optarg)) < 0) {
				fprintf(stderr, "pmu_exporter: --log.level: "
				    "unknown level \"%s\" (debug, info, warn, "
				    "error)\n", optarg);
				return 1;
			}
			break;
		case O_FORMAT:
			if (strcmp(optarg, "logfmt") == 0)
				fmt = LOG_FORMAT_LOGFMT;
			else if (strcmp(optarg, "json") == 0)
				fmt = LOG_FORMAT_JSON;
			else {
				fprintf(stderr, "pmu_exporter: --log.format: "
				    "unknown format \"%s\" (logfmt, json)\n",
				    optarg);
				return 1;
			}
			break;
		case O_VERSION:
			printf("pmu_exporter %s (revision %s, libmicrohttpd "
			    "%s)\n", PACKAGE_VERSION, GIT_REVISION,
			    MHD_get_version());
			return 0;
		case 'h':
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pmu_exporter: unexpected argument \"%s\"\n",
		    argv[optind]);
		return 1;
	}
	log_init(level, fmt);
	return -1;
}

static void
notify_status(const char *state)
{
	struct snapshot *s = collector_snapshot(running);
	char summary[256];

	collector_summary(s, summary, sizeof(summary));
	snapshot_unref(s);
	sd_notifyf(0, "%sSTATUS=counting %s", state, summary);
}

/*
 * The watchdog: ping only while the collector's heartbeat moves.  It
 * beats once per interval, so it is hung when it has not beaten for two
 * intervals and a second.
 */
struct watchdog {
	uint64_t usec;			/* 0: no watchdog */
	uint64_t last_beat, last_change_ns, stale_ns;
	int withheld;
};

static void
watchdog_tick(struct watchdog *w)
{
	uint64_t beat = collector_heartbeat(running), now = mono_ns();

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
reload(const struct options *opt, const struct event_ctx *ectx,
    struct plan **cfg, struct interference_config *ic)
{
	struct interference_config next_ic;
	struct plan *next = NULL;
	int r;

	sd_notifyf(0, "RELOADING=1\nSTATUS=reloading %s\nMONOTONIC_USEC=%llu",
	    opt->config_file ? opt->config_file : "the embedded config",
	    (unsigned long long)(mono_ns() / 1000));
	if (load_config(opt, ectx, &next, *cfg, &next_ic, ic) < 0) {
		log_error("reload failed: still running the previous config");
		collector_reload_failed(running);
		notify_status("READY=1\n");
		return;
	}
	/* A request to the collector thread, answered after it collected
	 * with the new config. */
	if ((r = collector_reload(running, next, wall_s())) == -ECANCELED) {
		/* Out of memory (or the request undelivered) before anything
		 * changed. */
		log_error("reload failed before anything changed (%s): still "
		    "running the previous config", strerror(ENOMEM));
		plan_free(next);
		interference_config_fini(&next_ic);
		notify_status("READY=1\n");
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
	if (interference_reload(analysis, &next_ic) < 0)
		log_error("reload: the interference analysis keeps its "
		    "config: %s", strerror(ENOMEM));
	interference_config_fini(ic);
	*ic = next_ic;
	log_info("reloaded %s: counting now", next->source);
	notify_status("READY=1\n");
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

/*
 * What the process holds while it runs.  Each step below fills its part
 * and says whether to go on; main frees it all in one place
 * (daemon_free), whichever step stopped it.  The collector is `running`,
 * which the HTTP side and the watchdog read through.
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
	sigset_t sigs;			/* taken by serve() */
	int listen_fd;			/* systemd's socket, or -1 */
};

static const struct options default_options = {
	.listen = ":10101",
	.telemetry_path = "/metrics",
	.sysfs = "/sys",
	.procfs = "/proc",
	.rootfs = "/",
	.web = {
		.max_requests = HTTP_DEFAULT_MAX_REQUESTS,
		.max_requests_per_ip = HTTP_DEFAULT_MAX_REQUESTS_PER_IP,
		.max_connections = HTTP_DEFAULT_MAX_CONNECTIONS,
		.max_connections_per_ip = HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP,
		.header_timeout_s = HTTP_DEFAULT_HEADER_TIMEOUT_S,
		.max_header_bytes = HTTP_DEFAULT_MAX_HEADER_BYTES,
		.auth_failures_per_minute =
		    HTTP_DEFAULT_AUTH_FAILURES_PER_MINUTE,
		.exporter_metrics = 1,
	},
};

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
	const char *hang;

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
	/* Test hook for the watchdog test: the collector stops collecting. */
	if ((hang = getenv("PMU_EXPORTER_TEST_HANG_AFTER")) != NULL)
		d->copts.hang_after = strtoull(hang, NULL, 10);

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
		if ((r = interference_new(&d->icfg, &analysis)) < 0 ||
		    (r = interference_start(analysis)) < 0) {
			log_error("interference analysis: %s", strerror(-r));
			return -1;
		}
		d->copts.published = offer_snapshot;
		d->copts.published_arg = analysis;
		d->hopts.interference = analysis;
	}
	if (collector_new(d->cfg, &d->copts, &running, err, sizeof(err)) < 0) {
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
	int r = collector_check(running, stdout, 200);

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

	if (collector_open_fds(running) == 0 &&
	    (why = collector_denied(running)) != DENIED_NONE) {
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
	if ((r = collector_start(running)) < 0) {
		log_error("starting the collector: %s", strerror(-r));
		return -1;
	}
	snap = collector_snapshot(running);
	collector_summary(snap, summary, sizeof(summary));
	snapshot_unref(snap);
	log_info("pmu_exporter %s listening on %s (%s%s), path %s, counting "
	    "%s, config %s", PACKAGE_VERSION, d->listen_fd >= 0 ?
	    "the socket from systemd" : d->opt.listen,
	    d->web && d->web->tls ? "https" : "http",
	    d->web && d->web->nr_users ? ", basic auth" : "",
	    d->opt.telemetry_path, summary, d->cfg->source);
	notify_status("READY=1\n");
	return 0;
}

/* The signals, until one says stop; the watchdog fed meanwhile, if
 * systemd asked for one.  The exit status. */
static int
serve(struct daemon *d)
{
	struct watchdog wd = { 0, 0, 0, 0, 0 };
	struct timespec tick;
	siginfo_t si;
	int sig;

	if (sd_watchdog_enabled(0, &wd.usec) > 0 && wd.usec > 0) {
		wd.stale_ns = 2 * d->cfg->interval_ns + 1000000000ULL;
		wd.last_change_ns = mono_ns();
		wd.last_beat = collector_heartbeat(running);
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
		if (sig == SIGHUP) {
			reload(&d->opt, &d->es.ctx, &d->cfg, &d->icfg);
			wd.stale_ns = 2 * d->cfg->interval_ns + 1000000000ULL;
		}
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
	collector_free(running);
	running = NULL;
	interference_free(analysis);
	analysis = NULL;
	names_free(d->names);
	interference_config_fini(&d->icfg);
	plan_free(d->cfg);
	event_sys_free(&d->es);
	webcfg_free(d->web);
}

int
main(int argc, char **argv)
{
	struct daemon d = { .opt = default_options, .listen_fd = -1 };
	int r, status;

	if ((r = parse_args(argc, argv, &d.opt)) >= 0)
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
