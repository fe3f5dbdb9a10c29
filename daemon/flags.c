/*
 * flags.c - the command line: each flag, its value checked, and the usage
 * text that tests/integration/docs.test holds to docs/configuration.md
 * (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "daemon/flags.h"
#include "daemon/log.h"
#include "util/text.h"

static void
usage(FILE *f)
{
	fprintf(f,
"usage: pmu_exporter [options]\n"
"       pmu_exporter top [options]   a live view of a running daemon\n"
"                                    (pmu_exporter top --help)\n"
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
"  --web.write-timeout=D       time a client has, once its answer is\n"
"                              ready, to take all of it (default 10s;\n"
"                              0: none)\n"
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
"  --web.auth-state-file=FILE  keep the addresses whose passwords passed\n"
"                              there across restarts: their first checks\n"
"                              after one go first (default: none)\n"
"  --analysis.state-file=FILE  keep the interference analysis's baselines\n"
"                              there across restarts (default: none)\n"
"  --check-config              validate the config, open every group once,\n"
"                              print what would be counted, exit 0 or 1\n"
"  --list-events               print the events this machine offers\n"
"  --resolve-event=EVENT       print the perf_event_attr EVENT becomes\n"
"                              (preset:topdown: what the preset opens)\n"
"  --version                   print the version and exit\n"
"  --help                      this text\n");
}

/* The --web.* limits, in the order of their option codes. */
static int
parse_web_limit(int which, const char *arg, struct http_opts *w)
{
	static const char *const names[] = { "web.max-requests",
	    "web.max-connections", "web.max-connections-per-ip",
	    "web.read-header-timeout", "web.max-header-bytes",
	    "web.auth-failures-per-minute", "web.max-requests-per-ip",
	    "web.write-timeout" };
	unsigned long long v;
	uint64_t ns;
	char *end;

	if (which == 3 || which == 7) {
		if (strcmp(arg, "0") == 0)
			ns = 0;
		else if (text_parse_duration(arg, &ns) < 0 ||
		    ns > 3600ULL * 1000000000ULL)
			goto bad;
		/* Whole seconds, rounded up: 0 would switch it off. */
		*(which == 3 ? &w->header_timeout_s : &w->write_timeout_s) =
		    (unsigned)((ns + 999999999ULL) / 1000000000ULL);
		return 0;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!text_is_whole(arg, 0) || errno || *end || v > 1000000000ULL ||
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
	    names[which], arg, which == 3 || which == 7 ?
	    " (a duration such as 10s)" :
	    which == 4 ? " (a byte count, at least 1024)" :
	    which == 1 ? " (a positive number)" : " (a number)");
	return -1;
}

/* The flags (usage() says what each does). */
enum {
	O_CONFIG = 256, O_LISTEN, O_PATH, O_LEVEL, O_FORMAT, O_SYSFS,
	O_PROCFS, O_CHECK, O_VERSION, O_HELP, O_SOCKET, O_LIST_EVENTS,
	O_RESOLVE_EVENT, O_WEBCFG, O_MAXREQ, O_MAXCONN, O_MAXPERIP,
	O_HDRTIMEOUT, O_HDRBYTES, O_AUTHFAIL, O_MAXREQIP, O_WRTIMEOUT, O_NOSELF,
	O_ROOTFS, O_STATE, O_AUTHSTATE
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
	{ "web.write-timeout", required_argument, NULL, O_WRTIMEOUT },
	{ "web.max-header-bytes", required_argument, NULL, O_HDRBYTES },
	{ "web.auth-failures-per-minute", required_argument, NULL,
	    O_AUTHFAIL },
	{ "web.disable-exporter-metrics", no_argument, NULL, O_NOSELF },
	{ "log.level", required_argument, NULL, O_LEVEL },
	{ "log.format", required_argument, NULL, O_FORMAT },
	{ "path.sysfs", required_argument, NULL, O_SYSFS },
	{ "path.procfs", required_argument, NULL, O_PROCFS },
	{ "path.rootfs", required_argument, NULL, O_ROOTFS },
	{ "analysis.state-file", required_argument, NULL, O_STATE },
	{ "web.auth-state-file", required_argument, NULL, O_AUTHSTATE },
	{ "check-config", no_argument, NULL, O_CHECK },
	{ "list-events", no_argument, NULL, O_LIST_EVENTS },
	{ "resolve-event", required_argument, NULL, O_RESOLVE_EVENT },
	{ "version", no_argument, NULL, O_VERSION },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

/* A state file flag's path (c: O_STATE or O_AUTHSTATE): optarg, not
 * empty.  0, or 1 said. */
static int
take_path(int c, struct options *opt)
{
	if (*optarg == '\0') {
		fprintf(stderr, "pmu_exporter: --%s: empty path\n",
		    c == O_STATE ? "analysis.state-file" :
		    "web.auth-state-file");
		return 1;
	}
	*(c == O_STATE ? &opt->state_file : &opt->web.auth_state_file) =
	    optarg;
	return 0;
}

int
flags_parse(int argc, char **argv, struct options *opt)
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
		case O_STATE:
		case O_AUTHSTATE:
			if (take_path(c, opt))
				return 1;
			break;
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
		case O_WRTIMEOUT:
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

const struct options flags_default = {
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
		.write_timeout_s = HTTP_DEFAULT_WRITE_TIMEOUT_S,
		.max_header_bytes = HTTP_DEFAULT_MAX_HEADER_BYTES,
		.auth_failures_per_minute =
		    HTTP_DEFAULT_AUTH_FAILURES_PER_MINUTE,
		.exporter_metrics = 1,
	},
};
