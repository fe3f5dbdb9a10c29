/* cpumap_test.c - CPU list parsing, formatting and intersection. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "collectors/perf/cpumap.h"
#include "tests/check.h"

int
main(void)
{
	struct cpumap m, n, x;
	char buf[128], dir[] = "/tmp/cpumap_test.XXXXXX", path[256];
	size_t pos = 0;
	FILE *f;

	CHECK(cpumap_parse("0-3,8", &m, NULL) == 0);
	CHECK(m.nr == 5 && m.cpu[0] == 0 && m.cpu[3] == 3 && m.cpu[4] == 8);
	CHECK_STR(cpumap_format(&m, buf, sizeof(buf)), "0-3,8");
	CHECK(cpumap_has(&m, 8) && !cpumap_has(&m, 4));

	CHECK(cpumap_parse(" 8, 1,1, 2-3\n", &n, NULL) == 0);
	CHECK_STR(cpumap_format(&n, buf, sizeof(buf)), "1-3,8");
	CHECK(cpumap_intersect(&m, &n, &x) == 0);
	CHECK_STR(cpumap_format(&x, buf, sizeof(buf)), "1-3,8");
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
	snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu", dir);
	CHECK(system(path) == 0);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", dir);
	f = fopen(path, "w");
	fputs("0,2-5\n", f);
	fclose(f);
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
