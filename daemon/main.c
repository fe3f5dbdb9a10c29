/*
 * main.c - pmu_exporter: flags, start-up order, signals, shutdown.
 *
 * Start-up runs in dependency order: logger, limits, config, collector
 * (opens every group), HTTP, then the collector thread.  Signals are
 * blocked in every thread and taken synchronously here with sigwaitinfo,
 * so no code runs in signal context at all.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <microhttpd.h>

#include "collectors/collector.h"
#include "collectors/event_sys.h"
#include "config/config.h"
#include "daemon/http.h"
#include "daemon/log.h"

struct options {
	const char *config_file;
	const char *listen;
	const char *telemetry_path;
	const char *sysfs;
	const char *procfs;
	int check_config;
	int list_events;
	const char *resolve_event;
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
"  --log.level=LEVEL           debug, info, warn or error (default info)\n"
"  --log.format=FORMAT         logfmt or json (default logfmt)\n"
"  --path.sysfs=DIR            sysfs mount point (default /sys)\n"
"  --path.procfs=DIR           procfs mount point (default /proc)\n"
"  --check-config              validate the config, open every group once,\n"
"                              print what would be counted, exit 0 or 1\n"
"  --list-events               print the events this machine offers\n"
"  --resolve-event=EVENT       print the perf_event_attr EVENT becomes\n"
"  --version                   print the version and exit\n"
"  --help                      this text\n");
}

static struct collector *running;

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
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int
load_config(const struct options *opt, const struct event_ctx *ectx,
    struct config **cfg)
{
	char err[1024];
	int e;

	if (opt->config_file) {
		if (config_load(ectx, opt->config_file, cfg, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return -1;
		}
		return 0;
	}
	e = probe_hardware();
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL) {
		log_warn("this machine has no hardware counters (cycles: %s); "
		    "the embedded default counts software events instead",
		    strerror(e));
		if (config_parse(ectx, "<default>", config_fallback_yaml,
		    strlen(config_fallback_yaml), cfg, err, sizeof(err)) < 0)
			goto bad;
		return 0;
	}
	if (config_parse(ectx, "<default>", config_default_yaml,
	    strlen(config_default_yaml), cfg, err, sizeof(err)) < 0)
		goto bad;
	return 0;
bad:
	log_error("embedded config: %s", err);
	return -1;
}

static int
parse_args(int argc, char **argv, struct options *opt)
{
	enum { O_CONFIG = 256, O_LISTEN, O_PATH, O_LEVEL, O_FORMAT, O_SYSFS,
	    O_PROCFS, O_CHECK, O_VERSION, O_HELP, O_LIST_EVENTS,
	    O_RESOLVE_EVENT };
	static const struct option longopts[] = {
		{ "config.file", required_argument, NULL, O_CONFIG },
		{ "web.listen-address", required_argument, NULL, O_LISTEN },
		{ "web.telemetry-path", required_argument, NULL, O_PATH },
		{ "log.level", required_argument, NULL, O_LEVEL },
		{ "log.format", required_argument, NULL, O_FORMAT },
		{ "path.sysfs", required_argument, NULL, O_SYSFS },
		{ "path.procfs", required_argument, NULL, O_PROCFS },
		{ "check-config", no_argument, NULL, O_CHECK },
		{ "list-events", no_argument, NULL, O_LIST_EVENTS },
		{ "resolve-event", required_argument, NULL, O_RESOLVE_EVENT },
		{ "version", no_argument, NULL, O_VERSION },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c, level = LOG_INFO;
	enum log_format fmt = LOG_FORMAT_LOGFMT;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_CONFIG: opt->config_file = optarg; break;
		case O_LISTEN: opt->listen = optarg; break;
		case O_PATH: opt->telemetry_path = optarg; break;
		case O_SYSFS: opt->sysfs = optarg; break;
		case O_PROCFS: opt->procfs = optarg; break;
		case O_CHECK: opt->check_config = 1; break;
		case O_LIST_EVENTS: opt->list_events = 1; break;
		case O_RESOLVE_EVENT: opt->resolve_event = optarg; break;
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

int
main(int argc, char **argv)
{
	struct options opt = {
		.listen = ":10101",
		.telemetry_path = "/metrics",
		.sysfs = "/sys",
		.procfs = "/proc",
	};
	struct collector_opts copts;
	struct http_opts hopts;
	struct config *cfg = NULL;
	struct http *http = NULL;
	struct event_sys es;
	char err[1024], mountinfo[4096], summary[256];
	sigset_t sigs;
	siginfo_t si;
	int r, sig, status = 1;

	if ((r = parse_args(argc, argv, &opt)) >= 0)
		return r;
	snprintf(mountinfo, sizeof(mountinfo), "%s/self/mountinfo",
	    opt.procfs);
	if (event_sys_load(&es, opt.sysfs, mountinfo, err, sizeof(err)) < 0) {
		log_error("reading PMUs: %s", strerror(ENOMEM));
		return 1;
	}
	if (err[0])
		log_warn("%s", err);
	if (opt.list_events || opt.resolve_event) {
		status = 0;
		if (opt.list_events)
			event_sys_list(&es, stdout);
		else if (event_sys_resolve(&es, opt.resolve_event, stdout, err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "pmu_exporter: %s\n", err);
			status = 1;
		}
		event_sys_free(&es);
		return status;
	}
	raise_nofile();
	if (load_config(&opt, &es.ctx, &cfg) < 0) {
		event_sys_free(&es);
		return 1;
	}
	copts = (struct collector_opts){
		.sysfs = opt.sysfs,
		.mountinfo = mountinfo,
		.log = log_msg,
	};

	/* Block signals before any thread exists; they are taken below. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if ((r = collector_new(cfg, &copts, &running, err, sizeof(err))) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (opt.check_config) {
		r = collector_check(running, stdout, 200);
		printf("%s: %s\n", cfg->source, r ? "problems found" :
		    "OK, every event can be counted here");
		status = r ? 1 : 0;
		goto out;
	}
	if ((r = collector_start(running)) < 0) {
		log_error("starting the collector: %s", strerror(-r));
		goto out;
	}
	hopts = (struct http_opts){
		.listen = opt.listen,
		.listen_fd = -1,
		.telemetry_path = opt.telemetry_path,
		.snapshot = current_snapshot,
	};
	if ((r = http_start(&hopts, &http, err, sizeof(err))) < 0) {
		log_error("%s", err);
		goto out;
	}
	collector_summary(running, summary, sizeof(summary));
	log_info("pmu_exporter %s listening on %s%s, counting %s, config %s",
	    PACKAGE_VERSION, opt.listen, opt.telemetry_path, summary,
	    cfg->source);

	for (;;) {
		sig = sigwaitinfo(&sigs, &si);
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			log_error("sigwaitinfo: %s", strerror(errno));
			break;
		}
		if (sig == SIGTERM || sig == SIGINT) {
			log_info("received %s, shutting down",
			    sig == SIGTERM ? "SIGTERM" : "SIGINT");
			status = 0;
			break;
		}
		if (sig == SIGHUP)
			log_warn("SIGHUP: live reload is not available in this "
			    "version; restart to apply a changed config");
	}
out:
	http_stop(http);
	collector_free(running);
	running = NULL;
	config_free(cfg);
	event_sys_free(&es);
	return status;
}
