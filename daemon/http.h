/*
 * http.h - the embedded HTTP server (libmicrohttpd, epoll, one internal
 * thread).  It serves whatever snapshot its source hands it and never
 * touches the collector otherwise: a scrape never waits for a collection.
 */
#ifndef PMU_HTTP_H
#define PMU_HTTP_H

#include <stddef.h>

#include "collectors/snapshot.h"

struct http_opts {
	const char *listen;		/* "[host]:port"; ":port" = every address */
	int listen_fd;			/* an already listening socket, or -1 */
	const char *telemetry_path;	/* "/metrics" */
	/* The current snapshot, with a reference, or NULL. */
	struct snapshot *(*snapshot)(void *ctx);
	void *ctx;
};

struct http;

/*
 * Bind (unless given a socket) and start serving.  Returns 0, or -errno
 * with a message in err naming the address.
 */
int http_start(const struct http_opts *o, struct http **out, char *err,
    size_t errlen);

/* Make a listening socket for "[host]:port". 0 / -errno with err filled. */
int http_listen(const char *addr, int *fd, char *err, size_t errlen);

void http_stop(struct http *h);

#endif
