/*
 * config_fuzz.c - libFuzzer target for the YAML config parser, with and
 * without the fixture PMUs that tests/integration/fuzz.test names in PMU_FUZZ_SYSFS.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>

#include "collectors/bpf/bpfcg.h"
#include "collectors/events/pmu.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The parser asks whether mode: bpf was built; the fuzzer links the
 * parser alone, without libbpf, and says yes so that the whole of the
 * mode: bpf checks is fuzzed.
 */
int
bpfcg_built(void)
{
	return 1;
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
