/*
 * probe.c - --check-config (probe_check_config, collector.h): with every
 * group opened once on this machine, say per target and group how many
 * instances opened and per event whether it can be counted, note a
 * cgroup counted together with its descendant, and ask each kind what
 * only it can tell (source_check_ops, through source.c): its own line,
 * why a target is not counted, why a group never ran (perf's answer
 * opens ever larger groups to find how many counters the PMU has).
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "collectors/collector/collector.h"
#include "collectors/collector/collector_int.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/source.h"
#include "collectors/collector/target.h"
#include "collectors/perf/group.h"

/* Why target t opened nothing (its kind's words for it, else the
 * reason's own); 1 when that is a problem. */
static int
check_unopened(const struct collector *c, const struct target *t, FILE *out)
{
	enum target_why why = target_why(t);
	int r;

	if ((r = source_check_unopened(&c->kinds, target_name(t), why,
	    out)) >= 0)
		return r;
	fprintf(out, "%s: not counted (%s", target_name(t),
	    target_why_text(why));
	if (why == TARGET_SKIPPED)
		fprintf(out, " of %llu", (unsigned long long)c->set.max_fds);
	fputs(")\n", out);
	return why != TARGET_SKIP_ASKED;
}

/* Counted descendants of target i: their work is counted twice. */
static void
check_descendants(const struct collector *c, size_t i, FILE *out)
{
	const struct target *t = c->set.v[i];
	size_t j, n;

	/* Targets are sorted: descendants follow their ancestor. */
	for (j = i + 1; t->cgroup && j < c->set.nr; j++) {
		const char *d = c->set.v[j]->cgroup;

		n = strlen(t->cgroup);
		if (strcmp(t->cgroup, "/") != 0 &&
		    (strncmp(d, t->cgroup, n) != 0 || d[n] != '/'))
			break;
		fprintf(out, "note: %s is counted and so is its descendant %s: "
		    "a perf cgroup event counts descendants too, so %s's work "
		    "is in both, and both compete for counters\n", t->cgroup,
		    d, d);
	}
}

/* One group on an opened target: its instances and events.  Problems. */
static int
check_group(const struct collector *c, const struct target *t,
    const struct tgroup *tg, FILE *out)
{
	const struct plan_group *g = &c->ps.cfg->groups[tg->gi];
	size_t k, e, ok_inst = 0, unsched = 0;
	char cpus[256];
	int ucpu = -1, problems = 0;

	/* Enabled and never running: whether that is a problem, and why,
	 * is the kind's to say (source_check_ops.unscheduled). */
	for (k = 0; k < tg->cpus.nr; k++) {
		struct inst *in = &tg->inst[k];

		if (in->state != INST_OK)
			continue;
		ok_inst++;
		if (in->src && in->src->nr &&
		    source_read(in->src, in->cur) == 0 &&
		    in->cur[in->src->evidx[0]].enabled > 0 &&
		    in->cur[in->src->evidx[0]].running == 0) {
			unsched++;
			ucpu = in->cpu;
		}
	}
	fprintf(out, "%s group %s%s%s on CPUs %s: %zu of %zu instances open",
	    target_name(t), g->name, g->hybrid ? " pmu " : "",
	    g->hybrid ? g->pmu : "", cpumap_format(&tg->cpus, cpus,
	    sizeof(cpus)), ok_inst, tg->cpus.nr);
	/* The default kind goes unsaid. */
	if (tg->kind != &source_perf_kind)
		fprintf(out, " (mode: %s)", tg->kind->desc->name);
	fputc('\n', out);
	problems += ok_inst < tg->cpus.nr;
	if (unsched)
		problems += source_check_unscheduled(&c->kinds, tg->kind,
		    tg->gi, unsched,
		    ucpu, out);
	for (e = 0; e < g->nr_events; e++) {
		int errnum = 0;

		for (k = 0; k < tg->cpus.nr; k++)
			if (tg->inst[k].err[e])
				errnum = tg->inst[k].err[e];
		if (errnum) {
			fprintf(out, "  %-24s unsupported: %s\n",
			    g->events[e].name, strerror(errnum));
			problems++;
		} else
			fprintf(out, "  %-24s supported\n", g->events[e].name);
	}
	return problems;
}

/* What a preset's definition wants and the PMU does not offer.
 * Problems. */
static int
check_presets(const struct plan *cfg, FILE *out)
{
	size_t i, e;
	int problems = 0;

	for (i = 0; i < cfg->nr_groups; i++) {
		const struct plan_group *g = &cfg->groups[i];

		if (!g->preset)
			continue;
		fprintf(out, "preset group %s pmu %s: definition %s, top-down "
		    "level %d, %zu events%s%s\n", g->name,
		    g->pmu ? g->pmu : "none", g->definition ? g->definition :
		    "none", g->level, g->nr_events, g->why ? ": " : "",
		    g->why ? g->why : "");
		for (e = 0; e < g->nr_missing; e++)
			fprintf(out, "  %-24s unsupported: %s\n", g->missing[e],
			    g->nr_events ? "not offered by this PMU" :
			    "this machine's PMU offers no top-down events");
		problems += g->nr_missing > 0;
	}
	return problems;
}

int
probe_check_config(struct collector *c, FILE *out, unsigned wait_ms)
{
	struct timespec ts = { wait_ms / 1000,
	    (long)(wait_ms % 1000) * 1000000L };
	size_t i, j;
	int problems = 0;

	collector_enable(c);
	nanosleep(&ts, NULL);
	problems += source_kinds_check_config(&c->kinds, out);
	for (i = 0; i < c->set.nr; i++) {
		struct target *t = c->set.v[i];

		if (!target_is_open(t)) {
			problems += check_unopened(c, t, out);
			continue;
		}
		check_descendants(c, i, out);
		for (j = 0; j < t->nr_groups; j++)
			problems += check_group(c, t, &t->groups[j], out);
	}
	return problems + check_presets(c->ps.cfg, out);
}
