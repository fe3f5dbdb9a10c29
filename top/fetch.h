/*
 * fetch.h - one page of the daemon's metrics over HTTP(S) with libcurl, as the
 * daemon's web config allows it to be served: TLS, a client certificate, basic
 * auth whose credentials come from a file.
 * Design: docs/top.md, "How it is built".
 */
#ifndef PMU_TOP_FETCH_H
#define PMU_TOP_FETCH_H

#include <stddef.h>

/* The largest page top reads: a node at its limits serves tens of MB. */
#define FETCH_MAX_BYTES (256u << 20)

struct fetch_opts {
	const char *url;
	const char *ca_file, *cert_file, *key_file;	/* NULL: none */
	const char *auth_file;		/* a line USER:PASSWORD, or NULL */
	long timeout_ms;
};

struct fetch;

/* NULL with err filled: the auth file unreadable or malformed, libcurl
 * failing to start. */
struct fetch *fetch_new(const struct fetch_opts *o, char *err, size_t errlen);

/* GET the page into *body (len bytes, NUL after them, writable, owned
 * by f until the next call).  0, or -1 with what went wrong in err. */
int fetch_get(struct fetch *f, char **body, size_t *len, char *err,
    size_t errlen);

void fetch_free(struct fetch *f);

#endif
