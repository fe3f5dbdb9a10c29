/*
 * wanted_test.c - the wanted target set (collectors/collector/wanted.c),
 * worked out without perf: the matches of every entry come out sorted by
 * path, a cgroup two entries match once per entry in entry order, an
 * entry with nothing (a cpu: entry, a pattern matching nothing) adds
 * nothing, and a layout's count is of distinct cgroups.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "collectors/collector/wanted.h"
#include "tests/lib/check.h"

static struct cgroup_list
list(char **paths, size_t n)
{
	struct cgroup_list l = { n, n, paths, NULL };

	return l;
}

int
main(void)
{
	char *a[] = { "/sys/b", "/sys/a", "/k8s/pod1" };
	char *b[] = { "/sys/a", "/docker/x" };
	char *d[] = { "/docker/x", "/docker/y" };
	struct plan_target t[4];
	struct cgroup_list l[4];
	struct plan cfg;
	struct wanted w;
	struct match *m;

	memset(&cfg, 0, sizeof(cfg));
	memset(t, 0, sizeof(t));
	cfg.targets = t;
	cfg.nr_targets = 4;
	cfg.nr_layouts = 2;
	t[0].layout = 1;	/* "sys" */
	t[1].layout = 1;
	t[3].layout = 2;	/* "docker" */
	l[0] = list(a, 3);
	l[1] = list(b, 2);
	l[2] = list(NULL, 0);	/* a cpu: entry, or nothing matched */
	l[3] = list(d, 2);

	CHECK(wanted_build(&cfg, l, &w) == 0);
	m = w.m;
	CHECK(w.nm == 7);
	if (m != NULL && w.nm == 7 && w.per_layout != NULL) {
		CHECK_STR(m[0].path, "/docker/x");
		CHECK(m[0].entry == 1);
		CHECK_STR(m[1].path, "/docker/x");
		CHECK(m[1].entry == 3);
		CHECK_STR(m[2].path, "/docker/y");
		CHECK(m[2].entry == 3);
		CHECK_STR(m[3].path, "/k8s/pod1");
		CHECK_STR(m[4].path, "/sys/a");
		CHECK(m[4].entry == 0);
		CHECK_STR(m[5].path, "/sys/a");
		CHECK(m[5].entry == 1);
		CHECK_STR(m[6].path, "/sys/b");
		/* Layout 1 (entries 0 and 1): /docker/x, /k8s/pod1, /sys/a
		 * once, /sys/b.  Layout 2: /docker/x, /docker/y. */
		CHECK(w.per_layout[0] == 4);
		CHECK(w.per_layout[1] == 2);
	}
	wanted_free(&w);
	CHECK(w.m == NULL && w.per_layout == NULL);

	/* Nothing matched anywhere: an empty array, still one to free. */
	l[0] = l[1] = l[3] = list(NULL, 0);
	CHECK(wanted_build(&cfg, l, &w) == 0);
	CHECK(w.nm == 0 && w.m != NULL);
	CHECK(w.per_layout != NULL && w.per_layout[0] == 0 &&
	    w.per_layout[1] == 0);
	wanted_free(&w);
	cfg.nr_targets = 0;
	cfg.nr_layouts = 0;
	CHECK(wanted_build(&cfg, l, &w) == 0);
	CHECK(w.nm == 0);
	wanted_free(&w);
	return CHECK_DONE();
}
