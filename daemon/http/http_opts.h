/*
 * http_opts.h - what the HTTP server is told (struct http_opts) and the
 * defaults of its zero fields; http.h starts a server with them.
 */
#ifndef PMU_HTTP_OPTS_H
#define PMU_HTTP_OPTS_H

#include <stddef.h>

#include "util/logfields.h"

struct cpuinfo;
struct interference;
struct snapshot;
struct webcfg;

struct http_opts {
	const char *listen;		/* "[host]:port"; ":port" = every address */
	int listen_fd;			/* an already listening socket, or -1 */
	const char *telemetry_path;	/* "/metrics" */
	/* The current snapshot, with a reference, or NULL. */
	struct snapshot *(*snapshot)(void *ctx);
	void *ctx;
	/*
	 * A second metrics path with a source of its own (same ctx), or
	 * NULL: one server in front of a small and a large snapshot, for
	 * tests/lib/helpers/fake_serve and the benchmarks.
	 */
	const char *extra_path;
	struct snapshot *(*extra_snapshot)(void *ctx);

	const struct webcfg *web;	/* TLS, basic auth, headers; or NULL */
	unsigned max_requests;		/* scrapes in flight; 0: no limit */
	unsigned max_requests_per_ip;	/* ... from one address; 0: none */
	unsigned max_connections;	/* 0: the default */
	unsigned max_connections_per_ip;	/* 0: no limit */
	unsigned header_timeout_s;	/* to send a request's headers; 0: none */
	unsigned write_timeout_s;	/* to be sent its answer; 0: none */
	unsigned idle_timeout_s;	/* inactivity; 0: the default */
	size_t max_header_bytes;	/* 0: the default */
	/* Failed password checks per client address: a burst of N, then N
	 * a minute; beyond it 429.  0: no limit. */
	unsigned auth_failures_per_minute;
	/* Where the addresses whose credentials passed are kept across
	 * restarts (auth_known.h); NULL: in memory only. */
	const char *auth_state_file;
	unsigned threads;		/* serving threads; 0: the default */
	int exporter_metrics;		/* pmu_exporter_* and process_* */
	const char *pfm_version;	/* build_info's libpfm4; NULL: "none" */
	const char *procfs;		/* for process_*; "/proc" */
	const struct cpuinfo *cpu;	/* pmu_exporter_cpu_info; NULL: none */
	/* The interference analysis whose result the body shows; NULL:
	 * none. */
	struct interference *interference;
	/* Where the server reports what it refused or could not do (the
	 * process's logger); NULL: nowhere. */
	log_fields_fn log;
};

/* Defaults for the zero fields above. */
#define HTTP_DEFAULT_MAX_REQUESTS 40
/* A quarter of the above: one address cannot take every slot. */
#define HTTP_DEFAULT_MAX_REQUESTS_PER_IP 10
#define HTTP_DEFAULT_MAX_CONNECTIONS 512
#define HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP 64
#define HTTP_DEFAULT_HEADER_TIMEOUT_S 10
#define HTTP_DEFAULT_WRITE_TIMEOUT_S 10
#define HTTP_DEFAULT_IDLE_TIMEOUT_S 30
#define HTTP_DEFAULT_MAX_HEADER_BYTES 16384
#define HTTP_DEFAULT_AUTH_FAILURES_PER_MINUTE 10
/* Serving threads by default: one per CPU online, at most this many.
 * bcrypt runs on as many workers, at most one per CPU. */
#define HTTP_MAX_THREADS 4

#endif
