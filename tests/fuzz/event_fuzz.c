/*
 * event_fuzz.c - libFuzzer target for the event parser.
 *
 * Each input is one event string, parsed with no context and with the
 * Intel hybrid fixture (formats, aliases, uncore) and the fixture tracefs
 * that tests/integration/fuzz.test names in PMU_FUZZ_SYSFS and PMU_FUZZ_TRACEFS.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events/event.h"
#include "collectors/events/pmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	struct event ev[EVENT_MAX_VARIANTS];
	char err[1024], *s;

	if (!loaded) {
		const char *sysfs = getenv("PMU_FUZZ_SYSFS");

		loaded = 1;
		if (sysfs && pmu_scan(sysfs, &pmus, err, sizeof(err)) == 0) {
			ctx.pmus = &pmus;
			atexit(unload);
		}
		ctx.tracefs = getenv("PMU_FUZZ_TRACEFS");
	}
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)event_parse(NULL, s, ev, EVENT_MAX_VARIANTS, err, sizeof(err));
	(void)event_parse(&ctx, s, ev, EVENT_MAX_VARIANTS, err, sizeof(err));
	(void)event_parse(&ctx, s, ev, 1, err, 40);
	free(s);
	return 0;
}
