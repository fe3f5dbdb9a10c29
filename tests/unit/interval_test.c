/*
 * interval_test.c - the collector's schedule (collectors/collector/
 * interval.c) on the scripted PMU of tests/lib/fake_pmu.h: the time a
 * collection stamps on its snapshot.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>

#include "collectors/collector/collector.h"
#include "config/config.h"
#include "tests/lib/check.h"
#include "tests/lib/fake_pmu.h"
#include "tests/lib/scratch.h"

/*
 * A collection's duration runs from its expiry, not from its reads: what
 * was due before them (here CPU 1 back online, its group opened again,
 * each open slowed by fake.open_delay_ns) is in it.  nanosleep sleeps at
 * least what it is asked, so the bound below is exact; nothing bounds it
 * from above (the machine may be busy).
 */
static void
test_duration_from_expiry(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	struct snapshot *s;
	double slept;

	fake.log[0] = '\0';
	c = fake_make("groups:\n  - name: ipc\n"
	    "    events: [cycles, instructions]\n"
	    "cpus:\n  - cpus: all\n    groups: [ipc]\n", &cfg, sysfs);
	collector_enable(c);
	fake.step_enabled = fake.step_running = 1000000000ULL;
	fake_tick(c);
	scratch_put(sysfs, "devices/system/cpu/online", "0\n");
	fake_tick(c);
	CHECK(fake_open_fds() == 2);
	scratch_put(sysfs, "devices/system/cpu/online", "0-1\n");
	fake.open_delay_ns = 20000000ULL;
	fake.delayed = 0;
	fake_tick(c);
	fake.open_delay_ns = 0;
	CHECK(fake_open_fds() == 4);
	CHECK(fake.delayed == 2);
	CHECK(count_of(fake.log, "online CPUs are now 0-1") == 1);
	slept = fake.delayed * 0.02;
	s = collector_snapshot(c);
	CHECK(s != NULL && s->duration_s >= slept);
	if (s && !(s->duration_s >= slept))
		fprintf(stderr, "duration %.6f s, the opens alone slept "
		    "%.3f s\n", s->duration_s, slept);
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
	fake.step_enabled = fake.step_running = 0;
}

int
main(void)
{
	char dir[] = "/tmp/interval_test.XXXXXX";

	CHECK(fake_begin(dir) == 0);
	test_duration_from_expiry(dir);
	CHECK(fake_end(dir) == 0);
	if (check_failures)
		fprintf(stderr, "log was:\n%s", fake.log);
	return CHECK_DONE();
}
