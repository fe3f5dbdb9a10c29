/*
 * event_sys.c - loading the event context and printing what it offers
 * (event_sys.h).
 * Design: docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectors/events/event_pfm.h"
#include "collectors/events/event_sys.h"
#include "collectors/events/tracefs.h"

int
event_sys_load(struct event_sys *es, const char *sysfs, const char *mountinfo,
    char *warn, size_t warnlen)
{
	char pmu_err[1024] = "";
	int r;

	memset(es, 0, sizeof(*es));
	if (warnlen)
		warn[0] = '\0';
	r = pmu_scan(sysfs, &es->pmus, pmu_err, sizeof(pmu_err));
	if (r == -ENOMEM)
		return r;
	if (r < 0 && pmu_err[0] == '\0')
		snprintf(pmu_err, sizeof(pmu_err), "%s/bus/event_source/devices: %s",
		    sysfs, strerror(-r));
	if (tracefs_find(mountinfo, es->tracefs, sizeof(es->tracefs)) < 0)
		es->tracefs[0] = '\0';
	if (pmu_err[0])
		snprintf(warn, warnlen, "%s; only generic event names work",
		    pmu_err);
	es->ctx.pmus = &es->pmus;
	es->ctx.tracefs = es->tracefs[0] ? es->tracefs : NULL;
	return 0;
}

void
event_sys_identify(struct event_sys *es, const char *sysfs,
    const char *procfs)
{
	topdown_cpu_read(sysfs, procfs, &es->cpu);
	es->ctx.cpu = &es->cpu;
}

void
event_sys_free(struct event_sys *es)
{
	if (es == NULL)
		return;
	pmu_list_free(&es->pmus);
	memset(es, 0, sizeof(*es));
}

static void
print_line(const char *line, void *arg)
{
	fprintf(arg, "  %s\n", line);
}

static void
print_subsystem(const char *name, void *arg)
{
	fprintf(arg, "  %s:*\n", name);
}

static const char *
pmu_cpus(const struct pmu *p, char *buf, size_t len)
{
	if (p->cpus_from == PMU_CPUS_ALL)
		return "all";
	return cpumap_format(&p->cpus, buf, len);
}

void
event_sys_list(const struct event_sys *es, FILE *out)
{
	const char *name;
	unsigned type;
	char buf[128], cpus[256];
	size_t i, j;

	fprintf(out, "generic hardware events (on the core PMU%s):\n",
	    pmu_core_count(&es->pmus) > 1 ? "s: one series per PMU" : "");
	for (i = 0; (name = event_name_at(i, &type, NULL)); i++)
		if (type == PERF_TYPE_HARDWARE)
			fprintf(out, "  %s\n", name);
	fprintf(out, "\nhw-cache events:\n");
	for (i = 0; event_hwcache_name_at(i, buf, sizeof(buf)); i++)
		fprintf(out, "  %s\n", buf);
	fprintf(out, "\nsoftware events:\n");
	for (i = 0; (name = event_name_at(i, &type, NULL)); i++)
		if (type == PERF_TYPE_SOFTWARE)
			fprintf(out, "  %s\n", name);
	fprintf(out, "\nraw events:\n  rNNNN (hex config on the core PMU)\n");
	for (i = 0; i < es->pmus.nr; i++) {
		const struct pmu *p = &es->pmus.pmu[i];

		fprintf(out, "\nPMU %s (type %u, CPUs %s%s%s):\n", p->name,
		    p->type, pmu_cpus(p, cpus, sizeof(cpus)),
		    p->core ? ", core" : "", pmu_is_uncore(p) ? ", uncore" : "");
		if (p->nr_formats) {
			fprintf(out, "  terms:");
			for (j = 0; j < p->nr_formats; j++)
				fprintf(out, " %s", p->formats[j].name);
			fprintf(out, "\n");
		}
		for (j = 0; j < p->nr_aliases; j++) {
			const struct pmu_alias *a = &p->aliases[j];

			fprintf(out, "  %s/%s/", p->name, a->name);
			if (a->unit)
				fprintf(out, " [%s]", a->unit);
			fprintf(out, "\n");
		}
	}
	fprintf(out, "\ntracepoints (subsystem:name):\n");
	if (es->tracefs[0] == '\0' ||
	    tracefs_subsystems(es->tracefs, print_subsystem, out) < 0)
		fprintf(out, "  none: tracefs is not mounted\n");
	if (event_pfm_available()) {
		fprintf(out, "\nlibpfm4 PMUs (upper-case EVENT:UMASK names):\n");
		event_pfm_list(print_line, out);
	}
}

/*
 * --resolve-event preset:topdown: per core PMU, the definition and each
 * event with its encoding, in group order (the first leads; a second
 * group, as intel_gp's SMT pair, is led by its first), or why the PMU
 * has none.
 */
static int
resolve_topdown(const struct event_sys *es, FILE *out, char *err,
    size_t errlen)
{
	struct event ev[EVENT_MAX_VARIANTS];
	struct topdown_set set;
	size_t i, j, cores = 0;
	int r;

	for (i = 0; i < es->pmus.nr; i++) {
		const struct pmu *p = &es->pmus.pmu[i];

		if (!p->core)
			continue;
		topdown_expand(es->ctx.cpu, p, &set);
		fprintf(out, "%spmu=%s\ndefinition=%s\nlevel=%d\n"
		    "slots_per_cycle=%u\n", cores++ ? "\n" : "", p->name,
		    set.definition && topdown_present(&set) ? set.definition :
		    "none", set.level, set.slots_per_cycle);
		if (set.why[0])
			fprintf(out, "why=%s\n", set.why);
		for (j = 0; j < set.nr; j++) {
			if (!set.ev[j].present) {
				fprintf(out, "event=%s missing\n",
				    set.ev[j].name);
				continue;
			}
			if ((r = event_parse(&es->ctx, set.ev[j].spec, ev,
			    EVENT_MAX_VARIANTS, err, errlen)) < 0)
				return r;
			fprintf(out, "event=%s %s type=%u config=0x%llx "
			    "config1=0x%llx%s\n", set.ev[j].name,
			    set.ev[j].spec, ev[0].attr.type,
			    (unsigned long long)ev[0].attr.config,
			    (unsigned long long)ev[0].attr.config1,
			    j == 0 ? " leader" : set.ev[j].part !=
			    set.ev[j - 1].part ? " leader (second group)" :
			    "");
		}
	}
	if (cores == 0)
		fprintf(out, "pmu=none\ndefinition=none\nwhy=no core PMU "
		    "under sysfs: this machine's PMU offers no top-down "
		    "events\n");
	return 0;
}

int
event_sys_resolve(const struct event_sys *es, const char *s, FILE *out,
    char *err, size_t errlen)
{
	struct event ev[EVENT_MAX_VARIANTS];
	char cpus[1024];
	int n, i;

	if (strcmp(s, "preset:topdown") == 0)
		return resolve_topdown(es, out, err, errlen);
	if ((n = event_parse(&es->ctx, s, ev, EVENT_MAX_VARIANTS, err,
	    errlen)) < 0)
		return n;
	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a = &ev[i].attr;

		if (i)
			fprintf(out, "\n");
		fprintf(out, "pmu=%s\ntype=%u\nconfig=0x%llx\nconfig1=0x%llx\n"
		    "config2=0x%llx\nexclude_user=%u\nexclude_kernel=%u\n"
		    "exclude_hv=%u\nexclude_host=%u\nexclude_guest=%u\n"
		    "pinned=%u\nscale=%.17g\nunit=%s\ncpus=%s\n", ev[i].pmu,
		    a->type, (unsigned long long)a->config,
		    (unsigned long long)a->config1,
		    (unsigned long long)a->config2, (unsigned)a->exclude_user,
		    (unsigned)a->exclude_kernel, (unsigned)a->exclude_hv,
		    (unsigned)a->exclude_host, (unsigned)a->exclude_guest,
		    (unsigned)a->pinned, ev[i].scale, ev[i].unit,
		    ev[i].p ? pmu_cpus(ev[i].p, cpus, sizeof(cpus)) : "all");
	}
	return 0;
}
