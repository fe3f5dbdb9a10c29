/*
 * cgroupfs_test.c - finding the perf cgroup mount in mountinfo files of
 * several host layouts, and expanding path patterns on a scratch tree.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "collectors/cgroup/cgroupfs.h"
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

	CHECK(cgroupfs_expand(base, "/*", 0, NULL, 0, &l, NULL) == 0);
	CHECK(l.nr == 2);
	if (l.nr == 2) {
		CHECK_STR(l.path[0], "/system.slice");
		CHECK_STR(l.path[1], "/user.slice");
	}
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/system.slice/*.service", 0, NULL, 0, &l, NULL) == 0);
	CHECK(l.nr == 2);
	if (l.nr == 2) {
		CHECK_STR(l.path[0], "/system.slice/nginx.service");
		CHECK_STR(l.path[1], "/system.slice/sshd.service");
	}
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/*/nginx.service", 0, NULL, 0, &l, NULL) == 0);
	CHECK(l.nr == 1 && strcmp(l.path[0], "/system.slice/nginx.service") == 0);
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/system.slice/nginx.service", 0, NULL, 0, &l, NULL) == 0);
	CHECK(l.nr == 1);
	cgroup_list_free(&l);

	CHECK(cgroupfs_expand(base, "/", 0, NULL, 0, &l, NULL) == 0);
	CHECK(l.nr == 1 && strcmp(l.path[0], "/") == 0);
	cgroup_list_free(&l);

	/* Not there (yet), and a file is not a cgroup. */
	CHECK(cgroupfs_expand(base, "/nope.service", 0, NULL, 0, &l, NULL) == 0 && l.nr == 0);
	cgroup_list_free(&l);
	CHECK(cgroupfs_expand(base, "/cgroup.procs", 0, NULL, 0, &l, NULL) == 0 && l.nr == 0);
	cgroup_list_free(&l);
	CHECK(cgroupfs_expand(base, "/nope/*", 0, NULL, 0, &l, NULL) == 0 && l.nr == 0);
	cgroup_list_free(&l);

	snprintf(cmd, sizeof(cmd), "rm -r %s", base);
	CHECK(system(cmd) == 0);
}

static void
test_match(void)
{
	CHECK(cgroupfs_match("/*", "/system.slice", 0));
	CHECK(!cgroupfs_match("/*", "/system.slice/a.service", 0));
	CHECK(cgroupfs_match("/system.slice/*.service",
	    "/system.slice/nginx.service", 0));
	CHECK(!cgroupfs_match("/system.slice/*.service",
	    "/system.slice/nginx.socket", 0));
	CHECK(cgroupfs_match("/kubepods.slice/**/cri-containerd-*.scope",
	    "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-"
	    "pod1.slice/cri-containerd-abc.scope", 0));
	/* "**" spans zero levels too. */
	CHECK(cgroupfs_match("/kubepods.slice/**/cri-containerd-*.scope",
	    "/kubepods.slice/cri-containerd-abc.scope", 0));
	CHECK(!cgroupfs_match("/kubepods.slice/**/cri-containerd-*.scope",
	    "/system.slice/cri-containerd-abc.scope", 0));
	/* depth limits the levels "**" may span. */
	CHECK(cgroupfs_match("/a/**/x", "/a/1/2/x", 2));
	CHECK(!cgroupfs_match("/a/**/x", "/a/1/2/3/x", 2));
	CHECK(cgroupfs_match("/**", "/a/b/c", 0));
	CHECK(cgroupfs_match("/**", "/", 0));
	CHECK(!cgroupfs_match("/*", "/.hidden", 0));
	CHECK(cgroupfs_match("/a?c/[xy]", "/abc/y", 0));
}

static void
test_globstar(void)
{
	char base[] = "/tmp/cgroupfs_test2.XXXXXX", cmd[4200];
	struct cgroup_list l, dirs = { 0, 0, NULL };
	char *ex[] = { "/kubepods.slice/**/cri-containerd-bad*.scope" };

	CHECK(mkdtemp(base) != NULL);
	mk(base, "/kubepods.slice");
	mk(base, "/kubepods.slice/cri-containerd-top.scope");
	mk(base, "/kubepods.slice/burst.slice");
	mk(base, "/kubepods.slice/burst.slice/pod1.slice");
	mk(base, "/kubepods.slice/burst.slice/pod1.slice/cri-containerd-a.scope");
	mk(base, "/kubepods.slice/burst.slice/pod1.slice/cri-containerd-bad1.scope");
	mk(base, "/kubepods.slice/burst.slice/pod1.slice/other.scope");

	CHECK(cgroupfs_expand(base, "/kubepods.slice/**/cri-containerd-*.scope",
	    0, NULL, 0, &l, &dirs) == 0);
	CHECK(l.nr == 3);
	cgroup_list_free(&l);
	/* The directories whose new children could match: all of them. */
	cgroup_list_sort_unique(&dirs);
	CHECK(cgroup_list_has(&dirs, "/kubepods.slice"));
	CHECK(cgroup_list_has(&dirs, "/kubepods.slice/burst.slice/pod1.slice"));
	/* "/kubepods.slice" itself may appear later: "/" is watched too. */
	CHECK(cgroup_list_has(&dirs, "/"));
	cgroup_list_free(&dirs);

	CHECK(cgroupfs_expand(base, "/kubepods.slice/**/cri-containerd-*.scope",
	    0, ex, 1, &l, NULL) == 0);
	CHECK(l.nr == 2);
	if (l.nr == 2) {
		CHECK_STR(l.path[0], "/kubepods.slice/burst.slice/pod1.slice/"
		    "cri-containerd-a.scope");
		CHECK_STR(l.path[1], "/kubepods.slice/cri-containerd-top.scope");
	}
	cgroup_list_free(&l);

	/* depth 1: "**" spans at most one level. */
	CHECK(cgroupfs_expand(base, "/kubepods.slice/**/cri-containerd-*.scope",
	    1, NULL, 0, &l, NULL) == 0);
	CHECK(l.nr == 1);
	cgroup_list_free(&l);

	/* A literal path: its parent is what to watch. */
	CHECK(cgroupfs_expand(base, "/later/x", 0, NULL, 0, &l, &dirs) == 0);
	CHECK(l.nr == 0);
	cgroup_list_sort_unique(&dirs);
	CHECK(cgroup_list_has(&dirs, "/later") && cgroup_list_has(&dirs, "/"));
	cgroup_list_free(&l);
	cgroup_list_free(&dirs);

	snprintf(cmd, sizeof(cmd), "rm -r %s", base);
	CHECK(system(cmd) == 0);
}

int
main(void)
{
	srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	test_find();
	test_expand();
	test_match();
	test_globstar();
	return CHECK_DONE();
}
