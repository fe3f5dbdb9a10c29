/*
 * topdown.c - the topdown preset's definitions (topdown.h): per definition a
 * table of perf's event names and encodings, the leader first.
 * Design: docs/topdown.md, "What the preset opens, per CPU family".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events/topdown.h"
#include "util/text.h"

/* One event of a definition: perf's name, the alias or terms. */
struct td_def {
	const char *name;
	const char *terms;	/* "event=0x9c,umask=0x1", or an alias */
	int level;		/* 1: level 1 needs it; 2: level 2 does;
				   0: neither (a finer split) */
};

/*
 * Intel perf-metrics: the kernel's aliases (arch/x86/events/intel/
 * core.c); tools/perf/Documentation/topdown.txt: slots leads, the metric
 * events follow in one group, read together.
 */
static const struct td_def intel_perf_metrics[] = {
	{ "slots", "slots", 1 },
	{ "topdown-retiring", "topdown-retiring", 1 },
	{ "topdown-bad-spec", "topdown-bad-spec", 1 },
	{ "topdown-fe-bound", "topdown-fe-bound", 1 },
	{ "topdown-be-bound", "topdown-be-bound", 1 },
	{ "topdown-heavy-ops", "topdown-heavy-ops", 2 },
	{ "topdown-br-mispredict", "topdown-br-mispredict", 2 },
	{ "topdown-fetch-lat", "topdown-fetch-lat", 2 },
	{ "topdown-mem-bound", "topdown-mem-bound", 2 },
};

/*
 * Skylake family, x86/skylakex/pipeline.json and frontend.json; the
 * fixed-counter cycles as perf's jevents.py encodes them.  Per thread,
 * whether SMT is on or off: skx-metrics.json halves the core-wide _ANY
 * events only when both siblings' counts are summed per core
 * (#core_wide), which neither a cgroup's counts nor one CPU's are.
 */
static const struct td_def intel_gp[] = {
	{ "CPU_CLK_UNHALTED.THREAD", "event=0x3c", 1 },
	{ "IDQ_UOPS_NOT_DELIVERED.CORE", "event=0x9c,umask=0x1", 1 },
	{ "UOPS_ISSUED.ANY", "event=0xe,umask=0x1", 1 },
	{ "UOPS_RETIRED.RETIRE_SLOTS", "event=0xc2,umask=0x2", 1 },
	{ "INT_MISC.RECOVERY_CYCLES", "event=0xd,umask=0x1", 1 },
};

/*
 * With SMT on, skx-metrics.json's per-thread core clocks are THREAD / 2
 * * (1 + ONE_THREAD_ACTIVE / REF_XCLK): the share of the core's slots a
 * thread had, all of them while its sibling was halted, half while both
 * ran.  The two crystal-clock events take two general-purpose counters
 * of the four a thread has with SMT on, all of which the group above
 * holds, so they are a second group of their own, which the kernel
 * rotates with the first; their ratio is the same scaled or not, and is
 * that of the time the pair counted.  Opened unless SMT is known off
 * (then ONE_THREAD_ACTIVE = REF_XCLK, and the rules take the ratio 1).
 */
static const struct td_def intel_gp_smt[] = {
	{ "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "event=0x3c,umask=0x2", 1 },
	{ "CPU_CLK_UNHALTED.REF_XCLK", "event=0x3c,umask=0x1", 1 },
};

/* Gracemont, x86/alderlake/pipeline.json (Unit cpu_atom); its metrics
 * take bad speculation as what the other three leave of 5 slots. */
static const struct td_def intel_atom[] = {
	{ "CPU_CLK_UNHALTED.CORE", "event=0x3c", 1 },
	{ "TOPDOWN_FE_BOUND.ALL", "event=0x71", 1 },
	{ "TOPDOWN_BE_BOUND.ALL", "event=0x74", 1 },
	{ "TOPDOWN_RETIRING.ALL", "event=0xc2", 1 },
};

/* Zen 4 and Zen 5, x86/amdzen{4,5}/pipeline.json's PipelineL1 and the
 * events it names (core/other.json, load-store/execution/decode.json). */
static const struct td_def amd_pipeline[] = {
	{ "ls_not_halted_cyc", "event=0x76", 1 },
	{ "de_no_dispatch_per_slot.no_ops_from_frontend",
	    "event=0x1a0,umask=0x1", 1 },
	{ "de_no_dispatch_per_slot.backend_stalls",
	    "event=0x1a0,umask=0x1e", 1 },
	{ "de_no_dispatch_per_slot.smt_contention",
	    "event=0x1a0,umask=0x60", 1 },
	{ "de_src_op_disp.all", "event=0xaa,umask=0x7", 1 },
	{ "ex_ret_ops", "event=0xc1", 1 },
};

/* Arm, arm64/sbsa.json's TopdownL1 over the PMUv3 common events (the
 * kernel's aliases, drivers/perf/arm_pmuv3.c).  No rule of sbsa.json or
 * of the Neoverse files splits bad speculation by BR_MIS_PRED at level
 * 1, so it is not opened: a counter left for the user's other groups. */
static const struct td_def arm_sbsa[] = {
	{ "CPU_CYCLES", "cpu_cycles", 1 },
	{ "STALL_SLOT_FRONTEND", "stall_slot_frontend", 1 },
	{ "STALL_SLOT_BACKEND", "stall_slot_backend", 1 },
	{ "STALL_SLOT", "stall_slot", 1 },
	{ "OP_RETIRED", "op_retired", 1 },
	{ "OP_SPEC", "op_spec", 1 },
};

/*
 * Neoverse N2 r0p0 to r0p2 (MIDR 0x410fd490-0x410fd492) count one slot
 * too many per cycle in STALL_SLOT and STALL_SLOT_FRONTEND: perf's
 * arm64/arm/neoverse-n2-v2/metrics.json subtracts cpu_cycles from both
 * there (first keyed on #slots == 5, later narrowed to these MIDRs, as
 * r0p3 is fixed).  The same events, another definition, so the rules
 * can tell.
 */
static int
is_n2_r0p0(uint64_t midr)
{
	return (midr & 0xff0ffff0) == 0x410fd490 &&	/* Arm, N2, r0 */
	    (midr & 0x00f00000) == 0 && (midr & 0xf) < 3;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int
has_alias(const struct pmu *p, const char *name)
{
	return pmu_find_alias(p, name, strlen(name)) != NULL;
}

/*
 * Fill out from a table.  aliases: the terms name sysfs aliases, and an
 * event whose alias is absent is missing; skip_absent2: a level-2 event
 * whose alias is absent is left out rather than missing (sysfs decides
 * whether this PMU has level 2 at all).
 */
static void
fill(struct topdown_set *out, const struct pmu *p, const char *definition,
    const struct td_def *d, size_t n, int aliases, int skip_absent2)
{
	size_t i, k = 0, len = 0, n2 = 0;
	int l1 = 1, l2 = 1;

	out->definition = definition;
	for (i = 0; i < n && out->nr < TOPDOWN_MAX_EVENTS; i++) {
		struct topdown_event *e = &out->ev[out->nr];
		int present = !aliases || has_alias(p, d[i].terms);

		if (!present && d[i].level == 2 && skip_absent2)
			continue;
		n2 += d[i].level == 2;
		e->name = d[i].name;
		e->present = present;
		snprintf(e->spec, sizeof(e->spec), "%s/%s/", p->name,
		    d[i].terms);
		out->nr++;
		if (present)
			continue;
		if (d[i].level == 1)
			l1 = 0;
		else if (d[i].level == 2)
			l2 = 0;
		if (len < sizeof(out->why))
			len += (size_t)snprintf(out->why + len,
			    sizeof(out->why) - len, "%s%s", k++ ? ", " : "",
			    d[i].name);
	}
	out->level = l1 ? (n2 && l2 ? 2 : 1) : 0;
	if (k && len < sizeof(out->why))
		snprintf(out->why + len, sizeof(out->why) - len, ": not in %s's "
		    "sysfs events, so this PMU cannot count %s", p->name,
		    k == 1 ? "it" : "them");
}

/* Add table d, encodings not aliases, as part part of the set. */
static void
append(struct topdown_set *out, const struct pmu *p, const struct td_def *d,
    size_t n, int part)
{
	size_t i;

	for (i = 0; i < n && out->nr < TOPDOWN_MAX_EVENTS; i++) {
		struct topdown_event *e = &out->ev[out->nr++];

		e->name = d[i].name;
		e->present = 1;
		e->part = part;
		snprintf(e->spec, sizeof(e->spec), "%s/%s/", p->name,
		    d[i].terms);
	}
}

static int
is_vendor(const struct topdown_cpu *cpu, const char *v)
{
	return cpu && strcmp(cpu->vendor, v) == 0;
}

void
topdown_expand(const struct topdown_cpu *cpu, const struct pmu *p,
    struct topdown_set *out)
{
	const char *pn = p->caps_pmu_name ? p->caps_pmu_name : "";

	memset(out, 0, sizeof(*out));
	/* The kernel publishes slots only where perf-metrics exist. */
	if (has_alias(p, "slots") && has_alias(p, "topdown-retiring")) {
		fill(out, p, "intel_perf_metrics", intel_perf_metrics,
		    NELEM(intel_perf_metrics), 1, 1);
		return;
	}
	if (strcmp(p->name, "cpu_atom") == 0 || strcmp(pn, "gracemont") == 0) {
		if (strcmp(pn, "alderlake_hybrid") == 0 ||
		    strcmp(pn, "gracemont") == 0) {
			fill(out, p, "intel_atom", intel_atom,
			    NELEM(intel_atom), 0, 0);
			out->slots_per_cycle = 5;
			return;
		}
		snprintf(out->why, sizeof(out->why), "%s (caps/pmu_name "
		    "\"%s\"): the preset knows the E-core events of Gracemont "
		    "(alderlake_hybrid) only", p->name, pn);
		return;
	}
	if (strncmp(p->name, "armv8_", 6) == 0 ||
	    strncmp(p->name, "armv9_", 6) == 0) {
		fill(out, p, cpu && is_n2_r0p0(cpu->midr) ? "arm_n2_r0p0" :
		    "arm_sbsa", arm_sbsa, NELEM(arm_sbsa), 1, 0);
		out->slots_per_cycle = p->caps_slots;
		if (p->caps_slots == 0 && out->level > 0) {
			out->level = 0;
			snprintf(out->why, sizeof(out->why), "%s: caps/slots "
			    "is 0 or absent, and sbsa.json's formulas divide by "
			    "it", p->name);
		}
		return;
	}
	if (is_vendor(cpu, "GenuineIntel") && strcmp(pn, "skylake") == 0) {
		fill(out, p, "intel_gp", intel_gp, NELEM(intel_gp), 0, 0);
		out->slots_per_cycle = 4;
		if (cpu->smt != 0)
			append(out, p, intel_gp_smt, NELEM(intel_gp_smt), 1);
		return;
	}
	if (is_vendor(cpu, "AuthenticAMD") && strcmp(p->name, "cpu") == 0) {
		/*
		 * perf's mapfile.csv names Zen 3 by model (family 25, models
		 * 0-f and 20-5f) and takes the rest of family 25 as Zen 4
		 * with a catch-all; the models AMD has shipped as Zen 4 are
		 * 10-1f and 60-af, and nothing above is known to be Zen 4.
		 */
		int zen4 = cpu->family == 0x19 && ((cpu->model >= 0x10 &&
		    cpu->model < 0x20) || (cpu->model >= 0x60 &&
		    cpu->model <= 0xaf));

		if (zen4 || cpu->family == 0x1a) {
			fill(out, p, "amd_pipeline", amd_pipeline,
			    NELEM(amd_pipeline), 0, 0);
			out->slots_per_cycle = zen4 ? 6 : 8;
			return;
		}
		snprintf(out->why, sizeof(out->why), "AMD family %#x model "
		    "%#x: perf's PipelineL1 exists for Zen 4 (family 0x19, models "
		    "0x10-0x1f and 0x60-0xaf) and Zen 5 (family 0x1a) only", (unsigned)cpu->family,
		    (unsigned)cpu->model);
		return;
	}
	if (is_vendor(cpu, "GenuineIntel"))
		snprintf(out->why, sizeof(out->why), "%s (caps/pmu_name \"%s\"): "
		    "no slots alias (perf-metrics) and not a Skylake-family core",
		    p->name, pn);
	else
		snprintf(out->why, sizeof(out->why), "%s: no top-down "
		    "definition for this PMU (vendor \"%s\")", p->name,
		    cpu && cpu->vendor[0] ? cpu->vendor : "unknown");
}

size_t
topdown_present(const struct topdown_set *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		n += s->ev[i].present;
	return n;
}

/* "key<tabs>: value" lines of /proc/cpuinfo; the first processor wins.
 * Read at start-up: only a regular file, never waited on (a FIFO). */
static void
read_cpuinfo(const char *procfs, struct topdown_cpu *out)
{
	char path[4096], line[512], *colon, *v, *end;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/cpuinfo", procfs);
	if ((f = text_open_regular(path)) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '\n' && out->vendor[0])
			break;
		if ((colon = strchr(line, ':')) == NULL)
			continue;
		v = colon + 1;
		while (*v == ' ')
			v++;
		v[strcspn(v, "\n")] = '\0';
		while (colon > line && (colon[-1] == ' ' || colon[-1] == '\t'))
			colon--;
		*colon = '\0';
		n = strtol(v, &end, 10);
		if (strcmp(line, "vendor_id") == 0)
			snprintf(out->vendor, sizeof(out->vendor), "%s", v);
		else if (strcmp(line, "cpu family") == 0 && end != v)
			out->family = (int)n;
		else if (strcmp(line, "model") == 0 && end != v)
			out->model = (int)n;
	}
	fclose(f);
}

void
topdown_cpu_read(const char *sysfs, const char *procfs,
    struct topdown_cpu *out)
{
	char path[4096], text[64], *end;
	unsigned long long v;

	memset(out, 0, sizeof(*out));
	out->family = out->model = out->smt = -1;
	if (procfs)
		read_cpuinfo(procfs, out);
	if (sysfs == NULL)
		return;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/smt/active",
	    sysfs);
	if (text_read_small(path, text, sizeof(text)) == 0 &&
	    (strcmp(text, "0") == 0 || strcmp(text, "1") == 0))
		out->smt = text[0] - '0';
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/regs/"
	    "identification/midr_el1", sysfs);
	if (text_read_small(path, text, sizeof(text)) == 0) {
		v = strtoull(text, &end, 0);
		if (end != text && *end == '\0')
			out->midr = v;
	}
}
