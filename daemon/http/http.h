/*
 * http.h - the embedded HTTP server: read-only, bounded against abuse, and
 * never waiting on the collector, a password check or a render
 * (docs/architecture.md, "daemon/, by folder").
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

void http_stop(struct http *h);

#endif
