/* event_test.c - event names, aliases and modifiers to perf attrs. */
#include "config.h"

#include <errno.h>

#include "collectors/event.h"
#include "tests/check.h"

static struct perf_event_attr a;
static char err[512];

static int
parse(const char *s)
{
	err[0] = '\0';
	return event_parse(s, &a, err, sizeof(err));
}

int
main(void)
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

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK(parse(ok[i].name) == 0);
		CHECK(a.type == ok[i].type && a.config == ok[i].config);
		CHECK(!a.exclude_user && !a.exclude_kernel && !a.exclude_hv);
		CHECK(a.size == sizeof(a));
	}
	CHECK(event_is_hardware(&a) == 0);
	CHECK(parse("cycles") == 0 && event_is_hardware(&a));

	/* Modifiers as perf has them: the levels not named are excluded. */
	CHECK(parse("cycles:u") == 0);
	CHECK(!a.exclude_user && a.exclude_kernel && a.exclude_hv);
	CHECK(parse("instructions:k") == 0);
	CHECK(a.exclude_user && !a.exclude_kernel && a.exclude_hv);
	CHECK(parse("instructions:uk") == 0);
	CHECK(!a.exclude_user && !a.exclude_kernel && a.exclude_hv);
	CHECK(parse("instructions:ku") == 0);
	CHECK(!a.exclude_user && !a.exclude_kernel && a.exclude_hv);

	/* Errors name the event and point at the place. */
	CHECK(parse("cylces") == -EINVAL);
	CHECK_STR(err, "unknown event \"cylces\" (did you mean \"cycles\"?)");
	CHECK(parse("instructons:u") == -EINVAL);
	CHECK_STR(err, "unknown event \"instructons:u\" (did you mean "
	    "\"instructions\"?)");
	CHECK(parse("frobnicate") == -EINVAL);
	CHECK_STR(err, "unknown event \"frobnicate\"");
	CHECK(parse("cycles:x") == -EINVAL);
	CHECK_STR(err, "event \"cycles:x\": unknown modifier 'x' (column 8; "
	    "expected u, k or h)");
	CHECK(parse("cycles:uu") == -EINVAL);
	CHECK_CONTAINS(err, "modifier 'u' given twice (column 9)");
	CHECK(parse("cycles:") == -EINVAL);
	CHECK_CONTAINS(err, "empty modifier");
	CHECK(parse("") == -EINVAL);
	CHECK(parse(":u") == -EINVAL);

	CHECK(event_suggest("context-switch") != NULL);
	CHECK_STR(event_suggest("context-switch"), "context-switches");
	CHECK(event_suggest("zzzzzzzzzzzz") == NULL);
	CHECK(event_distance("kitten", "sitting") == 3);
	return CHECK_DONE();
}
