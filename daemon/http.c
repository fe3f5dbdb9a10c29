/*
 * http.c - libmicrohttpd glue (see http.h).
 *
 * MHD runs one internal thread in epoll mode: select() mode would drop
 * sockets whose fd number is >= 1024, and this daemon holds thousands of
 * perf fds.  /metrics is served straight from the snapshot's rendered
 * buffer: the response borrows it and holds a snapshot reference that the
 * free callback drops, so no scrape copies or formats anything once the
 * snapshot has been rendered.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

#include "daemon/expo.h"
#include "daemon/http.h"

#if MHD_VERSION < 0x00097100
typedef int MHD_Result;
#else
typedef enum MHD_Result MHD_Result;
#endif

struct http {
	struct MHD_Daemon *mhd;
	struct http_opts o;
	char *path;
	int fd;
};

static const char landing[] =
	"<!DOCTYPE html>\n<html><head><title>pmu_exporter</title></head>\n"
	"<body><h1>pmu_exporter</h1>\n"
	"<p>Hardware performance counters per CPU and per cgroup.</p>\n"
	"<p><a href=\"%s\">Metrics</a></p>\n</body></html>\n";

#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"

static MHD_Result
reply_static(struct MHD_Connection *conn, unsigned status, const char *type,
    const char *body)
{
	struct MHD_Response *resp;
	MHD_Result r;

	resp = MHD_create_response_from_buffer(strlen(body), (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static void
drop_snapshot(void *cls)
{
	snapshot_unref(cls);
}

static MHD_Result
reply_metrics(struct http *h, struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	struct snapshot *s;
	const char *text;
	size_t len;
	MHD_Result r;

	if ((s = h->o.snapshot(h->o.ctx)) == NULL)
		return reply_static(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "no collection yet\n");
	if ((text = snapshot_text(s, &len, expo_render)) == NULL) {
		snapshot_unref(s);
		return reply_static(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "text/plain", "out of memory\n");
	}
	resp = MHD_create_response_from_buffer_with_free_callback_cls(len,
	    (void *)text, drop_snapshot, s);
	if (resp == NULL) {
		snapshot_unref(s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, CT_TEXT);
	r = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return r;
}

static MHD_Result
handle(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **req_cls)
{
	struct http *h = cls;
	struct snapshot *s;

	(void)version;
	(void)upload_data;
	if (*req_cls == NULL) {
		/* First call: headers only.  Answer on the second. */
		*req_cls = h;
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0;	/* ignore any body */
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_static(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "text/plain", "method not allowed\n");
	if (strcmp(url, h->path) == 0)
		return reply_metrics(h, conn);
	if (strcmp(url, "/") == 0) {
		char page[sizeof(landing) + 512];

		snprintf(page, sizeof(page), landing, h->path);
		return reply_static(conn, MHD_HTTP_OK,
		    "text/html; charset=utf-8", page);
	}
	if (strcmp(url, "/-/healthy") == 0)
		return reply_static(conn, MHD_HTTP_OK, "text/plain",
		    "Healthy\n");
	if (strcmp(url, "/-/ready") == 0) {
		if ((s = h->o.snapshot(h->o.ctx)) == NULL)
			return reply_static(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "text/plain", "Not ready\n");
		snapshot_unref(s);
		return reply_static(conn, MHD_HTTP_OK, "text/plain",
		    "Ready\n");
	}
	return reply_static(conn, MHD_HTTP_NOT_FOUND, "text/plain",
	    "not found\n");
}

int
http_listen(const char *addr, int *fd, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char host[256], *port;
	const char *colon;
	int s = -1, r, one = 1, zero = 0;

	colon = strrchr(addr, ':');
	if (colon == NULL || colon[1] == '\0' ||
	    (size_t)(colon - addr) >= sizeof(host)) {
		snprintf(err, errlen, "listen address \"%s\": expected "
		    "[host]:port, e.g. \":10101\" or \"127.0.0.1:10101\"",
		    addr);
		return -EINVAL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	port = (char *)colon + 1;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = host[0] ? AF_UNSPEC : AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	r = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (r != 0 && !host[0]) {
		hints.ai_family = AF_INET;
		r = getaddrinfo(NULL, port, &hints, &res);
	}
	if (r != 0) {
		snprintf(err, errlen, "listen address \"%s\": %s", addr,
		    gai_strerror(r));
		return -EINVAL;
	}
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

int
http_start(const struct http_opts *o, struct http **out, char *err,
    size_t errlen)
{
	struct http *h;
	int r, fd = o->listen_fd;

	if (o->telemetry_path[0] != '/') {
		snprintf(err, errlen, "telemetry path \"%s\" must start "
		    "with '/'", o->telemetry_path);
		return -EINVAL;
	}
	if (fd < 0 && (r = http_listen(o->listen, &fd, err, errlen)) < 0)
		return r;
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->path = strdup(o->telemetry_path)) == NULL) {
		free(h);
		if (o->listen_fd < 0)
			close(fd);
		return -ENOMEM;
	}
	h->o = *o;
	h->fd = fd;
	h->mhd = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD |
	    MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, h,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1024,
	    MHD_OPTION_END);
	if (h->mhd == NULL) {
		snprintf(err, errlen, "cannot start the HTTP server on %s",
		    o->listen);
		close(fd);
		free(h->path);
		free(h);
		return -EIO;
	}
	*out = h;
	return 0;
}

void
http_stop(struct http *h)
{
	if (h == NULL)
		return;
	MHD_stop_daemon(h->mhd);
	close(h->fd);
	free(h->path);
	free(h);
}
