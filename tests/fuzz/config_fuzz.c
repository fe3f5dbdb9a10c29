/*
 * config_fuzz.c - libFuzzer target for the YAML config parser, with and
 * without the fixture PMUs that tests/integration/fuzz.test names in PMU_FUZZ_SYSFS.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>

#include <string.h>

#include "collectors/events/pmu.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The kinds a plan may name come from the collector's kinds table
 * (source.c), which the fuzzer, linking the parser alone, has not: these
 * stand for perf and bpf as their descriptions say of themselves, every
 * field set, so that every check config_mode.c makes is fuzzed (bpf
 * built, as a build with libbpf has it).
 */
static const struct plan_kind_option fuzz_options[] = {
	{ "max_cgroups", "bpf_max_cgroups", 1, 1000000, 1024 },
};

static const struct plan_kind fuzz_kinds[] = {
	{ .name = "perf" },
	{ .name = "bpf", .falls_back = 1, .old_fallback = "bpf_fallback",
	    .nr_options = 1, .options = fuzz_options, .max_events = 32,
	    .no_preset = "it reads each counter alone" },
};

const struct plan_kind *
plan_kind_at(size_t i)
{
	return i < sizeof(fuzz_kinds) / sizeof(*fuzz_kinds) ?
	    &fuzz_kinds[i] : NULL;
}

const struct plan_kind *
plan_kind_named(const char *name)
{
	size_t i;

	for (i = 0; plan_kind_at(i); i++)
		if (strcmp(fuzz_kinds[i].name, name) == 0)
			return &fuzz_kinds[i];
	return NULL;
}

static struct pmu_list pmus;
static struct event_ctx ctx;
static int loaded;

static void
unload(void)
{
	pmu_list_free(&pmus);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan *cfg = NULL;
	char err[1024];

	if (!loaded) {
		const char *sysfs = getenv("PMU_FUZZ_SYSFS");

		loaded = 1;
		if (sysfs && pmu_scan(sysfs, &pmus, err, sizeof(err)) == 0) {
			ctx.pmus = &pmus;
			atexit(unload);
		}
		ctx.no_pfm = 1;
	}
	if (config_parse(NULL, "f.yaml", (const char *)data, size, &cfg, err,
	    sizeof(err)) == 0)
		plan_free(cfg);
	cfg = NULL;
	if (config_parse(&ctx, "f.yaml", (const char *)data, size, &cfg, err,
	    sizeof(err)) == 0)
		plan_free(cfg);
	return 0;
}
