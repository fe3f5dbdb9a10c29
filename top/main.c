/*
 * main.c - pmu_exporter top: a live view of a running daemon's metrics in a
 * terminal, run by the daemon's binary for `pmu_exporter top`: its flags, and
 * the screen, batch and JSON ways out.
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "top/top.h"

static void
usage(FILE *f)
{
	fprintf(f,
"usage: pmu_exporter top [options]\n"
"\n"
"A running pmu_exporter's cgroups, their IPC and who is slowing them.\n"
"\n"
"  --url=URL              the daemon's metrics (default " TOP_DEFAULT_URL ")\n"
"  -d, --interval=SECONDS between refreshes (default 2)\n"
"  -b, --batch            plain text pages, no screen\n"
"  -n, --iterations=N     pages to print, then exit (implies --batch)\n"
"  --json                 one snapshot as JSON, then exit\n"
"  --sort=KEY             drop (IPC drop, the default), cpu or name\n"
"  --filter=TEXT          only the cgroups whose name or path holds TEXT\n"
"  --tls.ca-file=FILE     CA certificates for an https URL\n"
"  --tls.cert-file=FILE   a client certificate\n"
"  --tls.key-file=FILE    its key\n"
"  --auth.file=FILE       basic auth: a line USER:PASSWORD\n"
"  --version              print the version and exit\n"
"  --help                 this text\n"
"\n"
"Keys: i, c, n sort by IPC drop, CPU, name; / filter; f freeze;\n"
"Enter open a row; Esc back; q quit.\n");
}

static int
parse_sort(const char *v, enum top_sort *s)
{
	if (!strcmp(v, "drop"))
		*s = SORT_DROP;
	else if (!strcmp(v, "cpu"))
		*s = SORT_CPU;
	else if (!strcmp(v, "name"))
		*s = SORT_NAME;
	else
		return -1;
	return 0;
}

static int
bad(const char *what, const char *v)
{
	fprintf(stderr, "pmu_exporter top: %s: %s (see --help)\n", what, v);
	return 2;
}

/* -1: go on; else the exit status. */
static int
flags(int argc, char **argv, struct top_opts *o)
{
	enum { URL = 256, JSON, SORT, FILTER, CA, CERT, KEY, AUTH, VERS };
	static const struct option opts[] = {
		{ "url", 1, 0, URL }, { "interval", 1, 0, 'd' },
		{ "batch", 0, 0, 'b' }, { "iterations", 1, 0, 'n' },
		{ "json", 0, 0, JSON }, { "sort", 1, 0, SORT },
		{ "filter", 1, 0, FILTER }, { "tls.ca-file", 1, 0, CA },
		{ "tls.cert-file", 1, 0, CERT }, { "tls.key-file", 1, 0, KEY },
		{ "auth.file", 1, 0, AUTH }, { "version", 0, 0, VERS },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "d:bn:h", opts, NULL)) != -1) {
		switch (c) {
		case URL: o->fetch.url = optarg; break;
		case 'd':
			o->interval = strtod(optarg, &end);
			if (*end || !(o->interval >= 0.1 && o->interval <= 3600))
				return bad("--interval wants 0.1 to 3600 seconds", optarg);
			break;
		case 'b': o->batch = 1; break;
		case 'n':
			errno = 0;
			o->iterations = strtol(optarg, &end, 10);
			if (*end || errno || o->iterations < 1)
				return bad("-n wants a count of at least 1", optarg);
			o->batch = 1;
			break;
		case JSON: o->json = 1; break;
		case SORT:
			if (parse_sort(optarg, &o->sort) < 0)
				return bad("--sort wants drop, cpu or name", optarg);
			break;
		case FILTER: o->filter = optarg; break;
		case CA: o->fetch.ca_file = optarg; break;
		case CERT: o->fetch.cert_file = optarg; break;
		case KEY: o->fetch.key_file = optarg; break;
		case AUTH: o->fetch.auth_file = optarg; break;
		case VERS: printf("pmu_exporter top %s\n", VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		return bad("no arguments but options", argv[optind]);
	return -1;
}

static void
nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void
say_failure(const struct poller *p, const struct top_opts *o)
{
	fprintf(stderr, "pmu_exporter top: %s: %s; trying again in %gs\n",
	    o->fetch.url, p->err, o->interval);
}

/* Pages until -n is reached (or forever); 0, or 1 when none came. */
static int
batch(struct poller *p, const struct top_opts *o)
{
	long i;
	int shown = 0;

	if (poller_refresh(p) < 0)
		say_failure(p, o);
	for (i = 0; !o->iterations || i < o->iterations; i++) {
		nap(o->interval);
		if (poller_refresh(p) < 0) {
			say_failure(p, o);
			continue;
		}
		fmt_batch(stdout, p->last, o->fetch.url, o->sort, o->filter);
		shown = 1;
	}
	return shown ? 0 : 1;
}

static int
json(struct poller *p, const struct top_opts *o)
{
	if (poller_refresh(p) < 0)
		goto fail;
	nap(o->interval);
	if (poller_refresh(p) < 0)
		goto fail;
	return fmt_json(stdout, p->last, o->fetch.url) < 0 ? 1 : 0;
fail:
	fprintf(stderr, "pmu_exporter top: %s: %s\n", o->fetch.url, p->err);
	return 1;
}

/* Can this terminal be drawn on? */
static int
screen_possible(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && term &&
	    *term && strcmp(term, "dumb") != 0;
}

int
main(int argc, char **argv)
{
	struct top_opts o = { .fetch.url = TOP_DEFAULT_URL, .interval = 2 };
	struct poller p = { 0 };
	char err[512];
	int r;

	if ((r = flags(argc, argv, &o)) >= 0)
		return r;
	setlocale(LC_ALL, "");
	o.fetch.timeout_ms = (long)(fmin(fmax(o.interval, 1), 10) * 1000);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "pmu_exporter top: libcurl failed to start\n");
		return 1;
	}
	if (!(p.fetch = fetch_new(&o.fetch, err, sizeof(err)))) {
		fprintf(stderr, "pmu_exporter top: %s\n", err);
		curl_global_cleanup();
		return 1;
	}
	if (o.json)
		r = json(&p, &o);
	else if (o.batch || !screen_possible())
		r = batch(&p, &o);
	else if ((r = screen_run(&p, &o)) < 0) {
		fprintf(stderr, "pmu_exporter top: no terminfo entry for TERM=%s: "
		    "plain pages instead\n", getenv("TERM"));
		r = batch(&p, &o);
	}
	poller_fini(&p);
	curl_global_cleanup();
	return r;
}
