/* cpumap_test.c - CPU list parsing, formatting, intersection and merging. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "collectors/perf/cpumap.h"
#include "tests/lib/check.h"
#include "tests/lib/scratch.h"

int
main(void)
{
	struct cpumap m, n, x;
	char buf[128], dir[] = "/tmp/cpumap_test.XXXXXX", path[256];
	size_t pos = 0;

	CHECK(cpumap_parse("0-3,8", &m, NULL) == 0);
	CHECK(m.nr == 5 && m.cpu[0] == 0 && m.cpu[3] == 3 && m.cpu[4] == 8);
	CHECK_STR(cpumap_format(&m, buf, sizeof(buf)), "0-3,8");
	CHECK(cpumap_has(&m, 8) && !cpumap_has(&m, 4));

	CHECK(cpumap_parse(" 8, 1,1, 2-3\n", &n, NULL) == 0);
	CHECK_STR(cpumap_format(&n, buf, sizeof(buf)), "1-3,8");
	/* An intersection is a merge into nothing within a limit. */
	x.nr = 0;
	x.cpu = NULL;
	CHECK(cpumap_merge(&x, &m, &n, NULL) == 4);
	CHECK_STR(cpumap_format(&x, buf, sizeof(buf)), "1-3,8");
	cpumap_free(&x);

	/* Merge: dst grows by add's CPUs within both limits, sorted, and
	 * says how many of add's were within (in dst already or not). */
	x.nr = 0;
	x.cpu = NULL;
	CHECK(cpumap_merge(&x, &m, NULL, NULL) == 5);
	CHECK_STR(cpumap_format(&x, buf, sizeof(buf)), "0-3,8");
	CHECK(cpumap_merge(&x, &n, NULL, NULL) == 4);	/* 1-3,8 */
	CHECK_STR(cpumap_format(&x, buf, sizeof(buf)), "0-3,8");
	cpumap_free(&x);
	CHECK(cpumap_parse("2,5-6", &x, NULL) == 0);
	CHECK(cpumap_merge(&x, &m, &n, NULL) == 4);	/* 1-3,8 */
	CHECK_STR(cpumap_format(&x, buf, sizeof(buf)), "1-3,5-6,8");
	{
		struct cpumap lim;

		CHECK(cpumap_parse("0,3,7", &lim, NULL) == 0);
		CHECK(cpumap_merge(&x, &m, &n, &lim) == 1);	/* 3 */
		CHECK_STR(cpumap_format(&x, buf, sizeof(buf)),
		    "1-3,5-6,8");
		CHECK(cpumap_merge(&x, &lim, NULL, NULL) == 3);
		CHECK_STR(cpumap_format(&x, buf, sizeof(buf)),
		    "0-3,5-8");
		CHECK(cpumap_merge(&x, &lim, &m, &n) == 1);	/* 3 */
		CHECK(x.nr == 8);
		cpumap_free(&lim);
	}
	cpumap_free(&x);
	cpumap_free(&n);

	CHECK(cpumap_parse("0-3,x", &n, &pos) == -EINVAL && pos == 4);
	CHECK(cpumap_parse("3-1", &n, &pos) == -EINVAL && pos == 0);
	CHECK(cpumap_parse("", &n, &pos) == -EINVAL);
	CHECK(cpumap_parse("1,", &n, &pos) == -EINVAL && pos == 2);
	CHECK(cpumap_parse("99999999", &n, &pos) == -EINVAL);
	CHECK(cpumap_parse("all", &n, &pos) == -EINVAL && pos == 0);

	/* The online file, read from a fake sysfs root. */
	CHECK(mkdtemp(dir) != NULL);
	scratch_put(dir, "devices/system/cpu/online", "0,2-5\n");
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", dir);
	CHECK(cpumap_online(dir, &n) == 0);
	CHECK_STR(cpumap_format(&n, buf, sizeof(buf)), "0,2-5");
	cpumap_free(&n);
	unlink(path);
	snprintf(path, sizeof(path), "rm -r %s", dir);
	CHECK(system(path) == 0);
	CHECK(cpumap_online("/nonexistent", &n) == -ENOENT);
	cpumap_free(&m);
	cpumap_free(NULL);
	return CHECK_DONE();
}
