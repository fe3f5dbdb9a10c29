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
#include "daemon/http/http_opts.h"
#include "daemon/http/webconfig.h"

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
