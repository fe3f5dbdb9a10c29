/*
 * config_interference.c - the config's interference: block
 * (config_interference.h) into struct interference_config
 * (analysis/interference_config.h), read after the groups and targets it
 * refers to.
 * Design: docs/interference.md; docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>

#include "analysis/interference_config.h"
#include "collectors/collector/plan.h"
#include "config/config_interference.h"
#include "config/yamldoc.h"
#include "util/text.h"

#define perr(d, ...) yamldoc_err((d), __VA_ARGS__)

static int
number(const struct yamldoc *d, yaml_node_t *n, const char *key, double lo,
    double hi, int lo_open, int hi_open, double *out)
{
	char *end;
	double v;
	int r;

	if ((r = yamldoc_expect(d, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	errno = 0;
	v = strtod(yamldoc_scalar(n), &end);
	if (!text_is_decimal(yamldoc_scalar(n)) || errno || *end ||
	    !isfinite(v) ||
	    (lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi))
		return perr(d, n, "interference.%s must be a number from %g%s "
		    "to %g%s, not \"%s\"", key, lo, lo_open ? " (excluded)" : "",
		    hi, hi_open ? " (excluded)" : "", yamldoc_scalar(n));
	*out = v;
	return 0;
}

static int
whole(const struct yamldoc *d, yaml_node_t *n, const char *key,
    unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;
	int r;

	if ((r = yamldoc_expect(d, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	errno = 0;
	v = strtoul(yamldoc_scalar(n), &end, 10);
	if (!text_is_whole(yamldoc_scalar(n), 0) || errno || *end ||
	    v < lo || v > hi)
		return perr(d, n, "interference.%s must be a whole number from "
		    "%u to %u, not \"%s\"", key, lo, hi, yamldoc_scalar(n));
	*out = (unsigned)v;
	return 0;
}

/* "90s", "5m", "1h30m": a duration for a message. */
static void
say_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / 1000000000ULL;

	if (ns % 1000000000ULL)
		snprintf(buf, len, "%gs", (double)ns / 1e9);
	else if (s % 3600 == 0)
		snprintf(buf, len, "%lluh", (unsigned long long)(s / 3600));
	else if (s % 60 == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(s / 60));
	else
		snprintf(buf, len, "%llus", (unsigned long long)s);
}

static int
duration(const struct yamldoc *d, yaml_node_t *n, const char *key,
    uint64_t lo, uint64_t hi, uint64_t *out)
{
	int r;

	if ((r = yamldoc_expect(d, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	if (text_parse_duration(yamldoc_scalar(n), out) < 0)
		return perr(d, n, "interference.%s: invalid duration \"%s\" "
		    "(expected a number with ms, s, m or h, e.g. \"10m\")", key,
		    yamldoc_scalar(n));
	if (*out < lo || *out > hi) {
		char a[32], b[32];

		say_duration(lo, a, sizeof(a));
		say_duration(hi, b, sizeof(b));
		return perr(d, n, "interference.%s: %s is out of range (%s "
		    "to %s)", key, yamldoc_scalar(n), a, b);
	}
	return 0;
}

static int
is_event(const struct plan_event *e, unsigned long long hw,
    const char *const *names)
{
	if (e->perf.attr.type == PERF_TYPE_HARDWARE &&
	    (e->perf.attr.config & 0xffffffffULL) == hw)
		return 1;
	for (; *names; names++)
		if (strcasecmp(e->name, *names) == 0)
			return 1;
	return 0;
}

/*
 * Is group name usable: defined, counting cycles and instructions, and
 * named by a cgroups entry?  0 with the event names set, or 1 with why
 * it is not in why.
 */
static int
usable(const struct plan *cfg, const char *name, const char **cyc,
    const char **ins, char *why, size_t len)
{
	static const char *const cn[] = { "cycles", "cpu-cycles",
	    "cpu_cycles", NULL };
	static const char *const in[] = { "instructions", "inst_retired",
	    NULL };
	const struct plan_group *g = NULL;
	size_t i, k, e;

	for (i = 0; i < cfg->nr_groups && !g; i++)
		if (strcmp(cfg->groups[i].name, name) == 0)
			g = &cfg->groups[i];
	if (g == NULL) {
		snprintf(why, len, "no group \"%s\" is defined", name);
		return 1;
	}
	*cyc = *ins = NULL;
	for (e = 0; e < g->nr_events; e++) {
		if (!*cyc && is_event(&g->events[e],
		    PERF_COUNT_HW_CPU_CYCLES, cn))
			*cyc = g->events[e].name;
		else if (!*ins && is_event(&g->events[e],
		    PERF_COUNT_HW_INSTRUCTIONS, in))
			*ins = g->events[e].name;
	}
	if (!*cyc || !*ins) {
		snprintf(why, len, "group \"%s\" counts no %s", name,
		    !*cyc && !*ins ? "cycles and instructions" :
		    !*cyc ? "cycles" : "instructions");
		return 1;
	}
	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *t = &cfg->targets[i];

		if (t->kind != PLAN_TARGET_CGROUP)
			continue;
		for (k = 0; k < t->nr_groups; k++)
			if (strcmp(cfg->groups[t->groups[k]].name, name) == 0)
				return 0;
	}
	snprintf(why, len, "group \"%s\" is counted on no cgroup", name);
	return 1;
}

/* interference.enabled: *asked 1 or 0. */
static int
enabled_key(const struct yamldoc *d, yaml_node_t *en, int *asked)
{
	const char *s;
	int r;

	if ((r = yamldoc_expect(d, en, YAML_SCALAR_NODE,
	    "interference.enabled")) < 0)
		return r;
	s = yamldoc_scalar(en);
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "on"))
		*asked = 1;
	else if (!strcasecmp(s, "false") ||
	    !strcasecmp(s, "no") || !strcasecmp(s, "off"))
		*asked = 0;
	else
		return perr(d, en, "interference.enabled must "
		    "be true or false, not \"%s\"", s);
	return 0;
}

/*
 * victim_window and victim_outliers, within the window c has, checked
 * with the analysis's own geometry (interference_geometry) so that no
 * combination passes here that can never declare a victim there.  Left
 * out, victim_window is half the window (5m of the default 10m, and as
 * the window stretches with a long interval); a message names only the
 * keys the user wrote, and the default a value came from.
 */
static int
victim_keys(const struct yamldoc *d, yaml_node_t *n, const struct plan *cfg,
    struct interference_config *c)
{
	yaml_node_t *vw = NULL, *vo = NULL;
	struct interference_geometry g;
	char lo[32], hi[32];
	int r;

	c->victim_window_ns = c->window_ns / 2;
	if (n && (vw = yamldoc_get(d, n, "victim_window")) != NULL) {
		if ((r = duration(d, vw, "victim_window", 1000000000ULL,
		    c->window_ns, &c->victim_window_ns)) < 0)
			return r;
	}
	if (n && (vo = yamldoc_get(d, n, "victim_outliers")) != NULL &&
	    (r = whole(d, vo, "victim_outliers", 1, 64,
	    &c->victim_outliers)) < 0)
		return r;
	interference_geometry(c, cfg->interval_ns, &g);
	if (c->victim_outliers <= g.victim_samples)
		return 0;
	say_duration(c->victim_window_ns, hi, sizeof(hi));
	say_duration((uint64_t)g.per_sample * cfg->interval_ns, lo,
	    sizeof(lo));
	return perr(d, vo ? vo : vw, "interference.victim_outliers (%u%s) "
	    "can never be reached: %s (%s) holds %u sample%s of %s at this "
	    "interval, so no victim could ever be declared",
	    c->victim_outliers, vo ? "" : ", the default",
	    vw ? "victim_window" : "the default victim_window, half the "
	    "window,", hi, g.victim_samples, g.victim_samples == 1 ? "" : "s",
	    lo);
}

/* The block's numbers into c: the window, the thresholds, the victim's
 * window and outliers. */
static int
number_keys(const struct yamldoc *d, yaml_node_t *n, const struct plan *cfg,
    struct interference_config *c)
{
	yaml_node_t *v;
	int r;

	if ((v = yamldoc_get(d, n, "window")) != NULL &&
	    (r = duration(d, v, "window", 60000000000ULL,
	    24ULL * 3600000000000ULL, &c->window_ns)) < 0)
		return r;
	if (v && c->window_ns < INTERFERENCE_RING * cfg->interval_ns)
		return perr(d, v, "interference.window must be "
		    "at least %u intervals (%.3gs at interval %.3gs): "
		    "a cgroup's ring keeps %u samples of at least an "
		    "interval each", INTERFERENCE_RING,
		    INTERFERENCE_RING * (double)cfg->interval_ns / 1e9,
		    (double)cfg->interval_ns / 1e9, INTERFERENCE_RING);
	if ((v = yamldoc_get(d, n, "cpu_floor")) != NULL &&
	    (r = number(d, v, "cpu_floor", 0, 4096, 0, 0,
	    &c->cpu_floor)) < 0)
		return r;
	if ((v = yamldoc_get(d, n, "outlier_sigma")) != NULL &&
	    (r = number(d, v, "outlier_sigma", 0, 100, 1, 0,
	    &c->outlier_sigma)) < 0)
		return r;
	if ((v = yamldoc_get(d, n, "suspect_threshold")) != NULL &&
	    (r = number(d, v, "suspect_threshold", 0, 1, 0, 1,
	    &c->suspect_threshold)) < 0)
		return r;
	if ((v = yamldoc_get(d, n, "suspect_significance")) != NULL &&
	    (r = number(d, v, "suspect_significance", 0, 0.5, 1, 1,
	    &c->suspect_significance)) < 0)
		return r;
	if ((v = yamldoc_get(d, n, "suspects")) != NULL &&
	    (r = whole(d, v, "suspects", 1, INTERFERENCE_MAX_SUSPECTS,
	    &c->suspects)) < 0)
		return r;
	return victim_keys(d, n, cfg, c);
}

int
config_interference(const struct yamldoc *d, yaml_node_t *n,
    const struct plan *cfg, struct interference_config *out)
{
	static const char *const keys[] = { "enabled", "group", "window",
	    "cpu_floor", "outlier_sigma", "victim_outliers", "victim_window",
	    "suspect_threshold", "suspect_significance", "suspects", NULL };
	struct interference_config c;
	yaml_node_t *en = NULL, *gn = NULL;
	const char *group = "ipc", *cyc = NULL, *ins = NULL;
	char why[256];
	int asked = -1, r;

	interference_config_defaults(&c);
	/* A long interval stretches the default window: 60 samples of at
	 * least an interval each. */
	if (c.window_ns < INTERFERENCE_RING * cfg->interval_ns)
		c.window_ns = INTERFERENCE_RING * cfg->interval_ns;
	if (n != NULL) {
		if ((r = yamldoc_expect(d, n, YAML_MAPPING_NODE,
		    "interference")) < 0 ||
		    (r = yamldoc_check_keys(d, n, keys, "interference")) < 0)
			return r;
		if ((en = yamldoc_get(d, n, "enabled")) != NULL &&
		    (r = enabled_key(d, en, &asked)) < 0)
			return r;
		if ((gn = yamldoc_get(d, n, "group")) != NULL) {
			if ((r = yamldoc_expect(d, gn, YAML_SCALAR_NODE,
			    "interference.group")) < 0)
				return r;
			group = yamldoc_scalar(gn);
		}
		if ((r = number_keys(d, n, cfg, &c)) < 0)
			return r;
	} else if ((r = victim_keys(d, NULL, cfg, &c)) < 0)
		return r;
	if (asked == 0) {
		c.why_off = strdup("interference.enabled is false");
		goto done;
	}
	if (usable(cfg, group, &cyc, &ins, why, sizeof(why))) {
		if (asked == 1)
			return perr(d, gn ? gn : en, "interference.enabled is "
			    "true but %s: the analysis reads a group's cycles "
			    "and instructions on cgroups", why);
		c.why_off = strdup(why);
		goto done;
	}
	c.enabled = 1;
	c.group = strdup(group);
	c.cycles = strdup(cyc);
	c.instructions = strdup(ins);
	if (!c.group || !c.cycles || !c.instructions) {
		interference_config_fini(&c);
		return -ENOMEM;
	}
done:
	if (!c.enabled && c.why_off == NULL)
		return -ENOMEM;
	*out = c;
	return 0;
}
