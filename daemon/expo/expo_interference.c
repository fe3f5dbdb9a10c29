/*
 * expo_interference.c - the interference analysis' result as metric
 * families: a victim labelled as its cgroup is on pmu_cgroup_events_total,
 * a suspect the same with suspect_ before each name (docs/architecture.md,
 * "daemon/, by folder").
 */
#include "autoconf.h"

#include <stdio.h>

#include "analysis/interference.h"
#include "daemon/expo/expo_interference.h"

/* cgroup="..",<labels> of row r, each name after prefix; no comma after
 * the last. */
static void
cgroup_labels(struct expo_buf *b, const struct snap_row *r,
    const char *prefix)
{
	size_t i;

	expo_puts(b, prefix);
	expo_puts(b, "cgroup=\"");
	expo_put_label_value(b, r->cgroup);
	expo_puts(b, "\"");
	for (i = 0; i < r->nr_labels; i++) {
		expo_puts(b, ",");
		expo_puts(b, prefix);
		expo_puts(b, r->label_names[i]);
		expo_puts(b, "=\"");
		expo_put_label_value(b, r->label_values[i]);
		expo_puts(b, "\"");
	}
}

static void
sample(struct expo_buf *b, const char *name, const struct snap_row *r,
    double v)
{
	expo_puts(b, name);
	expo_puts(b, "{");
	cgroup_labels(b, r, "");
	expo_puts(b, "} ");
	expo_put_double(b, v);
	expo_puts(b, "\n");
}

void
expo_interference(struct expo_buf *b, const struct interference_result *r,
    int exporter_metrics)
{
	size_t i;

	if (r && r->nr_suspects) {
		expo_family(b, "pmu_cgroup_interference_suspect", "gauge",
		    "A neighbour whose CPU use tracks the victim cgroup's "
		    "CPI (its partial correlation, the victim's own use and "
		    "the others' held out) or stepped up when the victim's "
		    "rise began (the correlation with that step), "
		    "significant against every candidate; rank 1 the "
		    "strongest.");
		for (i = 0; i < r->nr_suspects; i++) {
			const struct interference_suspect *s = &r->suspects[i];
			char rank[16];

			expo_puts(b, "pmu_cgroup_interference_suspect{");
			cgroup_labels(b, r->cgroups[s->victim].row, "");
			expo_puts(b, ",");
			cgroup_labels(b, s->row, "suspect_");
			snprintf(rank, sizeof(rank), "%u", s->rank);
			expo_puts(b, ",rank=\"");
			expo_puts(b, rank);
			expo_puts(b, "\"} ");
			expo_put_double(b, s->correlation);
			expo_puts(b, "\n");
		}
	}
	if (r && r->nr_cgroups) {
		expo_family(b, "pmu_cgroup_interference_victim", "gauge",
		    "1 while the cgroup is a victim: its CPI, the node's "
		    "common change out, rose against its own baseline and "
		    "stayed up for victim_outliers samples of the victim "
		    "window; 0 otherwise.  Judged cgroups only: the most "
		    "specific counted ones, at the CPU floor or above.");
		for (i = 0; i < r->nr_cgroups; i++)
			sample(b, "pmu_cgroup_interference_victim",
			    r->cgroups[i].row, r->cgroups[i].victim ? 1 : 0);
		expo_family(b, "pmu_cgroup_cpi_outliers_total", "counter",
		    "Samples in which the cgroup's CPI was in a sustained "
		    "rise against its baseline (its CUSUM in alarm).");
		for (i = 0; i < r->nr_cgroups; i++)
			sample(b, "pmu_cgroup_cpi_outliers_total",
			    r->cgroups[i].row, r->cgroups[i].outliers);
		expo_family(b, "pmu_cgroup_interference_victim_periods_total",
		    "counter", "Times the cgroup became a victim.");
		for (i = 0; i < r->nr_cgroups; i++)
			sample(b, "pmu_cgroup_interference_victim_periods_total",
			    r->cgroups[i].row, r->cgroups[i].victim_periods);
	}
	if (!exporter_metrics)
		return;
	expo_family(b, "pmu_exporter_interference_enabled", "gauge",
	    "Whether the interference analysis runs (1) or not (0: the log "
	    "and --check-config say why).");
	expo_puts(b, r && r->enabled ? "pmu_exporter_interference_enabled 1\n" :
	    "pmu_exporter_interference_enabled 0\n");
	expo_family(b, "pmu_exporter_interference_cgroups", "gauge",
	    "cgroups the interference analysis judged in its last sample "
	    "(the most specific counted ones, CPU use at the floor or "
	    "above).");
	expo_puts(b, "pmu_exporter_interference_cgroups ");
	expo_put_double(b, r ? (double)r->nr_cgroups : 0);
	expo_puts(b, "\n");
	expo_family(b, "pmu_exporter_interference_containing_cgroups",
	    "gauge", "Counted cgroups the interference analysis does not "
	    "judge because a counted cgroup below them is judged instead "
	    "(a pod whose containers are counted, a slice whose services "
	    "are): never victims, never suspects.");
	expo_puts(b, "pmu_exporter_interference_containing_cgroups ");
	expo_put_double(b, r ? (double)r->containing : 0);
	expo_puts(b, "\n");
}
