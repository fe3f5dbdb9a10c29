/*
 * scrape_test.c - a scrape's variants and their cache (daemon/expo/scrape.c,
 * daemon/expo/gzip.c): each variant of a snapshot (text 0.0.4 or
 * OpenMetrics, plain or gzipped, with or without the exporter's own
 * metrics) as a cached body and a per-variant tail that together say what
 * one whole render says, the gzip member checked by inflating it; and
 * the cache keyed by snapshot, a snapshot's renders shared, a newer one
 * starting afresh, an old scrape living while it is held.  What a render
 * says is expo_test's.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "daemon/expo/expo.h"
#include "daemon/expo/gzip.h"
/* The file under test, for a look inside a scrape (chrony's way): the
 * product build has no hook of this test's. */
#include "daemon/expo/scrape.c"
#include "tests/lib/check.h"

/* The snapshot sc holds (its reference stays sc's). */
static struct snapshot *
scrape_snapshot(const struct scrape *sc)
{
	return sc->snap;
}

/* A snapshot with n CPU rows of two events, for the variant tests. */
static struct snapshot *
make_snapshot(size_t n)
{
	static const char *ev[] = { "task-clock", "page-faults" };
	static const double v[] = { 123456789, 42.5 };
	static const unsigned char both[] = { 1, 1 };
	struct snapshot *s = snapshot_new();
	size_t i;

	s->rows = snapshot_alloc(s, (n + 1) * sizeof(*s->rows));
	for (i = 0; i < n; i++)
		s->rows[i] = (struct snap_row){ .cpu = (int)i, .group = "sw",
		    .nr_events = 2, .events = ev, .counted = both, .values = v,
		    .enabled_s = 1.5, .running_s = 1.5 };
	s->nr_rows = n;
	s->seq = 7;
	return s;
}

/* gunzip a whole buffer (one member, checked CRC and length). */
static char *
gunzip(const char *in, size_t len, size_t *outlen)
{
	z_stream z;
	size_t cap = len * 200 + 65536;
	char *out = malloc(cap);
	int r;

	memset(&z, 0, sizeof(z));
	CHECK(inflateInit2(&z, 31) == Z_OK);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	r = inflate(&z, Z_FINISH);
	CHECK(r == Z_STREAM_END);
	CHECK(z.avail_in == 0);		/* nothing after the trailer */
	*outlen = z.total_out;
	inflateEnd(&z);
	return out;
}

/* body + tail, plain and gzipped, must say the same thing. */
static void
check_variant(struct scrape *s, enum expo_format f,
    const struct expo_opts *o)
{
	const struct scrape_blob *plain, *gz;
	struct expo_buf tail = { NULL, 0, 0, 0, 0 }, zt = { NULL, 0, 0, 0, 0 };
	struct expo_live live;
	char *whole, *un;
	size_t unlen, zlen;

	memset(&live, 0, sizeof(live));
	live.scrapes[f][1] = 3;
	live.have_process = 1;
	live.cpu_seconds = 0.25;
	plain = scrape_body(s, f, 0, o);
	gz = scrape_body(s, f, 1, o);
	CHECK(plain != NULL && gz != NULL);
	if (plain == NULL || gz == NULL)
		return;
	/* Cached: the same blobs again. */
	CHECK(scrape_body(s, f, 0, o) == plain);
	CHECK(scrape_body(s, f, 1, o) == gz);
	CHECK(scrape_ready(s, SCRAPE_BODY(f, 0)) == plain);
	CHECK(scrape_ready(s, SCRAPE_BODY(f, 1)) == gz);
	CHECK(gz->plain_len == plain->len);
	CHECK(expo_render_tail(&tail, f, o, &live) == 0);
	CHECK(gzip_tail(gz->crc, gz->plain_len,
	    tail.p ? tail.p : "", tail.len, &zt) == 0);

	whole = malloc(plain->len + tail.len + 1);
	memcpy(whole, plain->p, plain->len);
	if (tail.len)
		memcpy(whole + plain->len, tail.p, tail.len);
	zlen = gz->len + zt.len;
	{
		char *z = malloc(zlen);

		memcpy(z, gz->p, gz->len);
		memcpy(z + gz->len, zt.p, zt.len);
		un = gunzip(z, zlen, &unlen);
		free(z);
	}
	CHECK(unlen == plain->len + tail.len);
	CHECK(unlen == plain->len + tail.len &&
	    memcmp(un, whole, unlen) == 0);
	whole[plain->len + tail.len] = '\0';
	if (f == EXPO_OPENMETRICS) {
		size_t n = strlen(whole);

		CHECK(n > 6 && strcmp(whole + n - 6, "# EOF\n") == 0);
	}
	if (o->exporter_metrics) {
		CHECK_CONTAINS(whole, "process_cpu_seconds_total 0.25\n");
		CHECK_CONTAINS(whole, f == EXPO_TEXT ?
		    "pmu_exporter_scrapes_total{format=\"text\",compression="
		    "\"gzip\"} 3\n" : "pmu_exporter_scrapes_total{format="
		    "\"openmetrics\",compression=\"gzip\"} 3\n");
	} else {
		CHECK(strstr(whole, "pmu_exporter_") == NULL);
		CHECK(strstr(whole, "process_") == NULL);
	}
	free(un);
	free(whole);
	free(tail.p);
	free(zt.p);
}

/* A snapshot's scrape: the one of the snapshot served last, or new. */
static struct scrape *
scrape_of(struct scrape_cache *cache, struct snapshot *s)
{
	snapshot_ref(s);
	return scrape_get(cache, s);
}

static void
test_variants(void)
{
	struct expo_opts on = { .exporter_metrics = 1,
	    .mhd_version = "0.9.75", .pfm_version = "none" },
	    off = { .exporter_metrics = 0 };
	struct scrape_cache cache;
	struct snapshot *s;
	struct scrape *sc;
	const struct scrape_blob *b;
	size_t sizes[] = { 1, 200, 5000 }, i;

	scrape_cache_init(&cache);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		s = make_snapshot(sizes[i]);
		sc = scrape_of(&cache, s);
		check_variant(sc, EXPO_TEXT, &on);
		check_variant(sc, EXPO_OPENMETRICS, &on);
		scrape_unref(sc);
		snapshot_unref(s);
		s = make_snapshot(sizes[i]);
		sc = scrape_of(&cache, s);
		check_variant(sc, EXPO_TEXT, &off);
		check_variant(sc, EXPO_OPENMETRICS, &off);
		scrape_unref(sc);
		snapshot_unref(s);
	}

	/* OpenMetrics: counter families without _total, samples with it. */
	s = make_snapshot(2);
	sc = scrape_of(&cache, s);
	b = scrape_body(sc, EXPO_OPENMETRICS, 0, &on);
	CHECK_CONTAINS(b->p, "# TYPE pmu_cpu_events counter\n");
	CHECK_CONTAINS(b->p, "# HELP pmu_cpu_events Events counted");
	CHECK_CONTAINS(b->p, "\npmu_cpu_events_total{cpu=\"1\",group=\"sw\","
	    "event=\"page-faults\"} 42.5\n");
	CHECK_CONTAINS(b->p, "# TYPE pmu_cpu_enabled_seconds counter\n");
	CHECK_CONTAINS(b->p, "# TYPE pmu_exporter_collections counter\n"
	    "pmu_exporter_collections_total 7\n");
	CHECK_CONTAINS(b->p, "# TYPE pmu_exporter_open_fds gauge\n");
	CHECK_CONTAINS(b->p, "libmicrohttpd=\"0.9.75\",libpfm4=\"none\"} 1\n");
	CHECK(strstr(b->p, "# TYPE pmu_cpu_events_total") == NULL);
	CHECK(strstr(b->p, "# EOF") == NULL);	/* the tail closes it */
	/* The text format keeps _total on the family. */
	b = scrape_body(sc, EXPO_TEXT, 0, &on);
	CHECK_CONTAINS(b->p, "# TYPE pmu_cpu_events_total counter\n");
	scrape_unref(sc);
	snapshot_unref(s);
	scrape_cache_fini(&cache);
}

/* The cache is keyed by snapshot: the same one shares its renders, a
 * newer one starts afresh, and an old scrape lives while it is held. */
static void
test_scrape_cache(void)
{
	struct expo_opts on = { .exporter_metrics = 1,
	    .mhd_version = "0.9.75", .pfm_version = "none" };
	struct scrape_cache cache;
	struct snapshot *s1 = make_snapshot(3), *s2 = make_snapshot(4);
	struct scrape *a, *b, *c;
	const struct scrape_blob *body;

	scrape_cache_init(&cache);
	a = scrape_of(&cache, s1);
	b = scrape_of(&cache, s1);
	CHECK(a != NULL && a == b);
	CHECK(scrape_snapshot(a) == s1);
	CHECK(scrape_ready(a, SCRAPE_BODY(EXPO_TEXT, 0)) == NULL);
	body = scrape_body(a, EXPO_TEXT, 0, &on);
	CHECK(body != NULL && scrape_ready(b, SCRAPE_BODY(EXPO_TEXT, 0)) ==
	    body);
	/* Rendered once, shared after. */
	CHECK(scrape_body(b, EXPO_TEXT, 0, &on) == body);
	CHECK(scrape_ready(a, SCRAPE_BODY(EXPO_TEXT, 1)) == NULL);
	scrape_unref(b);
	c = scrape_of(&cache, s2);
	CHECK(c != NULL && c != a && scrape_snapshot(c) == s2);
	CHECK(scrape_ready(c, SCRAPE_BODY(EXPO_TEXT, 0)) == NULL);
	/* a, no longer cached, still holds its snapshot and body. */
	snapshot_unref(s1);
	CHECK(scrape_ready(a, SCRAPE_BODY(EXPO_TEXT, 0)) == body);
	CHECK_CONTAINS(body->p, "pmu_exporter_collections_total 7\n");
	scrape_unref(a);
	scrape_unref(c);
	snapshot_unref(s2);
	scrape_cache_fini(&cache);
}

int
main(void)
{
	test_variants();
	test_scrape_cache();
	return CHECK_DONE();
}
