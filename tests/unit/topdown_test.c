/*
 * topdown_test.c - the topdown preset expanded on each CPU family's sysfs
 * and procfs fixture (tests/fixtures/topdown/README.md says where they
 * come from), checked against perf's own data.
 *
 * What each family gets (definition, level, width, events in group
 * order) is the contract written below.  How each event is encoded is
 * not: the expected type, config and config1 come from perf's JSON
 * entries vendored under tests/fixtures/topdown/perf-json (EventCode,
 * UMask, AnyThread, or jevents.py's encoding of the fixed counters),
 * packed into bits by this test's own reading of the fixture's format
 * files, so a wrong encoding in topdown.c cannot agree with itself.
 *
 * One file: one subject, the topdown preset, a case a CPU family; every
 * case reads the same fixtures through the same independent encoder
 * (json_encode, format_mask, add_term: perf's JSON and the sysfs format
 * files read without topdown.c), which a split by family would have to
 * share through a header of the test's own.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "collectors/events/event.h"
#include "collectors/events/pmu.h"
#include "collectors/events/topdown.h"
#include "config/config.h"
#include "tests/lib/check.h"

static const char *
top(void)
{
	const char *t = getenv("top_srcdir");

	return t ? t : ".";
}

/* The fixture PMU's format file for term, as a mask of config bits:
 * read here, not through pmu.c.  0 when absent. */
static unsigned long long
format_mask(const char *fixture, const char *pmu, const char *term,
    int *field)
{
	char path[4096], text[128], *p, *end;
	unsigned long long m = 0;
	unsigned long lo, hi, b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/topdown/%s/sysfs/bus/"
	    "event_source/devices/%s/format/%s", top(), fixture, pmu, term);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(text, sizeof(text), f) == NULL)
		text[0] = '\0';
	fclose(f);
	*field = strncmp(text, "config1:", 8) == 0 ? 1 : 0;
	p = strchr(text, ':');
	for (p = p ? p + 1 : text; *p >= '0' && *p <= '9';) {
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		for (b = lo; b <= hi && b < 64; b++)
			m |= 1ULL << b;
		p = *end == ',' ? end + 1 : end;
	}
	return m;
}

/* value spread over the bits of mask, low to high. */
static unsigned long long
spread(unsigned long long mask, unsigned long long value)
{
	unsigned long long out = 0;
	int bit;

	for (bit = 0; bit < 64; bit++)
		if (mask & (1ULL << bit)) {
			if (value & 1)
				out |= 1ULL << bit;
			value >>= 1;
		}
	return out;
}

static unsigned
pmu_type(const char *fixture, const char *pmu)
{
	char path[4096];
	unsigned t = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/topdown/%s/sysfs/bus/"
	    "event_source/devices/%s/type", top(), fixture, pmu);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%u", &t) != 1)
			t = 0;
		fclose(f);
	}
	return t;
}

static struct json_object *
json_entry(const char *json, const char *name)
{
	static struct json_object *doc;
	static char loaded[64];
	char path[4096];
	size_t i;

	if (strcmp(loaded, json) != 0) {
		json_object_put(doc);
		snprintf(path, sizeof(path), "%s/tests/fixtures/topdown/"
		    "perf-json/%s.json", top(), json);
		doc = json_object_from_file(path);
		snprintf(loaded, sizeof(loaded), "%s", json);
	}
	for (i = 0; doc && i < json_object_array_length(doc); i++) {
		struct json_object *e = json_object_array_get_idx(doc, i), *v;

		if ((json_object_object_get_ex(e, "EventName", &v) &&
		    strcmp(json_object_get_string(v), name) == 0) ||
		    (json_object_object_get_ex(e, "Alias", &v) &&
		    strcmp(json_object_get_string(v), name) == 0))
			return e;
	}
	return NULL;
}

/* Add term=value to cfg[field] through the fixture's format file. */
static int
add_term(const char *fixture, const char *pmu, const char *term,
    unsigned long long value, unsigned long long cfg[2])
{
	int field = 0;
	unsigned long long m = format_mask(fixture, pmu, term, &field);

	if (m == 0)
		return value == 0 ? 0 : -1;
	cfg[field] |= spread(m, value);
	return 0;
}

/*
 * The encoding perf derives from a JSON entry: jevents.py's fixed table
 * where it has one ("Jevents"), else EventCode, UMask, CounterMask,
 * EdgeDetect, Invert and AnyThread as the terms event, umask, cmask,
 * edge, inv and any.
 */
static int
json_encode(const char *fixture, const char *pmu, struct json_object *e,
    unsigned long long cfg[2])
{
	static const struct { const char *key, *term; } keys[] = {
		{ "EventCode", "event" }, { "UMask", "umask" },
		{ "CounterMask", "cmask" }, { "EdgeDetect", "edge" },
		{ "Invert", "inv" }, { "AnyThread", "any" },
	};
	struct json_object *v;
	char terms[256], *t, *save = NULL, *eq;
	size_t i;

	cfg[0] = cfg[1] = 0;
	if (json_object_object_get_ex(e, "Jevents", &v)) {
		snprintf(terms, sizeof(terms), "%s", json_object_get_string(v));
		for (t = strtok_r(terms, ",", &save); t;
		    t = strtok_r(NULL, ",", &save)) {
			if ((eq = strchr(t, '=')) == NULL)
				return -1;
			*eq = '\0';
			if (add_term(fixture, pmu, t, strtoull(eq + 1, NULL, 0),
			    cfg) < 0)
				return -1;
		}
		return 0;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_object_get_ex(e, keys[i].key, &v) &&
		    add_term(fixture, pmu, keys[i].term,
		    strtoull(json_object_get_string(v), NULL, 0), cfg) < 0)
			return -1;
	return 0;
}

/* want.smt: SMT state unknown (no smt/active to read). */
#define SMT_UNKNOWN -2

struct want {
	const char *fixture;
	int smt;			/* -1: the fixture's; SMT_UNKNOWN;
					   else override */
	unsigned long long midr;	/* 0: the fixture's; else override */
	int model;			/* -1: the fixture's; else override */
	const char *pmu;		/* NULL: no core PMU at all */
	const char *definition;		/* NULL: nothing to count */
	int level;
	unsigned slots;
	const char *json;
	const char *events[10];		/* group order: the leader first */
	const char *part2[3];		/* the second group, "td:smt" */
};

#define PM1 "slots", "topdown-retiring", "topdown-bad-spec", \
	"topdown-fe-bound", "topdown-be-bound"
#define PM2 "topdown-heavy-ops", "topdown-br-mispredict", \
	"topdown-fetch-lat", "topdown-mem-bound"
#define AMD "ls_not_halted_cyc", \
	"de_no_dispatch_per_slot.no_ops_from_frontend", \
	"de_no_dispatch_per_slot.backend_stalls", \
	"de_no_dispatch_per_slot.smt_contention", "de_src_op_disp.all", \
	"ex_ret_ops"
#define ARM "CPU_CYCLES", "STALL_SLOT_FRONTEND", "STALL_SLOT_BACKEND", \
	"STALL_SLOT", "OP_RETIRED", "OP_SPEC"
#define SKX "CPU_CLK_UNHALTED.THREAD", "IDQ_UOPS_NOT_DELIVERED.CORE", \
	"UOPS_ISSUED.ANY", "UOPS_RETIRED.RETIRE_SLOTS", \
	"INT_MISC.RECOVERY_CYCLES"
#define SKX_SMT { "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", \
	"CPU_CLK_UNHALTED.REF_XCLK" }

/*
 * intel_gp counts per thread with SMT on and off alike (the _ANY events
 * are exact only summed per core), with SMT on or unknown (unknown is
 * not off: without the pair the rules take a thread's share as 1) its
 * per-thread core clocks' pair in a second group; Neoverse N2 r0p0-r0p2 get the erratum
 * definition, r0p3 and V2 sbsa.json's; Zen 4 ends at model 0xaf.
 */
static const struct want wants[] = {
	{ "icelakex", -1, 0, -1, "cpu", "intel_perf_metrics", 1, 0,
	    "intel_perf_metrics", { PM1 }, { NULL } },
	{ "sapphirerapids", -1, 0, -1, "cpu", "intel_perf_metrics", 2, 0,
	    "intel_perf_metrics", { PM1, PM2 }, { NULL } },
	{ "alderlake", -1, 0, -1, "cpu_atom", "intel_atom", 1, 5, "intel_atom",
	    { "CPU_CLK_UNHALTED.CORE", "TOPDOWN_FE_BOUND.ALL",
	    "TOPDOWN_BE_BOUND.ALL", "TOPDOWN_RETIRING.ALL" }, { NULL } },
	{ "alderlake", -1, 0, -1, "cpu_core", "intel_perf_metrics", 2, 0,
	    "intel_perf_metrics", { PM1, PM2 }, { NULL } },
	{ "skylakex", -1, 0, -1, "cpu", "intel_gp", 1, 4, "intel_gp", { SKX },
	    SKX_SMT },
	{ "skylakex", 1, 0, -1, "cpu", "intel_gp", 1, 4, "intel_gp", { SKX },
	    SKX_SMT },
	{ "skylakex", SMT_UNKNOWN, 0, -1, "cpu", "intel_gp", 1, 4, "intel_gp",
	    { SKX }, SKX_SMT },
	{ "skylakex", 0, 0, -1, "cpu", "intel_gp", 1, 4, "intel_gp", { SKX }, { NULL } },
	{ "zen4", -1, 0, -1, "cpu", "amd_pipeline", 1, 6, "amd_pipeline",
	    { AMD }, { NULL } },
	{ "zen4", -1, 0, 0x61, "cpu", "amd_pipeline", 1, 6, "amd_pipeline",
	    { AMD }, { NULL } },
	{ "zen4", -1, 0, 0xaf, "cpu", "amd_pipeline", 1, 6, "amd_pipeline",
	    { AMD }, { NULL } },
	{ "zen4", -1, 0, 0xb0, "cpu", NULL, 0, 0, NULL, { NULL }, { NULL } },
	{ "zen5", -1, 0, -1, "cpu", "amd_pipeline", 1, 8, "amd_pipeline",
	    { AMD }, { NULL } },
	{ "zen3", -1, 0, -1, "cpu", NULL, 0, 0, NULL, { NULL }, { NULL } },
	{ "neoverse-n2", -1, 0, -1, "armv8_pmuv3_0", "arm_n2_r0p0", 1, 5,
	    "arm_sbsa", { ARM }, { NULL } },
	{ "neoverse-n2", -1, 0x410fd492, -1, "armv8_pmuv3_0", "arm_n2_r0p0",
	    1, 5, "arm_sbsa", { ARM }, { NULL } },
	{ "neoverse-n2", -1, 0x410fd493, -1, "armv8_pmuv3_0", "arm_sbsa", 1,
	    5, "arm_sbsa", { ARM }, { NULL } },
	{ "neoverse-n2", -1, 0x411fd490, -1, "armv8_pmuv3_0", "arm_sbsa", 1,
	    5, "arm_sbsa", { ARM }, { NULL } },
	{ "neoverse-v2", -1, 0, -1, "armv8_pmuv3_0", "arm_sbsa", 1, 8,
	    "arm_sbsa", { ARM }, { NULL } },
	{ "none", -1, 0, -1, NULL, NULL, 0, 0, NULL, { NULL }, { NULL } },
};

static const char yaml[] =
	"groups:\n"
	"  - {name: ipc, events: [task-clock]}\n"
	"  - {name: td, preset: topdown}\n"
	"cpus:\n"
	"  - {cpus: all, groups: [ipc, td]}\n";

struct machine {
	struct pmu_list pmus;
	struct topdown_cpu cpu;
	struct event_ctx ctx;
};

/* The fixture's machine; smt, midr and model override what it says
 * unless -1, 0 and -1 (smt SMT_UNKNOWN: as where smt/active is absent). */
static void
machine_load_as(struct machine *m, const char *fixture, int smt,
    unsigned long long midr, int model)
{
	char sysfs[4096], procfs[4096], err[512];

	snprintf(sysfs, sizeof(sysfs), "%s/tests/fixtures/topdown/%s/sysfs",
	    top(), fixture);
	snprintf(procfs, sizeof(procfs), "%s/tests/fixtures/topdown/%s/procfs",
	    top(), fixture);
	memset(m, 0, sizeof(*m));
	CHECK(pmu_scan(sysfs, &m->pmus, err, sizeof(err)) == 0);
	topdown_cpu_read(sysfs, procfs, &m->cpu);
	if (smt >= 0 || smt == SMT_UNKNOWN)
		m->cpu.smt = smt == SMT_UNKNOWN ? -1 : smt;
	if (midr != 0)
		m->cpu.midr = midr;
	if (model >= 0)
		m->cpu.model = model;
	m->ctx = (struct event_ctx){ &m->pmus, NULL, 1, &m->cpu };
}

static void
machine_load(struct machine *m, const char *fixture, int smt)
{
	machine_load_as(m, fixture, smt, 0, -1);
}

/* The copy of group name on pmu, or NULL. */
static const struct plan_group *
group_on(const struct plan *p, const char *name, const char *pmu)
{
	size_t i;

	for (i = 0; i < p->nr_groups; i++)
		if (strcmp(p->groups[i].name, name) == 0 &&
		    (pmu == NULL ? p->groups[i].pmu == NULL :
		    p->groups[i].pmu && strcmp(p->groups[i].pmu, pmu) == 0))
			return &p->groups[i];
	return NULL;
}

static const struct plan_group *
td_on(const struct plan *p, const char *pmu)
{
	return group_on(p, "td", pmu);
}

/*
 * The events of g are names[] in order, each encoded as perf's JSON
 * entry json says, and the target counts g.
 */
static void
check_events(const struct want *w, const struct plan *p,
    const struct plan_group *g, const char *const *names, size_t max)
{
	unsigned long long cfg[2];
	size_t e, n;
	int counted = 0, t;

	for (n = 0; n < max && names[n]; n++)
		;
	CHECK(g->nr_events == n);
	for (e = 0; e < n && e < g->nr_events; e++) {
		struct json_object *j = json_entry(w->json, names[e]);
		const struct perf_event_attr *a = &g->events[e].perf.attr;

		CHECK_STR(g->events[e].name, names[e]);
		CHECK(j != NULL);
		if (j == NULL)
			continue;
		CHECK(json_encode(w->fixture, w->pmu, j, cfg) == 0);
		CHECK(a->type == pmu_type(w->fixture, w->pmu));
		if (a->config != cfg[0] || a->config1 != cfg[1])
			fprintf(stderr, "%s %s: config 0x%llx config1 0x%llx, "
			    "perf's JSON says 0x%llx 0x%llx\n", w->fixture,
			    names[e], (unsigned long long)a->config,
			    (unsigned long long)a->config1, cfg[0], cfg[1]);
		CHECK(a->config == cfg[0]);
		CHECK(a->config1 == cfg[1]);
		CHECK(a->config2 == 0);
		CHECK(!a->pinned);
	}
	/* The target counts the copy that has events, never one without. */
	for (t = 0; (size_t)t < p->targets[0].nr_groups; t++)
		counted += &p->groups[p->targets[0].groups[t]] == g;
	CHECK(counted == (g->nr_events > 0));
}

static void
check_family(const struct want *w)
{
	struct machine m;
	struct plan *p = NULL;
	const struct plan_group *g, *g2;
	char err[1024];

	machine_load_as(&m, w->fixture, w->smt, w->midr, w->model);
	if (config_parse(&m.ctx, "<td>", yaml, strlen(yaml), &p, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", w->fixture, err);
		CHECK(0);
		pmu_list_free(&m.pmus);
		return;
	}
	g = td_on(p, w->pmu);
	CHECK(g != NULL);
	if (g == NULL)
		goto out;
	fprintf(stderr, "%s smt=%d midr=%#llx model=%#x pmu %s: %s level %d, "
	    "%zu events%s%s\n", w->fixture, m.cpu.smt,
	    (unsigned long long)m.cpu.midr, (unsigned)m.cpu.model, w->pmu ? w->pmu : "none",
	    g->definition ? g->definition : "none", g->level, g->nr_events,
	    g->why ? ": " : "", g->why ? g->why : "");
	CHECK(g->preset && g->hybrid);	/* always the pmu label */
	if (w->definition == NULL) {
		CHECK(g->definition == NULL);
		CHECK(g->nr_events == 0);
		CHECK(g->nr_missing == 1 && strcmp(g->missing[0],
		    "topdown") == 0);
		CHECK(g->why != NULL);
	} else {
		CHECK_STR(g->definition, w->definition);
		CHECK(g->level == w->level);
		CHECK(g->slots_per_cycle == w->slots);
		CHECK(g->nr_missing == 0);
	}
	check_events(w, p, g, w->events, 10);
	/* The SMT pair: its own group, right after the first, named by
	 * the target through "td"; no width of its own. */
	g2 = group_on(p, "td:smt", w->pmu);
	CHECK((g2 != NULL) == (w->part2[0] != NULL));
	if (g2 == NULL)
		goto out;
	CHECK(g2 == g + 1);
	CHECK(g2->preset && g2->hybrid && g2->nr_missing == 0);
	CHECK_STR(g2->definition, w->definition);
	CHECK(g2->level == w->level && g2->slots_per_cycle == 0);
	check_events(w, p, g2, w->part2, 3);
out:
	plan_free(p);
	pmu_list_free(&m.pmus);
}

/*
 * Every event a definition opens is one its recording rules read
 * (contrib/prometheus/pmu_exporter.rules.yml names it beside the
 * definition), but perf-metrics' leader slots, which the kernel requires
 * and the rules divide by through the four level-1 events: a counter
 * held for nothing is a counter taken from the user's other groups.
 */
/* name among the alternatives of a rule's event=~"topdown-(a|b)". */
static int
in_regex(const char *rules, const char *def, const char *name)
{
	char needle[256], alt[128];
	const char *r = rules, *end;

	if (strncmp(name, "topdown-", 8) != 0)
		return 0;
	snprintf(needle, sizeof(needle), "definition=\"%s\",event=~\""
	    "topdown-(", def);
	snprintf(alt, sizeof(alt), "%s", name + 8);
	while ((r = strstr(r, needle)) != NULL) {
		const char *a;

		r += strlen(needle);
		if ((end = strchr(r, ')')) == NULL)
			return 0;
		for (a = r; a < end; a = a + strcspn(a, "|)") + 1)
			if (strncmp(a, alt, strlen(alt)) == 0 &&
			    (a[strlen(alt)] == '|' || a[strlen(alt)] == ')'))
				return 1;
	}
	return 0;
}

static void
check_events_used(const struct want *w)
{
	static char *rules;
	struct machine m;
	struct plan *p = NULL;
	const struct plan_group *g;
	char path[4096], err[1024], needle[256];
	size_t e;

	if (w->definition == NULL)
		return;
	if (rules == NULL) {
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/contrib/prometheus/"
		    "pmu_exporter.rules.yml", top());
		CHECK((f = fopen(path, "r")) != NULL);
		if (f == NULL)
			return;
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		rules = calloc(1, (size_t)n + 1);
		CHECK(rules && fread(rules, 1, (size_t)n, f) == (size_t)n);
		fclose(f);
	}
	machine_load_as(&m, w->fixture, w->smt, w->midr, w->model);
	CHECK(config_parse(&m.ctx, "<td>", yaml, strlen(yaml), &p, err,
	    sizeof(err)) == 0);
	g = p ? td_on(p, w->pmu) : NULL;
again:
	for (e = 0; g && rules && e < g->nr_events; e++) {
		if (strcmp(g->events[e].name, "slots") == 0)
			continue;
		snprintf(needle, sizeof(needle), "definition=\"%s\",event="
		    "\"%s\"", g->definition, g->events[e].name);
		if (strstr(rules, needle) == NULL &&
		    !in_regex(rules, g->definition, g->events[e].name))
			fprintf(stderr, "%s: %s opened, no rule reads it\n",
			    w->fixture, needle);
		CHECK(strstr(rules, needle) != NULL ||
		    in_regex(rules, g->definition, g->events[e].name));
	}
	if (g && strcmp(g->name, "td") == 0 && p) {
		g = group_on(p, "td:smt", w->pmu);
		goto again;
	}
	plan_free(p);
	pmu_list_free(&m.pmus);
}

/* Alder Lake: each core type its own set, its own CPUs. */
static void
check_hybrid_cpus(void)
{
	struct machine m;
	struct plan *p = NULL;
	const struct plan_group *core, *atom;
	char err[1024];

	machine_load(&m, "alderlake", -1);
	CHECK(config_parse(&m.ctx, "<td>", yaml, strlen(yaml), &p, err,
	    sizeof(err)) == 0);
	core = p ? td_on(p, "cpu_core") : NULL;
	atom = p ? td_on(p, "cpu_atom") : NULL;
	CHECK(core && atom);
	if (core && atom) {
		CHECK(core->pmu_cpus && core->cpus.nr == 16 &&
		    core->cpus.cpu[0] == 0);
		CHECK(atom->pmu_cpus && atom->cpus.nr == 8 &&
		    atom->cpus.cpu[0] == 16);
	}
	plan_free(p);
	pmu_list_free(&m.pmus);
}

/* An Arm PMU that hides some events (as QEMU's does) counts the rest
 * and names what it lacks; caps/slots 0 leaves level 0. */
static void
check_arm_partial(void)
{
	struct machine m;
	struct topdown_set s;
	struct pmu *pp;
	size_t i, kept = 0;

	machine_load(&m, "neoverse-n2", -1);
	CHECK(m.cpu.smt == -1);		/* no smt/active: unknown, not off */
	pp = (struct pmu *)pmu_find(&m.pmus, "armv8_pmuv3_0");
	CHECK(pp != NULL);
	if (pp == NULL)
		goto out;
	/* Keep only cpu_cycles and inst_retired, as an emulated PMU. */
	for (i = 0; i < pp->nr_aliases; i++)
		if (strcmp(pp->aliases[i].name, "cpu_cycles") == 0 ||
		    strcmp(pp->aliases[i].name, "inst_retired") == 0)
			pp->aliases[kept++] = pp->aliases[i];
		else {
			free(pp->aliases[i].name);
			free(pp->aliases[i].terms);
			free(pp->aliases[i].unit);
		}
	pp->nr_aliases = kept;
	pp->caps_slots = 0;
	topdown_expand(&m.cpu, pp, &s);
	CHECK_STR(s.definition, "arm_n2_r0p0");	/* its MIDR: r0p0 */
	CHECK(topdown_present(&s) == 1);
	CHECK(s.level == 0);
	CHECK_STR(s.ev[0].name, "CPU_CYCLES");
	CHECK(s.ev[0].present);
	CHECK(!s.ev[1].present);
	CHECK_CONTAINS(s.why, "STALL_SLOT_FRONTEND");
out:
	pmu_list_free(&m.pmus);
}

static void
check_errors(void)
{
	struct machine m;
	struct plan *p = NULL;
	char err[1024];
	static const char unknown[] =
	    "groups:\n  - {name: td, preset: bottomup}\n"
	    "cpus:\n  - {cpus: all, groups: [td]}\n";
	static const char both[] =
	    "groups:\n  - {name: td, preset: topdown, events: [cycles]}\n"
	    "cpus:\n  - {cpus: all, groups: [td]}\n";
	static const char bpf[] =
	    "groups:\n  - {name: td, preset: topdown}\n"
	    "cgroups:\n  - {path: /x, groups: [td], mode: bpf}\n";
	static const char smt_before[] =
	    "groups:\n  - {name: td:smt, events: [cycles]}\n"
	    "  - {name: td, preset: topdown}\n"
	    "cpus:\n  - {cpus: all, groups: [td]}\n";
	static const char smt_after[] =
	    "groups:\n  - {name: td, preset: topdown}\n"
	    "  - {name: td:smt, events: [cycles]}\n"
	    "cpus:\n  - {cpus: all, groups: [td]}\n";

	machine_load(&m, "icelakex", -1);
	CHECK(config_parse(&m.ctx, "t.yaml", unknown, strlen(unknown), &p,
	    err, sizeof(err)) == -EINVAL);
	CHECK_CONTAINS(err, "t.yaml:2:");
	CHECK_CONTAINS(err, "unknown preset \"bottomup\"");
	CHECK(config_parse(&m.ctx, "t.yaml", both, strlen(both), &p,
	    err, sizeof(err)) == -EINVAL);
	CHECK_CONTAINS(err, "has a preset and events");
	CHECK(config_parse(&m.ctx, "t.yaml", bpf, strlen(bpf), &p,
	    err, sizeof(err)) == -EINVAL);
	CHECK_CONTAINS(err, "t.yaml:4:");
	CHECK_CONTAINS(err, "mode: bpf");
	pmu_list_free(&m.pmus);

	/* The SMT pair's group name is taken, before and after. */
	machine_load(&m, "skylakex", 1);
	CHECK(config_parse(&m.ctx, "t.yaml", smt_before, strlen(smt_before),
	    &p, err, sizeof(err)) == -EINVAL);
	CHECK_CONTAINS(err, "t.yaml:3:");
	CHECK_CONTAINS(err, "\"td:smt\" is the name of this preset's second "
	    "group on cpu");
	CHECK(config_parse(&m.ctx, "t.yaml", smt_after, strlen(smt_after),
	    &p, err, sizeof(err)) == -EINVAL);
	CHECK_CONTAINS(err, "t.yaml:3:");
	CHECK_CONTAINS(err, "duplicate group name \"td:smt\"");
	pmu_list_free(&m.pmus);
}

/*
 * How many targets of kind k count group g (a copy in the plan), and
 * whether any counts a group led by slots besides g.
 */
static size_t
counted_by(const struct plan *p, const struct plan_group *g,
    enum plan_target_kind k)
{
	size_t t, j, n = 0;

	for (t = 0; t < p->nr_targets; t++)
		for (j = 0; p->targets[t].kind == k &&
		    j < p->targets[t].nr_groups; j++)
			n += &p->groups[p->targets[t].groups[j]] == g;
	return n;
}

/*
 * The embedded default opens the preset only on perf-metrics PMUs, and
 * only per CPU: fixed counter 3 and PERF_METRICS serve one slots-led
 * group per CPU at a time, so a per-cgroup copy beside the per-CPU one
 * would multiplex with it (docs/topdown.md, "perf-metrics: one group per
 * CPU at a time").
 * Nowhere does it open intel_gp's SMT pair.
 */
static void
check_default(void)
{
	static const struct { const char *fixture, *pmu; size_t nr; } d[] = {
		{ "sapphirerapids", "cpu", 9 },
		{ "alderlake", "cpu_core", 9 },
		{ "alderlake", "cpu_atom", 0 },
		{ "skylakex", "cpu", 0 },
		{ "zen4", "cpu", 0 },
		{ "neoverse-n2", "armv8_pmuv3_0", 0 },
	};
	struct machine m;
	struct plan *p;
	const struct plan_group *g;
	char err[1024];
	size_t i;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		p = NULL;
		machine_load(&m, d[i].fixture, -1);
		CHECK(config_parse(&m.ctx, "<default>", config_default_yaml,
		    strlen(config_default_yaml), &p, err, sizeof(err)) == 0);
		g = p ? td_on(p, d[i].pmu) : NULL;
		CHECK(g != NULL);
		if (g) {
			CHECK(g->nr_events == d[i].nr);
			CHECK(g->nr_missing == 0);	/* silent elsewhere */
			if (d[i].nr)
				CHECK_STR(g->events[0].name, "slots");
			CHECK(counted_by(p, g, PLAN_TARGET_CPU) ==
			    (d[i].nr > 0));
			CHECK(counted_by(p, g, PLAN_TARGET_CGROUP) == 0);
		}
		CHECK(p && p->nr_targets > 2);	/* the layouts are there */
		CHECK(p == NULL || group_on(p, "td:smt", d[i].pmu) == NULL);
		plan_free(p);
		pmu_list_free(&m.pmus);
	}
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		check_family(&wants[i]);
		check_events_used(&wants[i]);
	}
	check_hybrid_cpus();
	check_arm_partial();
	check_errors();
	check_default();
	return CHECK_DONE();
}
