/*
 * expo.c - snapshot to Prometheus text format 0.0.4 (see expo.h).
 *
 * Families are written in a fixed order, each with HELP and TYPE once,
 * samples grouped under their family as the format requires.  Numbers use
 * the shortest form that reads back to the same double, so integers stay
 * integers and nothing is lost.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/expo.h"

static void
expo_reserve(struct expo_buf *b, size_t n)
{
	char *p;
	size_t cap;

	if (b->oom || b->cap - b->len >= n)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n)
		cap *= 2;
	if ((p = realloc(b->p, cap)) == NULL) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void
expo_put(struct expo_buf *b, const char *s, size_t n)
{
	expo_reserve(b, n + 1);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void
expo_puts(struct expo_buf *b, const char *s)
{
	expo_put(b, s, strlen(s));
}

void
expo_put_label_value(struct expo_buf *b, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *esc;

		switch (*s) {
		case '\\': esc = "\\\\"; break;
		case '"': esc = "\\\""; break;
		case '\n': esc = "\\n"; break;
		default: continue;
		}
		expo_put(b, run, (size_t)(s - run));
		expo_put(b, esc, 2);
		run = s + 1;
	}
	expo_put(b, run, (size_t)(s - run));
}

char *
expo_format_double(double v, char *buf, size_t len)
{
	int prec;

	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		for (prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	return buf;
}

void
expo_put_double(struct expo_buf *b, double v)
{
	char num[40];

	expo_puts(b, expo_format_double(v, num, sizeof(num)));
}

static void
family(struct expo_buf *b, const char *name, const char *type,
    const char *help)
{
	expo_puts(b, "# HELP ");
	expo_puts(b, name);
	expo_puts(b, " ");
	expo_puts(b, help);
	expo_puts(b, "\n# TYPE ");
	expo_puts(b, name);
	expo_puts(b, " ");
	expo_puts(b, type);
	expo_puts(b, "\n");
}

/* A family with one unlabelled sample. */
static void
single(struct expo_buf *b, const char *name, const char *type,
    const char *help, double v)
{
	family(b, name, type, help);
	expo_puts(b, name);
	expo_puts(b, " ");
	expo_put_double(b, v);
	expo_puts(b, "\n");
}

static void
put_int(struct expo_buf *b, long long v)
{
	char num[24];

	snprintf(num, sizeof(num), "%lld", v);
	expo_puts(b, num);
}

/* Does the row count anything?  A group none of whose events opened
 * exports no series at all, rather than zeros. */
static int
row_counts(const struct snap_row *r)
{
	size_t e;

	for (e = 0; e < r->nr_events; e++)
		if (r->counted[e])
			return 1;
	return 0;
}

/* name{cgroup="..",cpu="..",group=".."[,event=".."]} */
static void
row_labels(struct expo_buf *b, const char *name, const struct snap_row *r,
    const char *event)
{
	expo_puts(b, name);
	expo_puts(b, "{");
	if (r->cgroup) {
		size_t i;

		expo_puts(b, "cgroup=\"");
		expo_put_label_value(b, r->cgroup);
		expo_puts(b, "\",");
		for (i = 0; i < r->nr_labels; i++) {
			expo_puts(b, r->label_names[i]);
			expo_puts(b, "=\"");
			expo_put_label_value(b, r->label_values[i]);
			expo_puts(b, "\",");
		}
	}
	if (r->cpu >= 0) {
		expo_puts(b, "cpu=\"");
		put_int(b, r->cpu);
		expo_puts(b, "\",");
	}
	expo_puts(b, "group=\"");
	expo_put_label_value(b, r->group);
	if (r->pmu) {
		expo_puts(b, "\",pmu=\"");
		expo_put_label_value(b, r->pmu);
	}
	if (event) {
		expo_puts(b, "\",event=\"");
		expo_put_label_value(b, event);
	}
	expo_puts(b, "\"} ");
}

static void
render_rows(struct expo_buf *b, const struct snapshot *s, int cgroup,
    const char *prefix, const char *what, const char *sum)
{
	char name[64], help[512];
	size_t i, e;
	int any = 0;

	for (i = 0; i < s->nr_rows; i++)
		if ((s->rows[i].cgroup != NULL) == cgroup &&
		    row_counts(&s->rows[i]))
			any = 1;
	if (!any)
		return;

	snprintf(name, sizeof(name), "%s_events_total", prefix);
	snprintf(help, sizeof(help), "Events counted %s, estimated from each "
	    "interval's deltas as value*enabled/running when multiplexed.",
	    what);
	family(b, name, "counter", help);
	for (i = 0; i < s->nr_rows; i++) {
		const struct snap_row *r = &s->rows[i];

		if ((r->cgroup != NULL) != cgroup)
			continue;
		for (e = 0; e < r->nr_events; e++) {
			if (!r->counted[e])
				continue;	/* not open: no series */
			row_labels(b, name, r, r->events[e]);
			expo_put_double(b, r->values[e]);
			expo_puts(b, "\n");
		}
	}
	snprintf(name, sizeof(name), "%s_enabled_seconds_total", prefix);
	snprintf(help, sizeof(help), "Time the group was enabled %s%s.", what,
	    sum);
	family(b, name, "counter", help);
	for (i = 0; i < s->nr_rows; i++)
		if ((s->rows[i].cgroup != NULL) == cgroup &&
		    row_counts(&s->rows[i])) {
			row_labels(b, name, &s->rows[i], NULL);
			expo_put_double(b, s->rows[i].enabled_s);
			expo_puts(b, "\n");
		}
	snprintf(name, sizeof(name), "%s_running_seconds_total", prefix);
	snprintf(help, sizeof(help), "Time the group was on the counters %s%s; "
	    "running/enabled is the share of time measured rather than "
	    "estimated.", what, sum);
	family(b, name, "counter", help);
	for (i = 0; i < s->nr_rows; i++)
		if ((s->rows[i].cgroup != NULL) == cgroup &&
		    row_counts(&s->rows[i])) {
			row_labels(b, name, &s->rows[i], NULL);
			expo_put_double(b, s->rows[i].running_s);
			expo_puts(b, "\n");
		}
}

char *
expo_render(const struct snapshot *s, size_t *len)
{
	struct expo_buf b = { NULL, 0, 0, 0 };
	size_t i;

	expo_reserve(&b, 4096 + s->nr_rows * 256);
	render_rows(&b, s, 0, "pmu_cpu", "on each CPU, system-wide", "");
	render_rows(&b, s, 1, "pmu_cgroup",
	    "for tasks in the cgroup and its descendants",
	    ", summed over CPUs unless per_cpu");

	family(&b, "pmu_exporter_event_supported", "gauge",
	    "Whether the event could be opened on at least one CPU (1) "
	    "or on none (0).");
	for (i = 0; i < s->nr_support; i++) {
		expo_puts(&b, "pmu_exporter_event_supported{group=\"");
		expo_put_label_value(&b, s->support[i].group);
		expo_puts(&b, "\",event=\"");
		expo_put_label_value(&b, s->support[i].event);
		if (s->support[i].pmu) {
			expo_puts(&b, "\",pmu=\"");
			expo_put_label_value(&b, s->support[i].pmu);
		}
		expo_puts(&b, s->support[i].supported ? "\"} 1\n" : "\"} 0\n");
	}
	family(&b, "pmu_exporter_build_info", "gauge",
	    "A metric with a constant '1' value labeled by version and "
	    "revision of pmu_exporter.");
	expo_puts(&b, "pmu_exporter_build_info{version=\"");
	expo_put_label_value(&b, PACKAGE_VERSION);
	expo_puts(&b, "\",revision=\"");
	expo_put_label_value(&b, GIT_REVISION);
	expo_puts(&b, "\"} 1\n");
	single(&b, "pmu_exporter_config_last_reload_successful", "gauge",
	    "Whether the last configuration reload attempt was successful.",
	    s->reload_ok ? 1.0 : 0.0);
	single(&b, "pmu_exporter_config_last_reload_success_timestamp_seconds",
	    "gauge", "Timestamp of the last successful configuration load.",
	    s->reload_success_s);
	single(&b, "pmu_exporter_collection_duration_seconds", "gauge",
	    "How long the last collection took.", s->duration_s);
	single(&b, "pmu_exporter_collection_interval_seconds", "gauge",
	    "The configured collection interval.", s->interval_s);
	single(&b, "pmu_exporter_collections_total", "counter",
	    "Collections since start.", (double)s->seq);
	single(&b, "pmu_exporter_last_collection_timestamp_seconds", "gauge",
	    "When the last collection finished, in seconds since the epoch.",
	    s->timestamp_s);
	single(&b, "pmu_exporter_open_fds", "gauge",
	    "Perf event file descriptors held by the collector.",
	    (double)s->open_fds);
	single(&b, "pmu_exporter_cgroups_matched", "gauge",
	    "cgroups the configured paths match now.",
	    (double)s->cgroups_matched);
	single(&b, "pmu_exporter_cgroups_counted", "gauge",
	    "Matched cgroups being counted.", (double)s->cgroups_counted);
	family(&b, "pmu_exporter_cgroups_skipped", "gauge",
	    "Matched cgroups not counted, by reason.");
	expo_puts(&b, "pmu_exporter_cgroups_skipped{reason=\"fd_budget\"} ");
	expo_put_double(&b, (double)s->cgroups_skipped);
	expo_puts(&b, "\n");
	expo_reserve(&b, 1);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	b.p[b.len] = '\0';	/* a C string too, for tests and debuggers */
	*len = b.len;
	return b.p;
}
