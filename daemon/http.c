/*
 * http.c - libmicrohttpd glue (see http.h).
 *
 * Threads.  MHD runs a pool of serving threads (one per CPU, at most
 * HTTP_MAX_THREADS), each with its own epoll set: select() mode would drop
 * sockets whose fd number is >= 1024, and this daemon holds thousands of
 * perf fds.  A serving thread never does anything slow.  Two kinds of
 * work can be: a bcrypt check (tens of milliseconds by design, and any
 * client can ask for one), and the first render of a snapshot's body (a
 * hundred milliseconds at 100,000 series).  A request that needs either is
 * suspended (MHD_suspend_connection) and handed to a worker thread: the
 * bcrypt workers in auth.c, or the render workers here.  The worker does
 * the work and resumes the request, and MHD calls the access handler
 * again, which answers from the result.  Meanwhile the serving thread goes
 * on with every other connection.  A request is always suspended before
 * its job is queued (a resume that came first would be lost), and every
 * job either runs or is cancelled, resuming its request, before MHD is
 * stopped (MHD must not stop with a suspended connection).
 *
 * Scrapes.  A scrape is answered from two buffers: the body cached per
 * snapshot and variant (text or OpenMetrics, plain or gzip; see scrape.h)
 * and a small tail (the scrape counts, auth failures and process_*, and
 * "# EOF"), cached alike.  A request reads top-down: the auth decision,
 * the route, then one call into scrape.c (scrape_take), which gives a
 * reply ready to send, with its reference, or says it must be rendered.
 * Then a render worker renders it; requests for a variant already being
 * rendered wait for that render rather than start another, and the
 * render's end (render_finish) hands each of them the reply.  MHD sends
 * both buffers from a response that borrows them (one buffer when small,
 * see SCRAPE_WHOLE_MAX, else an iovec) and whose free callback drops the
 * reference: no scrape copies or formats anything, so scrapes cost what
 * MHD and the socket cost.  No lock is held while a response is built or
 * written.
 *
 * Limits: MHD itself caps connections overall and per client address, and
 * the memory a connection may use for its request headers (beyond it the
 * client gets 431 or the connection is closed).  MHD's own timeout only
 * measures inactivity, which a client sending one byte every few seconds
 * defeats (slowloris); so each connection is tracked from accept (and
 * again from the end of each response) until its request is complete,
 * and a sweeper thread shuts down the socket of any that takes longer
 * than the request timeout.  MHD then sees the end of the stream and
 * closes the connection from its own thread.  No request here takes a
 * body: one that comes with one is answered 413 from the first call, with
 * the headers, before any of the body is read and before authentication,
 * so a body sent a byte at a time holds nothing.  Scrapes in flight are
 * limited overall and per client address (a connection marks its scrape
 * in the connection table; a scrape counts its address's marks), so that
 * one address cannot take every slot; and a connection that keeps
 * sending requests while its earlier answers sit unread in its send
 * queue is cut off at HTTP_MAX_PIPELINE of them.  The sweeper's lock is
 * taken when a connection opens or closes and when a scrape starts or
 * ends under the per-address limit: a walk of a few hundred entries.
 * Each refusal is counted for the self-metrics and logged at most once a
 * minute.
 *
 * Why one file of this size: it is every libmicrohttpd callback and the
 * state they share (the connection table the sweeper walks, the renders
 * in progress, the count of scrapes in flight).  What stands alone lives
 * elsewhere: basic auth in auth.c, the worker threads in workq.c, the
 * bodies in expo.c, the web config in webconfig.c, process_* in
 * procstat.c.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "daemon/auth.h"
#include "daemon/expo.h"
#include "daemon/http.h"
#include "daemon/log.h"
#include "daemon/procstat.h"
#include "daemon/scrape.h"
#include "daemon/workq.h"
#include "util/clock.h"

#if MHD_VERSION < 0x00097100
typedef int MHD_Result;
#else
typedef enum MHD_Result MHD_Result;
#endif

/*
 * A connection from accept until it closes: for the request deadline, the
 * scrapes in flight per address, and the depth of its pipeline.
 */
struct conn {
	int fd;
	atomic_int waiting;		/* its request is not all in yet */
	atomic_uint_fast64_t since_ns;	/* waiting since */
	atomic_uint_fast64_t rx_base;	/* bytes received by then */
	int shut;			/* the sweeper shut it down */
	unsigned char peer[16];		/* auth_client_key of its address */
	int scraping;			/* a scrape in flight (conn_lock) */
	unsigned depth;			/* answers it had not read (its thread) */
	struct conn *next_free;
};

/* Requests refused before they were let in: the metric's reasons. */
enum http_refusal {
	REFUSED_ADDRESS_BUSY,		/* --web.max-requests-per-ip */
	REFUSED_PIPELINED,		/* beyond HTTP_MAX_PIPELINE unread */
	REFUSED_BODY,			/* a request with a body */
	REFUSED_DEADLINE,		/* not all in by the request deadline */
};
_Static_assert(REFUSED_DEADLINE + 1 == EXPO_NR_REFUSALS,
    "expo.c names each refusal");

struct render_task;

struct http {
	struct MHD_Daemon *mhd;
	struct http_opts o;
	struct expo_opts eo;
	char *path;
	int fd;

	atomic_uint inflight;
	atomic_uint_fast64_t scrapes[2][2];	/* [format][gzip] */
	atomic_uint_fast64_t rejected;
	atomic_uint_fast64_t refused[EXPO_NR_REFUSALS];
	atomic_uint_fast64_t said_ns[EXPO_NR_REFUSALS];	/* logged then */

	/* Header deadline: the connection table and its sweeper, which
	 * also releases throttled requests when their hold is over. */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_cond;
	struct conn *conns, *free_conns;
	size_t nr_conns;
	pthread_t sweeper;
	int sweeping, stopping;
	struct req *held, *held_tail;	/* oldest first */
	int held_closed;		/* stopping: hold nothing more */

	/* Basic auth (NULL without users), and the render workers with the
	 * renders they have in hand. */
	struct auth *auth;
	struct workq *render;
	pthread_mutex_t render_lock;	/* tasks */
	struct render_task *tasks;

	/* What was rendered for each path's newest snapshot. */
	struct scrape_cache cache, extra_cache;
};

/*
 * A request that waits for a worker: for its password check or for its
 * variant's first render.  Allocated only then (a scrape answered from
 * what is cached needs none); MHD's *req_cls points at it until the
 * request completes.  The worker writes result and resumes the request;
 * the access handler, called again, reads it.  Nothing else is shared.
 */
enum req_wait { WAIT_NONE, WAIT_AUTH, WAIT_RENDER, WAIT_HELD };

struct req {
	struct MHD_Connection *conn;
	enum req_wait wait;
	atomic_int result;		/* auth: 1, 0, -errno; render: 0, -errno */
	int inflight;			/* counted in h->inflight */
	int authed;			/* its credentials passed */
	struct auth_check check;
	struct scrape_reply reply;	/* WAIT_RENDER: what it will send */
	struct req *next_waiter;	/* the render task's list */
	uint64_t held_until;		/* WAIT_HELD: answer 429 then */
	unsigned retry_after;		/* ... with this Retry-After */
	struct req *next_held;		/* h->held */
};

/*
 * A throttled request is answered 429 only after HTTP_HOLD_NS (give or
 * take the sweeper's quarter second): answered at once, an attacker's
 * connections would ask again at once, and the server's CPU would follow
 * their rate.  Held, each connection costs at most one request a second;
 * it stays counted against the per-address connection limit meanwhile.
 */
#define HTTP_HOLD_NS 1000000000ULL

/*
 * Responses a connection may leave unread while it sends more requests.
 * A scraper sends one request and reads its answer; a client that
 * pipelines thousands of requests and reads none would hold its scrape
 * slot, and the kernel a send queue of megabytes, for as long as it
 * liked.  Past this depth it is answered 429 and the connection closed.
 */
#define HTTP_MAX_PIPELINE 4

/* Each kind of refusal is logged at most once in this long. */
#define HTTP_SAY_NS (60 * 1000000000ULL)

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

/* Markers for *req_cls when no struct req is needed: a request seen, and
 * a scrape counted in flight. */
static char req_seen, req_inflight;

static struct req *
req_of(void *req_cls)
{
	if (req_cls == NULL || req_cls == &req_seen ||
	    req_cls == &req_inflight)
		return NULL;
	return req_cls;
}

/* The request's struct req, made from its marker on first need. */
static struct req *
req_get(struct MHD_Connection *conn, void **req_cls)
{
	struct req *r = req_of(*req_cls);

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

/*
 * A refusal counted, and logged the first time and then at most once per
 * HTTP_SAY_NS with the count so far: a flood of them must not flood the
 * journal too.  n at once (the sweeper's shutdowns of one pass).
 */
static void
refused(struct http *h, enum http_refusal why, uint64_t n)
{
	static const char *const what[EXPO_NR_REFUSALS] = {
		[REFUSED_ADDRESS_BUSY] = "scrapes refused (429): their "
		    "address had --web.max-requests-per-ip in flight",
		[REFUSED_PIPELINED] = "requests refused (429, connection "
		    "closed): sent with more answers unread than a "
		    "connection may leave",
		[REFUSED_BODY] = "requests refused (413, connection closed): "
		    "they came with a body",
		[REFUSED_DEADLINE] = "connections closed: their request was "
		    "not all in by --web.read-header-timeout",
	};
	uint64_t now = mono_ns(), last, total;

	total = atomic_fetch_add(&h->refused[why], n) + n;
	last = atomic_load(&h->said_ns[why]);
	if ((last && now - last < HTTP_SAY_NS) ||
	    !atomic_compare_exchange_strong(&h->said_ns[why], &last, now))
		return;
	log_warn("%s: %llu so far (said at most once a minute)", what[why],
	    (unsigned long long)total);
}

/* The connection's entry in the table, or NULL (the table was full). */
static struct conn *
conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* Bytes the socket has received so far (0 if it cannot say). */
static uint64_t
bytes_received(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) +
	    sizeof(ti.tcpi_bytes_received))
		return 0;
	return ti.tcpi_bytes_received;
}

/* The request deadline starts over for c (accept, or an answer sent). */
static void
conn_clock(struct conn *c)
{
	atomic_store(&c->rx_base, bytes_received(c->fd));
	atomic_store(&c->since_ns, mono_ns());
	atomic_store(&c->waiting, 1);
}

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

/* ---- responses ------------------------------------------------------ */

static void
add_headers(struct http *h, struct MHD_Response *resp)
{
	size_t i;

	for (i = 0; h->o.web && i < h->o.web->nr_headers; i++)
		MHD_add_response_header(resp, h->o.web->headers[i].name,
		    h->o.web->headers[i].value);
}

/*
 * A fixed reply.  extra_name/extra_value: one more header, or NULL.
 */
static MHD_Result
reply_static_hdr(struct http *h, struct MHD_Connection *conn,
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
	add_headers(h, resp);
	if (status == MHD_HTTP_UNAUTHORIZED)
		r = MHD_queue_basic_auth_fail_response(conn, "pmu_exporter",
		    resp);
	else
		r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static MHD_Result
reply_static(struct http *h, struct MHD_Connection *conn, unsigned status,
    const char *type, const char *body)
{
	return reply_static_hdr(h, conn, status, type, body, NULL, NULL);
}

/* Why a request that waited for a worker got no answer from it. */
static MHD_Result
reply_worker_error(struct http *h, struct MHD_Connection *conn, int err)
{
	if (err == -ESHUTDOWN)
		return reply_static(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "shutting down\n");
	if (err == -EAGAIN)
		return reply_static_hdr(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "busy, try again\n",
		    MHD_HTTP_HEADER_RETRY_AFTER, "1");
	return reply_static(h, conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
	    "text/plain", "out of memory\n");
}

/* A response borrows the scrape's buffers and holds a reference. */
static void
scrape_free(void *cls)
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
		procstat_read(h->o.procfs, live);
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
	if (tail->meta[1])	/* body and tail in one buffer (scrape.h) */
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
		    tail->len, tail->p, scrape_free, v->sc);
	else {
		iov[0].iov_base = body->p;
		iov[0].iov_len = body->len;
		iov[1].iov_base = tail->p;
		iov[1].iov_len = tail->len;
		resp = MHD_create_response_from_iovec(iov, tail->len ? 2 : 1,
		    scrape_free, v->sc);
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
	add_headers(h, resp);
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

	if ((r = req_get(conn, req_cls)) == NULL) {
		scrape_unref(v->sc);
		return reply_worker_error(h, conn, -ENOMEM);
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

/*
 * A scrape slot for the connection's address, under
 * --web.max-requests-per-ip: 1 (taken, given back when the request
 * completes; or no limit), 0 (the address has its share in flight).
 * The connection table is walked under its lock: a few hundred entries
 * at most, against a scrape's render.
 */
static int
conn_claim(struct http *h, struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);
	unsigned n = 0;
	size_t i;

	if (h->o.max_requests_per_ip == 0 || c == NULL)
		return 1;
	pthread_mutex_lock(&h->conn_lock);
	for (i = 0; i < h->nr_conns; i++)
		if (h->conns[i].fd >= 0 && h->conns[i].scraping &&
		    memcmp(h->conns[i].peer, c->peer, sizeof(c->peer)) == 0)
			n++;
	if (n < h->o.max_requests_per_ip)
		c->scraping = 1;
	pthread_mutex_unlock(&h->conn_lock);
	return n < h->o.max_requests_per_ip;
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

	if (!conn_claim(h, conn)) {
		refused(h, REFUSED_ADDRESS_BUSY, 1);
		return reply_static_hdr(h, conn, MHD_HTTP_TOO_MANY_REQUESTS,
		    "text/plain", "too many scrapes in flight from this "
		    "address (--web.max-requests-per-ip)\n",
		    MHD_HTTP_HEADER_RETRY_AFTER, "1");
	}
	if (h->o.max_requests && atomic_fetch_add(&h->inflight, 1) >=
	    h->o.max_requests) {
		atomic_fetch_sub(&h->inflight, 1);
		atomic_fetch_add(&h->rejected, 1);
		return reply_static(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "too many scrapes in flight "
		    "(--web.max-requests)\n");
	}
	if (h->o.max_requests) {
		/* Released when the request completes. */
		if ((r = req_of(*req_cls)) != NULL)
			r->inflight = 1;
		else
			*req_cls = &req_inflight;
	}

	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT);
	encoding = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT_ENCODING);
	f = http_wants_openmetrics(accept) ? EXPO_OPENMETRICS : EXPO_TEXT;
	gz = http_accepts_gzip(encoding);

	if ((snap = source(h->o.ctx)) == NULL)
		return reply_static(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "text/plain", "no collection yet\n");
	if ((ready = scrape_take(cache, snap, f, gz, &v)) < 0)
		return reply_worker_error(h, conn, ready);
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
		return reply_worker_error(h, conn, err);
	}
	return send_metrics(h, conn, &v);
}

/* ---- authentication ------------------------------------------------- */

/*
 * The client certificate, as client_auth_type asks.  MHD has GnuTLS
 * request one whenever a client CA is configured; it is judged here,
 * before any request is answered.  0 if acceptable, else a reason.
 */
static const char *
check_client_cert(struct http *h, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t tls;
	unsigned int n = 0, status = 0;
	enum webcfg_client_auth a = h->o.web->client_auth;

	if (!h->o.web->tls || a == WEBCFG_NO_CLIENT_CERT ||
	    a == WEBCFG_REQUEST_CLIENT_CERT)
		return NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (ci == NULL || ci->tls_session == NULL)
		return "no TLS session";
	tls = (gnutls_session_t)ci->tls_session;
	if (gnutls_certificate_get_peers(tls, &n) == NULL)
		n = 0;
	if (n == 0)
		return a == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN ? NULL :
		    "a client certificate is required";
	if (a == WEBCFG_REQUIRE_ANY_CLIENT_CERT)
		return NULL;
	if (gnutls_certificate_verify_peers2(tls, &status) < 0 || status != 0)
		return "the client certificate is not signed by client_ca_file "
		    "or not valid now";
	return NULL;
}

/* A password check is over, on a bcrypt worker: resume its request. */
static void
auth_done(struct auth_check *c, int ok)
{
	struct req *r = (struct req *)((char *)c - offsetof(struct req, check));
	struct MHD_Connection *conn = r->conn;

	atomic_store(&r->result, ok < 0 ? -ESHUTDOWN : ok);
	MHD_resume_connection(conn);	/* r is not ours after this */
}

static MHD_Result
reply_throttled(struct http *h, struct MHD_Connection *conn, unsigned secs)
{
	char retry[16];

	snprintf(retry, sizeof(retry), "%u", secs);
	return reply_static_hdr(h, conn, MHD_HTTP_TOO_MANY_REQUESTS,
	    "text/plain", "too many failed password checks from this "
	    "address; try again later\n", MHD_HTTP_HEADER_RETRY_AFTER, retry);
}

/* Resume a list of held requests (taken off h->held, lock not held). */
static void
held_resume(struct req *r)
{
	struct req *next;

	for (; r; r = next) {
		struct MHD_Connection *conn = r->conn;

		next = r->next_held;	/* r is not ours after the resume */
		MHD_resume_connection(conn);
	}
}

/* Hold a throttled request: the sweeper answers it later (see above). */
static MHD_Result
hold_throttled(struct http *h, struct MHD_Connection *conn, void **req_cls,
    unsigned retry_s)
{
	struct req *r;

	if ((r = req_get(conn, req_cls)) == NULL)
		return reply_throttled(h, conn, retry_s);
	r->wait = WAIT_HELD;
	r->retry_after = retry_s;
	r->held_until = mono_ns() + HTTP_HOLD_NS;
	r->next_held = NULL;
	MHD_suspend_connection(conn);
	pthread_mutex_lock(&h->conn_lock);
	if (h->held_closed) {
		pthread_mutex_unlock(&h->conn_lock);
		MHD_resume_connection(conn);	/* answered at once */
		return MHD_YES;
	}
	if (h->held_tail)
		h->held_tail->next_held = r;
	else
		h->held = r;
	h->held_tail = r;
	pthread_mutex_unlock(&h->conn_lock);
	return MHD_YES;
}

/*
 * Basic auth on the serving thread: credentials that need bcrypt are
 * suspended for a check on a worker; cached ones pass at once (*answered
 * 0); anything else is answered here (401, 429) (*answered 1 but for a
 * pass).
 */
static MHD_Result
basic_auth(struct http *h, struct MHD_Connection *conn, void **req_cls,
    int *answered)
{
	const union MHD_ConnectionInfo *ci;
	struct auth_check check;
	enum auth_verdict v;
	char *user, *pass = NULL;
	unsigned retry_s = 1;
	struct req *r;
	int err;

	*answered = 1;
	memset(&check, 0, sizeof(check));
	/* Another scheme, or a header that cannot be read, is as none. */
	if (auth_parse_basic(MHD_lookup_connection_value(conn,
	    MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION), &user, &pass) < 0)
		user = pass = NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	v = auth_begin(h->auth, &check, user, pass,
	    ci ? ci->client_addr : NULL, &retry_s);
	auth_parse_free(&user, &pass);
	if (v == AUTH_CHECK) {
		if ((r = req_get(conn, req_cls)) == NULL) {
			auth_abandon(&check);
			return reply_worker_error(h, conn, -ENOMEM);
		}
		r->check = check;
		r->check.done = auth_done;
		r->wait = WAIT_AUTH;
		MHD_suspend_connection(conn);
		if ((err = auth_submit(h->auth, &r->check)) < 0) {
			atomic_store(&r->result, err);
			MHD_resume_connection(conn);
		}
		return MHD_YES;
	}
	if (v == AUTH_MISSING)
		return reply_static(h, conn, MHD_HTTP_UNAUTHORIZED,
		    "text/plain", "Unauthorized\n");
	if (v == AUTH_THROTTLED)
		return hold_throttled(h, conn, req_cls, retry_s);
	*answered = 0;		/* AUTH_PASS */
	return MHD_YES;
}

/*
 * May the request in?  Its client certificate, then its credentials; a
 * request resumed after its bcrypt check reads the check's result, and
 * one that passed is not judged again.  *answered 0: let in; 1: answered
 * here, or suspended for a check.
 */
static MHD_Result
authorize(struct http *h, struct MHD_Connection *conn, void **req_cls,
    int *answered)
{
	struct req *r = req_of(*req_cls);
	const char *why;
	int res;

	*answered = 1;
	if (r && r->wait == WAIT_AUTH) {
		r->wait = WAIT_NONE;
		res = atomic_load(&r->result);
		if (res == 0)
			return reply_static(h, conn, MHD_HTTP_UNAUTHORIZED,
			    "text/plain", "Unauthorized\n");
		if (res == -EAGAIN)	/* too many checks waiting */
			return reply_throttled(h, conn, 1);
		if (res < 0)
			return reply_worker_error(h, conn, res);
		r->authed = 1;
	}
	if (r && r->authed) {
		*answered = 0;
		return MHD_YES;
	}
	if (h->o.web && (why = check_client_cert(h, conn)) != NULL) {
		log_debug("refusing a TLS client: %s", why);
		return reply_static(h, conn, MHD_HTTP_FORBIDDEN,
		    "text/plain", "client certificate required\n");
	}
	if (h->auth)
		return basic_auth(h, conn, req_cls, answered);
	*answered = 0;
	return MHD_YES;
}

/* ---- the access handler -------------------------------------------- */

/* The whole request is in: the deadline is met. */
static void
request_arrived(struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);

	if (c)
		atomic_store(&c->waiting, 0);
}

/*
 * Does the request come with a body?  Nothing here takes one, and MHD
 * would read it, at the client's pace, before the request is complete.
 */
static int
has_body(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_LENGTH);

	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL ||
	    (cl != NULL && cl[strspn(cl, "0")] != '\0');
}

/*
 * Has the connection sent this request with more than HTTP_MAX_PIPELINE
 * answers unread?  MHD reads a request only once the answer before it is
 * all in the kernel's send queue, so bytes still in that queue (or sent
 * and not acknowledged) when a request arrives are an answer the client
 * has not read yet: depth counts such requests in a row, and a request
 * that finds the queue empty starts over.
 */
static int
pipelined(struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);
	int queued = 0;

	if (c == NULL || ioctl(c->fd, SIOCOUTQ, &queued) < 0 || queued == 0) {
		if (c)
			c->depth = 0;
		return 0;
	}
	return ++c->depth > HTTP_MAX_PIPELINE;
}

/*
 * The first call, with the headers only: a request with a body or too
 * deep a pipeline is answered here and its connection closed, before any
 * body is read and before authentication.  Else MHD_YES, *answered 0.
 */
static MHD_Result
first_call(struct http *h, struct MHD_Connection *conn, int *answered)
{
	*answered = 1;
	if (has_body(conn)) {
		refused(h, REFUSED_BODY, 1);
		return reply_static_hdr(h, conn, MHD_HTTP_CONTENT_TOO_LARGE,
		    "text/plain", "no request here takes a body\n",
		    MHD_HTTP_HEADER_CONNECTION, "close");
	}
	if (pipelined(conn)) {
		refused(h, REFUSED_PIPELINED, 1);
		return reply_static_hdr(h, conn, MHD_HTTP_TOO_MANY_REQUESTS,
		    "text/plain", "too many requests sent with their answers "
		    "unread\n", MHD_HTTP_HEADER_CONNECTION, "close");
	}
	*answered = 0;
	return MHD_YES;
}

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
		return reply_static(h, conn, MHD_HTTP_OK,
		    "text/html; charset=utf-8", page);
	}
	if (strcmp(url, "/-/healthy") == 0)
		return reply_static(h, conn, MHD_HTTP_OK, "text/plain",
		    "Healthy\n");
	if (strcmp(url, "/-/ready") == 0) {
		if ((s = h->o.snapshot(h->o.ctx)) == NULL)
			return reply_static(h, conn,
			    MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			    "Not ready\n");
		snapshot_unref(s);
		return reply_static(h, conn, MHD_HTTP_OK, "text/plain",
		    "Ready\n");
	}
	return reply_static(h, conn, MHD_HTTP_NOT_FOUND, "text/plain",
	    "not found\n");
}

static MHD_Result
handle(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **req_cls)
{
	struct http *h = cls;
	struct req *r;
	MHD_Result ret;
	int answered;

	(void)version;
	(void)upload_data;
	if (*req_cls == NULL) {
		/* First call: headers only.  Answer on the second. */
		ret = first_call(h, conn, &answered);
		if (!answered)
			*req_cls = &req_seen;
		return ret;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0;	/* ignore any body (none comes) */
		return MHD_YES;
	}
	request_arrived(conn);
	/* Called again after a worker resumed it? */
	r = req_of(*req_cls);
	if (r && r->wait == WAIT_RENDER)
		return reply_rendered(h, conn, r);
	if (r && r->wait == WAIT_HELD) {
		r->wait = WAIT_NONE;
		return reply_throttled(h, conn, r->retry_after);
	}
	ret = authorize(h, conn, req_cls, &answered);
	if (answered)
		return ret;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_static(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "text/plain", "method not allowed\n");
	return route(h, conn, url, req_cls);
}

/* A request is over: release its in-flight slot, restart the clock. */
static void
completed(void *cls, struct MHD_Connection *conn, void **req_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;
	struct conn *c;
	struct req *r;

	(void)toe;
	if (*req_cls == &req_inflight)
		atomic_fetch_sub(&h->inflight, 1);
	else if ((r = req_of(*req_cls)) != NULL) {
		/* No worker holds it: a suspended request cannot complete,
		 * and workers let go of it before resuming it. */
		if (r->inflight)
			atomic_fetch_sub(&h->inflight, 1);
		scrape_unref(r->reply.sc);
		free(r);
	}
	*req_cls = NULL;
	if ((c = conn_of(conn)) == NULL)
		return;
	if (c->scraping) {
		pthread_mutex_lock(&h->conn_lock);
		c->scraping = 0;
		pthread_mutex_unlock(&h->conn_lock);
	}
	conn_clock(c);
}

/* ---- the request deadline ------------------------------------------ */

static void
connection_notify(void *cls, struct MHD_Connection *conn,
    void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *ci;
	struct conn *c;

	pthread_mutex_lock(&h->conn_lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		if ((c = h->free_conns) != NULL && ci != NULL) {
			h->free_conns = c->next_free;
			c->fd = ci->connect_fd;
			c->shut = 0;
			c->scraping = 0;
			c->depth = 0;
			ci = MHD_get_connection_info(conn,
			    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
			auth_client_key(ci ? ci->client_addr : NULL, c->peer);
			atomic_store(&c->rx_base, 0);	/* all of it counts */
			atomic_store(&c->since_ns, mono_ns());
			atomic_store(&c->waiting, 1);
			*socket_context = c;
		}
	} else if ((c = *socket_context) != NULL) {
		/* Closed: MHD closes the fd after this returns. */
		c->fd = -1;
		c->next_free = h->free_conns;
		h->free_conns = c;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&h->conn_lock);
}

static void *
sweeper_main(void *arg)
{
	struct http *h = arg;
	uint64_t limit = (uint64_t)h->o.header_timeout_s * 1000000000ULL;
	struct timespec until;
	size_t i, late;

	pthread_mutex_lock(&h->conn_lock);
	while (!h->stopping) {
		uint64_t now = mono_ns();
		struct req *due = NULL, *last = NULL;

		/* Held requests whose time is up, oldest first. */
		while (h->held && h->held->held_until <= now) {
			struct req *r = h->held;

			if ((h->held = r->next_held) == NULL)
				h->held_tail = NULL;
			r->next_held = NULL;
			if (last)
				last->next_held = r;
			else
				due = r;
			last = r;
		}
		if (due) {
			pthread_mutex_unlock(&h->conn_lock);
			held_resume(due);
			pthread_mutex_lock(&h->conn_lock);
		}
		for (i = 0, late = 0; limit && i < h->nr_conns; i++) {
			struct conn *c = &h->conns[i];

			/* since may be later than now: a request completed
			 * during this scan.  Never subtract it from now. */
			if (c->fd < 0 || c->shut || !atomic_load(&c->waiting) ||
			    atomic_load(&c->since_ns) + limit > now)
				continue;
			/* An idle keep-alive connection sent nothing since
			 * its last answer: closed, but refused nothing. */
			if (bytes_received(c->fd) > atomic_load(&c->rx_base))
				late++;
			c->shut = 1;
			shutdown(c->fd, SHUT_RDWR);
		}
		if (late) {
			pthread_mutex_unlock(&h->conn_lock);
			refused(h, REFUSED_DEADLINE, late);
			pthread_mutex_lock(&h->conn_lock);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->conn_cond, &h->conn_lock, &until);
	}
	pthread_mutex_unlock(&h->conn_lock);
	return NULL;
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	log_debug("libmicrohttpd: %s", msg);
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

int
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
	if (h->sweeping) {
		pthread_mutex_lock(&h->conn_lock);
		h->stopping = 1;
		pthread_cond_signal(&h->conn_cond);
		pthread_mutex_unlock(&h->conn_lock);
		pthread_join(h->sweeper, NULL);
	}
	/* Every render task has finished: workq_free() stops the workers,
	 * and a task that could not be queued was finished at once. */
	workq_free(h->render);
	auth_free(h->auth);
	scrape_cache_fini(&h->cache);
	scrape_cache_fini(&h->extra_cache);
	pthread_mutex_destroy(&h->render_lock);
	pthread_cond_destroy(&h->conn_cond);
	pthread_mutex_destroy(&h->conn_lock);
	free(h->conns);
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
	size_t i;
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
	h->eo = (struct expo_opts){ .exporter_metrics = o->exporter_metrics,
	    .mhd_version = MHD_get_version(), .pfm_version = o->pfm_version,
	    .cpu = o->cpu, .interference = o->interference };
	h->nr_conns = h->o.max_connections + 16;
	if ((h->path = strdup(o->telemetry_path)) == NULL ||
	    (h->conns = calloc(h->nr_conns, sizeof(*h->conns))) == NULL) {
		http_free(h);
		return -ENOMEM;
	}
	for (i = h->nr_conns; i-- > 0;) {
		h->conns[i].fd = -1;
		h->conns[i].next_free = h->free_conns;
		h->free_conns = &h->conns[i];
	}
	/* Two render workers, even on one CPU: a long render then holds up
	 * no render of another variant. */
	if ((r = workq_new("pmu-render", 2, 64, 0,
	    &h->render)) < 0 || (o->web && o->web->nr_users &&
	    (r = auth_new(o->web, o->auth_failures_per_minute,
	    cpus_upto(HTTP_MAX_THREADS), &h->auth)) < 0)) {
		snprintf(err, errlen, "starting the HTTP workers: %s",
		    strerror(-r));
		http_free(h);
		return r;
	}
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
	OPT(MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL);
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
	OPT(MHD_OPTION_NOTIFY_COMPLETED, completed, h);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, connection_notify, h);
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
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, h,
	    MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
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
	if ((r = pthread_create(&h->sweeper, NULL, sweeper_main, h)) != 0) {
		/* It closes the listening socket too. */
		MHD_stop_daemon(h->mhd);
		http_free(h);
		return -r;
	}
	h->sweeping = 1;
	*out = h;
	return 0;
}

void
http_stop(struct http *h)
{
	struct req *held;

	if (h == NULL)
		return;
	/* MHD must not stop with a request suspended: first every queued
	 * job is cancelled and every running one finished, each resuming
	 * its request (which then gets 503); requests that want a worker
	 * from now on are answered at once. */
	workq_stop(h->render);
	auth_stop(h->auth);
	pthread_mutex_lock(&h->conn_lock);
	h->held_closed = 1;
	held = h->held;
	h->held = h->held_tail = NULL;
	pthread_mutex_unlock(&h->conn_lock);
	held_resume(held);
	/* MHD closes the listening socket itself: closing it here again
	 * could close an fd another thread has opened since. */
	MHD_stop_daemon(h->mhd);
	http_free(h);
}
