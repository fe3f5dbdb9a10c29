/*
 * render_test.c - renders never hold up the server.  The real HTTP server
 * (daemon/http/) serves two synthetic snapshots, /metrics and /big, and
 * the test holds a render open for as long as it likes: this file defines
 * procstat_read(), which the linker then takes instead of the one in
 * libpmu.a, and which the render of a variant's tail calls on the render
 * worker.  So the test knows for certain that a render is in progress,
 * without timing anything, and checks that meanwhile
 *
 *  - a scrape of the other snapshot is answered, both when its body is
 *    already cached and when it needs a render of its own;
 *  - /-/healthy is answered;
 *  - a scrape of another variant (gzip, or OpenMetrics) of the very
 *    snapshot being rendered gets a render of its own, and its own
 *    variant (its content type and body), rather than joining the render
 *    in progress;
 *  - more scrapes of the variant being rendered wait for that render
 *    instead of starting their own, and all get the same body;
 *  - stopping the server with renders running and queued neither hangs
 *    nor leaves a request suspended (libmicrohttpd would abort).
 *
 * Every client has a receive time-out of 60 s, a guard against a hang,
 * not a measurement.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "daemon/expo/expo.h"
#include "daemon/expo/procstat.h"
#include "daemon/http/http.h"
#include "tests/lib/check.h"

/* ---- the hook ------------------------------------------------------- */

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hook_cond = PTHREAD_COND_INITIALIZER;
static int hook_arm;		/* the next this many renders are held */
static int hook_hold;		/* held renders wait while set */
static int hook_waiting;	/* renders held now */
static int hook_calls;		/* tail renders so far */

int
procstat_read(struct procstat *ps, struct expo_live *l)
{
	(void)ps;
	pthread_mutex_lock(&hook_lock);
	hook_calls++;
	pthread_cond_broadcast(&hook_cond);
	if (hook_arm > 0) {
		hook_arm--;
		hook_waiting++;
		pthread_cond_broadcast(&hook_cond);
		while (hook_hold)
			pthread_cond_wait(&hook_cond, &hook_lock);
		hook_waiting--;
	}
	pthread_mutex_unlock(&hook_lock);
	l->have_process = 0;
	return -ENOENT;
}

/* Hold the next n renders until hook_release(). */
static void
hook_hold_next(int n)
{
	pthread_mutex_lock(&hook_lock);
	hook_arm = n;
	hook_hold = 1;
	pthread_mutex_unlock(&hook_lock);
}

static void
hook_release(void)
{
	pthread_mutex_lock(&hook_lock);
	hook_arm = 0;
	hook_hold = 0;
	pthread_cond_broadcast(&hook_cond);
	pthread_mutex_unlock(&hook_lock);
}

/* Wait until n renders are held in the hook. */
static void
hook_wait_for(int n)
{
	pthread_mutex_lock(&hook_lock);
	while (hook_waiting < n)
		pthread_cond_wait(&hook_cond, &hook_lock);
	pthread_mutex_unlock(&hook_lock);
}

/*
 * Wait until n tail renders have happened, or s seconds have passed
 * (only a broken server takes that long): what was asked for is
 * rendered on its own, so a request has reached the server.
 */
static void
hook_wait_calls(int n, int s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += s;
	pthread_mutex_lock(&hook_lock);
	while (hook_calls < n &&
	    pthread_cond_timedwait(&hook_cond, &hook_lock, &until) == 0)
		;
	pthread_mutex_unlock(&hook_lock);
}

static int
hook_count(void)
{
	int n;

	pthread_mutex_lock(&hook_lock);
	n = hook_calls;
	pthread_mutex_unlock(&hook_lock);
	return n;
}

/* ---- snapshots ------------------------------------------------------ */

static struct snapshot_slot small_slot, big_slot;

static struct snapshot *
small_source(void *ctx)
{
	(void)ctx;
	return snapshot_get(&small_slot);
}

static struct snapshot *
big_source(void *ctx)
{
	(void)ctx;
	return snapshot_get(&big_slot);
}

static struct snapshot *
make(size_t rows, const char *cgroup)
{
	static const char *ev[] = { "cycles", "instructions" };
	static const unsigned char all[] = { 1, 1 };
	struct snapshot *s = snapshot_new();
	size_t i;

	s->rows = snapshot_alloc(s, rows * sizeof(*s->rows));
	for (i = 0; i < rows; i++) {
		double *v = snapshot_alloc(s, 2 * sizeof(*v));

		v[0] = (double)i;
		v[1] = (double)(2 * i);
		s->rows[i] = (struct snap_row){ .cgroup = cgroup,
		    .cpu = (int)i, .group = "ipc", .nr_events = 2,
		    .events = ev, .counted = all, .values = v };
	}
	s->nr_rows = rows;
	s->seq = 1;
	return s;
}

/* ---- a client ------------------------------------------------------- */

static int port;

struct fetch {
	const char *path;
	const char *headers;		/* extra header lines, or "" */
	int code;			/* 0: no response */
	char type[128];			/* its Content-Type, or "" */
	char *body;
	size_t len;
	pthread_t t;
};

static void *
fetch_main(void *arg)
{
	struct fetch *f = arg;
	struct sockaddr_in a;
	struct timeval tv = { 60, 0 };
	static const char ct[] = "\r\nContent-Type:";
	char req[512], *buf = NULL, *p, *q;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	f->code = 0;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return NULL;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: test\r\n"
	    "Connection: close\r\n%s\r\n", f->path, f->headers);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			if ((p = realloc(buf, cap)) == NULL)
				break;
			buf = p;
		}
		if ((n = read(fd, buf + len, cap - len - 1)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf == NULL)
		return NULL;
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.1 %d", &f->code) != 1)
		f->code = 0;
	if ((p = strstr(buf, "\r\n\r\n")) != NULL) {
		/* The Content-Type, among the headers (before p). */
		for (q = buf; q < p; q++)
			if (strncasecmp(q, ct, sizeof(ct) - 1) == 0) {
				q += sizeof(ct) - 1;
				q += strspn(q, " ");
				snprintf(f->type, sizeof(f->type), "%.*s",
				    (int)strcspn(q, "\r"), q);
				break;
			}
		f->len = len - (size_t)(p + 4 - buf);
		f->body = malloc(f->len + 1);
		if (f->body) {
			memcpy(f->body, p + 4, f->len);
			f->body[f->len] = '\0';
		}
	}
	free(buf);
	return NULL;
}

static void
fetch_start(struct fetch *f, const char *path, const char *headers)
{
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->headers = headers;
	if (pthread_create(&f->t, NULL, fetch_main, f) != 0)
		f->t = 0;
}

static void
fetch_end(struct fetch *f)
{
	if (f->t)
		pthread_join(f->t, NULL);
}

static int
fetch_code(const char *path)
{
	struct fetch f;

	fetch_start(&f, path, "");
	fetch_end(&f);
	free(f.body);
	return f.code;
}

/* The gzip body f got, inflated (NUL-terminated), or NULL. */
static char *
gunzip(const struct fetch *f)
{
	z_stream z;
	size_t cap = 1 << 20;
	char *out;
	int r;

	if (f->body == NULL || (out = malloc(cap + 1)) == NULL)
		return NULL;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (unsigned char *)f->body;
	z.avail_in = (uInt)f->len;
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)cap;
	r = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	out[cap - z.avail_out] = '\0';
	return out;
}

/* ---- the server ----------------------------------------------------- */

static struct http *
serve(void)
{
	struct http_opts o;
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	struct http *h = NULL;
	char err[512];
	int fd;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		perror("listen");
		return NULL;
	}
	port = ntohs(a.sin_port);
	memset(&o, 0, sizeof(o));
	o.listen = "127.0.0.1:0";
	o.listen_fd = fd;
	o.telemetry_path = "/metrics";
	o.snapshot = small_source;
	o.extra_path = "/big";
	o.extra_snapshot = big_source;
	o.max_requests = 40;
	o.header_timeout_s = 10;
	o.exporter_metrics = 1;		/* tails call procstat_read */
	if (http_start(&o, &h, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		close(fd);
		return NULL;
	}
	return h;
}

static const char om_gzip[] =
    "Accept: application/openmetrics-text;version=1.0.0\r\n"
    "Accept-Encoding: gzip\r\n";
static const char om_plain[] =
    "Accept: application/openmetrics-text;version=1.0.0\r\n";

static void *
stop_main(void *arg)
{
	http_stop(arg);
	return NULL;
}

/* While /big's render is held: the cached small body, a small body that
 * needs a render of its own (on the other render worker), /-/healthy. */
static void
check_others_answered(void)
{
	struct fetch other;

	CHECK(fetch_code("/metrics") == 200);
	fetch_start(&other, "/metrics", om_gzip);
	fetch_end(&other);
	CHECK(other.code == 200);
	CHECK(other.len > 10 && other.body &&
	    (unsigned char)other.body[0] == 0x1f);
	free(other.body);
	CHECK(fetch_code("/-/healthy") == 200);
}

/* The gzip variant of the snapshot whose text is being rendered:
 * answered now, from its own render, gzip as asked.  (Joining the text
 * render would leave it waiting for the hold, then without its
 * variant.) */
static void
check_gzip_variant(void)
{
	struct fetch gz;
	char *text;

	fetch_start(&gz, "/big", "Accept-Encoding: gzip\r\n");
	fetch_end(&gz);
	CHECK(gz.code == 200);
	text = gunzip(&gz);
	CHECK(text != NULL && strstr(text, "pmu_cgroup_events_total{"
	    "cgroup=\"/big\",cpu=\"3\",group=\"ipc\","
	    "event=\"instructions\"} 6\n"));
	free(text);
	free(gz.body);
}

/* After the hold: the three scrapes of the held text variant got the
 * same text body, the OpenMetrics one its own. */
static void
check_after_hold(struct fetch big[3], struct fetch *om)
{
	int i;

	for (i = 0; i < 3; i++) {
		CHECK(big[i].code == 200);
		CHECK(strcmp(big[i].type, EXPO_CT_TEXT) == 0);
		CHECK(big[i].body && strstr(big[i].body, "# EOF") == NULL);
		CHECK(big[i].body && strstr(big[i].body,
		    "pmu_cgroup_events_total{cgroup=\"/big\",cpu=\"3\","
		    "group=\"ipc\",event=\"instructions\"} 6\n"));
		CHECK(big[i].len == big[0].len && big[i].body &&
		    big[0].body && memcmp(big[i].body, big[0].body,
		    big[0].len) == 0);
	}
	for (i = 0; i < 3; i++)
		free(big[i].body);
	CHECK(om->code == 200);
	CHECK(strcmp(om->type, EXPO_CT_OPENMETRICS) == 0);
	CHECK(om->body && om->len > 6 &&
	    memcmp(om->body + om->len - 6, "# EOF\n", 6) == 0);
	CHECK(om->body && strstr(om->body,
	    "# TYPE pmu_cgroup_events counter\n"));
	free(om->body);
}

/* Stopping with both render workers held and another render queued
 * (variants of a new /big snapshot): everything is cancelled or
 * finished, every request resumed, nothing hangs. */
static void
check_stop_while_rendering(struct http *h)
{
	struct fetch extra[3];
	pthread_t stopper;
	int i;

	snapshot_publish(&big_slot, make(4, "/big2"));
	hook_hold_next(2);
	fetch_start(&extra[0], "/big", "");
	fetch_start(&extra[1], "/big", "Accept-Encoding: gzip\r\n");
	hook_wait_for(2);
	fetch_start(&extra[2], "/big", om_gzip);
	CHECK(pthread_create(&stopper, NULL, stop_main, h) == 0);
	hook_release();
	pthread_join(stopper, NULL);
	for (i = 0; i < 3; i++) {
		fetch_end(&extra[i]);
		/* Answered, or closed by the stopping server. */
		CHECK(extra[i].code == 0 || extra[i].code == 200 ||
		    extra[i].code == 503);
		free(extra[i].body);
	}
}

int
main(void)
{
	struct fetch big[3], om;
	struct http *h;
	int i, calls;

	snapshot_slot_init(&small_slot);
	snapshot_slot_init(&big_slot);
	snapshot_publish(&small_slot, make(4, "/small"));
	snapshot_publish(&big_slot, make(4, "/big"));
	if ((h = serve()) == NULL)
		return 1;

	/* /metrics' text variant is rendered before the hold. */
	CHECK(fetch_code("/metrics") == 200);

	/* A render of /big held open. */
	hook_hold_next(1);
	fetch_start(&big[0], "/big", "");
	hook_wait_for(1);
	check_others_answered();
	check_gzip_variant();

	/* The OpenMetrics variant of the same snapshot, not compressed
	 * either: rendered on its own, in its own format.  (Joining the
	 * text render, the one that differs from it only in format, would
	 * leave it waiting for the hold and then find its variant
	 * unrendered: a 500.)  Its render done (waited for, so that the
	 * request reached the server before the hold ends), it is answered
	 * after the hold, below. */
	calls = hook_count();
	fetch_start(&om, "/big", om_plain);
	hook_wait_calls(calls + 1, 10);

	/* Two more scrapes of the variant being rendered: they wait for
	 * it, and nothing renders it again. */
	fetch_start(&big[1], "/big", "");
	fetch_start(&big[2], "/big", "");
	hook_release();
	for (i = 0; i < 3; i++)
		fetch_end(&big[i]);
	fetch_end(&om);
	/* One render more: the OpenMetrics variant's. */
	CHECK(hook_count() == calls + 1);
	check_after_hold(big, &om);

	check_stop_while_rendering(h);
	snapshot_slot_fini(&small_slot);
	snapshot_slot_fini(&big_slot);
	return CHECK_DONE();
}
