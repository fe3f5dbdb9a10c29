/*
 * http.h - the embedded HTTP server (libmicrohttpd, epoll, a serving
 * thread per CPU up to HTTP_MAX_THREADS, and worker threads for what is
 * slow).  It serves whatever snapshot its source hands it and never
 * touches the collector otherwise: a scrape never waits for a collection,
 * and no client can make another wait for a password check or a render.
 *
 * Read-only by construction: GET and HEAD on a fixed set of paths, and no
 * endpoint changes anything or takes a body (413 at once).  Abuse is
 * bounded: connections overall and per client address, header size, the
 * time a client may take to send its whole request and to take its
 * whole answer, idle connections per client address, scrapes in flight
 * overall and per client address (a slot taken back from the address
 * holding most when a new one needs it), answers a connection may leave
 * unread while it sends more requests, and failed password checks per
 * client address (and the bcrypt they cost, overall).
 */
#ifndef PMU_HTTP_H
#define PMU_HTTP_H

#include <stddef.h>

#include "collectors/collector/snapshot.h"
#include "daemon/webconfig.h"

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

struct http;

/*
 * Bind (unless given a socket) and start serving.  Returns 0, or -errno
 * with a message in err naming the address (or what TLS lacks).
 */
int http_start(const struct http_opts *o, struct http **out, char *err,
    size_t errlen);

/*
 * What http_start would refuse, checked before anything is opened: the
 * telemetry path, TLS support, and the listen address (a decimal port from
 * 1 to 65535, a host that resolves).  0, or -errno with err filled.
 */
int http_check(const struct http_opts *o, char *err, size_t errlen);

/*
 * Content negotiation, exposed for the unit tests: does this Accept header
 * prefer OpenMetrics to the text format?  Does this Accept-Encoding allow
 * gzip?  NULL headers mean no preference (text, identity).
 */
int http_wants_openmetrics(const char *accept);
int http_accepts_gzip(const char *accept_encoding);

void http_stop(struct http *h);

#endif
