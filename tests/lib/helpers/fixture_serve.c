/*
 * fixture_serve.c - a daemon's page made from a fixture, for the tests
 * of pmu_exporter top (tests/integration/top.test): the same page each
 * scrape but for its counters, which move as a running daemon's do.
 *
 *   fixture_serve ADDR FILE [SWITCH FILE2]
 *
 * Scrape k (1, 2, ...) serves FILE with each counter (a family ending
 * in _total) at k times its value in FILE, so every interval adds the
 * FILE's value: rates are the fixture's numbers.  With SWITCH, from
 * scrape SWITCH on, each counter adds FILE2's value of the same line
 * instead (FILE2 has FILE's lines, in order, values changed): a cgroup
 * whose IPC drops midway.  A *_timestamp_seconds gauge serves the start
 * time plus k seconds: each scrape is one collection a second after the
 * one before, whenever it is asked for, so top's rates are the
 * fixture's numbers exactly.  With FIXTURE_LAST=N in the environment,
 * every scrape after the Nth serves the Nth again (the same collection):
 * a client's screen then stays on one page, for a capture.  Prints "serving" on stderr once listening; exits 2 when
 * ADDR's port is taken ("Address already in use").  Runs until SIGTERM.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

struct line {
	char *head;		/* up to and including the blank before the value */
	double a, b;		/* FILE's value, FILE2's */
	int counter, stamp, comment;
};

static struct line *lines;
static size_t nr_lines;
static long switch_at;
static atomic_long scrapes;
static time_t started;
static long last;

static int
load(const char *path, int second)
{
	FILE *f = fopen(path, "r");
	char buf[65536], *sp;
	size_t n = 0, len;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		len = strcspn(buf, "\n");
		buf[len] = '\0';
		if (!second) {
			lines = realloc(lines, (n + 1) * sizeof(*lines));
			memset(&lines[n], 0, sizeof(*lines));
		} else if (n >= nr_lines) {
			break;
		}
		sp = strrchr(buf, ' ');
		if (buf[0] == '#' || !sp) {
			lines[n].comment = 1;
		} else {
			*(second ? &lines[n].b : &lines[n].a) = strtod(sp + 1, NULL);
			sp[1] = '\0';
		}
		if (!second) {
			lines[n].head = strdup(buf);
			lines[n].counter = strstr(buf, "_total{") ||
			    strstr(buf, "_total ");
			lines[n].stamp = strstr(buf, "_timestamp_seconds") != NULL;
			lines[n].b = lines[n].a;
		}
		n++;
	}
	fclose(f);
	if (!second)
		nr_lines = n;
	return 0;
}

static char *
render(long k, size_t *len)
{
	size_t cap = 1 << 16, o = 0, i;
	char *out = malloc(cap), num[64];
	double v;
	long before;

	for (i = 0; out && i < nr_lines; i++) {
		const struct line *l = &lines[i];

		before = switch_at && k >= switch_at ? switch_at - 1 : k;
		v = l->counter ? l->a * (double)before +
		    l->b * (double)(k - before) : l->a;
		if (l->stamp)
			v = (double)started + (double)k;
		snprintf(num, sizeof(num), "%.17g", v);
		while (o + strlen(l->head) + strlen(num) + 2 > cap)
			out = realloc(out, cap *= 2);
		o += (size_t)sprintf(out + o, "%s%s\n", l->head,
		    l->comment ? "" : num);
	}
	*len = o;
	return out;
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *data,
    size_t *data_len, void **state)
{
	struct MHD_Response *resp;
	enum MHD_Result r;
	size_t len;
	char *body;
	long k;

	(void)cls; (void)url; (void)method; (void)version; (void)data;
	(void)data_len; (void)state;
	k = atomic_fetch_add(&scrapes, 1) + 1;
	body = render(last && k > last ? last : k, &len);
	if (!body)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(resp, "Content-Type",
	    "text/plain; version=0.0.4; charset=utf-8");
	r = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return r;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct MHD_Daemon *d;
	char host[64], *colon;
	sigset_t set;
	int sig;

	if ((argc != 3 && argc != 5) || strlen(argv[1]) >= sizeof(host)) {
		fprintf(stderr, "usage: fixture_serve ADDR FILE [SWITCH FILE2]\n");
		return 2;
	}
	strcpy(host, argv[1]);
	if (!(colon = strrchr(host, ':')))
		return 2;
	*colon = '\0';
	sa.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1 || load(argv[2], 0) < 0)
		return 2;
	if (argc == 5 && ((switch_at = atol(argv[3])) < 1 || load(argv[4], 1) < 0))
		return 2;
	started = time(NULL);
	if (getenv("FIXTURE_LAST"))
		last = atol(getenv("FIXTURE_LAST"));
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
	    0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, &sa,
	    MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "fixture_serve: %s: Address already in use\n",
		    argv[1]);
		return 2;
	}
	fprintf(stderr, "serving\n");
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	return 0;
}
