/*
 * http_reply.c - what every part of the server answers with: a request's
 * own state (struct req, made on first need) and the fixed replies; it
 * calls no other http*.c (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "daemon/http/http_conn.h"
#include "daemon/http/http_reply.h"

/* Markers for *req_cls when no struct req is needed: a request seen, and
 * a scrape counted in flight. */
static char req_seen, req_inflight;

struct req *
http_reply_of(void *req_cls)
{
	if (req_cls == NULL || req_cls == &req_seen ||
	    req_cls == &req_inflight)
		return NULL;
	return req_cls;
}

/* The request's struct req, made from its marker on first need. */
struct req *
http_reply_get(struct MHD_Connection *conn, void **req_cls)
{
	struct req *r = http_reply_of(*req_cls);

	if (r)
		return r;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->conn = conn;
	r->inflight = *req_cls == &req_inflight;
	atomic_init(&r->result, 0);
	*req_cls = r;
	return r;
}

/* Mark *req_cls: a request seen (its first call answered nothing yet),
 * or a scrape counted in flight; and is req_cls so counted? */
void
http_reply_seen(void **req_cls)
{
	*req_cls = &req_seen;
}

void
http_reply_count(void **req_cls)
{
	*req_cls = &req_inflight;
}

int
http_reply_counted(void *req_cls)
{
	return req_cls == &req_inflight;
}


/* The web config's headers on every response. */
void
http_reply_headers(struct http *h, struct MHD_Response *resp)
{
	size_t i;

	for (i = 0; h->o.web && i < h->o.web->nr_headers; i++)
		MHD_add_response_header(resp, h->o.web->headers[i].name,
		    h->o.web->headers[i].value);
}

/*
 * A fixed reply.  extra_name/extra_value: one more header, or NULL.
 */
MHD_Result
http_reply_hdr(struct http *h, struct MHD_Connection *conn,
    unsigned status, const char *type, const char *body,
    const char *extra_name, const char *extra_value)
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
	if (extra_name)
		MHD_add_response_header(resp, extra_name, extra_value);
	http_reply_headers(h, resp);
	http_conn_answering(conn);
	if (status == MHD_HTTP_UNAUTHORIZED)
		r = MHD_queue_basic_auth_fail_response(conn, "pmu_exporter",
		    resp);
	else
		r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

MHD_Result
http_reply(struct http *h, struct MHD_Connection *conn, unsigned status,
    const char *type, const char *body)
{
	return http_reply_hdr(h, conn, status, type, body, NULL, NULL);
}

/* Why a request that waited for a worker got no answer from it. */
MHD_Result
http_reply_error(struct http *h, struct MHD_Connection *conn, int err)
{
	if (err == -ESHUTDOWN)
		return http_reply(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "shutting down\n");
	if (err == -EAGAIN)
		return http_reply_hdr(h, conn,
		    MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
		    "busy, try again\n",
		    MHD_HTTP_HEADER_RETRY_AFTER, "1");
	return http_reply(h, conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
	    "text/plain", "out of memory\n");
}
