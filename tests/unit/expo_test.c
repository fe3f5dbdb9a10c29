/*
 * expo_test.c - text exposition: label escaping, number formatting, a
 * whole rendered snapshot compared byte for byte, and the interference
 * families of a result built by hand.  A scrape's variants (OpenMetrics,
 * gzip) and their cache are tests/unit/scrape_test's.
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference.h"
#include "daemon/expo/expo.h"
#include "daemon/expo/expo_interference.h"
#include "tests/lib/check.h"
#include "tests/lib/xorshift.h"
#include "util/utf8.h"

static const char *
fmt(double v)
{
	static char buf[64];

	return expo_format_double(v, buf, sizeof(buf));
}

static void
test_numbers(void)
{
	CHECK_STR(fmt(0), "0");
	CHECK_STR(fmt(42), "42");
	CHECK_STR(fmt(-3), "-3");
	CHECK_STR(fmt(1e14), "100000000000000");
	CHECK_STR(fmt(1e15), "1e+15");
	CHECK_STR(fmt(18446744073709551615.0), "1.8446744073709552e+19");
	CHECK_STR(fmt(0.1), "0.1");
	CHECK_STR(fmt(2.000327037), "2.000327037");
	CHECK_STR(fmt(1.0 / 3.0), "0.3333333333333333");
	CHECK_STR(fmt(0.1 + 0.2), "0.30000000000000004");
	CHECK_STR(fmt(NAN), "NaN");
	CHECK_STR(fmt(INFINITY), "+Inf");
	CHECK_STR(fmt(-INFINITY), "-Inf");
	/* Every value reads back exactly. */
	{
		double v = 1.0;
		int i;

		for (i = 0; i < 200; i++, v *= 1.37)
			CHECK(strtod(fmt(v), NULL) == v);
	}
}

static void
test_escape(void)
{
	struct expo_buf b = { NULL, 0, 0, 0, 0 };

	expo_put_label_value(&b, "a\\b\"c\nd/é");
	expo_puts(&b, "");
	CHECK(b.len == strlen("a\\\\b\\\"c\\nd/é"));
	CHECK(b.p && memcmp(b.p, "a\\\\b\\\"c\\nd/é", b.len) == 0);
	free(b.p);
}

/* s as a label value, escaped and made valid UTF-8. */
static const char *
label(const char *s)
{
	static char out[2048];
	struct expo_buf b = { NULL, 0, 0, 0, 0 };

	expo_put_label_value(&b, s);
	expo_puts(&b, "");
	snprintf(out, sizeof(out), "%.*s", b.p ? (int)b.len : 0,
	    b.p ? b.p : "");
	free(b.p);
	return out;
}

#define R UTF8_REPLACEMENT

/* Every label value is valid UTF-8, and two values stay two: each byte
 * of an invalid subpart becomes U+FFFD and its two hex digits, and a
 * U+FFFD of the value becomes two (expo_buf.c). */
static void
test_utf8(void)
{
	char buf[256], name[512];
	size_t i, n;
	int valid;

	/* Valid: ASCII, 2, 3 and 4 bytes, the edges of each range. */
	CHECK_STR(label("a/é/€/😀"), "a/é/€/😀");
	CHECK_STR(label("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf"),
	    "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf");
	CHECK_STR(label("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"),
	    "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
	CHECK_STR(label("\xed\x9f\xbf\xee\x80\x80"), "\xed\x9f\xbf\xee\x80\x80");
	/* Bytes that start nothing. */
	CHECK_STR(label("bad\xff"), "bad" R "ff");
	CHECK_STR(label("/bad\xff\xfe"), "/bad" R "ff" R "fe");
	CHECK_STR(label("\x80x\xbf"), R "80x" R "bf");
	CHECK_STR(label("\xf5\x80\x80\x80"), R "f5" R "80" R "80" R "80");
	/* Truncated sequences: each byte of it, the next byte kept. */
	CHECK_STR(label("\xc3"), R "c3");
	CHECK_STR(label("a\xc3" "b"), "a" R "c3b");
	CHECK_STR(label("\xe2\x82"), R "e2" R "82");
	CHECK_STR(label("\xe2\x82x"), R "e2" R "82x");
	CHECK_STR(label("\xf0\x9f\x98"), R "f0" R "9f" R "98");
	CHECK_STR(label("\xf0\x9f\x98\"q"), R "f0" R "9f" R "98\\\"q");
	CHECK_STR(label("\xe2\x82\xc3\xa9"), R "e2" R "82é");
	/* Overlong forms: '/' as C0 AF, E0 80 AF, F0 80 80 AF; C1 BF. */
	CHECK_STR(label("\xc0\xaf"), R "c0" R "af");
	CHECK_STR(label("\xc1\xbf"), R "c1" R "bf");
	CHECK_STR(label("\xe0\x80\xaf"), R "e0" R "80" R "af");
	CHECK_STR(label("\xf0\x80\x80\xaf"), R "f0" R "80" R "80" R "af");
	/* Surrogates, encoded as if they were characters (CESU-8). */
	CHECK_STR(label("\xed\xa0\x80"), R "ed" R "a0" R "80");
	CHECK_STR(label("\xed\xbf\xbf"), R "ed" R "bf" R "bf");
	/* Above U+10FFFF: F4 90 80 80 is U+110000. */
	CHECK_STR(label("\xf4\x90\x80\x80"), R "f4" R "90" R "80" R "80");
	CHECK_STR(label("\xf7\xbf\xbf\xbf"), R "f7" R "bf" R "bf" R "bf");
	/* Escaping still applies beside replacements. */
	CHECK_STR(label("\\\xff\n\""), "\\\\" R "ff\\n\\\"");
	/* Two names, two values: job\xfe and job\xff (issue 50), and a name
	 * that spells one's repair in valid UTF-8 is not that repair. */
	CHECK_STR(label("job\xfe"), "job" R "fe");
	CHECK_STR(label("job\xff"), "job" R "ff");
	CHECK_STR(label("job" R "fe"), "job" R R "fe");
	CHECK_STR(label(R), R R);
	CHECK_STR(label(R "\xff" R), R R R "ff" R R);

	/* utf8_char on its own: lengths and verdicts. */
	CHECK(utf8_char("\xe2\x82\xac", &valid) == 3 && valid);
	CHECK(utf8_char("\xe2\x82", &valid) == 2 && !valid);
	CHECK(utf8_char("\xed\xa0\x80", &valid) == 1 && !valid);
	CHECK(utf8_char("\xf4\x8f\xbf\xbf", &valid) == 4 && valid);

	/* A cut falls between characters: 200 x é is 400 bytes; in 256
	 * (255 and the NUL) go 127 of them, 254 bytes, no stray C3. */
	for (i = 0, n = 0; i < 200; i++)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "é");
	CHECK(utf8_copy(buf, sizeof(buf), name) == 254);
	CHECK(strlen(buf) == 254);
	CHECK(strcmp(label(buf), buf) == 0);
	CHECK(utf8_prefix(name, 255) == 254);
	CHECK(utf8_prefix(name, 400) == 400);
	CHECK(utf8_prefix("ab\xff", 2) == 2 && utf8_prefix("ab\xff", 9) == 3);
	/* Copied, invalid bytes become U+FFFD, which must fit whole. */
	CHECK(utf8_copy(buf, sizeof(buf), "/bad\xff\xfe") == 10);
	CHECK_STR(buf, "/bad" R R);
	CHECK(utf8_copy(buf, 6, "/bad\xff") == 4);
	CHECK_STR(buf, "/bad");
	CHECK(utf8_copy(buf, 1, "x") == 0 && buf[0] == '\0');
	/* What snprintf cut inside a character loses that character. */
	CHECK(utf8_whole("ab\xc3") == 2);
	CHECK(utf8_whole("ab\xe2\x82") == 2);
	CHECK(utf8_whole("ab\xf0\x9f\x98") == 2);
	CHECK(utf8_whole("ab\xc3\xa9") == 4);
	CHECK(utf8_whole("ab\xff") == 3);		/* invalid, not cut */
	CHECK(utf8_whole("ab\xed\xa0") == 4);	/* never valid */
	CHECK(utf8_whole("\xc3x\xc3") == 2);
}
#undef R

/*
 * The repair read back (U+FFFD then U+FFFD: a U+FFFD; U+FFFD then two hex
 * digits: that byte; \\, \" and \n unescaped) into out: the length, or
 * -1 when v is not what the writer writes.
 */
static long
unrepair(const char *v, char *out)
{
	size_t o = 0;
	unsigned x;

	while (*v) {
		if (strncmp(v, UTF8_REPLACEMENT, UTF8_REPLACEMENT_LEN) == 0) {
			v += UTF8_REPLACEMENT_LEN;
			if (strncmp(v, UTF8_REPLACEMENT,
			    UTF8_REPLACEMENT_LEN) == 0) {
				memcpy(out + o, v, UTF8_REPLACEMENT_LEN);
				o += UTF8_REPLACEMENT_LEN;
				v += UTF8_REPLACEMENT_LEN;
			} else if (sscanf(v, "%2x", &x) == 1 && v[1] &&
			    strchr("0123456789abcdef", v[0]) &&
			    strchr("0123456789abcdef", v[1])) {
				out[o++] = (char)x;
				v += 2;
			} else
				return -1;
		} else if (*v == '\\') {
			out[o++] = v[1] == 'n' ? '\n' : v[1];
			v += 2;
		} else
			out[o++] = *v++;
	}
	out[o] = '\0';
	return (long)o;
}

/* Any bytes, read back from their label value, are those bytes: the
 * repair is one-to-one, so no two cgroups share a series.  Random
 * strings over the bytes that matter (U+FFFD's, hex digits, lead and
 * continuation bytes, escapes). */
static void
test_utf8_unique(void)
{
	static const char alphabet[] = "\xef\xbf\xbd" "fe0a\\\"\n\xc3\xa9"
	    "\xe2\x82\xf0\x9f\x80\xff\xfe";
	uint64_t st = XORSHIFT_SEED;
	char in[64], back[64];
	int i, j, bad = 0;

	for (i = 0; i < 100000; i++) {
		int n = (int)(xorshift64(&st) % 12);

		for (j = 0; j < n; j++)
			in[j] = alphabet[xorshift64(&st) %
			    (sizeof(alphabet) - 1)];
		in[n] = '\0';
		if (unrepair(label(in), back) != n || memcmp(in, back, n))
			bad++;
	}
	CHECK(bad == 0);
}

/* What test_render's snapshot renders to, every family in its order. */
static const char render_want[] =
"# HELP pmu_cpu_events_total Events counted on each CPU, system-wide, estimated from each interval's deltas as value*enabled/running when multiplexed.\n"
"# TYPE pmu_cpu_events_total counter\n"
"pmu_cpu_events_total{cpu=\"3\",group=\"ipc\",event=\"cycles\"} 100\n"
"pmu_cpu_events_total{cpu=\"3\",group=\"ipc\",event=\"instructions\"} 250.5\n"
"pmu_cpu_events_total{cpu=\"9\",group=\"ipc\",pmu=\"cpu_atom\",event=\"cycles\"} 100\n"
"pmu_cpu_events_total{cpu=\"9\",group=\"ipc\",pmu=\"cpu_atom\",event=\"instructions\"} 250.5\n"
"# HELP pmu_cpu_enabled_seconds_total Time the group was enabled on each CPU, system-wide.\n"
"# TYPE pmu_cpu_enabled_seconds_total counter\n"
"pmu_cpu_enabled_seconds_total{cpu=\"3\",group=\"ipc\"} 2\n"
"pmu_cpu_enabled_seconds_total{cpu=\"9\",group=\"ipc\",pmu=\"cpu_atom\"} 2\n"
"# HELP pmu_cpu_running_seconds_total Time the group was on the counters on each CPU, system-wide; running/enabled is the share of time measured rather than estimated.\n"
"# TYPE pmu_cpu_running_seconds_total counter\n"
"pmu_cpu_running_seconds_total{cpu=\"3\",group=\"ipc\"} 1.5\n"
"pmu_cpu_running_seconds_total{cpu=\"9\",group=\"ipc\",pmu=\"cpu_atom\"} 1.5\n"
"# HELP pmu_cgroup_events_total Events counted for tasks in the cgroup and its descendants, estimated from each interval's deltas as value*enabled/running when multiplexed.\n"
"# TYPE pmu_cgroup_events_total counter\n"
"pmu_cgroup_events_total{cgroup=\"/a\\\"b\",unit=\"x\\\\y.service\",group=\"ipc\",event=\"cycles\"} 7\n"
"# HELP pmu_cgroup_enabled_seconds_total Time the group was enabled for tasks in the cgroup and its descendants, summed over CPUs unless per_cpu.\n"
"# TYPE pmu_cgroup_enabled_seconds_total counter\n"
"pmu_cgroup_enabled_seconds_total{cgroup=\"/a\\\"b\",unit=\"x\\\\y.service\",group=\"ipc\"} 0.25\n"
"# HELP pmu_cgroup_running_seconds_total Time the group was on the counters for tasks in the cgroup and its descendants, summed over CPUs unless per_cpu; running/enabled is the share of time measured rather than estimated.\n"
"# TYPE pmu_cgroup_running_seconds_total counter\n"
"pmu_cgroup_running_seconds_total{cgroup=\"/a\\\"b\",unit=\"x\\\\y.service\",group=\"ipc\"} 0.125\n"
"# HELP pmu_exporter_event_supported Whether the event could be opened on at least one CPU (1) or on none (0).\n"
"# TYPE pmu_exporter_event_supported gauge\n"
"pmu_exporter_event_supported{group=\"ipc\",event=\"cycles\",pmu=\"cpu\"} 1\n"
"pmu_exporter_event_supported{group=\"ipc\",event=\"instructions\",pmu=\"cpu\"} 0\n"
"# HELP pmu_exporter_build_info A metric with a constant '1' value labeled by version and revision of pmu_exporter and the versions of its libraries.\n"
"# TYPE pmu_exporter_build_info gauge\n"
"pmu_exporter_build_info{version=\"" PACKAGE_VERSION "\",revision=\"" GIT_REVISION "\",libmicrohttpd=\"none\",libpfm4=\"none\"} 1\n"
"# HELP pmu_exporter_config_last_reload_successful Whether the last configuration reload attempt was successful.\n"
"# TYPE pmu_exporter_config_last_reload_successful gauge\n"
"pmu_exporter_config_last_reload_successful 0\n"
"# HELP pmu_exporter_config_last_reload_success_timestamp_seconds Timestamp of the last successful configuration load.\n"
"# TYPE pmu_exporter_config_last_reload_success_timestamp_seconds gauge\n"
"pmu_exporter_config_last_reload_success_timestamp_seconds 1699999999\n"
"# HELP pmu_exporter_collection_duration_seconds How long the last collection took.\n"
"# TYPE pmu_exporter_collection_duration_seconds gauge\n"
"pmu_exporter_collection_duration_seconds 0.001\n"
"# HELP pmu_exporter_collection_interval_seconds The configured collection interval.\n"
"# TYPE pmu_exporter_collection_interval_seconds gauge\n"
"pmu_exporter_collection_interval_seconds 0.5\n"
"# HELP pmu_exporter_collections_total Collections since start.\n"
"# TYPE pmu_exporter_collections_total counter\n"
"pmu_exporter_collections_total 12\n"
"# HELP pmu_exporter_collections_missed_total Intervals that passed without a collection of their own: the collector was late (busy, or starved of CPU) and collected once for them all.\n"
"# TYPE pmu_exporter_collections_missed_total counter\n"
"pmu_exporter_collections_missed_total 3\n"
"# HELP pmu_exporter_last_collection_timestamp_seconds When the last collection finished, in seconds since the epoch.\n"
"# TYPE pmu_exporter_last_collection_timestamp_seconds gauge\n"
"pmu_exporter_last_collection_timestamp_seconds 1700000000.5\n"
"# HELP pmu_exporter_open_fds Perf event file descriptors held by the collector, with mode: bpf its BPF maps, programs and link too.\n"
"# TYPE pmu_exporter_open_fds gauge\n"
"pmu_exporter_open_fds 4\n"
"# HELP pmu_exporter_cgroups_matched cgroups the configured paths match now.\n"
"# TYPE pmu_exporter_cgroups_matched gauge\n"
"pmu_exporter_cgroups_matched 3\n"
"# HELP pmu_exporter_cgroups_counted Matched cgroups being counted.\n"
"# TYPE pmu_exporter_cgroups_counted gauge\n"
"pmu_exporter_cgroups_counted 2\n"
"# HELP pmu_exporter_cgroups_remade_total Counted cgroups found removed and made again at their path (a service or container restarted), counted anew with their series going on.\n"
"# TYPE pmu_exporter_cgroups_remade_total counter\n"
"pmu_exporter_cgroups_remade_total 1\n"
"# HELP pmu_exporter_cgroups_skipped Matched cgroups not counted, by reason.\n"
"# TYPE pmu_exporter_cgroups_skipped gauge\n"
"pmu_exporter_cgroups_skipped{reason=\"fd_budget\"} 1\n"
"pmu_exporter_cgroups_skipped{reason=\"no_perf_event\"} 1\n"
"# HELP pmu_exporter_targets Targets counted: CPUs counted system-wide (kind=\"cpu\") and cgroups (kind=\"cgroup\").\n"
"# TYPE pmu_exporter_targets gauge\n"
"pmu_exporter_targets{kind=\"cpu\"} 1\n"
"pmu_exporter_targets{kind=\"cgroup\"} 1\n"
"# HELP pmu_exporter_group_instances Group instances (one group on one CPU for one target) open and counting.\n"
"# TYPE pmu_exporter_group_instances gauge\n"
"pmu_exporter_group_instances{group=\"ipc\"} 3\n"
"# HELP pmu_exporter_group_running_ratio_min The lowest running/enabled time ratio over the group's instances in the last interval; below 1 the group was multiplexed and its counts are estimates.\n"
"# TYPE pmu_exporter_group_running_ratio_min gauge\n"
"pmu_exporter_group_running_ratio_min{group=\"ipc\"} 0.5\n"
"# HELP pmu_exporter_group_starved_instances Group instances that were enabled in the last interval but never on the counters (time_running did not advance): too many events for the counters, or the PMU taken by someone else.\n"
"# TYPE pmu_exporter_group_starved_instances gauge\n"
"pmu_exporter_group_starved_instances{group=\"ipc\"} 0\n"
"# HELP pmu_exporter_open_errors Group instances in which the event could not be opened, by errno and reason: reason=\"event\", the kernel refused the event; reason=\"cgroup_no_perf_event\", the cgroup has no perf_event controller state (cgroup2 whose root cgroup.subtree_control was never written: echo +cpu > ROOT/cgroup.subtree_control).\n"
"# TYPE pmu_exporter_open_errors gauge\n"
"pmu_exporter_open_errors{group=\"ipc\",event=\"instructions\",errno=\"ENOENT\",reason=\"event\"} 3\n"
"pmu_exporter_open_errors{group=\"ipc\",event=\"cycles\",errno=\"ENOENT\",reason=\"cgroup_no_perf_event\"} 2\n";

/*
 * Two CPU rows (one on a hybrid PMU) and two cgroup rows: the first
 * cgroup's instructions never opened (no series, not a 0), the second
 * cgroup opened nothing at all (no series of any kind); the exporter's
 * own figures, a group's health and two open errors.
 */
static struct snapshot *
render_snapshot(void)
{
	static const char *ev[] = { "cycles", "instructions" };
	static const char *ln[] = { "unit" }, *lv[] = { "x\\y.service" };
	static const double v0[] = { 100, 250.5 }, v1[] = { 7, 9 };
	static const unsigned char c0[] = { 1, 1 }, c1[] = { 1, 0 },
	    c2[] = { 0, 0 };
	static struct snap_group_health health = { "ipc", 3, 0.5, 0 };
	static struct snap_open_error oe[2] = {
	    { "ipc", "instructions", ENOENT, 0, 3 },
	    { "ipc", "cycles", ENOENT, 1, 2 } };
	struct snapshot *s = snapshot_new();
	struct snap_row *rows = snapshot_alloc(s, 4 * sizeof(*rows));
	struct snap_support *sup = snapshot_alloc(s, 2 * sizeof(*sup));

	rows[0] = (struct snap_row){ .cpu = 3, .group = "ipc", .nr_events = 2,
	    .events = ev, .counted = c0, .values = v0, .enabled_s = 2.0,
	    .running_s = 1.5 };
	rows[1] = (struct snap_row){ .cpu = 9, .group = "ipc", .nr_events = 2,
	    .events = ev, .counted = c0, .values = v0, .enabled_s = 2.0,
	    .running_s = 1.5, .pmu = "cpu_atom" };
	rows[2] = (struct snap_row){ .cgroup = "/a\"b", .nr_labels = 1,
	    .label_names = ln, .label_values = lv, .cpu = -1, .group = "ipc",
	    .nr_events = 2, .events = ev, .counted = c1, .values = v1,
	    .enabled_s = 0.25, .running_s = 0.125 };
	rows[3] = (struct snap_row){ .cgroup = "/none", .cpu = -1,
	    .group = "ipc", .nr_events = 2, .events = ev, .counted = c2,
	    .values = v1, .enabled_s = 0.25, .running_s = 0.125 };
	sup[0] = (struct snap_support){ "ipc", "cycles", 1, "cpu" };
	sup[1] = (struct snap_support){ "ipc", "instructions", 0, "cpu" };
	s->rows = rows;
	s->nr_rows = 4;
	s->support = sup;
	s->nr_support = 2;
	s->seq = 12;
	s->intervals_missed = 3;
	s->duration_s = 0.001;
	s->interval_s = 0.5;
	s->timestamp_s = 1700000000.5;
	s->open_fds = 4;
	s->cgroups_matched = 3;
	s->cgroups_counted = 2;
	s->cgroups_skipped = 1;
	s->cgroups_no_perf = 1;
	s->cgroups_remade = 1;
	s->reload_ok = 0;
	s->reload_success_s = 1699999999;
	s->nr_cpus = 1;
	s->nr_cgroups = 1;
	s->health = &health;
	s->nr_health = 1;
	s->open_errors = oe;
	s->nr_open_errors = 2;
	return s;
}

static void
test_render(void)
{
	struct snapshot *s = render_snapshot();
	size_t len;
	char *text;

	text = expo_render(s, &len);
	CHECK(text != NULL && len == strlen(render_want));
	CHECK_STR(text, render_want);
	free(text);
	snapshot_unref(s);
}

/* The topdown definitions render beside the counts, with the width
 * only where the formulas use one; the lacking PMU's "topdown" row. */
static void
test_topdown(void)
{
	struct snapshot *s = snapshot_new();
	struct snap_topdown *td = snapshot_alloc(s, 2 * sizeof(*td));
	struct snap_support sup[1] = { { "td", "topdown", 0, NULL } };
	char *text;
	size_t len;

	td[0] = (struct snap_topdown){ "td", "cpu_core", "intel_perf_metrics",
	    2, 0 };
	td[1] = (struct snap_topdown){ "td", "cpu_atom", "intel_atom", 1, 5 };
	s->topdown = td;
	s->nr_topdown = 2;
	s->support = sup;
	s->nr_support = 1;
	text = expo_render(s, &len);
	CHECK_CONTAINS(text, "# TYPE pmu_exporter_topdown_info gauge\n"
	    "pmu_exporter_topdown_info{group=\"td\",pmu=\"cpu_core\","
	    "definition=\"intel_perf_metrics\",level=\"2\"} 1\n"
	    "pmu_exporter_topdown_info{group=\"td\",pmu=\"cpu_atom\","
	    "definition=\"intel_atom\",level=\"1\"} 1\n");
	CHECK_CONTAINS(text, "# TYPE pmu_exporter_topdown_slots_per_cycle "
	    "gauge\npmu_exporter_topdown_slots_per_cycle{group=\"td\","
	    "pmu=\"cpu_atom\",definition=\"intel_atom\"} 5\n#");
	CHECK(text && strstr(text, "slots_per_cycle{group=\"td\",pmu=\""
	    "cpu_core\"") == NULL);
	CHECK_CONTAINS(text, "pmu_exporter_event_supported{group=\"td\","
	    "event=\"topdown\"} 0\n");
	free(text);
	snapshot_unref(s);
}

/*
 * A source kind's statistics render as the kind described them, without
 * the renderer knowing the kind: its skipped reasons inside
 * pmu_exporter_cgroups_skipped, then its families; nothing of a kind no
 * entry asks for.
 */
static void
test_sources(void)
{
	static const char *const lv[] = { "a\"b", "c" };
	static const double one[] = { 0.5 }, two[] = { 3, 4 };
	struct snapshot *s = snapshot_new();
	struct snap_source src[2];
	struct snap_skip sk[2] = { { "x_full", 2 }, { "x_refused", 0 } },
	    other = { "y_gone", 7 };
	struct snap_metric m[2] = {
		{ "pmu_exporter_x_up", "gauge", "Up.", 1, NULL, NULL, one },
		{ "pmu_exporter_x_runs_total", "counter", "Runs.", 2, "by", lv,
		    two },
	}, om = { "pmu_exporter_y_up", "gauge", "Y.", 1, NULL, NULL, one };
	static const struct expo_opts o = { .exporter_metrics = 1 };
	char *text;
	size_t len;

	src[0] = (struct snap_source){ "y", 0, 1, &other, 1, &om };
	src[1] = (struct snap_source){ "x", 1, 2, sk, 2, m };
	s->sources = src;
	s->nr_sources = 2;
	text = expo_render(s, &len);
	CHECK_CONTAINS(text, "pmu_exporter_cgroups_skipped{reason="
	    "\"no_perf_event\"} 0\n"
	    "pmu_exporter_cgroups_skipped{reason=\"x_full\"} 2\n"
	    "pmu_exporter_cgroups_skipped{reason=\"x_refused\"} 0\n"
	    "# HELP pmu_exporter_x_up Up.\n"
	    "# TYPE pmu_exporter_x_up gauge\n"
	    "pmu_exporter_x_up 0.5\n"
	    "# HELP pmu_exporter_x_runs_total Runs.\n"
	    "# TYPE pmu_exporter_x_runs_total counter\n"
	    "pmu_exporter_x_runs_total{by=\"a\\\"b\"} 3\n"
	    "pmu_exporter_x_runs_total{by=\"c\"} 4\n"
	    "# HELP pmu_exporter_targets ");
	CHECK(text && strstr(text, "y_") == NULL);
	free(text);
	text = expo_render_body(s, EXPO_OPENMETRICS, &o, &len);
	CHECK_CONTAINS(text, "# TYPE pmu_exporter_x_runs counter\n"
	    "pmu_exporter_x_runs_total{by=\"a\\\"b\"} 3\n");
	free(text);
	/* Asked for by no entry: none of it. */
	src[1].wanted = 0;
	text = expo_render(s, &len);
	CHECK(text && strstr(text, "x_") == NULL);
	free(text);
	snapshot_unref(s);
}

/*
 * A pod's sandbox (its runtime's record says so) is shown apart, in
 * pmu_cgroup_hidden_*, in both formats: not in pmu_cgroup_*, and not
 * left out (issue 32: nothing a cgroup runs disappears).
 */
static void
test_hidden(void)
{
	static const char *ev[] = { "task-clock" };
	static const char *ln[] = { "container_id" }, *lv[] = { "abc" };
	static const double v[] = { 5 }, vh[] = { 9 };
	static const unsigned char c[] = { 1 };
	static const struct expo_opts o = { .exporter_metrics = 1 };
	struct snapshot *s = snapshot_new();
	struct snap_row *rows = snapshot_alloc(s, 2 * sizeof(*rows));
	char *text;
	size_t len;

	rows[0] = (struct snap_row){ .cgroup = "/ctr", .cpu = -1,
	    .group = "sw", .nr_events = 1, .events = ev, .counted = c,
	    .values = v, .enabled_s = 1, .running_s = 1 };
	rows[1] = (struct snap_row){ .cgroup = "/pause", .nr_labels = 1,
	    .label_names = ln, .label_values = lv, .cpu = -1, .group = "sw",
	    .nr_events = 1, .events = ev, .counted = c, .values = vh,
	    .enabled_s = 2, .running_s = 2, .hidden = 1 };
	s->rows = rows;
	s->nr_rows = 2;
	text = expo_render(s, &len);
	CHECK_CONTAINS(text, "# TYPE pmu_cgroup_events_total counter\n"
	    "pmu_cgroup_events_total{cgroup=\"/ctr\",group=\"sw\","
	    "event=\"task-clock\"} 5\n# HELP");
	CHECK_CONTAINS(text, "# TYPE pmu_cgroup_hidden_events_total counter\n"
	    "pmu_cgroup_hidden_events_total{cgroup=\"/pause\","
	    "container_id=\"abc\",group=\"sw\",event=\"task-clock\"} 9\n");
	CHECK_CONTAINS(text, "pmu_cgroup_hidden_running_seconds_total{cgroup="
	    "\"/pause\",container_id=\"abc\",group=\"sw\"} 2\n");
	CHECK(text && strstr(text, "pmu_cgroup_events_total{cgroup=\"/pause")
	    == NULL);
	free(text);
	text = expo_render_body(s, EXPO_OPENMETRICS, &o, &len);
	CHECK_CONTAINS(text, "# TYPE pmu_cgroup_hidden_events counter\n"
	    "pmu_cgroup_hidden_events_total{cgroup=\"/pause\",");
	CHECK_CONTAINS(text, "# TYPE pmu_cgroup_hidden_enabled_seconds "
	    "counter\n");
	free(text);
	snapshot_unref(s);
}

/*
 * The interference families of a result built by hand, as the analysis
 * publishes one (daemon/expo/expo_interference.c): the victim gauge is 0 for a
 * cgroup that had outliers but is not a victim now, 1 for one that is;
 * victim_periods_total counts the times each became one, whatever it is
 * now (the non-victim here was one three times before).
 */
static void
test_interference(void)
{
	struct snapshot *s = snapshot_new();
	struct snap_row *rows = snapshot_alloc(s, 2 * sizeof(*rows));
	struct interference_cgroup cg[2];
	struct interference_result r;
	struct expo_buf b = { NULL, 0, 0, 0, 0 };

	rows[0] = (struct snap_row){ .cgroup = "/victim", .cpu = -1 };
	rows[1] = (struct snap_row){ .cgroup = "/noisy", .cpu = -1 };
	cg[0] = (struct interference_cgroup){ &rows[0], 1, 5, 2 };
	cg[1] = (struct interference_cgroup){ &rows[1], 0, 7, 3 };
	memset(&r, 0, sizeof(r));
	r.enabled = 1;
	r.nr_cgroups = 2;
	r.cgroups = cg;
	expo_interference(&b, &r, 0);
	expo_reserve(&b, 1);
	b.p[b.len] = '\0';
	CHECK_CONTAINS(b.p, "# TYPE pmu_cgroup_interference_victim gauge\n"
	    "pmu_cgroup_interference_victim{cgroup=\"/victim\"} 1\n"
	    "pmu_cgroup_interference_victim{cgroup=\"/noisy\"} 0\n");
	CHECK_CONTAINS(b.p, "pmu_cgroup_cpi_outliers_total{cgroup=\"/victim\"} "
	    "5\npmu_cgroup_cpi_outliers_total{cgroup=\"/noisy\"} 7\n");
	CHECK_CONTAINS(b.p, "# TYPE pmu_cgroup_interference_victim_periods_total"
	    " counter\n"
	    "pmu_cgroup_interference_victim_periods_total{cgroup=\"/victim\"} "
	    "2\n"
	    "pmu_cgroup_interference_victim_periods_total{cgroup=\"/noisy\"} "
	    "3\n");
	free(b.p);
	snapshot_unref(s);
}

int
main(void)
{
	test_numbers();
	test_escape();
	test_utf8();
	test_utf8_unique();
	test_render();
	test_topdown();
	test_sources();
	test_hidden();
	test_interference();
	return CHECK_DONE();
}
