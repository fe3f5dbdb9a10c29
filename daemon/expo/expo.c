/*
 * expo.c - snapshot to text 0.0.4 or OpenMetrics 1.0 (see expo.h): one
 * renderer for both, families in a fixed order, a kind's own metrics as
 * the snapshot describes them (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/interference.h"
#include "daemon/expo/expo.h"
#include "daemon/expo/expo_interference.h"

#define family expo_family

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

/* Which family a row's series go to: 0 pmu_cpu_*, 1 pmu_cgroup_*, 2
 * pmu_cgroup_hidden_* (a pod's sandbox, by its runtime's word). */
static int
row_kind(const struct snap_row *r)
{
	return r->cgroup == NULL ? 0 : r->hidden ? 2 : 1;
}

static void
render_rows(struct expo_buf *b, const struct snapshot *s, int kind,
    const char *prefix, const char *what, const char *sum)
{
	char name[64], help[512];
	size_t i, e;
	int any = 0;

	for (i = 0; i < s->nr_rows; i++)
		if (row_kind(&s->rows[i]) == kind &&
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

		if (row_kind(r) != kind)
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
		if (row_kind(&s->rows[i]) == kind &&
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
		if (row_kind(&s->rows[i]) == kind &&
		    row_counts(&s->rows[i])) {
			row_labels(b, name, &s->rows[i], NULL);
			expo_put_double(b, s->rows[i].running_s);
			expo_puts(b, "\n");
		}
}

/* The collector's health: targets, instances, ratios, open errors. */
static void
render_health(struct expo_buf *b, const struct snapshot *s)
{
	char num[40];
	size_t i;

	family(b, "pmu_exporter_targets", "gauge",
	    "Targets counted: CPUs counted system-wide (kind=\"cpu\") and "
	    "cgroups (kind=\"cgroup\").");
	snprintf(num, sizeof(num), "%zu", s->nr_cpus);
	expo_puts(b, "pmu_exporter_targets{kind=\"cpu\"} ");
	expo_puts(b, num);
	snprintf(num, sizeof(num), "%zu", s->nr_cgroups);
	expo_puts(b, "\npmu_exporter_targets{kind=\"cgroup\"} ");
	expo_puts(b, num);
	expo_puts(b, "\n");

	family(b, "pmu_exporter_group_instances", "gauge",
	    "Group instances (one group on one CPU for one target) open and "
	    "counting.");
	for (i = 0; i < s->nr_health; i++) {
		expo_puts(b, "pmu_exporter_group_instances{group=\"");
		expo_put_label_value(b, s->health[i].group);
		expo_puts(b, "\"} ");
		put_int(b, (long long)s->health[i].instances);
		expo_puts(b, "\n");
	}
	family(b, "pmu_exporter_group_running_ratio_min", "gauge",
	    "The lowest running/enabled time ratio over the group's "
	    "instances in the last interval; below 1 the group was "
	    "multiplexed and its counts are estimates.");
	for (i = 0; i < s->nr_health; i++) {
		if (isnan(s->health[i].worst_ratio))
			continue;
		expo_puts(b, "pmu_exporter_group_running_ratio_min{group=\"");
		expo_put_label_value(b, s->health[i].group);
		expo_puts(b, "\"} ");
		expo_put_double(b, s->health[i].worst_ratio);
		expo_puts(b, "\n");
	}
	family(b, "pmu_exporter_group_starved_instances", "gauge",
	    "Group instances that were enabled in the last interval but "
	    "never on the counters (time_running did not advance): too many "
	    "events for the counters, or the PMU taken by someone else.");
	for (i = 0; i < s->nr_health; i++) {
		expo_puts(b, "pmu_exporter_group_starved_instances{group=\"");
		expo_put_label_value(b, s->health[i].group);
		expo_puts(b, "\"} ");
		put_int(b, (long long)s->health[i].starved);
		expo_puts(b, "\n");
	}
	family(b, "pmu_exporter_open_errors", "gauge",
	    "Group instances in which the event could not be opened, by "
	    "errno and reason: reason=\"event\", the kernel refused the "
	    "event; reason=\"cgroup_no_perf_event\", the cgroup has no "
	    "perf_event controller state (cgroup2 whose root "
	    "cgroup.subtree_control was never written: echo +cpu > "
	    "ROOT/cgroup.subtree_control).");
	for (i = 0; i < s->nr_open_errors; i++) {
		const struct snap_open_error *e = &s->open_errors[i];
		const char *name = strerrorname_np(e->err);

		expo_puts(b, "pmu_exporter_open_errors{group=\"");
		expo_put_label_value(b, e->group);
		expo_puts(b, "\",event=\"");
		expo_put_label_value(b, e->event);
		expo_puts(b, "\",errno=\"");
		if (name)
			expo_put_label_value(b, name);
		else
			put_int(b, e->err);
		expo_puts(b, e->no_perf_cgroup ?
		    "\",reason=\"cgroup_no_perf_event\"} " :
		    "\",reason=\"event\"} ");
		put_int(b, (long long)e->count);
		expo_puts(b, "\n");
	}
}

/*
 * A source kind's own metrics (snapshot.h), as the kind described them:
 * each family's help and type, then its samples.
 */
static void
render_source(struct expo_buf *b, const struct snap_source *src)
{
	size_t i, k;

	for (i = 0; i < src->nr_metrics; i++) {
		const struct snap_metric *m = &src->metrics[i];

		family(b, m->name, m->type, m->help);
		for (k = 0; k < m->nr; k++) {
			expo_puts(b, m->name);
			if (m->label) {
				expo_puts(b, "{");
				expo_puts(b, m->label);
				expo_puts(b, "=\"");
				expo_put_label_value(b, m->label_values[k]);
				expo_puts(b, "\"}");
			}
			expo_puts(b, " ");
			expo_put_double(b, m->values[k]);
			expo_puts(b, "\n");
		}
	}
}

/* The reasons the collector and the source kinds that are asked for add
 * to pmu_exporter_cgroups_skipped. */
static void
render_source_skipped(struct expo_buf *b, const struct snapshot *s)
{
	size_t i, k;

	for (i = 0; i <= s->nr_sources; i++) {
		const struct snap_source *src = i < s->nr_sources ?
		    &s->sources[i] : &s->own;

		for (k = 0; src->wanted && k < src->nr_skipped; k++) {
			expo_puts(b, "pmu_exporter_cgroups_skipped{reason=\"");
			expo_put_label_value(b, src->skipped[k].reason);
			expo_puts(b, "\"} ");
			expo_put_double(b, (double)src->skipped[k].count);
			expo_puts(b, "\n");
		}
	}
}

/*
 * The topdown preset's definition per (group, pmu): what the recording
 * rules join the raw counts with.  Rendered with the counts, not with the
 * self-metrics, because the fractions cannot be computed without them.
 */
/* NAME{group="…",pmu="…",definition="…  — the caller closes the last value. */
static void
topdown_labels(struct expo_buf *b, const char *name,
    const struct snap_topdown *t)
{
	expo_puts(b, name);
	expo_puts(b, "{group=\"");
	expo_put_label_value(b, t->group);
	if (t->pmu) {
		expo_puts(b, "\",pmu=\"");
		expo_put_label_value(b, t->pmu);
	}
	expo_puts(b, "\",definition=\"");
	expo_put_label_value(b, t->definition);
}

static void
render_topdown(struct expo_buf *b, const struct snapshot *s)
{
	size_t i, slots = 0;

	if (s->nr_topdown == 0)
		return;
	family(b, "pmu_exporter_topdown_info", "gauge",
	    "The top-down definition a preset group counts on a core PMU, "
	    "and the deepest level its events allow.");
	for (i = 0; i < s->nr_topdown; i++) {
		const struct snap_topdown *t = &s->topdown[i];
		char level[16];

		topdown_labels(b, "pmu_exporter_topdown_info", t);
		snprintf(level, sizeof(level), "%d", t->level);
		expo_puts(b, "\",level=\"");
		expo_puts(b, level);
		expo_puts(b, "\"} 1\n");
		slots += t->slots_per_cycle > 0;
	}
	if (slots == 0)
		return;
	family(b, "pmu_exporter_topdown_slots_per_cycle", "gauge",
	    "Pipeline slots per cycle the definition's formulas use "
	    "(perf's JSON; Arm: the PMU's caps/slots).");
	for (i = 0; i < s->nr_topdown; i++) {
		const struct snap_topdown *t = &s->topdown[i];

		if (t->slots_per_cycle == 0)
			continue;
		topdown_labels(b, "pmu_exporter_topdown_slots_per_cycle", t);
		expo_puts(b, "\"} ");
		expo_put_double(b, (double)t->slots_per_cycle);
		expo_puts(b, "\n");
	}
}

/* Which (group, event) opened on at least one CPU. */
static void
render_support(struct expo_buf *b, const struct snapshot *s)
{
	size_t i;

	family(b, "pmu_exporter_event_supported", "gauge",
	    "Whether the event could be opened on at least one CPU (1) "
	    "or on none (0).");
	for (i = 0; i < s->nr_support; i++) {
		expo_puts(b, "pmu_exporter_event_supported{group=\"");
		expo_put_label_value(b, s->support[i].group);
		expo_puts(b, "\",event=\"");
		expo_put_label_value(b, s->support[i].event);
		if (s->support[i].pmu) {
			expo_puts(b, "\",pmu=\"");
			expo_put_label_value(b, s->support[i].pmu);
		}
		expo_puts(b, s->support[i].supported ? "\"} 1\n" : "\"} 0\n");
	}
}

/* The version of pmu_exporter and of its libraries. */
static void
render_build_info(struct expo_buf *b, const struct expo_opts *o)
{
	family(b, "pmu_exporter_build_info", "gauge",
	    "A metric with a constant '1' value labeled by version and "
	    "revision of pmu_exporter and the versions of its libraries.");
	expo_puts(b, "pmu_exporter_build_info{version=\"");
	expo_put_label_value(b, PACKAGE_VERSION);
	expo_puts(b, "\",revision=\"");
	expo_put_label_value(b, GIT_REVISION);
	expo_puts(b, "\",libmicrohttpd=\"");
	expo_put_label_value(b, o->mhd_version ? o->mhd_version : "none");
	expo_puts(b, "\",libpfm4=\"");
	expo_put_label_value(b, o->pfm_version ? o->pfm_version : "none");
	expo_puts(b, "\"} 1\n");
}

/* The config's loads and the collections' times. */
static void
render_times(struct expo_buf *b, const struct snapshot *s)
{
	single(b, "pmu_exporter_config_last_reload_successful", "gauge",
	    "Whether the last configuration reload attempt was successful.",
	    s->reload_ok ? 1.0 : 0.0);
	single(b, "pmu_exporter_config_last_reload_success_timestamp_seconds",
	    "gauge", "Timestamp of the last successful configuration load.",
	    s->reload_success_s);
	single(b, "pmu_exporter_collection_duration_seconds", "gauge",
	    "How long the last collection took.", s->duration_s);
	single(b, "pmu_exporter_collection_interval_seconds", "gauge",
	    "The configured collection interval.", s->interval_s);
	single(b, "pmu_exporter_collections_total", "counter",
	    "Collections since start.", (double)s->seq);
	single(b, "pmu_exporter_collections_missed_total", "counter",
	    "Intervals that passed without a collection of their own: the "
	    "collector was late (busy, or starved of CPU) and collected once "
	    "for them all.", (double)s->intervals_missed);
	single(b, "pmu_exporter_last_collection_timestamp_seconds", "gauge",
	    "When the last collection finished, in seconds since the epoch.",
	    s->timestamp_s);
}

/*
 * The CPU model per core PMU (cpuinfo.h): what the fleet rules join a
 * container's CPI with, so that replicas are compared on the same model.
 * Rendered with the counts, like pmu_exporter_topdown_info, because the
 * rules need it whatever --web.disable-exporter-metrics says.  A field
 * the kernel does not give (arm64 has no model name) is left out.
 */
static void
render_cpu_info(struct expo_buf *b, const struct cpuinfo *ci)
{
	size_t i;

	if (ci == NULL || ci->nr == 0)
		return;
	family(b, "pmu_exporter_cpu_info", "gauge",
	    "The CPU model of each core PMU the exporter counts on, from "
	    "cpuinfo; value 1.");
	for (i = 0; i < ci->nr; i++) {
		const struct cpuinfo_core *c = &ci->core[i];
		const char *sep = "{";
		const struct { const char *name, *value; } l[] = {
			{ "vendor", c->vendor }, { "family", c->cpu_family },
			{ "model", c->model }, { "model_name", c->model_name },
			{ "pmu", c->pmu },
		};
		size_t k;

		expo_puts(b, "pmu_exporter_cpu_info");
		for (k = 0; k < sizeof(l) / sizeof(l[0]); k++) {
			if (l[k].value[0] == '\0')
				continue;
			expo_puts(b, sep);
			expo_puts(b, l[k].name);
			expo_puts(b, "=\"");
			expo_put_label_value(b, l[k].value);
			expo_puts(b, "\"");
			sep = ",";
		}
		expo_puts(b, sep[0] == '{' ? " 1\n" : "} 1\n");
	}
}

char *
expo_render_body(const struct snapshot *s, enum expo_format f,
    const struct expo_opts *o, size_t *len)
{
	struct expo_buf b = { NULL, 0, 0, 0, f == EXPO_OPENMETRICS };
	size_t i;

	expo_reserve(&b, 4096 + s->nr_rows * 256);
	render_rows(&b, s, 0, "pmu_cpu", "on each CPU, system-wide", "");
	render_rows(&b, s, 1, "pmu_cgroup",
	    "for tasks in the cgroup and its descendants",
	    ", summed over CPUs unless per_cpu");
	render_rows(&b, s, 2, "pmu_cgroup_hidden",
	    "for tasks in a pod's sandbox (pause) container's cgroup, which "
	    "its runtime's own record says it is, shown apart from the pods' "
	    "containers", ", summed over CPUs unless per_cpu");
	render_topdown(&b, s);
	render_cpu_info(&b, o->cpu);
	if (o->interference) {
		struct interference_result *ir =
		    interference_result(o->interference);

		expo_interference(&b, ir, o->exporter_metrics);
		interference_result_unref(ir);
	}
	if (!o->exporter_metrics)
		goto done;

	render_support(&b, s);
	render_build_info(&b, o);
	render_times(&b, s);
	single(&b, "pmu_exporter_open_fds", "gauge",
	    "Perf event file descriptors held by the collector, with mode: "
	    "bpf its BPF maps, programs and link too.",
	    (double)s->open_fds);
	single(&b, "pmu_exporter_cgroups_matched", "gauge",
	    "cgroups the configured paths match now.",
	    (double)s->cgroups_matched);
	single(&b, "pmu_exporter_cgroups_counted", "gauge",
	    "Matched cgroups being counted.", (double)s->cgroups_counted);
	single(&b, "pmu_exporter_cgroups_remade_total", "counter",
	    "Counted cgroups found removed and made again at their path "
	    "(a service or container restarted), counted anew with their "
	    "series going on.", (double)s->cgroups_remade);
	family(&b, "pmu_exporter_cgroups_skipped", "gauge",
	    "Matched cgroups not counted, by reason.");
	expo_puts(&b, "pmu_exporter_cgroups_skipped{reason=\"fd_budget\"} ");
	expo_put_double(&b, (double)s->cgroups_skipped);
	expo_puts(&b, "\npmu_exporter_cgroups_skipped{reason=\"no_perf_event\"} ");
	expo_put_double(&b, (double)s->cgroups_no_perf);
	expo_puts(&b, "\n");
	render_source_skipped(&b, s);
	render_source(&b, &s->own);
	for (i = 0; i < s->nr_sources; i++)
		if (s->sources[i].wanted)
			render_source(&b, &s->sources[i]);
	render_health(&b, s);
done:
	expo_reserve(&b, 1);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	b.p[b.len] = '\0';	/* a C string too, for tests and debuggers */
	*len = b.len;
	return b.p;
}

char *
expo_render(const struct snapshot *s, size_t *len)
{
	static const struct expo_opts o = { .exporter_metrics = 1 };

	return expo_render_body(s, EXPO_TEXT, &o, len);
}

/* ---- the per-request tail ----------------------------------------- */

/* A counter family with one series per reason: name{reason="..."}. */
static void
by_reason(struct expo_buf *b, const char *name, const char *help,
    const char *const *reason, const uint64_t *v, int n)
{
	int i;

	family(b, name, "counter", help);
	for (i = 0; i < n; i++) {
		expo_puts(b, name);
		expo_puts(b, "{reason=\"");
		expo_puts(b, reason[i]);
		expo_puts(b, "\"} ");
		put_int(b, (long long)v[i]);
		expo_puts(b, "\n");
	}
}

int
expo_render_tail(struct expo_buf *b, enum expo_format f,
    const struct expo_opts *o, const struct expo_live *l)
{
	static const char *const fmt[2] = { "text", "openmetrics" };
	static const char *const refusal[EXPO_NR_REFUSALS] = {
		"address_busy", "pipelined", "body", "deadline",
		"write_deadline", "reclaimed", "idle" };
	static const char *const auth_reason[3] = { "password", "user",
	    "throttled" };
	int i, z;

	b->om = f == EXPO_OPENMETRICS;
	if (o->exporter_metrics) {
		family(b, "pmu_exporter_scrapes_total", "counter",
		    "Scrapes served, by exposition format and compression.");
		for (i = 0; i < 2; i++)
			for (z = 0; z < 2; z++) {
				expo_puts(b, "pmu_exporter_scrapes_total{format=\"");
				expo_puts(b, fmt[i]);
				expo_puts(b, z ? "\",compression=\"gzip\"} " :
				    "\",compression=\"none\"} ");
				put_int(b, (long long)l->scrapes[i][z]);
				expo_puts(b, "\n");
			}
		single(b, "pmu_exporter_scrapes_rejected_total", "counter",
		    "Scrapes answered 503 because --web.max-requests were "
		    "already in flight.", (double)l->rejected);
		by_reason(b, "pmu_exporter_http_requests_refused_total",
		    "Requests refused before they were let in: reason="
		    "\"address_busy\", a scrape answered 429 while its address "
		    "had --web.max-requests-per-ip in flight; \"pipelined\", "
		    "429 and closed, sent with more answers unread than a "
		    "connection may leave; \"body\", 413 and closed, a request "
		    "with a body; \"deadline\", a connection closed with its "
		    "request not all in by --web.read-header-timeout; "
		    "\"write_deadline\", reset with its answer not all sent by "
		    "--web.write-timeout; \"reclaimed\", a scrape reset to give "
		    "its slot to an address holding fewer; \"idle\", an idle "
		    "connection closed, its address having too many or the "
		    "server too few left.", refusal,
		    l->refused, EXPO_NR_REFUSALS);
	}
	if (o->exporter_metrics && l->have_auth)
		by_reason(b, "pmu_exporter_http_auth_failures_total",
		    "Requests whose basic auth credentials were refused: "
		    "reason=\"password\", a known user with a wrong password; "
		    "\"user\", no such user; \"throttled\", refused with 429 "
		    "without a check, the client address having no budget "
		    "left (--web.auth-failures-per-minute).", auth_reason,
		    l->auth_failures, 3);
	if (o->exporter_metrics && l->have_process) {
		single(b, "process_cpu_seconds_total", "counter",
		    "Total user and system CPU time spent in seconds.",
		    l->cpu_seconds);
		single(b, "process_open_fds", "gauge",
		    "Number of open file descriptors.", l->open_fds);
		single(b, "process_max_fds", "gauge",
		    "Maximum number of open file descriptors.", l->max_fds);
		single(b, "process_virtual_memory_bytes", "gauge",
		    "Virtual memory size in bytes.", l->virtual_bytes);
		single(b, "process_virtual_memory_max_bytes", "gauge",
		    "Maximum amount of virtual memory available in bytes.",
		    l->virtual_max_bytes);
		single(b, "process_resident_memory_bytes", "gauge",
		    "Resident memory size in bytes.", l->resident_bytes);
		single(b, "process_start_time_seconds", "gauge",
		    "Start time of the process since unix epoch in seconds.",
		    l->start_time_s);
		single(b, "process_threads", "gauge",
		    "Number of OS threads in the process.", l->threads);
	}
	if (f == EXPO_OPENMETRICS)
		expo_puts(b, "# EOF\n");
	expo_reserve(b, 1);
	if (b->oom) {
		free(b->p);
		b->p = NULL;
		return -ENOMEM;
	}
	return 0;
}
