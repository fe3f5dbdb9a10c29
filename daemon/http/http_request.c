/*
 * http_request.c - a request let in, and its answer: the access handler,
 * content negotiation, and the scrapes with their renders, read top-down in
 * http_request_handle() (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <microhttpd.h>

#include "daemon/expo/procstat.h"
#include "daemon/http/http_auth.h"
#include "daemon/http/http_conn.h"
#include "daemon/http/http_reply.h"
#include "daemon/http/http_request.h"
#include "daemon/http/workq.h"

/*
 * One variant of one snapshot being rendered, and who waits for it.  Its
 * scrape is borrowed from the waiters: they stay suspended until the task
 * is finished, and a suspended request cannot complete, so their
 * references outlive the render.
 */
struct render_task {
	struct workq_job job;
	struct http *h;
	struct scrape_reply reply;	/* reply.sc borrowed */
	struct req *waiters;
	struct render_task *next;	/* h->tasks */
};

static const char landing[] =
	"<!DOCTYPE html>\n<html><head><title>pmu_exporter</title></head>\n"
	"<body><h1>pmu_exporter</h1>\n"
	"<p>Hardware performance counters per CPU and per cgroup.</p>\n"
	"<p><a href=\"%s\">Metrics</a></p>\n</body></html>\n";

/* ---- content negotiation ------------------------------------------ */

/*
 * Walk a comma-separated header: for each element, its first token
 * (lower-cased into tok) and its q value (1 unless ";q=" says otherwise).
 * Returns a pointer past the element, or NULL at the end.
 */
static const char *
next_element(const char *p, char *tok, size_t toklen, double *q,
    char *version, size_t verlen)
{
	size_t n = 0;

	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	if (*p == '\0')
		return NULL;
	while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t') {
		if (n + 1 < toklen)
			tok[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		p++;
	}
	tok[n] = '\0';
	*q = 1.0;
	if (version)
		version[0] = '\0';
	while (*p && *p != ',') {
		if (*p == ';' || *p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			*q = strtod(p + 2, NULL);
		} else if (version && strncasecmp(p, "version=", 8) == 0) {
			size_t v = 0;
			const char *e = p + 8;

			while (*e && *e != ',' && *e != ';' && *e != ' ' &&
			    v + 1 < verlen)
				version[v++] = *e++;
			version[v] = '\0';
		}
		while (*p && *p != ',' && *p != ';')
			p++;
	}
	return p;
}

int
http_wants_openmetrics(const char *accept)
{
	char tok[64], ver[16];
	double q, om = 0, text = 0;
	const char *p = accept;

	if (accept == NULL)
		return 0;
	while ((p = next_element(p, tok, sizeof(tok), &q, ver,
	    sizeof(ver))) != NULL) {
		if (strcmp(tok, "application/openmetrics-text") == 0) {
			if ((ver[0] == '\0' || strcmp(ver, "1.0.0") == 0 ||
			    strcmp(ver, "0.0.1") == 0) && q > om)
				om = q;
		} else if (strcmp(tok, "text/plain") == 0 ||
		    strcmp(tok, "text/*") == 0 || strcmp(tok, "*/*") == 0) {
			if (q > text)
				text = q;
		}
	}
	return om > 0 && om > text;
}

int
http_accepts_gzip(const char *accept_encoding)
{
	char tok[64];
	double q, gzip = -1, any = -1;
	const char *p = accept_encoding;

	if (accept_encoding == NULL)
		return 0;
	while ((p = next_element(p, tok, sizeof(tok), &q, NULL, 0)) != NULL)
		if (strcmp(tok, "gzip") == 0 || strcmp(tok, "x-gzip") == 0)
			gzip = q;
		else if (strcmp(tok, "*") == 0)
			any = q;
	return gzip >= 0 ? gzip > 0 : any > 0;
}

/* A response borrows the scrape's buffers and holds a reference. */
static void
reply_done(void *cls)
{
	scrape_unref(cls);
}

/* The per-scrape series as of now, for a variant's tail (scrape.c). */
static void
http_live(void *arg, struct expo_live *live)
{
	struct http *h = arg;
	int i, j;

	memset(live, 0, sizeof(*live));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			live->scrapes[i][j] = atomic_load(&h->scrapes[i][j]);
	live->rejected = atomic_load(&h->rejected);
	for (i = 0; i < EXPO_NR_REFUSALS; i++)
		live->refused[i] = atomic_load(&h->refused[i]);
	if (h->auth) {
		live->have_auth = 1;
		auth_failures(h->auth, live->auth_failures);
	}
	/* Render workers may run several tails at once: each reads procfs
	 * into its own live. */
	if (h->eo.exporter_metrics)
		procstat_read(&h->proc, live);
}

/*
 * Answer a scrape from a reply whose body and tail are rendered (scrape.h).
 * Takes over the reply's reference.
 */
static MHD_Result
send_metrics(struct http *h, struct MHD_Connection *conn,
    const struct scrape_reply *v)
{
	const struct scrape_blob *body = v->body, *tail = v->tail;
	struct MHD_IoVec iov[2];
	struct MHD_Response *resp;
	MHD_Result r;

	atomic_fetch_add(&h->scrapes[v->f][v->gz], 1);
	if (tail->whole)	/* body and tail in one buffer (scrape.h) */
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
		    tail->len, tail->p, reply_done, v->sc);
	else {
		iov[0].iov_base = body->p;
		iov[0].iov_len = body->len;
		iov[1].iov_base = tail->p;
		iov[1].iov_len = tail->len;
		resp = MHD_create_response_from_iovec(iov, tail->len ? 2 : 1,
		    reply_done, v->sc);
	}
	if (resp == NULL) {
		scrape_unref(v->sc);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
	    v->f == EXPO_OPENMETRICS ? EXPO_CT_OPENMETRICS : EXPO_CT_TEXT);
	if (v->gz)
		MHD_add_response_header(resp,
		    MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY,
	    "Accept, Accept-Encoding");
	http_reply_headers(h, resp);
	http_conn_answering(conn);
	r = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return r;
}

/*
 * A render is over (err 0, or -errno): every request waiting for it is
 * given the rendered body and tail (theirs too: a request joins only a
 * render of its own variant) or the error, and resumed, and the task
 * goes.  Called by a worker, or by the thread that could not queue the
 * task.
 */
static void
render_finish(struct render_task *t, int err)
{
	struct http *h = t->h;
	struct render_task **pp;
	struct req *w, *next;

	pthread_mutex_lock(&h->render_lock);
	for (pp = &h->tasks; *pp != t; pp = &(*pp)->next)
		;
	*pp = t->next;
	w = t->waiters;
	t->waiters = NULL;
	pthread_mutex_unlock(&h->render_lock);
	for (; w; w = next) {
		struct MHD_Connection *conn = w->conn;

		/* Once resumed, the request is its thread's again: read
		 * what is needed from it first, touch nothing after. */
		next = w->next_waiter;
		w->reply.body = t->reply.body;
		w->reply.tail = t->reply.tail;
		atomic_store(&w->result, err);
		MHD_resume_connection(conn);
	}
	free(t);
}

static void
render_run(struct workq_job *job, int cancelled)
{
	struct render_task *t = (struct render_task *)((char *)job -
	    offsetof(struct render_task, job));

	render_finish(t, cancelled ? -ESHUTDOWN :
	    scrape_render(&t->reply, &t->h->eo, http_live, t->h));
}

/* Is a the same variant of the same snapshot's scrape as b? */
static int
same_variant(const struct scrape_reply *a, const struct scrape_reply *b)
{
	return a->sc == b->sc && a->f == b->f && a->gz == b->gz;
}

/*
 * Suspend a request until reply v is rendered: join the render in
 * progress for its variant, or start one.  Takes over v's reference.
 */
static MHD_Result
render_wait(struct http *h, struct MHD_Connection *conn, void **req_cls,
    const struct scrape_reply *v)
{
	struct render_task *t;
	struct req *r;
	int err;

	if ((r = http_reply_get(conn, req_cls)) == NULL) {
		scrape_unref(v->sc);
		return http_reply_error(h, conn, -ENOMEM);
	}
	r->reply = *v;
	r->wait = WAIT_RENDER;
	MHD_suspend_connection(conn);
	pthread_mutex_lock(&h->render_lock);
	for (t = h->tasks; t; t = t->next)
		if (same_variant(&t->reply, &r->reply))
			break;
	if (t) {
		r->next_waiter = t->waiters;
		t->waiters = r;
		pthread_mutex_unlock(&h->render_lock);
		return MHD_YES;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		pthread_mutex_unlock(&h->render_lock);
		atomic_store(&r->result, -ENOMEM);
		MHD_resume_connection(conn);
		return MHD_YES;
	}
	t->h = h;
	t->reply = r->reply;
	t->waiters = r;
	r->next_waiter = NULL;
	t->next = h->tasks;
	h->tasks = t;
	pthread_mutex_unlock(&h->render_lock);
	t->job.run = render_run;
	if ((err = workq_submit(h->render, &t->job)) < 0)
		render_finish(t, err);
	return MHD_YES;
}

static MHD_Result
reply_metrics(struct http *h, struct MHD_Connection *conn, void **req_cls,
    struct snapshot *(*source)(void *), struct scrape_cache *cache)
{
	const char *accept, *encoding;
	struct scrape_reply v;
	struct snapshot *snap;
	struct req *r;
	enum expo_format f;
	int gz, ready;

	if (!http_conn_claim(h, conn)) {
		http_conn_refused(h, REFUSED_ADDRESS_BUSY, 1);
		return http_reply_hdr(h, conn,
		    MHD_HTTP_TOO_MANY_REQUESTS, "text/plain",
		    "too many scrapes in flight from this "
		    "address (--web.max-requests-per-ip)\n",
		    MHD_HTTP_HEADER_RETRY_AFTER, "1");
	}
	/* Every slot taken: one back from the address holding the most,
	 * else 503.  Over the limit until the reset scrape lets go. */
	if (h->o.max_requests && atomic_fetch_add(&h->inflight, 1) >=
	    h->o.max_requests && !http_conn_reclaim(h, conn)) {
		atomic_fetch_sub(&h->inflight, 1);
		atomic_fetch_add(&h->rejected, 1);
		return http_reply(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "too many scrapes in flight "
		    "(--web.max-requests)\n");
	}
	if (h->o.max_requests) {
		/* Released when the request completes. */
		if ((r = http_reply_of(*req_cls)) != NULL)
			r->inflight = 1;
		else
			http_reply_count(req_cls);
	}

	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT);
	encoding = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT_ENCODING);
	f = http_wants_openmetrics(accept) ? EXPO_OPENMETRICS : EXPO_TEXT;
	gz = http_accepts_gzip(encoding);

	if ((snap = source(h->o.ctx)) == NULL)
		return http_reply(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "no collection yet\n");
	if ((ready = scrape_take(cache, snap, f, gz, &v)) < 0)
		return http_reply_error(h, conn, ready);
	if (ready)
		return send_metrics(h, conn, &v);
	/* Its first scrape: a worker renders it, this request waits. */
	return render_wait(h, conn, req_cls, &v);
}

/* The render r waited for is done: answer from it. */
static MHD_Result
reply_rendered(struct http *h, struct MHD_Connection *conn, struct req *r)
{
	int err = atomic_load(&r->result);
	struct scrape_reply v = r->reply;

	r->wait = WAIT_NONE;
	r->reply.sc = NULL;
	if (err < 0) {
		scrape_unref(v.sc);
		return http_reply_error(h, conn, err);
	}
	return send_metrics(h, conn, &v);
}

/* ---- the access handler -------------------------------------------- */

/* A request let in (authorized, GET or HEAD), answered by its path. */
static MHD_Result
route(struct http *h, struct MHD_Connection *conn, const char *url,
    void **req_cls)
{
	struct snapshot *s;

	if (strcmp(url, h->path) == 0)
		return reply_metrics(h, conn, req_cls, h->o.snapshot, &h->cache);
	if (h->o.extra_path && strcmp(url, h->o.extra_path) == 0)
		return reply_metrics(h, conn, req_cls, h->o.extra_snapshot,
		    &h->extra_cache);
	if (strcmp(url, "/") == 0) {
		char page[sizeof(landing) + 512];

		snprintf(page, sizeof(page), landing, h->path);
		return http_reply(h, conn, MHD_HTTP_OK,
		    "text/html; charset=utf-8", page);
	}
	if (strcmp(url, "/-/healthy") == 0)
		return http_reply(h, conn, MHD_HTTP_OK, "text/plain",
		    "Healthy\n");
	if (strcmp(url, "/-/ready") == 0) {
		if ((s = h->o.snapshot(h->o.ctx)) == NULL)
			return http_reply(h, conn,
			    MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			    "Not ready\n");
		snapshot_unref(s);
		return http_reply(h, conn, MHD_HTTP_OK, "text/plain",
		    "Ready\n");
	}
	return http_reply(h, conn, MHD_HTTP_NOT_FOUND, "text/plain",
	    "not found\n");
}

/* A request http_conn.c refused on its headers: answered, and its
 * connection closed. */
static MHD_Result
refuse_early(struct http *h, struct MHD_Connection *conn,
    enum http_refusal why)
{
	if (why == REFUSED_BODY)
		return http_reply_hdr(h, conn, MHD_HTTP_CONTENT_TOO_LARGE,
		    "text/plain", "no request here takes a body\n",
		    MHD_HTTP_HEADER_CONNECTION, "close");
	return http_reply_hdr(h, conn, MHD_HTTP_TOO_MANY_REQUESTS,
	    "text/plain", "too many requests sent with their answers "
	    "unread\n", MHD_HTTP_HEADER_CONNECTION, "close");
}

MHD_Result
http_request_handle(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **req_cls)
{
	struct http *h = cls;
	enum http_refusal why;
	struct req *r;
	MHD_Result ret;
	int answered;

	(void)version;
	(void)upload_data;
	if (*req_cls == NULL) {
		/* First call: headers only.  Answer on the second, but for
		 * what is refused before any body or authentication. */
		if (http_conn_refuse_early(h, conn, &why))
			return refuse_early(h, conn, why);
		http_reply_seen(req_cls);
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0;	/* ignore any body (none comes) */
		return MHD_YES;
	}
	http_conn_arrived(conn);
	/* Called again after a worker resumed it? */
	r = http_reply_of(*req_cls);
	if (r && r->wait == WAIT_RENDER)
		return reply_rendered(h, conn, r);
	if (r && r->wait == WAIT_HELD) {
		r->wait = WAIT_NONE;
		return http_auth_reply_throttled(h, conn, r->retry_after);
	}
	ret = http_auth_authorize(h, conn, req_cls, &answered);
	if (answered)
		return ret;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return http_reply(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "text/plain", "method not allowed\n");
	return route(h, conn, url, req_cls);
}

/* A request is over: release its in-flight slot, restart the clock. */
void
http_request_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;
	struct req *r;

	(void)toe;
	if (http_reply_counted(*req_cls))
		atomic_fetch_sub(&h->inflight, 1);
	else if ((r = http_reply_of(*req_cls)) != NULL) {
		/* No worker holds it: a suspended request cannot complete,
		 * and workers let go of it before resuming it. */
		if (r->inflight)
			atomic_fetch_sub(&h->inflight, 1);
		scrape_unref(r->reply.sc);
		free(r);
	}
	*req_cls = NULL;
	http_conn_done(h, conn);
}
