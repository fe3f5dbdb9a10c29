/*
 * http_conn.c - who may send a request, and for how long: the connection
 * table, the request and write deadlines and their sweeper, scrape slots
 * per address, pipelining, bodies, the refusals (docs/architecture.md,
 * "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <microhttpd.h>

#include "daemon/http/http_conn.h"
#include "util/clock.h"

/*
 * A connection from accept until it closes: for the request deadline, the
 * scrapes in flight per address, and the depth of its pipeline.
 */
struct conn {
	int fd;
	atomic_int waiting;		/* its request is not all in yet */
	atomic_int sending;		/* its answer is not all sent yet */
	atomic_int queued;		/* ... and queued: the write deadline
					   runs (not while the server works) */
	atomic_uint_fast64_t since_ns;	/* waiting or sending since */
	atomic_uint_fast64_t rx_base;	/* bytes received by then */
	int shut;			/* the sweeper shut it down */
	unsigned char peer[16];		/* auth_client_key of its address */
	int scraping;			/* a scrape in flight (conn_lock) */
	size_t scraper_at;		/* ... its place in h->scrapers */
	unsigned depth;			/* answers it had not read (its thread) */
	struct conn *next_free;
};

/*
 * Responses a connection may leave unread while it sends more requests.
 * A scraper sends one request and reads its answer; a client that
 * pipelines thousands of requests and reads none would hold its scrape
 * slot, and the kernel a send queue of megabytes, for as long as it
 * liked.  Past this depth it is answered 429 and the connection closed.
 */
#define HTTP_MAX_PIPELINE 4

/*
 * Idle connections (no request in progress: not started, a request
 * half sent, or kept alive between requests) one address may hold.  A
 * scraper holds one; past this many the address's oldest is closed.
 */
#define HTTP_MAX_IDLE_PER_IP 8

/*
 * A slot of --web.max-requests is taken back from an address holding as
 * few as the newcomer only from a scrape that has been sending this long.
 */
#define HTTP_RECLAIM_GRACE_NS 1000000000ULL

/* Each kind of refusal is logged at most once in this long. */
#define HTTP_SAY_NS (60 * 1000000000ULL)

/*
 * A refusal counted, and logged the first time and then at most once per
 * HTTP_SAY_NS with the count so far: a flood of them must not flood the
 * journal too.  n at once (the sweeper's shutdowns of one pass).
 */
void
http_conn_refused(struct http *h, enum http_refusal why, uint64_t n)
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
		[REFUSED_WRITE_DEADLINE] = "connections reset: their answer "
		    "was not all sent by --web.write-timeout",
		[REFUSED_RECLAIMED] = "scrapes reset: their slot of "
		    "--web.max-requests went to an address holding fewer",
		[REFUSED_IDLE] = "idle connections closed: their address had "
		    "too many, or the server too little room left",
	};
	uint64_t now = mono_ns(), last, total;

	total = atomic_fetch_add(&h->refused[why], n) + n;
	last = atomic_load(&h->said_ns[why]);
	if ((last && now - last < HTTP_SAY_NS) ||
	    !atomic_compare_exchange_strong(&h->said_ns[why], &last, now))
		return;
	http_log(h, LOG_WARNING, "%s: %llu so far (said at most once a "
	    "minute)", what[why], (unsigned long long)total);
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

/* The request deadline starts over for c (an answer sent); what it had
 * received was counted when its request was in (http_conn_arrived). */
static void
conn_clock(struct conn *c)
{
	atomic_store(&c->since_ns, mono_ns());
	atomic_store(&c->waiting, 1);
}

/*
 * c has a scrape in flight (on) or no more (conn_lock held).  Those
 * scraping are listed apart, so that counting an address's scrapes walks
 * the scrapes in flight, not the whole table (3.5 % of a small scrape's
 * CPU at the default 528 entries: bench/RESULTS.md).
 */
static void
scraping_set(struct http *h, struct conn *c, int on)
{
	struct conn *last;

	if (on == c->scraping)
		return;
	c->scraping = on;
	if (on) {
		c->scraper_at = h->nr_scrapers;
		h->scrapers[h->nr_scrapers++] = c;
		return;
	}
	last = h->scrapers[--h->nr_scrapers];
	h->scrapers[c->scraper_at] = last;
	last->scraper_at = c->scraper_at;
}

/* Scrapes in flight from the address key peer, not reset (lock held). */
static unsigned
scrapes_of(struct http *h, const unsigned char peer[16])
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < h->nr_scrapers; i++)
		if (!h->scrapers[i]->shut &&
		    memcmp(h->scrapers[i]->peer, peer, 16) == 0)
			n++;
	return n;
}

/*
 * A scrape slot for the connection's address, under
 * --web.max-requests-per-ip: 1 (taken, given back when the request
 * completes; or no limit), 0 (the address has its share in flight).
 * The connection table is walked under its lock: a few hundred entries
 * at most, against a scrape's render.
 */
int
http_conn_claim(struct http *h, struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);
	unsigned n;
	int ok;

	if (c == NULL)
		return 1;
	pthread_mutex_lock(&h->conn_lock);
	n = scrapes_of(h, c->peer);
	ok = h->o.max_requests_per_ip == 0 || n < h->o.max_requests_per_ip;
	if (ok)
		scraping_set(h, c, 1);
	pthread_mutex_unlock(&h->conn_lock);
	return ok;
}

/* Shut c down (conn_lock held): reset, dropping what is queued to send,
 * if abort; else an orderly close. */
static void
conn_shut(struct conn *c, int abort)
{
	struct linger lg = { 1, 0 };

	c->shut = 1;
	if (abort)
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	shutdown(c->fd, SHUT_RDWR);
}

/*
 * Every slot of --web.max-requests is taken and conn (its slot of its
 * address claimed) wants one: take one back for it, resetting the scrape
 * that holds it, from the address holding the most slots, its
 * longest-held; from an address holding no more than conn's would, only
 * a scrape sending for HTTP_RECLAIM_GRACE_NS.  1 if one was taken back
 * (it is conn's: the reset scrape's is given back when MHD closes it, a
 * moment later), 0 if none may be.
 */
int
http_conn_reclaim(struct http *h, struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn), *v = NULL;
	uint64_t now = mono_ns();
	unsigned mine, n, most = 0;
	size_t i;

	if (c == NULL)
		return 0;
	pthread_mutex_lock(&h->conn_lock);
	mine = scrapes_of(h, c->peer);
	for (i = 0; i < h->nr_scrapers; i++) {
		struct conn *o = h->scrapers[i];

		if (o->shut || o == c || !atomic_load(&o->sending))
			continue;
		n = scrapes_of(h, o->peer);
		if (n <= mine && atomic_load(&o->since_ns) +
		    HTTP_RECLAIM_GRACE_NS > now)
			continue;
		if (v == NULL || n > most || (n == most &&
		    atomic_load(&o->since_ns) < atomic_load(&v->since_ns))) {
			v = o;
			most = n;
		}
	}
	if (v)
		conn_shut(v, 1);
	pthread_mutex_unlock(&h->conn_lock);
	if (v)
		http_conn_refused(h, REFUSED_RECLAIMED, 1);
	return v != NULL;
}

/* The whole request is in: the request deadline is met, and the write
 * deadline starts (once: the handler is called again after a wait). */
void
http_conn_arrived(struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);

	if (c == NULL || !atomic_load(&c->waiting))
		return;
	/* The bytes of this request: any past them, once it is answered,
	 * begin the next one.  Read now, not when the answer is sent: a
	 * client may have the answer and send its next request before
	 * MHD says the answer is done (seen under ASan: a half-sent second
	 * request closed as idle, not counted). */
	atomic_store(&c->rx_base, bytes_received(c->fd));
	atomic_store(&c->since_ns, mono_ns());
	atomic_store(&c->queued, 0);
	atomic_store(&c->sending, 1);
	atomic_store(&c->waiting, 0);
}

/* Its answer is queued: the write deadline runs from now.  The time to
 * render it or to check its password (a worker's, waiting for a CPU on
 * a busy node) is the server's, not the client's: counted, a render
 * slower than the deadline reset scrapes that read at once (seen under
 * ThreadSanitizer beside other work: 78 of a test's own), and bcrypt
 * checks queued behind 100 new addresses' reset their connections (63
 * of them beside a second suite). */
void
http_conn_answering(struct MHD_Connection *conn)
{
	struct conn *c = conn_of(conn);

	if (c != NULL && atomic_load(&c->sending)) {
		atomic_store(&c->since_ns, mono_ns());
		atomic_store(&c->queued, 1);
	}
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
 * The first call, with the headers only: is the request refused before
 * any body is read and before authentication (a body, too deep a
 * pipeline)?  1, counted, with *why (the caller answers it and closes
 * the connection); else 0.
 */
int
http_conn_refuse_early(struct http *h, struct MHD_Connection *conn,
    enum http_refusal *why)
{
	if (has_body(conn)) {
		*why = REFUSED_BODY;
		http_conn_refused(h, *why, 1);
		return 1;
	}
	if (pipelined(conn)) {
		*why = REFUSED_PIPELINED;
		http_conn_refused(h, *why, 1);
		return 1;
	}
	return 0;
}

/* ---- the request deadline ------------------------------------------ */

/* Is c open, not shut, and idle (no request in progress)? */
static int
idle(const struct conn *c)
{
	return c->fd >= 0 && !c->shut && atomic_load(&c->waiting);
}

/* Idle connections ordered by their address (the table's lock held). */
static int
by_peer(const void *a, const void *b)
{
	return memcmp((*(struct conn *const *)a)->peer,
	    (*(struct conn *const *)b)->peer, 16);
}

/*
 * The oldest idle connection, but c, of the address holding the most idle
 * ones (of those, the one whose oldest is oldest), or NULL: a scraper's
 * one kept-alive connection is never what a flood of idle ones pushes
 * out, however long it has waited for its next scrape.
 */
static struct conn *
idle_victim(struct http *h, struct conn *c)
{
	size_t n = 0, i, j, best = 0;
	struct conn *v = NULL;

	for (i = 0; i < h->nr_conns; i++)
		if (idle(&h->conns[i]) && &h->conns[i] != c)
			h->by_peer[n++] = &h->conns[i];
	qsort(h->by_peer, n, sizeof(*h->by_peer), by_peer);
	for (i = 0; i < n; i = j) {
		struct conn *old = h->by_peer[i];

		for (j = i + 1; j < n && by_peer(&h->by_peer[i],
		    &h->by_peer[j]) == 0; j++)
			if (atomic_load(&h->by_peer[j]->since_ns) <
			    atomic_load(&old->since_ns))
				old = h->by_peer[j];
		if (j - i > best || (j - i == best &&
		    atomic_load(&old->since_ns) < atomic_load(&v->since_ns))) {
			best = j - i;
			v = old;
		}
	}
	return v;
}

/*
 * A connection c has just been accepted (lock held): once a quarter of
 * --web.max-connections is open, its address keeps at most
 * HTTP_MAX_IDLE_PER_IP idle connections (its oldest closed); and the
 * table keeps an eighth free, closing idle_victim().  Below a quarter, a
 * client may keep as many as it likes (a load test, a proxy).  How many
 * were closed.
 */
static unsigned
idle_bound(struct http *h, struct conn *c)
{
	size_t reserve = h->o.max_connections / 8, i;
	struct conn *mine = NULL, *v;
	unsigned n = 0, open = 0, closed = 0;

	for (i = 0; i < h->nr_conns; i++) {
		struct conn *o = &h->conns[i];

		if (o->fd >= 0 && !o->shut)
			open++;
		if (!idle(o) || o == c || memcmp(o->peer, c->peer, 16) != 0)
			continue;
		n++;
		if (mine == NULL || atomic_load(&o->since_ns) <
		    atomic_load(&mine->since_ns))
			mine = o;
	}
	if (mine && n >= HTTP_MAX_IDLE_PER_IP &&
	    (size_t)open * 4 >= h->o.max_connections) {
		conn_shut(mine, 0);
		closed++;
		open--;
	}
	if (reserve && open + reserve > h->o.max_connections &&
	    (v = idle_victim(h, c)) != NULL) {
		conn_shut(v, 0);
		closed++;
	}
	return closed;
}

void
http_conn_notify(void *cls, struct MHD_Connection *conn,
    void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *ci;
	struct conn *c;
	unsigned closed = 0;

	pthread_mutex_lock(&h->conn_lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		if ((c = h->free_conns) != NULL && ci != NULL) {
			h->free_conns = c->next_free;
			c->fd = ci->connect_fd;
			c->shut = 0;
			c->depth = 0;
			ci = MHD_get_connection_info(conn,
			    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
			auth_client_key(ci ? ci->client_addr : NULL, c->peer);
			atomic_store(&c->rx_base, 0);	/* all of it counts */
			atomic_store(&c->since_ns, mono_ns());
			atomic_store(&c->sending, 0);
			atomic_store(&c->queued, 0);
			atomic_store(&c->waiting, 1);
			*socket_context = c;
			closed = idle_bound(h, c);
		}
	} else if ((c = *socket_context) != NULL) {
		/* Closed: MHD closes the fd after this returns. */
		scraping_set(h, c, 0);
		c->fd = -1;
		c->next_free = h->free_conns;
		h->free_conns = c;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&h->conn_lock);
	if (closed)
		http_conn_refused(h, REFUSED_IDLE, closed);
}

/*
 * A request is over (MHD's completion notifier): its scrape slot is given
 * back and the request deadline starts over for the next one.
 */
void
http_conn_done(struct http *h, struct MHD_Connection *conn)
{
	struct conn *c;

	if ((c = conn_of(conn)) == NULL)
		return;
	if (c->scraping) {	/* written by this connection's thread */
		pthread_mutex_lock(&h->conn_lock);
		scraping_set(h, c, 0);
		pthread_mutex_unlock(&h->conn_lock);
	}
	atomic_store(&c->sending, 0);
	conn_clock(c);
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

static void *
sweeper_main(void *arg)
{
	struct http *h = arg;
	uint64_t limit = (uint64_t)h->o.header_timeout_s * 1000000000ULL;
	uint64_t wlimit = (uint64_t)h->o.write_timeout_s * 1000000000ULL;
	struct timespec until;
	size_t i, late, slow;

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
		for (i = 0, late = slow = 0; i < h->nr_conns; i++) {
			struct conn *c = &h->conns[i];

			if (c->fd < 0 || c->shut)
				continue;
			/* since may be later than now: a request completed
			 * during this scan.  Never subtract it from now. */
			if (wlimit && atomic_load(&c->sending) &&
			    atomic_load(&c->queued) &&
			    atomic_load(&c->since_ns) + wlimit <= now) {
				slow++;
				conn_shut(c, 1);
				continue;
			}
			if (!limit || !atomic_load(&c->waiting) ||
			    atomic_load(&c->since_ns) + limit > now)
				continue;
			/* An idle keep-alive connection sent nothing since
			 * its last answer: closed, but refused nothing. */
			if (bytes_received(c->fd) > atomic_load(&c->rx_base))
				late++;
			conn_shut(c, 0);
		}
		if (late || slow) {
			pthread_mutex_unlock(&h->conn_lock);
			if (late)
				http_conn_refused(h, REFUSED_DEADLINE, late);
			if (slow)
				http_conn_refused(h, REFUSED_WRITE_DEADLINE,
				    slow);
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

/*
 * The connection table: an entry for each of h->o.max_connections and 16
 * spare, every one free.  0, or -ENOMEM (http_conn_stop() frees it).
 */
int
http_conn_init(struct http *h)
{
	size_t i;

	h->nr_conns = h->o.max_connections + 16;
	if ((h->conns = calloc(h->nr_conns, sizeof(*h->conns))) == NULL ||
	    (h->by_peer = calloc(h->nr_conns, sizeof(*h->by_peer))) == NULL ||
	    (h->scrapers = calloc(h->nr_conns, sizeof(*h->scrapers))) == NULL)
		return -ENOMEM;
	for (i = h->nr_conns; i-- > 0;) {
		h->conns[i].fd = -1;
		h->conns[i].next_free = h->free_conns;
		h->free_conns = &h->conns[i];
	}
	return 0;
}

/* The sweeper started: 0, or -errno. */
int
http_conn_start(struct http *h)
{
	int r;

	if ((r = pthread_create(&h->sweeper, NULL, sweeper_main, h)) != 0)
		return -r;
	h->sweeping = 1;
	return 0;
}

/* The sweeper stopped (if it ran) and the table freed. */
void
http_conn_stop(struct http *h)
{
	if (h->sweeping) {
		pthread_mutex_lock(&h->conn_lock);
		h->stopping = 1;
		pthread_cond_signal(&h->conn_cond);
		pthread_mutex_unlock(&h->conn_lock);
		pthread_join(h->sweeper, NULL);
	}
	free(h->conns);
	free(h->by_peer);
	free(h->scrapers);
	h->conns = NULL;
	h->by_peer = NULL;
}

/*
 * Hold r (suspended) until its time is up: 0, or -ESHUTDOWN when the
 * server is stopping and holds nothing more (the caller resumes it).
 */
int
http_conn_hold(struct http *h, struct req *r)
{
	pthread_mutex_lock(&h->conn_lock);
	if (h->held_closed) {
		pthread_mutex_unlock(&h->conn_lock);
		return -ESHUTDOWN;
	}
	if (h->held_tail)
		h->held_tail->next_held = r;
	else
		h->held = r;
	h->held_tail = r;
	pthread_mutex_unlock(&h->conn_lock);
	return 0;
}

/* Stopping: every held request is resumed now, and none held again. */
void
http_conn_close_held(struct http *h)
{
	struct req *held;

	pthread_mutex_lock(&h->conn_lock);
	h->held_closed = 1;
	held = h->held;
	h->held = h->held_tail = NULL;
	pthread_mutex_unlock(&h->conn_lock);
	held_resume(held);
}
