/*
 * http.c - libmicrohttpd glue: the server's life, from the listening socket
 * and MHD's options (TLS among them) to the stop; its threads and the
 * other four files (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

#include "daemon/http/http.h"
#include "daemon/http/http_conn.h"
#include "daemon/http/http_request.h"
#include "daemon/http/workq.h"
#include "util/statefile.h"

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct http *h = cls;
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	http_log(h, LOG_DEBUG, "libmicrohttpd: %s", msg);
}

/*
 * Split "[host]:port" and resolve it for a passive socket.  The port must
 * be decimal, 1 to 65535 (getaddrinfo would take 99999 and wrap it).
 * host[] gets the host part ("" for every address).  0, or -EINVAL with
 * err filled.
 */
static int
resolve_listen(const char *addr, char *host, size_t hostlen,
    struct addrinfo **res, char *err, size_t errlen)
{
	struct addrinfo hints;
	const char *colon, *port;
	char *end;
	unsigned long pn;
	int r;

	colon = strrchr(addr, ':');
	if (colon == NULL || colon[1] == '\0' ||
	    (size_t)(colon - addr) >= hostlen) {
		snprintf(err, errlen, "listen address \"%s\": expected "
		    "[host]:port, e.g. \":10101\" or \"127.0.0.1:10101\"",
		    addr);
		return -EINVAL;
	}
	port = colon + 1;
	errno = 0;
	pn = strtoul(port, &end, 10);
	if (*end != '\0' || port[0] < '0' || port[0] > '9' || errno ||
	    pn < 1 || pn > 65535) {
		snprintf(err, errlen, "listen address \"%s\": port \"%s\" is "
		    "not a number from 1 to 65535", addr, port);
		return -EINVAL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = host[0] ? AF_UNSPEC : AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	r = getaddrinfo(host[0] ? host : NULL, port, &hints, res);
	if (r != 0 && !host[0]) {
		hints.ai_family = AF_INET;
		r = getaddrinfo(NULL, port, &hints, res);
	}
	if (r != 0) {
		snprintf(err, errlen, "listen address \"%s\": %s", addr,
		    r == EAI_NONAME ? "no such host" : gai_strerror(r));
		return -EINVAL;
	}
	return 0;
}

int
http_check(const struct http_opts *o, char *err, size_t errlen)
{
	struct addrinfo *res = NULL;
	char host[256];
	int r;

	if (o->telemetry_path[0] != '/') {
		snprintf(err, errlen, "telemetry path \"%s\" must start "
		    "with '/'", o->telemetry_path);
		return -EINVAL;
	}
	if (o->web && o->web->tls &&
	    MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, errlen, "%s: TLS is configured but this "
		    "libmicrohttpd (%s) was built without HTTPS support",
		    o->web->source, MHD_get_version());
		return -ENOTSUP;
	}
	if (o->listen_fd >= 0)
		return 0;	/* systemd's socket: no address of ours */
	if ((r = resolve_listen(o->listen, host, sizeof(host), &res, err,
	    errlen)) < 0)
		return r;
	freeaddrinfo(res);
	return 0;
}

/* Make a listening socket for "[host]:port". 0 / -errno with err filled. */
static int
http_listen(const char *addr, int *fd, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char host[256], port[8];
	int s = -1, r, one = 1, zero = 0;

	if ((r = resolve_listen(addr, host, sizeof(host), &res, err,
	    errlen)) < 0)
		return r;
	snprintf(port, sizeof(port), "%s", strrchr(addr, ':') + 1);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	r = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (s < 0 && ai->ai_family == AF_INET6 && !host[0]) {
			/* No IPv6 here: every IPv4 address instead. */
			freeaddrinfo(res);
			hints.ai_family = AF_INET;
			if (getaddrinfo(NULL, port, &hints, &res) != 0)
				return -EAFNOSUPPORT;
			ai = res;
			s = socket(ai->ai_family, ai->ai_socktype |
			    SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		}
		if (s < 0) {
			r = -errno;
			continue;
		}
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6 && !host[0])
			setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
			    sizeof(zero));
		if (bind(s, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(s, 1024) == 0)
			break;
		r = -errno;
		close(s);
		s = -1;
	}
	freeaddrinfo(res);
	if (s < 0) {
		snprintf(err, errlen, "listen on \"%s\": %s", addr,
		    strerror(-r));
		return r;
	}
	*fd = s;
	return 0;
}

static void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	http_conn_stop(h);
	/* Every render task has finished: workq_free() stops the workers,
	 * and a task that could not be queued was finished at once. */
	workq_free(h->render);
	auth_free(h->auth);
	scrape_cache_fini(&h->cache);
	scrape_cache_fini(&h->extra_cache);
	pthread_mutex_destroy(&h->render_lock);
	pthread_cond_destroy(&h->conn_cond);
	pthread_mutex_destroy(&h->conn_lock);
	free(h->path);
	free(h);
}

/* CPUs online, at least 1, at most max. */
static unsigned
cpus_upto(unsigned max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return (unsigned)n < max ? (unsigned)n : max;
}

/*
 * A new server's state: o with its defaults filled in, the connection
 * table, and the workers (the first request may need them).  0, or
 * -errno with err saying what failed (nothing is left allocated).
 */
static int
http_new(const struct http_opts *o, struct http **out, char *err,
    size_t errlen)
{
	struct http *h;
	int r;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return -ENOMEM;
	pthread_mutex_init(&h->conn_lock, NULL);
	pthread_cond_init(&h->conn_cond, NULL);
	pthread_mutex_init(&h->render_lock, NULL);
	scrape_cache_init(&h->cache);
	scrape_cache_init(&h->extra_cache);
	h->o = *o;
	if (!h->o.threads)
		h->o.threads = cpus_upto(HTTP_MAX_THREADS);
	if (!h->o.max_connections)
		h->o.max_connections = HTTP_DEFAULT_MAX_CONNECTIONS;
	if (!h->o.idle_timeout_s)
		h->o.idle_timeout_s = HTTP_DEFAULT_IDLE_TIMEOUT_S;
	if (!h->o.max_header_bytes)
		h->o.max_header_bytes = HTTP_DEFAULT_MAX_HEADER_BYTES;
	if (!h->o.procfs)
		h->o.procfs = "/proc";
	h->proc.procfs = h->o.procfs;
	h->eo = (struct expo_opts){ .exporter_metrics = o->exporter_metrics,
	    .mhd_version = MHD_get_version(), .pfm_version = o->pfm_version,
	    .cpu = o->cpu, .interference = o->interference };
	if ((h->path = strdup(o->telemetry_path)) == NULL ||
	    http_conn_init(h) < 0) {
		http_free(h);
		return -ENOMEM;
	}
	/* Two render workers, even on one CPU: a long render then holds up
	 * no render of another variant. */
	if ((r = workq_new("pmu-render", 2, 64, 0, 0,
	    &h->render)) < 0 || (o->web && o->web->nr_users &&
	    (r = auth_new(o->web, o->auth_failures_per_minute,
	    cpus_upto(HTTP_MAX_THREADS), h->o.max_connections,
	    &h->auth)) < 0)) {
		snprintf(err, errlen, "starting the HTTP workers: %s",
		    strerror(-r));
		http_free(h);
		return r;
	}
	if (h->auth && o->auth_state_file &&
	    (r = auth_known_file(h->auth, o->auth_state_file, o->log)) < 0 &&
	    r != -ENOENT)
		http_log(h, LOG_WARNING, "--web.auth-state-file %s not read: "
		    "%s; the addresses that passed start afresh",
		    o->auth_state_file,
		    r == -ENOMEM ? strerror(-r) : statefile_strerror(r));
	*out = h;
	return 0;
}

#define MHD_OPTIONS 20

/* libmicrohttpd's options for h listening on fd, into opts (at most
 * MHD_OPTIONS, the end marker included); *flags gains TLS's. */
static void
mhd_options(struct http *h, int fd, struct MHD_OptionItem *opts,
    unsigned *flags)
{
	const struct http_opts *o = &h->o;
	size_t n = 0;

#define OPT(opt, val, ptr) (opts[n++] = (struct MHD_OptionItem){ (opt), \
	(intptr_t)(val), (void *)(ptr) })
	/* The logger first: MHD logs through it only from then on. */
	OPT(MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h);
	OPT(MHD_OPTION_LISTEN_SOCKET, fd, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, h->o.idle_timeout_s, NULL);
	/*
	 * A socket systemd passed gets one serving thread: libmicrohttpd
	 * 0.9.75 shutdown()s the listening socket when a thread pool stops,
	 * whatever MHD_USE_ITC, and that fails the socket unit (POLLHUP), so
	 * the service could not start again.  (MHD_quiesce_daemon first
	 * would avoid it, but it races the pool's threads over the epoll set
	 * and aborts.)  Password checks and renders still run on workers.
	 */
	if (o->listen_fd >= 0)
		h->o.threads = 1;
	if (h->o.threads > 1)
		OPT(MHD_OPTION_THREAD_POOL_SIZE, h->o.threads, NULL);
	OPT(MHD_OPTION_CONNECTION_LIMIT, h->o.max_connections, NULL);
	if (h->o.max_connections_per_ip)
		OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		    h->o.max_connections_per_ip, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, h->o.max_header_bytes, NULL);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, http_request_completed, h);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, http_conn_notify, h);
	if (o->web && o->web->tls) {
		*flags |= MHD_USE_TLS;
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, o->web->cert_pem);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, o->web->key_pem);
		OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, o->web->priorities);
		if (o->web->client_ca_pem)
			OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0,
			    o->web->client_ca_pem);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
}

int
http_start(const struct http_opts *o, struct http **out, char *err,
    size_t errlen)
{
	struct MHD_OptionItem opts[MHD_OPTIONS];
	struct http *h;
	/*
	 * MHD_USE_ITC: MHD wakes its thread to stop through a pipe, not by
	 * shutdown() of the listening socket, which would also fail the
	 * socket unit that passed it (systemd sees POLLHUP).  Suspend and
	 * resume need it too.
	 */
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
	    MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
	int r, fd = o->listen_fd;

	if ((r = http_check(o, err, errlen)) < 0 ||
	    (r = http_new(o, &h, err, errlen)) < 0)
		return r;
	if (fd < 0 && (r = http_listen(o->listen, &fd, err, errlen)) < 0) {
		http_free(h);
		return r;
	}
	h->fd = fd;
	mhd_options(h, fd, opts, &flags);
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, http_request_handle,
	    h, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (h->mhd == NULL) {
		if (o->web && o->web->tls)
			snprintf(err, errlen, "cannot start the HTTPS server on "
			    "%s: check the certificate and key in %s, and the "
			    "GnuTLS priorities \"%s\" (--log.level=debug says "
			    "more)", o->listen, o->web->source,
			    o->web->priorities);
		else
			snprintf(err, errlen, "cannot start the HTTP server on "
			    "%s", o->listen);
		close(fd);
		http_free(h);
		return -EIO;
	}
	if ((r = http_conn_start(h)) < 0) {
		/* It closes the listening socket too. */
		MHD_stop_daemon(h->mhd);
		http_free(h);
		return r;
	}
	*out = h;
	return 0;
}

void
http_stop(struct http *h)
{
	if (h == NULL)
		return;
	/* MHD must not stop with a request suspended: first every queued
	 * job is cancelled and every running one finished, each resuming
	 * its request (which then gets 503); requests that want a worker
	 * from now on are answered at once. */
	workq_stop(h->render);
	auth_stop(h->auth);
	http_conn_close_held(h);
	/* MHD closes the listening socket itself: closing it here again
	 * could close an fd another thread has opened since. */
	MHD_stop_daemon(h->mhd);
	http_free(h);
}
