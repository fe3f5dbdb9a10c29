/*
 * fake_serve.c - the real HTTP server (daemon/http/http.c) over a synthetic
 * snapshot of a chosen size, without perf events: for the tests that need
 * responses larger than a socket buffer, and for bench/http_bench.sh.
 *
 *   fake_serve [--big NBIG] [--per-ip N] [--write-timeout S] ADDR NSERIES
 *       [MAX_REQUESTS [WEB_CONFIG]]
 *   fake_serve --render NSERIES ROUNDS
 *
 * NSERIES pmu_cgroup_events_total series (4 events per row, per-CPU rows
 * over 64 CPUs, cgroup names like a systemd host's) at /metrics.  A new
 * snapshot is published every second, as the collector would, so each
 * second's first scrape pays the render.  With --big, the same server
 * also serves NBIG series at /big, published alongside: a small scrape
 * and a large render on one server.  --per-ip: scrapes in flight per
 * client address (default: no limit).  --write-timeout: seconds a
 * connection has to take its answer (default: no limit).  Runs until
 * SIGTERM or SIGINT.
 *
 * --render times ROUNDS fresh snapshots rendered in each variant, as the
 * first scrape of a snapshot does, and prints bytes and MB/s per variant.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/expo/expo.h"
#include "daemon/expo/scrape.h"
#include "daemon/http/http.h"
#include "daemon/http/webconfig.h"
#include "daemon/log.h"
#include "util/clock.h"

static struct snapshot_slot slot, big_slot;

static struct snapshot *
current(void *ctx)
{
	(void)ctx;
	return snapshot_get(&slot);
}

static struct snapshot *
current_big(void *ctx)
{
	(void)ctx;
	return snapshot_get(&big_slot);
}

static struct snapshot *
make(size_t nseries, uint64_t seq)
{
	static const char *ev[] = { "cycles", "instructions", "cache-misses",
	    "branch-misses" };
	static const unsigned char all[] = { 1, 1, 1, 1 };
	struct snapshot *s = snapshot_new();
	size_t rows = (nseries + 3) / 4, i;
	char name[128];

	s->rows = snapshot_alloc(s, (rows + 1) * sizeof(*s->rows));
	for (i = 0; i < rows; i++) {
		double *v = snapshot_alloc(s, 4 * sizeof(*v));

		v[0] = 1e12 + (double)(i * 7919 + seq * 1000003);
		v[1] = 2.5e12 + (double)(i * 104729 + seq * 2000003);
		v[2] = 3e9 + (double)(i * 13 + seq);
		v[3] = 7e8 + (double)(i * 17 + seq);
		snprintf(name, sizeof(name),
		    "/system.slice/service-%zu.service", i / 64);
		s->rows[i] = (struct snap_row){ .cgroup = snapshot_strdup(s,
		    name), .cpu = (int)(i % 64), .group = "ipc", .nr_events = 4,
		    .events = ev, .counted = all, .values = v,
		    .enabled_s = 12345.678 + (double)seq,
		    .running_s = 6172.839 + (double)seq };
	}
	s->nr_rows = rows;
	s->seq = seq;
	s->timestamp_s = (double)time(NULL);
	return s;
}

static int
render_bench(size_t n, int rounds)
{
	static const struct { const char *name; enum expo_format f; int gz; }
	    v[] = { { "text", EXPO_TEXT, 0 },
	    { "openmetrics", EXPO_OPENMETRICS, 0 },
	    { "text+gzip", EXPO_TEXT, 1 },
	    { "openmetrics+gzip", EXPO_OPENMETRICS, 1 } };
	struct expo_opts o = { .exporter_metrics = 1,
	    .mhd_version = "bench", .pfm_version = "none" };
	struct scrape_cache cache;
	size_t i;
	int r;

	scrape_cache_init(&cache);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		double t = 0, best = 1e9, t0, dt;
		size_t bytes = 0, raw = 0;

		for (r = 0; r < rounds; r++) {
			struct snapshot *s = make(n, (uint64_t)r + 1);
			struct scrape *sc;
			const struct scrape_blob *b;

			if ((sc = scrape_get(&cache, s)) == NULL)
				return 1;
			/* A gzip variant's time includes its plain render. */
			t0 = clock_s(CLOCK_MONOTONIC);
			b = scrape_body(sc, v[i].f, v[i].gz, &o);
			dt = clock_s(CLOCK_MONOTONIC) - t0;
			if (b == NULL)
				return 1;
			bytes = b->len;
			raw = v[i].gz ? b->plain_len : b->len;
			t += dt;
			if (dt < best)
				best = dt;
			scrape_unref(sc);
		}
		printf("%-17s %zu series: %zu bytes (%zu uncompressed), "
		    "render mean %.1f ms, best %.1f ms, %.0f MB/s of text\n",
		    v[i].name, n, bytes, raw, t / rounds * 1e3, best * 1e3,
		    (double)raw / (t / rounds) / 1e6);
	}
	scrape_cache_fini(&cache);
	return 0;
}

int
main(int argc, char **argv)
{
	struct http_opts o;
	struct http *h = NULL;
	struct webcfg *web = NULL;
	char err[1024];
	sigset_t sigs;
	struct timespec sec = { 1, 0 };
	uint64_t seq = 1;
	size_t n, nbig = 0;
	unsigned per_ip = 0, write_s = 0;

	if (argc == 4 && strcmp(argv[1], "--render") == 0)
		return render_bench(strtoul(argv[2], NULL, 10), atoi(argv[3]));
	while (argc > 2 && strncmp(argv[1], "--", 2) == 0) {
		if (strcmp(argv[1], "--big") == 0)
			nbig = strtoul(argv[2], NULL, 10);
		else if (strcmp(argv[1], "--per-ip") == 0)
			per_ip = (unsigned)strtoul(argv[2], NULL, 10);
		else if (strcmp(argv[1], "--write-timeout") == 0)
			write_s = (unsigned)strtoul(argv[2], NULL, 10);
		else
			break;
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: fake_serve [--big NBIG] [--per-ip N] "
		    "[--write-timeout S] ADDR NSERIES [MAX_REQUESTS "
		    "[WEB_CONFIG]]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	memset(&o, 0, sizeof(o));
	o.listen = argv[1];
	o.log = log_fields;		/* its refusals, as the daemon's */
	o.listen_fd = -1;
	o.telemetry_path = "/metrics";
	o.snapshot = current;
	o.max_requests = argc > 3 ? (unsigned)atoi(argv[3]) : 40;
	o.max_requests_per_ip = per_ip;
	o.max_connections_per_ip = 0;
	o.header_timeout_s = 10;
	o.write_timeout_s = write_s;
	o.auth_failures_per_minute = HTTP_DEFAULT_AUTH_FAILURES_PER_MINUTE;
	o.exporter_metrics = 1;
	if (argc > 4 && webcfg_load(argv[4], &web, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	o.web = web;
	snapshot_slot_init(&slot);
	snapshot_slot_init(&big_slot);
	snapshot_publish(&slot, make(n, seq));
	if (nbig) {
		o.extra_path = "/big";
		o.extra_snapshot = current_big;
		snapshot_publish(&big_slot, make(nbig, seq));
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (http_start(&o, &h, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	fprintf(stderr, "serving %zu series on %s\n", n, argv[1]);
	while (sigtimedwait(&sigs, NULL, &sec) < 0) {
		snapshot_publish(&slot, make(n, ++seq));
		if (nbig)
			snapshot_publish(&big_slot, make(nbig, seq));
	}
	http_stop(h);
	snapshot_slot_fini(&slot);
	snapshot_slot_fini(&big_slot);
	webcfg_free(web);
	return 0;
}
