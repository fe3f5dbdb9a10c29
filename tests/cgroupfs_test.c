/*
 * cgroupfs_test.c - finding the perf cgroup mount in mountinfo files of
 * several host layouts, and expanding path patterns on a scratch tree.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "collectors/cgroupfs.h"
#include "tests/check.h"

static const char *srcdir;

static int
find(const char *fixture, char *root, int *v2)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", srcdir, fixture);
	return cgroupfs_find(path, root, 4096, v2);
}

static void
test_find(void)
{
	char root[4096];
	int v2 = -1;

	CHECK(find("mountinfo.hybrid", root, &v2) == 0);
	CHECK_STR(root, "/sys/fs/cgroup/unified");
	CHECK(v2 == 1);
	CHECK(find("mountinfo.systemd", root, &v2) == 0);
	CHECK_STR(root, "/sys/fs/cgroup");
	CHECK(v2 == 1);
	CHECK(find("mountinfo.v1perf", root, &v2) == 0);
	CHECK_STR(root, "/sys/fs/cgroup/perf_event");
	CHECK(v2 == 0);
	CHECK(find("mountinfo.escaped", root, &v2) == 0);
	CHECK_STR(root, "/srv/my cgroups");
	CHECK(v2 == 1);
	CHECK(find("mountinfo.none", root, &v2) == -ENOENT);
	CHECK(find("does-not-exist", root, &v2) == -ENOENT);
	/* This machine's own: whatever it is, it must be found. */
	CHECK(cgroupfs_find("/proc/self/mountinfo", root, sizeof(root),
	    &v2) == 0);
}

static void
mk(const char *base, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", base, rel);
	CHECK(mkdir(path, 0755) == 0);
}

static void
test_expand(void)
{
	char base[] = "/tmp/cgroupfs_test.XXXXXX", cmd[4200];
	struct cgroup_list l;
	FILE *f;

	CHECK(mkdtemp(base) != NULL);
	mk(base, "/system.slice");
	mk(base, "/system.slice/nginx.service");
	mk(base, "/system.slice/sshd.service");
	mk(base, "/system.slice/cron.timer");
	mk(base, "/user.slice");
	mk(base, "/.hidden");
	snprintf(cmd, sizeof(cmd), "%s/cgroup.procs", base);
	f = fopen(cmd, "w");
	fclose(f);

	CHECK(cgroupfs_expand(base, "/*", &l) == 0);
	CHECK(l.nr == 2);
	if (l.nr == 2) {
		CHECK_STR(l.path[0], "/system.slice");
		CHECK_STR(l.path[1], "/user.slice");
	}
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/system.slice/*.service", &l) == 0);
	CHECK(l.nr == 2);
	if (l.nr == 2) {
		CHECK_STR(l.path[0], "/system.slice/nginx.service");
		CHECK_STR(l.path[1], "/system.slice/sshd.service");
	}
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/*/nginx.service", &l) == 0);
	CHECK(l.nr == 1 && strcmp(l.path[0], "/system.slice/nginx.service") == 0);
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/system.slice/nginx.service", &l) == 0);
	CHECK(l.nr == 1);
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/", &l) == 0);
	CHECK(l.nr == 1 && strcmp(l.path[0], "/") == 0);
	cgroup_list_free(&l);

	/* Not there (yet), and a file is not a cgroup. */
	CHECK(cgroupfs_expand(base, "/nope.service", &l) == 0 && l.nr == 0);
	cgroup_list_free(&l);
	CHECK(cgroupfs_expand(base, "/cgroup.procs", &l) == 0 && l.nr == 0);
	cgroup_list_free(&l);
	CHECK(cgroupfs_expand(base, "/nope/*", &l) == 0 && l.nr == 0);
	cgroup_list_free(&l);

	snprintf(cmd, sizeof(cmd), "rm -r %s", base);
	CHECK(system(cmd) == 0);
}

int
main(void)
{
	srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	test_find();
	test_expand();
	return CHECK_DONE();
}
