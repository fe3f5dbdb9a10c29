/*
 * event_test.c - event strings to perf attrs: perf's generic, hw-cache and
 * raw names, its modifier rules, PMU term syntax decoded from the fixture
 * sysfs trees (AMD-like cpu PMU, Intel hybrid with uncore, arm64
 * big.LITTLE, RAPL), tracepoints from a fixture tracefs, and errors that
 * point inside the string.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collectors/events/event.h"
#include "collectors/events/event_pfm.h"
#include "collectors/events/pmu.h"
#include "collectors/events/tracefs.h"
#include "tests/lib/check.h"
#include "util/text.h"

static struct event ev[EVENT_MAX_VARIANTS];
static struct perf_event_attr a;
static char err[1024];
static struct event_ctx *cur;

static int
parse(const char *s)
{
	int r;

	err[0] = '\0';
	r = event_parse(cur, s, ev, EVENT_MAX_VARIANTS, err, sizeof(err));
	if (r > 0)
		a = ev[0].attr;
	return r;
}

static const char *
fixture(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top ? top : ".",
	    name);
	return path;
}

static void
load(const char *name, struct pmu_list *l, struct event_ctx *ctx)
{
	char perr[512];

	CHECK(pmu_scan(fixture(name), l, perr, sizeof(perr)) == 0);
	CHECK_STR(perr, "");
	ctx->pmus = l;
	ctx->tracefs = NULL;
	ctx->no_pfm = 0;
	cur = ctx;
}

#define EXCL(u, k, h, H, G) (a.exclude_user == (u) && \
	a.exclude_kernel == (k) && a.exclude_hv == (h) && \
	a.exclude_host == (H) && a.exclude_guest == (G))

static void
test_generic(void)
{
	static const struct { const char *name; unsigned type; unsigned long long config; } ok[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
		{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
		{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	};
	size_t i;

	cur = NULL;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK(parse(ok[i].name) == 1);
		CHECK(a.type == ok[i].type && a.config == ok[i].config);
		/* perf's default with no modifier: the guest is excluded. */
		CHECK(EXCL(0, 0, 0, 0, 1));
		CHECK(a.size == sizeof(a));
	}
	CHECK(ev[0].kind == EVENT_SOFTWARE);
	CHECK_STR(ev[0].pmu, "software");
	CHECK(parse("cycles") == 1 && ev[0].kind == EVENT_GENERIC);
	CHECK_STR(ev[0].pmu, "cpu");
}

static void
test_modifiers(void)
{
	cur = NULL;
	/* Exactly what perf 6.1 prints with perf stat -vv for cpu-clock:X. */
	CHECK(parse("cycles:u") == 1 && EXCL(0, 1, 1, 0, 1));
	CHECK(parse("instructions:k") == 1 && EXCL(1, 0, 1, 0, 0));
	CHECK(parse("cpu-clock:h") == 1 && EXCL(1, 1, 0, 0, 0));
	CHECK(parse("instructions:uk") == 1 && EXCL(0, 0, 1, 0, 1));
	CHECK(parse("instructions:ku") == 1 && EXCL(0, 0, 1, 0, 1));
	CHECK(parse("cpu-clock:ukh") == 1 && EXCL(0, 0, 0, 0, 1));
	CHECK(parse("cpu-clock:G") == 1 && EXCL(0, 0, 0, 1, 0));
	CHECK(parse("cpu-clock:H") == 1 && EXCL(0, 0, 0, 0, 1));
	CHECK(parse("cpu-clock:GH") == 1 && EXCL(0, 0, 0, 0, 0));
	CHECK(parse("cpu-clock:uG") == 1 && EXCL(0, 1, 1, 1, 0));
	CHECK(parse("cpu-clock:Gu") == 1 && EXCL(0, 1, 1, 1, 0));
	CHECK(parse("cpu-clock:kH") == 1 && EXCL(1, 0, 1, 0, 1));
	CHECK(parse("cpu-clock:D") == 1 && a.pinned && EXCL(0, 0, 0, 0, 0));
	CHECK(parse("cpu-clock") == 1 && !a.pinned);

	CHECK(parse("cycles:x") == -EINVAL);
	CHECK_STR(err, "event \"cycles:x\": unknown modifier 'x' (column 8; "
	    "expected u, k, h, G, H or D)");
	CHECK(parse("cycles:uu") == -EINVAL);
	CHECK_CONTAINS(err, "modifier 'u' given twice (column 9)");
	CHECK(parse("cycles:") == -EINVAL);
	CHECK_CONTAINS(err, "empty modifier");
	CHECK(parse("") == -EINVAL);
	CHECK(parse(":u") == -EINVAL);
	CHECK(parse("cycles:\x01") == -EINVAL);
}

static void
test_hwcache_raw(void)
{
	char buf[64];
	size_t i;

	cur = NULL;
#define HWC(t, op, res) ((unsigned long long)(t) | ((op) << 8) | ((res) << 16))
	CHECK(parse("L1-dcache-loads") == 1 && a.type == PERF_TYPE_HW_CACHE &&
	    a.config == HWC(0, 0, 0));
	CHECK(parse("L1-dcache-load-misses") == 1 && a.config == HWC(0, 0, 1));
	CHECK(parse("L1-icache-load-misses") == 1 && a.config == HWC(1, 0, 1));
	CHECK(parse("LLC-loads") == 1 && a.config == HWC(2, 0, 0));
	CHECK(parse("LLC-load-misses") == 1 && a.config == HWC(2, 0, 1));
	CHECK(parse("LLC-store-misses:u") == 1 && a.config == HWC(2, 1, 1) &&
	    EXCL(0, 1, 1, 0, 1));
	CHECK(parse("dTLB-load-misses") == 1 && a.config == HWC(3, 0, 1));
	CHECK(parse("iTLB-load-misses") == 1 && a.config == HWC(4, 0, 1));
	CHECK(parse("branch-loads") == 1 && a.config == HWC(5, 0, 0));
	CHECK(parse("branch-load-misses") == 1 && a.config == HWC(5, 0, 1));
	CHECK(parse("node-loads") == 1 && a.config == HWC(6, 0, 0));
	CHECK(parse("node-prefetch-misses") == 1 && a.config == HWC(6, 2, 1));
	/* perf's aliases, and its defaults (read, access). */
	CHECK(parse("l1d-read-miss") == 1 && a.config == HWC(0, 0, 1));
	CHECK(parse("L1-data-misses") == 1 && a.config == HWC(0, 0, 1));
	CHECK(parse("L2-speculative-read") == 1 && a.config == HWC(2, 2, 0));
	CHECK(parse("Data-TLB-stores") == 1 && a.config == HWC(3, 1, 0));
	CHECK(parse("Instruction-TLB") == 1 && a.config == HWC(4, 0, 0));
	CHECK(parse("bpu-misses") == 1 && a.config == HWC(5, 0, 1));
	CHECK(parse("dTLB-misses-loads") == 1 && a.config == HWC(3, 0, 1));
	/* branches and branch-misses stay the generic events, as in perf. */
	CHECK(parse("branches") == 1 && a.type == PERF_TYPE_HARDWARE);
	CHECK(parse("iTLB-stores") == -EINVAL);
	CHECK_STR(err, "event \"iTLB-stores\": the iTLB cache has no store "
	    "events");
	CHECK(parse("L1-icache-store-misses") == -EINVAL);
	CHECK(parse("LLC-loads-stores") == -EINVAL);
	for (i = 0; event_hwcache_name_at(i, buf, sizeof(buf)); i++)
		CHECK(parse(buf) == 1 && a.type == PERF_TYPE_HW_CACHE);
	CHECK(i == 32);
#undef HWC

	CHECK(parse("r1a8") == 1 && a.type == PERF_TYPE_RAW && a.config == 0x1a8);
	CHECK(parse("rC0:k") == 1 && a.config == 0xc0 && EXCL(1, 0, 1, 0, 0));
	CHECK(parse("rffffffffffffffff") == 1 && a.config == ~0ULL);
	CHECK(parse("r1ffffffffffffffff") == -EINVAL);
	CHECK(parse("rxyz") == -EINVAL);
	CHECK(parse("ref-cycles") == 1 && a.type == PERF_TYPE_HARDWARE);
}

static void
test_amd(void)
{
	struct pmu_list l;
	struct event_ctx ctx;
	const struct pmu *p;

	load("sysfs-amd", &l, &ctx);
	CHECK(l.nr == 5);
	p = pmu_find(&l, "cpu");
	CHECK(p && p->type == 4 && p->core && p->cpus_from == PMU_CPUS_ALL);
	CHECK(p && p->nr_formats == 5 && p->nr_aliases == 6);
	CHECK(pmu_core_count(&l) == 1);

	/* A split format: event is config:0-7,32-35. */
	CHECK(parse("cpu/event=0x1c0,umask=0x2/") == 1);
	CHECK(a.type == 4 && a.config == (0xc0ULL | 0x200 | (1ULL << 32)));
	CHECK(EXCL(0, 0, 0, 0, 1));
	CHECK(ev[0].kind == EVENT_PMU && ev[0].p == p);
	CHECK(parse("cpu/event=0xfff/") == 1 &&
	    a.config == (0xffULL | (0xfULL << 32)));
	CHECK(parse("cpu/event=0x1fff/") == -EINVAL);
	CHECK_STR(err, "event \"cpu/event=0x1fff/\": 'event' value 0x1fff does "
	    "not fit its 12 bits (at most 0xfff) (column 11)");
	CHECK(parse("cpu/event=0xc0,edge,inv,cmask=3/uk") == 1 &&
	    a.config == (0xc0ULL | 1 << 18 | 1 << 23 | 3ULL << 24) &&
	    EXCL(0, 0, 1, 0, 1));
	CHECK(parse("cpu/event=0xc0/:k") == 1 && EXCL(1, 0, 1, 0, 0));
	CHECK(parse("cpu/config=0x1234,config1=5,config2=0x7/") == 1 &&
	    a.config == 0x1234 && a.config1 == 5 && a.config2 == 7);
	CHECK(parse("cpu/event=42,name=retired/") == 1 && a.config == 42);
	/* Aliases, alone, overridden, and bare. */
	CHECK(parse("cpu/instructions/") == 1 && a.config == 0xc0);
	CHECK(parse("cpu/INSTRUCTIONS/") == 1 && a.config == 0xc0);
	CHECK(parse("cpu/instructions,umask=1/u") == 1 && a.config == 0x1c0);
	CHECK(parse("msr/tsc/") == 1 && a.type == 9 && a.config == 0);
	CHECK(ev[0].kind == EVENT_SOFTWARE);	/* msr is a software-context PMU */
	CHECK(parse("aperf") == 1 && a.type == 9 && a.config == 1);
	CHECK_STR(ev[0].pmu, "msr");
	CHECK(parse("mperf:u") == 1 && a.config == 2 && EXCL(0, 1, 1, 0, 1));
	/* Generic events land on the only core PMU. */
	CHECK(parse("cycles") == 1 && a.type == PERF_TYPE_HARDWARE &&
	    a.config == 0 && ev[0].p == p);

	/* Errors point inside the string. */
	CHECK(parse("cpu/event=0x1zz/") == -EINVAL);
	CHECK_STR(err, "event \"cpu/event=0x1zz/\": 'event' value is not a "
	    "number (column 11)");
	CHECK(parse("cpu/evnt=1/") == -EINVAL);
	CHECK_STR(err, "event \"cpu/evnt=1/\": unknown term 'evnt' for PMU "
	    "\"cpu\" (column 5); its format terms are: cmask, edge, event, "
	    "inv, umask; its 6 named events are listed by --list-events");
	CHECK(parse("cpuu/event=1/") == -EINVAL);
	CHECK_STR(err, "event \"cpuu/event=1/\": unknown PMU \"cpuu\" (column "
	    "1; did you mean \"cpu\"? this machine has: breakpoint, cpu, msr, "
	    "software, tracepoint)");
	CHECK(parse("zzz/event=1/") == -EINVAL);
	CHECK_CONTAINS(err, "unknown PMU \"zzz\" (column 1; this machine has: ");
	CHECK(parse("cpu/event=1") == -EINVAL);
	CHECK_CONTAINS(err, "no closing '/'");
	CHECK(parse("cpu//") == -EINVAL);
	CHECK_CONTAINS(err, "no terms between the slashes");
	CHECK(parse("cpu/event=1,,umask=2/") == -EINVAL);
	CHECK_CONTAINS(err, "empty term (column 13)");
	CHECK(parse("cpu/event=/") == -EINVAL);
	CHECK_CONTAINS(err, "'event' value is not a number (column 11)");
	CHECK(parse("cpu/event=99999999999999999999/") == -EINVAL);
	CHECK_CONTAINS(err, "wider than 64 bits");
	CHECK(parse("cpu/event=1,period=1000/") == -EINVAL);
	CHECK_CONTAINS(err, "term 'period' is for sampling");
	CHECK(parse("cpu/event=1/x") == -EINVAL);
	CHECK_CONTAINS(err, "unknown modifier 'x' (column 13;");
	CHECK(parse("cpu/config/") == -EINVAL);
	CHECK(parse("/event=1/") == -EINVAL);
	pmu_list_free(&l);
}

static void
test_hybrid(void)
{
	struct pmu_list l;
	struct event_ctx ctx;
	const struct pmu *core, *atom, *imc;

	load("sysfs-intel-hybrid", &l, &ctx);
	core = pmu_find(&l, "cpu_core");
	atom = pmu_find(&l, "cpu_atom");
	imc = pmu_find(&l, "uncore_imc_free_running_0");
	CHECK(core && atom && imc && pmu_core_count(&l) == 2);
	CHECK(core && core->cpus_from == PMU_CPUS_FILE && core->cpus.nr == 8);
	CHECK(atom && atom->cpus.nr == 8 && atom->cpus.cpu[0] == 8);
	CHECK(imc && pmu_is_uncore(imc) && !imc->core && imc->cpus.nr == 1);

	/* A generic event: one variant per core PMU, extended type. */
	CHECK(parse("cycles:u") == 2);
	CHECK_STR(ev[0].pmu, "cpu_atom");
	CHECK(ev[0].attr.type == PERF_TYPE_HARDWARE &&
	    ev[0].attr.config == (10ULL << 32) && ev[0].p == atom);
	CHECK_STR(ev[1].pmu, "cpu_core");
	CHECK(ev[1].attr.type == PERF_TYPE_HARDWARE &&
	    ev[1].attr.config == (4ULL << 32) && ev[1].attr.exclude_kernel);
	CHECK(parse("LLC-load-misses") == 2 &&
	    ev[1].attr.config == ((4ULL << 32) | 0x10002));
	CHECK(parse("r3c") == 2 && ev[0].attr.type == 10 &&
	    ev[0].attr.config == 0x3c && ev[1].attr.type == 4);
	CHECK(parse("task-clock") == 1);
	/* A PMU named: that PMU only. */
	CHECK(parse("cpu_core/cycles/") == 1 && a.type == PERF_TYPE_HARDWARE &&
	    a.config == (4ULL << 32));
	CHECK(parse("cpu_atom/event=0xc0/") == 1 && a.type == 10);
	/* An alias with a config1 term, and a user override of it. */
	CHECK(parse("cpu_core/mem-loads/") == 1 && a.config == 0x1cd &&
	    a.config1 == 3);
	CHECK(parse("cpu_core/mem-loads,ldlat=30/") == 1 && a.config1 == 30);
	CHECK(parse("cpu_atom/mem-loads/") == -EINVAL);
	CHECK_CONTAINS(err, "unknown term 'mem-loads' for PMU \"cpu_atom\"");
	/* The same alias in two PMUs: name one. */
	CHECK(parse("instructions") == 2);	/* generic wins, as in perf */
	CHECK(parse("mem-loads") == 1);
	CHECK_STR(ev[0].pmu, "cpu_core");
	/* Uncore, with scale and unit. */
	CHECK(parse("uncore_imc_free_running_0/data_read/") == 1);
	CHECK(a.type == 13 && a.config == 0x20ff && ev[0].scale == 6.103515625e-5);
	CHECK_STR(ev[0].unit, "MiB");
	CHECK(ev[0].p == imc && ev[0].kind == EVENT_PMU);
	CHECK(parse("data_write") == 1 && a.config == 0x30ff);
	pmu_list_free(&l);
}

static void
test_arm_rapl(void)
{
	struct pmu_list l;
	struct event_ctx ctx;

	load("sysfs-arm64-biglittle", &l, &ctx);
	CHECK(pmu_core_count(&l) == 2);
	CHECK(parse("instructions") == 2);
	CHECK_STR(ev[0].pmu, "armv8_cortex_a53");
	CHECK(ev[0].attr.config == ((8ULL << 32) | 1) && ev[0].p->cpus.nr == 4);
	CHECK_STR(ev[1].pmu, "armv8_cortex_a72");
	CHECK(ev[1].attr.config == ((9ULL << 32) | 1) && ev[1].p->cpus.nr == 2);
	CHECK(parse("armv8_cortex_a72/inst_retired/k") == 1 && a.type == 9 &&
	    a.config == 8);
	CHECK(parse("armv8_cortex_a53/event=0x11,long/") == 1 &&
	    a.config == 0x11 && a.config1 == 1);
	CHECK(parse("armv8_cortex_a53/event=0x10000/") == -EINVAL);
	CHECK_CONTAINS(err, "does not fit its 16 bits (at most 0xffff)");
	CHECK(parse("cpu_cycles") == -EINVAL);
	CHECK_STR(err, "event \"cpu_cycles\": \"cpu_cycles\" is an event of "
	    "several PMUs; name one: armv8_cortex_a53/cpu_cycles/, "
	    "armv8_cortex_a72/cpu_cycles/");
	pmu_list_free(&l);

	load("sysfs-rapl", &l, &ctx);
	CHECK(parse("power/energy-pkg/") == 1 && a.type == 15 && a.config == 2);
	CHECK(ev[0].scale == 2.3283064365386962890625e-10);
	CHECK_STR(ev[0].unit, "Joules");
	CHECK(ev[0].p && pmu_is_uncore(ev[0].p) && ev[0].p->cpus.nr == 1);
	CHECK(parse("energy-cores") == 1 && a.config == 1);
	pmu_list_free(&l);
}

static void
test_tracepoints(void)
{
	struct pmu_list l;
	struct event_ctx ctx;
	char root[4096];
	uint64_t id;

	load("sysfs-amd", &l, &ctx);
	CHECK(parse("sched:sched_switch") == -EINVAL);
	CHECK_STR(err, "event \"sched:sched_switch\": looks like a tracepoint, "
	    "but tracefs is not mounted (none in mountinfo)");
	ctx.tracefs = fixture("tracefs");
	CHECK(parse("sched:sched_switch") == 1 && a.type == PERF_TYPE_TRACEPOINT &&
	    a.config == 316 && EXCL(0, 0, 0, 0, 1));
	CHECK(ev[0].kind == EVENT_SOFTWARE);
	CHECK(parse("syscalls:sys_enter_read:k") == 1 && a.config == 700 &&
	    EXCL(1, 0, 1, 0, 0));
	CHECK(parse("sched:sched_swtch") == -EINVAL);
	CHECK_STR(err, "unknown event \"sched:sched_swtch\" (no such event, and "
	    "no tracepoint sched:sched_swtch)");
	CHECK(parse("sched:../../x") == -EINVAL);
	CHECK(parse("sched:sched_switch:q") == -EINVAL);
	CHECK_CONTAINS(err, "unknown modifier 'q' (column 20");
	CHECK(tracefs_event_id(fixture("tracefs"), "..", "x", &id) == -EINVAL);
	pmu_list_free(&l);

	CHECK(tracefs_find(fixture("mountinfo.tracefs"), root, sizeof(root)) == 0);
	CHECK_STR(root, "/sys/kernel/my tracing");
	CHECK(tracefs_find(fixture("mountinfo.debugfs"), root, sizeof(root)) == 0);
	CHECK_STR(root, "/sys/kernel/debug/tracing");
	CHECK(tracefs_find(fixture("mountinfo.systemd"), root, sizeof(root)) ==
	    -ENOENT);
}

static void
test_pfm(void)
{
	struct event_ctx ctx = { NULL, NULL, 0, NULL };

	cur = &ctx;
	if (event_pfm_available()) {
		/* libpfm4's generic perf PMU exists on every machine. */
		CHECK(parse("PERF_COUNT_HW_INSTRUCTIONS") == 1 &&
		    a.type == PERF_TYPE_HARDWARE && a.config == 1);
		CHECK(parse("PERF_COUNT_SW_CPU_CLOCK:u") == 1 &&
		    a.type == PERF_TYPE_SOFTWARE && a.exclude_kernel);
		CHECK_STR(ev[0].pmu, "software");
		CHECK(parse("perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS") == 1 &&
		    a.type == PERF_TYPE_HW_CACHE && a.config == 0x10000);
		CHECK(parse("PERF_COUNT_HW_INSTRUCTIONS:nosuchmod") == -EINVAL);
		CHECK_CONTAINS(err, "libpfm4: ");
	}
	CHECK(parse("NO_SUCH_EVENT_ANYWHERE") == -EINVAL);
	CHECK_STR(err, "unknown event \"NO_SUCH_EVENT_ANYWHERE\"");
	ctx.no_pfm = 1;
	CHECK(parse("PERF_COUNT_HW_INSTRUCTIONS") == -EINVAL);
}

static void
test_formats(void)
{
	enum pmu_field f;
	uint64_t m;

	CHECK(pmu_parse_format("config:0-7,32-35", &f, &m) == 0 &&
	    f == PMU_CONFIG && m == (0xffULL | 0xfULL << 32));
	CHECK(pmu_parse_format("config1:0-63", &f, &m) == 0 &&
	    f == PMU_CONFIG1 && m == ~0ULL);
	CHECK(pmu_parse_format("config2:5", &f, &m) == 0 && m == 1ULL << 5);
	CHECK(pmu_parse_format("config3:0-7", &f, &m) == -EINVAL);
	CHECK(pmu_parse_format("config:7-0", &f, &m) == -EINVAL);
	CHECK(pmu_parse_format("config:0-64", &f, &m) == -EINVAL);
	CHECK(pmu_parse_format("config:", &f, &m) == -EINVAL);
	CHECK(pmu_parse_format("config:1,", &f, &m) == -EINVAL);
	CHECK(pmu_format_pack(0xffULL | 0xfULL << 32, 0x1c0) ==
	    (0xc0ULL | 1ULL << 32));
	CHECK(pmu_format_fits(0xff, 0xff) && !pmu_format_fits(0xff, 0x100));
	CHECK(pmu_format_fits(~0ULL, ~0ULL));
}

int
main(void)
{
	test_generic();
	test_modifiers();
	test_hwcache_raw();
	test_amd();
	test_hybrid();
	test_arm_rapl();
	test_tracepoints();
	test_pfm();
	test_formats();

	cur = NULL;
	CHECK(parse("cylces") == -EINVAL);
	CHECK_STR(err, "unknown event \"cylces\" (did you mean \"cycles\"?)");
	CHECK(parse("instructons:u") == -EINVAL);
	CHECK_STR(err, "unknown event \"instructons:u\" (did you mean "
	    "\"instructions\"?)");
	CHECK(parse("frobnicate") == -EINVAL);
	CHECK_STR(err, "unknown event \"frobnicate\"");
	CHECK(parse("L1-dcache-lod-misses") == -EINVAL);
	CHECK_CONTAINS(err, "did you mean \"L1-dcache-load-misses\"?");
	CHECK_STR(event_suggest("context-switch"), "context-switches");
	CHECK(event_suggest("zzzzzzzzzzzz") == NULL);
	CHECK(text_distance("kitten", "sitting") == 3);
	return CHECK_DONE();
}
