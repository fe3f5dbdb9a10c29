/*
 * expo_test.c - text exposition: label escaping, number formatting, and a
 * whole rendered snapshot compared byte for byte.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/expo.h"
#include "tests/check.h"

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
	struct expo_buf b = { NULL, 0, 0, 0 };

	expo_put_label_value(&b, "a\\b\"c\nd/é");
	expo_puts(&b, "");
	CHECK(b.len == strlen("a\\\\b\\\"c\\nd/é"));
	CHECK(b.p && memcmp(b.p, "a\\\\b\\\"c\\nd/é", b.len) == 0);
	free(b.p);
}

static void
test_render(void)
{
	static const char *ev[] = { "cycles", "instructions" };
	static const char *ln[] = { "unit" }, *lv[] = { "x\\y.service" };
	static const double v0[] = { 100, 250.5 }, v1[] = { 7, 9 };
	static const unsigned char c0[] = { 1, 1 }, c1[] = { 1, 0 },
	    c2[] = { 0, 0 };
	struct snapshot *s = snapshot_new();
	struct snap_row *rows = snapshot_alloc(s, 4 * sizeof(*rows));
	struct snap_support *sup = snapshot_alloc(s, 2 * sizeof(*sup));
	const char *text;
	size_t len;
	static const char want[] =
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
"# HELP pmu_exporter_build_info A metric with a constant '1' value labeled by version and revision of pmu_exporter.\n"
"# TYPE pmu_exporter_build_info gauge\n"
"pmu_exporter_build_info{version=\"" PACKAGE_VERSION "\",revision=\"" GIT_REVISION "\"} 1\n"
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
"# HELP pmu_exporter_last_collection_timestamp_seconds When the last collection finished, in seconds since the epoch.\n"
"# TYPE pmu_exporter_last_collection_timestamp_seconds gauge\n"
"pmu_exporter_last_collection_timestamp_seconds 1700000000.5\n"
"# HELP pmu_exporter_open_fds Perf event file descriptors held by the collector.\n"
"# TYPE pmu_exporter_open_fds gauge\n"
"pmu_exporter_open_fds 4\n"
"# HELP pmu_exporter_cgroups_matched cgroups the configured paths match now.\n"
"# TYPE pmu_exporter_cgroups_matched gauge\n"
"pmu_exporter_cgroups_matched 3\n"
"# HELP pmu_exporter_cgroups_counted Matched cgroups being counted.\n"
"# TYPE pmu_exporter_cgroups_counted gauge\n"
"pmu_exporter_cgroups_counted 2\n"
"# HELP pmu_exporter_cgroups_skipped Matched cgroups not counted, by reason.\n"
"# TYPE pmu_exporter_cgroups_skipped gauge\n"
"pmu_exporter_cgroups_skipped{reason=\"fd_budget\"} 1\n";

	/* Row 2's instructions never opened: no series, not a 0; row 3
	 * opened nothing at all: no series of any kind. */
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
	s->duration_s = 0.001;
	s->interval_s = 0.5;
	s->timestamp_s = 1700000000.5;
	s->open_fds = 4;
	s->cgroups_matched = 3;
	s->cgroups_counted = 2;
	s->cgroups_skipped = 1;
	s->reload_ok = 0;
	s->reload_success_s = 1699999999;
	text = snapshot_text(s, &len, expo_render);
	CHECK(text != NULL && len == strlen(want));
	CHECK_STR(text, want);
	/* Rendered once, shared after. */
	CHECK(snapshot_text(s, &len, expo_render) == text);
	snapshot_unref(s);
}

int
main(void)
{
	test_numbers();
	test_escape();
	test_render();
	return CHECK_DONE();
}
