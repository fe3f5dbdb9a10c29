/*
 * http_load.c - the client side of bench/http_attack.sh: one legitimate
 * scraper that times every request, and the attackers it is measured
 * against.  Every mode is bounded in time, talks to one server given on
 * the command line (the scripts only ever give loopback addresses), and
 * binds its sockets to a chosen local address, so that the attack comes
 * from another client address (127.0.0.2) than the scrape (127.0.0.1).
 *
 *   http_load probe HOST PORT PATH COUNT INTERVAL_MS MAX_SECONDS [AUTH [HEADER...]]
 *	COUNT requests, one after another on one keep-alive connection (a
 *	new one if the server closes it), INTERVAL_MS apart, each timed from
 *	the first byte sent to the last byte of the body.  Prints the status
 *	codes and the median, p90, p99 and maximum latency in ms.  Stops
 *	after COUNT requests or MAX_SECONDS.  AUTH "-" sends none; each
 *	HEADER ("Name: value") is sent as it is.
 *   http_load flood HOST PORT PATH CONNS SECONDS SRC [AUTH]
 *	CONNS keep-alive connections from SRC, each sending the request
 *	again as soon as the previous response is in, for SECONDS.  Prints
 *	the responses by status code.
 *	SRC may be ADDR+N: the connections spread over N addresses from
 *	ADDR up (wrong passwords from many addresses).
 *   http_load slowloris HOST PORT CONNS SECONDS SRC NADDR
 *	CONNS connections spread over NADDR addresses from SRC up
 *	(127.0.0.2, 127.0.0.3, ...), each sending one byte of a never
 *	finished request header a second; one the server closes is opened
 *	again.  Prints how many were opened and how many the server closed.
 *
 * AUTH is the base64 of "user:password" for an Authorization: Basic
 * header.  Plain sockets, epoll, one thread: the client must cost less
 * than the server it loads, and the machine has two CPUs for both.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 4096
#define RESP_MAX (64 << 20)

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

/* A non-blocking TCP connection to host:port from src (or any). */
static int
dial(const char *host, int port, const char *src)
{
	struct sockaddr_in a, l;
	int fd, one = 1;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "http_load: %s: not an IPv4 address\n", host);
		exit(2);
	}
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (src) {
		memset(&l, 0, sizeof(l));
		l.sin_family = AF_INET;
		if (inet_pton(AF_INET, src, &l.sin_addr) != 1) {
			fprintf(stderr, "http_load: %s: not an IPv4 address\n",
			    src);
			exit(2);
		}
		if (bind(fd, (struct sockaddr *)&l, sizeof(l)) < 0) {
			close(fd);
			return -1;
		}
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *
request(const char *path, const char *auth, char **headers, int nheaders,
    size_t *len)
{
	char *r, *more = strdup("");
	int n, i;

	if (auth && strcmp(auth, "-") == 0)
		auth = NULL;
	for (i = 0; more && i < nheaders; i++) {
		char *m;

		if (asprintf(&m, "%s%s\r\n", more, headers[i]) < 0)
			die("asprintf");
		free(more);
		more = m;
	}
	if (more == NULL)
		die("strdup");
	n = asprintf(&r, "GET %s HTTP/1.1\r\nHost: bench\r\n"
	    "User-Agent: http_load\r\n%s%s%s%s\r\n", path,
	    auth ? "Authorization: Basic " : "", auth ? auth : "",
	    auth ? "\r\n" : "", more);
	if (n < 0)
		die("asprintf");
	free(more);
	*len = (size_t)n;
	return r;
}

/*
 * One response being read: headers, then Content-Length bytes of body.
 * Returns 1 when complete (status in *code), 0 for more, -1 on a
 * malformed response.
 */
struct resp {
	char hdr[16384];
	size_t hlen;
	long long body_left;		/* -1: still in the headers */
	int code;
	int close;			/* Connection: close */
};

static void
resp_reset(struct resp *r)
{
	r->hlen = 0;
	r->body_left = -1;
	r->code = 0;
	r->close = 0;
}

static int
resp_feed(struct resp *r, const char *buf, size_t n, size_t *used)
{
	size_t i = 0;

	while (i < n) {
		if (r->body_left < 0) {
			char *end, *cl;

			if (r->hlen + 1 >= sizeof(r->hdr))
				return -1;
			r->hdr[r->hlen++] = buf[i++];
			r->hdr[r->hlen] = '\0';
			if (r->hlen < 4 ||
			    memcmp(r->hdr + r->hlen - 4, "\r\n\r\n", 4) != 0)
				continue;
			if (sscanf(r->hdr, "HTTP/1.%*d %d", &r->code) != 1)
				return -1;
			r->body_left = 0;
			for (end = r->hdr; *end; end++)
				*end = (char)(*end >= 'A' && *end <= 'Z' ?
				    *end + 32 : *end);
			if ((cl = strstr(r->hdr, "\r\ncontent-length:")) != NULL)
				r->body_left = strtoll(cl + 17, NULL, 10);
			r->close = strstr(r->hdr, "\r\nconnection: close") !=
			    NULL;
			if (r->body_left > RESP_MAX)
				return -1;
		} else {
			size_t take = n - i;

			if ((long long)take > r->body_left)
				take = (size_t)r->body_left;
			r->body_left -= (long long)take;
			i += take;
		}
		if (r->body_left == 0) {
			*used = i;
			return 1;
		}
	}
	*used = i;
	return 0;
}

/* ---- probe ---------------------------------------------------------- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
pct(const double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	/* Nearest rank: the smallest value with p% at or below it. */
	i = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return v[i - 1];
}

/* Wait for fd to be ready for events, at most ms; 0 on time-out. */
static int
wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { fd, events, 0 };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r;
}

/* The whole request on fd, waiting while the socket is full: the bytes
 * sent (reqlen when all were). */
static size_t
send_request(int fd, const char *req, size_t reqlen)
{
	size_t off = 0;

	while (off < reqlen) {
		ssize_t n = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN && wait_fd(fd, POLLOUT, 10000) > 0)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	return off;
}

/* Reads one response into r, for at most 10 s from t0: 1 when it is
 * whole, else 0 or -1 (resp_feed's). */
static int
await_response(int fd, struct resp *r, double t0)
{
	char buf[65536];
	size_t used;
	int got = 0;

	while (!got && now_ms() - t0 < 10000) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EAGAIN) {
			wait_fd(fd, POLLIN, 10000);
			continue;
		}
		if (n <= 0)
			break;
		if ((got = resp_feed(r, buf, (size_t)n, &used)) < 0)
			break;
	}
	return got;
}

/* The codes and the latencies (sorted here) of a probe. */
static void
print_probe(const char *path, double start, long errors, const long *codes,
    double *lat, long done)
{
	long i;

	qsort(lat, (size_t)done, sizeof(double), cmp_double);
	printf("probe %s: %ld requests in %.1f s, errors %ld, codes", path,
	    done, (now_ms() - start) / 1e3, errors);
	for (i = 0; i < 600; i++)
		if (codes[i])
			printf(" %ld:%ld", i, codes[i]);
	printf("\nlatency_ms median %.3f p90 %.3f p99 %.3f max %.3f\n",
	    pct(lat, (size_t)done, 50), pct(lat, (size_t)done, 90),
	    pct(lat, (size_t)done, 99), done ? lat[done - 1] : 0.0);
}

static int
probe(const char *host, int port, const char *path, long count,
    long interval_ms, double max_s, const char *auth, char **headers,
    int nheaders)
{
	static struct resp r;
	size_t reqlen;
	char *req = request(path, auth, headers, nheaders, &reqlen);
	double *lat = calloc((size_t)count, sizeof(double));
	double t0, start = now_ms(), next = start;
	long i, done = 0, errors = 0, codes[600] = { 0 };
	int fd = -1;

	if (lat == NULL)
		die("calloc");
	for (i = 0; i < count && now_ms() - start < max_s * 1e3; i++) {
		size_t off;
		int got = 0;

		while (now_ms() < next)
			usleep((useconds_t)((next - now_ms()) * 1e3) + 1);
		next += (double)interval_ms;
		if (fd < 0 && ((fd = dial(host, port, NULL)) < 0 ||
		    wait_fd(fd, POLLOUT, 10000) <= 0)) {
			errors++;
			if (fd >= 0)
				close(fd);
			fd = -1;
			continue;
		}
		t0 = now_ms();
		resp_reset(&r);
		if ((off = send_request(fd, req, reqlen)) == reqlen)
			got = await_response(fd, &r, t0);
		if (got != 1) {
			/* A keep-alive connection the server had closed:
			 * once more on a new one, not counted. */
			close(fd);
			fd = -1;
			if (off == 0 || r.hlen == 0) {
				i--;
				next -= (double)interval_ms;
				if (++errors > count)
					break;
				continue;
			}
			errors++;
			continue;
		}
		lat[done++] = now_ms() - t0;
		if (r.code > 0 && r.code < 600)
			codes[r.code]++;
		if (r.close) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	print_probe(path, start, errors, codes, lat, done);
	free(lat);
	free(req);
	return done == 0;
}

/* ---- flood and slowloris: many connections, one epoll --------------- */

struct conn {
	int fd;
	size_t off;			/* request bytes sent */
	double next_byte;		/* slowloris: when to send the next */
	struct resp r;
};

static int
reopen(struct conn *c, int ep, const char *host, int port, const char *src)
{
	struct epoll_event ev;

	c->fd = dial(host, port, src);
	c->off = 0;
	resp_reset(&c->r);
	if (c->fd < 0)
		return -1;
	/* Edge-triggered: a writable socket must not wake us forever. */
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		die("epoll_ctl");
	return 0;
}

static void
drop(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* What a flood got back. */
struct flood_tally {
	long codes[600], total;
};

/* EPOLLOUT: more of the request.  1 when the connection died. */
static int
flood_write(struct conn *c, const char *req, size_t reqlen)
{
	ssize_t w;

	if (c->off >= reqlen)
		return 0;
	w = send(c->fd, req + c->off, reqlen - c->off, MSG_NOSIGNAL);
	if (w > 0)
		c->off += (size_t)w;
	else if (w < 0 && errno != EAGAIN)
		return 1;
	return 0;
}

/* The responses in buf[0..len), each tallied and answered at once with
 * the request again.  1 when the connection is to be dropped. */
static int
flood_responses(struct conn *c, const char *buf, size_t len,
    const char *req, size_t reqlen, struct flood_tally *t)
{
	size_t at = 0, used;
	ssize_t w;
	int got;

	while (at < len) {
		got = resp_feed(&c->r, buf + at, len - at, &used);
		at += used;
		if (got < 0)
			return 1;
		if (got == 0)
			break;
		t->total++;
		if (c->r.code > 0 && c->r.code < 600)
			t->codes[c->r.code]++;
		if (c->r.close)
			return 1;
		/* Again, at once. */
		resp_reset(&c->r);
		c->off = 0;
		if ((w = send(c->fd, req, reqlen, MSG_NOSIGNAL)) > 0)
			c->off = (size_t)w;
	}
	return 0;
}

/* EPOLLIN and the like: everything there is to read.  1 when the
 * connection died. */
static int
flood_read(struct conn *c, const char *req, size_t reqlen,
    struct flood_tally *t)
{
	char buf[65536];

	for (;;) {
		ssize_t rd = recv(c->fd, buf, sizeof(buf), 0);

		if (rd < 0 && errno == EAGAIN)
			return 0;
		if (rd <= 0)
			return 1;
		if (flood_responses(c, buf, (size_t)rd, req, reqlen, t))
			return 1;
	}
}

#define MAX_ADDRS 1024

/* "ADDR" or "ADDR+N": N addresses from ADDR up into addrs.  Their count,
 * or 0 (said on stderr). */
static int
addr_range(const char *src, char addrs[][INET_ADDRSTRLEN])
{
	char first[INET_ADDRSTRLEN];
	const char *plus = strchr(src, '+');
	struct in_addr base;
	int n = plus ? atoi(plus + 1) : 1, i;

	snprintf(first, sizeof(first), "%.*s", plus ? (int)(plus - src) :
	    (int)strlen(src), src);
	if (n < 1 || n > MAX_ADDRS || inet_pton(AF_INET, first, &base) != 1) {
		fprintf(stderr, "http_load: bad source addresses %s\n", src);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct in_addr a = { htonl(ntohl(base.s_addr) + (uint32_t)i) };

		inet_ntop(AF_INET, &a, addrs[i], INET_ADDRSTRLEN);
	}
	return n;
}

static int
flood(const char *host, int port, const char *path, int nconns,
    double secs, const char *src, const char *auth)
{
	static struct conn conns[MAX_CONNS];
	static struct flood_tally t;
	static char addrs[MAX_ADDRS][INET_ADDRSTRLEN];
	struct epoll_event evs[256];
	size_t reqlen;
	char *req = request(path, auth, NULL, 0, &reqlen);
	double end = now_ms() + secs * 1e3;
	long closed = 0, failed = 0;
	int ep, i, n, naddr;

	if ((naddr = addr_range(src, addrs)) < 1)
		return 2;
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		die("epoll_create1");
	for (i = 0; i < nconns; i++)
		if (reopen(&conns[i], ep, host, port, addrs[i % naddr]) < 0)
			failed++;
	while (now_ms() < end) {
		n = epoll_wait(ep, evs, 256, 100);
		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			int dead = 0;

			if (c->fd < 0)
				continue;
			if (evs[i].events & EPOLLOUT)
				dead = flood_write(c, req, reqlen);
			if (!dead && (evs[i].events & (EPOLLIN | EPOLLRDHUP |
			    EPOLLHUP | EPOLLERR)))
				dead = flood_read(c, req, reqlen, &t);
			if (dead) {
				closed++;
				drop(c);
				if (now_ms() < end && reopen(c, ep, host, port,
				    addrs[(c - conns) % naddr]) < 0)
					failed++;
			}
		}
	}
	for (i = 0; i < nconns; i++)
		drop(&conns[i]);
	close(ep);
	printf("flood %s from %s, %d connections, %.0f s: %ld responses "
	    "(%.0f/s), closed %ld, connect failures %ld, codes", path, src,
	    nconns, secs, t.total, (double)t.total / secs, closed, failed);
	for (i = 0; i < 600; i++)
		if (t.codes[i])
			printf(" %d:%ld", i, t.codes[i]);
	printf("\n");
	free(req);
	return 0;
}

static int
slowloris(const char *host, int port, int nconns, double secs,
    const char *src, int naddr)
{
	static struct conn conns[MAX_CONNS];
	static const char hdr[] = "GET /metrics HTTP/1.1\r\nHost: bench\r\n"
	    "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	struct epoll_event evs[256];
	struct in_addr base;
	char addrs[256][INET_ADDRSTRLEN], buf[4096];
	double end = now_ms() + secs * 1e3;
	long opened = 0, closed = 0, failed = 0, open_now;
	int ep, i, n;

	if (naddr < 1 || naddr > 256 || inet_pton(AF_INET, src, &base) != 1) {
		fprintf(stderr, "http_load: bad source addresses\n");
		return 2;
	}
	for (i = 0; i < naddr; i++) {
		struct in_addr a = { htonl(ntohl(base.s_addr) + (uint32_t)i) };

		inet_ntop(AF_INET, &a, addrs[i], sizeof(addrs[i]));
	}
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		die("epoll_create1");
	for (i = 0; i < nconns; i++) {
		conns[i].next_byte = now_ms() + (double)(i % 1000);
		if (reopen(&conns[i], ep, host, port, addrs[i % naddr]) < 0)
			failed++;
		else
			opened++;
	}
	while (now_ms() < end) {
		double t = now_ms();

		/* One byte a second on each; never the end of the headers. */
		for (i = 0; i < nconns; i++) {
			struct conn *c = &conns[i];

			if (c->fd >= 0 && t >= c->next_byte) {
				if (send(c->fd, hdr + c->off % (sizeof(hdr) -
				    1), 1, MSG_NOSIGNAL) == 1)
					c->off++;
				c->next_byte = t + 1000;
			}
		}
		n = epoll_wait(ep, evs, 256, 50);
		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			ssize_t rd;

			if (c->fd < 0 || !(evs[i].events & (EPOLLIN |
			    EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
				continue;
			rd = recv(c->fd, buf, sizeof(buf), 0);
			if (rd < 0 && errno == EAGAIN)
				continue;
			closed++;
			drop(c);
			if (reopen(c, ep, host, port,
			    addrs[(c - conns) % naddr]) < 0)
				failed++;
			else
				opened++;
			c->next_byte = now_ms() + 1000;
		}
	}
	for (open_now = 0, i = 0; i < nconns; i++) {
		open_now += conns[i].fd >= 0;
		drop(&conns[i]);
	}
	close(ep);
	printf("slowloris %d connections from %d addresses, %.0f s: opened "
	    "%ld, closed by the server %ld, connect failures %ld, open at "
	    "the end %ld\n", nconns, naddr, secs, opened, closed, failed,
	    open_now);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: http_load probe HOST PORT PATH COUNT "
	    "INTERVAL_MS MAX_SECONDS [AUTH [HEADER...]]\n"
	    "       http_load flood HOST PORT PATH CONNS SECONDS SRC [AUTH]\n"
	    "       http_load slowloris HOST PORT CONNS SECONDS SRC NADDR\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	if (argc >= 8 && strcmp(argv[1], "probe") == 0)
		return probe(argv[2], atoi(argv[3]), argv[4],
		    atol(argv[5]) > 0 ? atol(argv[5]) : 1, atol(argv[6]),
		    atof(argv[7]), argc > 8 ? argv[8] : NULL, argv + 9,
		    argc > 9 ? argc - 9 : 0);
	if (argc >= 8 && strcmp(argv[1], "flood") == 0) {
		int n = atoi(argv[5]);

		if (n < 1 || n > MAX_CONNS)
			usage();
		return flood(argv[2], atoi(argv[3]), argv[4], n,
		    atof(argv[6]), argv[7], argc > 8 ? argv[8] : NULL);
	}
	if (argc == 8 && strcmp(argv[1], "slowloris") == 0) {
		int n = atoi(argv[4]);

		if (n < 1 || n > MAX_CONNS)
			usage();
		return slowloris(argv[2], atoi(argv[3]), n, atof(argv[5]),
		    argv[6], atoi(argv[7]));
	}
	usage();
	return 2;
}
