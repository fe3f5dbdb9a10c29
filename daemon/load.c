/*
 * load.c - the config loaded at start and at each reload: the file, or the
 * embedded default, and what it cannot do here said once
 * (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "collectors/perf/group.h"
#include "daemon/load.h"
#include "daemon/log.h"

/* Say why the interference analysis is off, once: at start, and on a
 * reload only when the reason changed. */
static void
log_interference(const struct interference_config *ic,
    const struct interference_config *prev)
{
	if (ic->enabled || (prev && !prev->enabled && prev->why_off &&
	    ic->why_off && strcmp(prev->why_off, ic->why_off) == 0))
		return;
	log_info("interference analysis is off: %s", ic->why_off ?
	    ic->why_off : "disabled");
}

/* Can this machine count cycles at all?  0, or the errno that says no. */
static int
probe_hardware(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return -group_probe(&attr, 0, -1, 0);
}

/* Say what an embedded config counts: its groups and their events, and
 * the layouts whose cgroups it counts (each then says what it found). */
static void
log_embedded(const struct plan *p)
{
	char what[512], layouts[512];
	size_t i, j, n = 0, l = 0;

	what[0] = '\0';
	for (i = 0; i < p->nr_groups && n < sizeof(what); i++) {
		const struct plan_group *g = &p->groups[i];

		/* A hybrid machine's per-PMU copies share the name. */
		if (i > 0 && strcmp(g->name, p->groups[i - 1].name) == 0)
			continue;
		n += snprintf(what + n, sizeof(what) - n, "%sgroup %s = {",
		    n ? ", " : "", g->name);
		for (j = 0; j < g->nr_events && n < sizeof(what); j++)
			n += snprintf(what + n, sizeof(what) - n, "%s%s",
			    j ? ", " : "", g->events[j].name);
		if (n < sizeof(what))
			n += snprintf(what + n, sizeof(what) - n, "}");
	}
	layouts[0] = '\0';
	for (i = 0; i < p->nr_layouts && l < sizeof(layouts); i++)
		l += snprintf(layouts + l, sizeof(layouts) - l, "%s%s",
		    i ? ", " : "", p->layouts[i]);
	log_info("the embedded default counts %s on every CPU and on the "
	    "cgroups of the layouts it knows: %s", what, layouts);
}

/* prev had the same preset copy lacking the same: said already. */
static int
preset_said(const struct plan *prev, const struct plan_group *g)
{
	size_t i;

	for (i = 0; prev && i < prev->nr_groups; i++) {
		const struct plan_group *o = &prev->groups[i];

		if (o->preset && strcmp(o->name, g->name) == 0 &&
		    (o->pmu == NULL) == (g->pmu == NULL) &&
		    (!o->pmu || strcmp(o->pmu, g->pmu) == 0) &&
		    o->nr_missing == g->nr_missing &&
		    o->nr_events == g->nr_events)
			return 1;
	}
	return 0;
}

/*
 * A topdown preset group that counts nothing on a PMU, or less than its
 * definition wants, says so once (a reload to the same says nothing);
 * the other groups count on.
 */
static void
log_presets(const struct plan *p, const struct plan *prev)
{
	size_t i;

	for (i = 0; i < p->nr_groups; i++) {
		const struct plan_group *g = &p->groups[i];

		if (!g->preset || g->nr_missing == 0 || preset_said(prev, g))
			continue;
		if (g->nr_events == 0)
			log_warn("group %s%s%s: this machine's PMU offers no "
			    "top-down events (%s); the group counts nothing "
			    "here and the others count as configured", g->name,
			    g->pmu ? " on PMU " : "", g->pmu ? g->pmu : "",
			    g->why ? g->why : "no definition");
		else
			log_warn("group %s on PMU %s (%s): %s; counting the "
			    "%zu event%s it offers, top-down level %d",
			    g->name, g->pmu, g->definition, g->why ? g->why :
			    "events missing", g->nr_events,
			    g->nr_events == 1 ? "" : "s", g->level);
	}
}

static int load_plan(const struct options *opt,
    const struct event_ctx *ectx, struct plan **cfg,
    struct interference_config *ic);

int
load_config(const struct options *opt, const struct event_ctx *ectx,
    struct plan **cfg, const struct plan *prev,
    struct interference_config *ic, const struct interference_config *prev_ic)
{
	if (load_plan(opt, ectx, cfg, ic) < 0)
		return -1;
	log_presets(*cfg, prev);
	log_interference(ic, prev_ic);
	return 0;
}

static int
load_plan(const struct options *opt, const struct event_ctx *ectx,
    struct plan **cfg, struct interference_config *ic)
{
	char err[1024];
	int e;

	/*
	 * A file of comments only (as packages ship it) means the embedded
	 * default, fallback included: the file documents it, and uncommenting
	 * anything replaces it.
	 */
	if (opt->config_file) {
		e = config_load_all(ectx, opt->config_file, cfg, ic, err,
		    sizeof(err));
		if (e == -ENODATA) {
			log_info("%s sets nothing (only comments): running the "
			    "embedded default", opt->config_file);
			goto embedded;
		}
		if (e < 0) {
			log_error("%s", err);
			return -1;
		}
		/* A mode with fallback: refuse, where it cannot run. */
		if (config_machine_check(*cfg, opt->procfs, opt->sysfs, err,
		    sizeof(err)) < 0) {
			log_error("%s", err);
			interference_config_fini(ic);
			plan_free(*cfg);
			*cfg = NULL;
			return -1;
		}
		return 0;
	}
embedded:
	e = probe_hardware();
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL) {
		log_warn("this machine has no hardware counters (cycles: %s); "
		    "the embedded default counts software events instead",
		    strerror(e));
		if (config_parse_all(ectx, "<default>", config_fallback_yaml,
		    strlen(config_fallback_yaml), cfg, ic, err,
		    sizeof(err)) < 0)
			goto bad;
		/* The reason that matters is the machine's. */
		free(ic->why_off);
		ic->why_off = strdup("this machine has no hardware counters "
		    "(the embedded default counts software events): no "
		    "cycles and instructions to take CPI from");
		log_embedded(*cfg);
		return 0;
	}
	if (config_parse_all(ectx, "<default>", config_default_yaml,
	    strlen(config_default_yaml), cfg, ic, err, sizeof(err)) < 0)
		goto bad;
	log_embedded(*cfg);
	return 0;
bad:
	log_error("embedded config: %s", err);
	return -1;
}
