/*
 * targetset_test.c - the target set's one pass (targetset.c) when memory
 * runs out at any of its allocations: a rescan leaves the running set as
 * it was (the same targets, in the same order, holding the same fds), a
 * rebuild leaves a usable set holding no fd it does not count, and the
 * next pass completes either way, with every cgroup counted and the
 * vanished one gone.
 *
 * Real perf (a software event, in cgroup mode) on real cgroups under a
 * parent of its own, removed at the end.  malloc, calloc and realloc are
 * wrapped (-Wl,--wrap) to fail the nth call the collector makes while
 * armed.  It reads the collector's internals (collector_int.h): the pass
 * and the set are what it checks.  Skips (77) without root or without a
 * cgroup hierarchy.
 *
 * First, on the scripted PMU of tests/lib/fake_pmu.h (no root needed), a
 * cgroup that vanishes between discovery and perf_event_open: the pass
 * drops it with one debug line, nothing louder, and no series.  Last, a
 * cgroup removed and made again at its path between two passes (a
 * service restarted), seen by a rescan and by a rebuild, and the same
 * with a pass between that finds it gone: a new target on the new
 * cgroup, the old one closed, the series going on from its counts.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/collector_int.h"
#include "config/config.h"
#include "tests/lib/check.h"
#include "tests/lib/fake_pmu.h"
#include "tests/lib/scratch.h"

#define CHILDREN 4
#define MAX_NTH 2000		/* more allocations than a pass makes */

void *__real_malloc(size_t n);
void *__real_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__wrap_realloc(void *p, size_t n);

static long countdown;		/* >0: the nth allocation from now fails */
static size_t canceled;		/* passes that failed changing nothing */
static int failed;		/* ... and it did */
static struct asks asks;	/* what the passes ask of a schedule */

static int
fail_now(void)
{
	if (countdown > 0 && --countdown == 0) {
		failed = 1;
		return 1;
	}
	return 0;
}

void *
__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t nmemb, size_t size)
{
	return fail_now() ? NULL : __real_calloc(nmemb, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

static char logbuf[1 << 16];

static void
logto(int prio, const struct log_fields *f, const char *fmt, ...)
{
	size_t len = strlen(logbuf);
	va_list ap;

	(void)prio;
	(void)f;
	if (len + 2 >= sizeof(logbuf))
		len = 0;	/* keep the newest */
	va_start(ap, fmt);
	vsnprintf(logbuf + len, sizeof(logbuf) - len - 1, fmt, ap);
	va_end(ap);
	strcat(logbuf, "\n");
}

static char root[4096], parent[256];

static void
cg(const char *child, int make)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s%s%s%s", root, parent,
	    child ? "/" : "", child ? child : "");
	if (make && mkdir(path, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!make)
		(void)rmdir(path);
}

/* The set as it stands: its targets, in order, and the fds they hold. */
struct seen {
	struct target *v[CHILDREN + 4];
	size_t nr, fds;
};

static void
look(const struct collector *c, struct seen *s)
{
	CHECK(c->set.nr <= sizeof(s->v) / sizeof(s->v[0]));
	s->nr = c->set.nr;
	memcpy(s->v, c->set.v, s->nr * sizeof(*s->v));
	s->fds = targetset_fds(&c->set);
}

/* Is the set sorted, every cgroup target opened, n cgroups in it? */
static int
whole(const struct collector *c, size_t n)
{
	size_t i, cgroups = 0;

	for (i = 0; i < c->set.nr; i++) {
		if (i && target_cmp(&c->set.v[i - 1], &c->set.v[i]) >= 0)
			return 0;
		if (c->set.v[i]->cgroup == NULL)
			continue;
		cgroups++;
		if (!target_is_open(c->set.v[i]))
			return 0;
	}
	return cgroups == n && c->set.nr == n + 1;
}

static void same_set(const struct collector *c, const struct seen *before);

/* A pass whose nth allocation fails, for n = 1, 2, ... until one
 * completes.  One that fails with -ECANCELED must have changed nothing;
 * check(c, before) after one that fails with -ENOMEM (NULL: none may).
 * The passes that failed. */
static size_t
fail_each(struct collector *c, const struct plan *cfg,
    enum reconcile_reason why,
    void (*check)(const struct collector *, const struct seen *))
{
	struct seen before;
	size_t n;
	int r;

	for (n = 1; n <= MAX_NTH; n++) {
		const struct plan *running = c->ps.cfg;

		look(c, &before);
		failed = 0;
		countdown = (long)n;
		r = targetset_reconcile(&c->set, cfg ? cfg : c->ps.cfg, why,
		    &asks);
		countdown = 0;
		if (!failed) {
			CHECK(r == 0);
			return n - 1;
		}
		/* A failure a pass absorbs (a report cut short) is no
		 * failure of the pass. */
		CHECK(r == 0 || r == -ENOMEM || r == -ECANCELED);
		if (r == -ECANCELED) {
			/* Nothing changed: the running plan and set. */
			CHECK(c->ps.cfg == running);
			same_set(c, &before);
			canceled++;
		} else if (r == -ENOMEM) {
			CHECK(check != NULL);
			if (check)
				check(c, &before);
		}
	}
	CHECK(!"a pass that never completes");
	return n;
}

/*
 * One pass of why (to cfg; NULL: the running plan) failed at each of its
 * allocations in turn (fail_each), then completed: it makes more than a
 * few, and the set is whole after it.  A rescan always fails changing
 * nothing; a rebuild changes nothing when it fails early, runs a usable
 * set when it fails late (check).
 */
static void
phase(struct collector *c, const struct plan *cfg,
    enum reconcile_reason why,
    void (*check)(const struct collector *, const struct seen *),
    const char *what)
{
	size_t n;

	canceled = 0;
	n = fail_each(c, cfg, why, check);
	printf("ok: %s, failing at each of its %zu allocations in turn: %zu "
	    "changed nothing, %zu ran a usable set\n", what, n, canceled,
	    n - canceled);
	CHECK(n > 10);
	CHECK(check ? canceled > 0 && canceled < n : canceled == n);
	CHECK(whole(c, CHILDREN));
}

/* A failed rescan: the running set untouched. */
static void
same_set(const struct collector *c, const struct seen *before)
{
	struct seen now;

	look(c, &now);
	CHECK(now.nr == before->nr);
	CHECK(memcmp(now.v, before->v, now.nr * sizeof(*now.v)) == 0);
	CHECK(now.fds == before->fds);
}

/* The fds this process has open. */
static size_t
fds_open(void)
{
	char path[64];
	size_t n = 0;
	int fd;

	for (fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

static size_t fds_beside;	/* open fds that are not the set's */

/*
 * A failed rebuild: a usable set, sorted; and a rescan then makes it
 * whole again, with no fd open but the set's (a target that failed to
 * open holds none).
 */
static void
usable_set(const struct collector *c, const struct seen *before)
{
	struct collector *w = (struct collector *)c;
	size_t i;

	(void)before;
	for (i = 1; i < c->set.nr; i++)
		CHECK(target_cmp(&c->set.v[i - 1], &c->set.v[i]) < 0);
	CHECK(targetset_reconcile(&w->set, c->ps.cfg, RECONCILE_RESCAN,
	    &asks) == 0);
	CHECK(whole(c, CHILDREN));
	CHECK(fds_open() == fds_beside + targetset_fds(&c->set));
}

static const struct plan *reload_to;

/* A reload that failed after it took instances over: the new plan runs
 * a usable set of its own targets. */
static void
reloaded(const struct collector *c, const struct seen *before)
{
	size_t i;

	CHECK(c->ps.cfg == reload_to);
	usable_set(c, before);
	/* Every target is the new plan's: both its groups. */
	for (i = 0; i < c->set.nr; i++)
		CHECK(c->set.v[i]->cgroup == NULL ||
		    c->set.v[i]->nr_groups == 2);
}

/* The plan: groups (YAML list items), the system-wide target counting
 * sw, each cgroup under the parent counting the groups named counted. */
static struct plan *
plan_of(const char *groups, const char *counted)
{
	char yaml[1024], err[512];
	struct plan *p = NULL;

	snprintf(yaml, sizeof(yaml), "cgroup_rescan_interval: 1h\n"
	    "groups:\n%s"
	    "cpus:\n  - cpus: all\n    groups: [sw]\n"
	    "cgroups:\n  - path: %s/*\n    groups: [%s]\n", groups, parent,
	    counted);
	if (config_parse(NULL, "t.yaml", yaml, strlen(yaml), &p, err,
	    sizeof(err)) < 0)
		fprintf(stderr, "%s\n", err);
	CHECK(p != NULL);
	return p;
}

/* The parent and its children a0.. made, or removed with b0. */
static void
tree(int make)
{
	char name[16];
	size_t i;

	if (make)
		cg(NULL, 1);
	for (i = 0; i < CHILDREN; i++) {
		snprintf(name, sizeof(name), "a%zu", i);
		cg(name, make);
	}
	if (!make) {
		cg("b0", 0);
		cg(NULL, 0);
	}
}

/*
 * A cgroup removed between discovery and perf_event_open: one debug line,
 * nothing louder, and no series.  The cgroup "mount" is a scratch dir.
 */
static void
test_vanished(const char *dir)
{
	char mi[8400], cg[4200], yaml[512];
	struct plan *cfg = NULL;
	struct collector *c;
	struct snapshot *s;

	snprintf(cg, sizeof(cg), "mkdir -p %s/cg/x", dir);
	CHECK(system(cg) == 0);
	fake_mount(dir, "cg", mi, sizeof(mi));
	snprintf(yaml, sizeof(yaml), "groups:\n  - name: sw\n"
	    "    events: [cycles]\ncgroups:\n  - path: /*\n"
	    "    groups: [sw]\n");
	fake.log[0] = '\0';
	fake.max_prio = 99;
	fake.vanish = 1;
	c = fake_make(yaml, &cfg, dir);
	fake.vanish = 0;
	collector_enable(c);
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->nr_rows == 0 && s->cgroups_counted == 0);
	snapshot_unref(s);
	CHECK(fake.max_prio == 7);
	CHECK(count_of(fake.log, "vanished") == 1);
	CHECK(fake_open_fds() == 0);
	collector_free(c);
	plan_free(cfg);

	/* Present: counted (the fake PMU takes any cgroup fd). */
	fake.log[0] = '\0';
	c = fake_make(yaml, &cfg, dir);
	collector_enable(c);
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(s && s->nr_rows == 1 && s->cgroups_counted == 1);
	CHECK(s && s->rows[0].cgroup && strcmp(s->rows[0].cgroup, "/x") == 0);
	snapshot_unref(s);
	CHECK(fake_free(c, cfg) == 0);
}

/* Move this process into the cgroup child ("": the root), then burn
 * some CPU there. */
static void
run_in(const char *child)
{
	char path[8192];
	volatile unsigned long n;
	FILE *f;

	if (child[0])
		snprintf(path, sizeof(path), "%s%s/%s/cgroup.procs", root,
		    parent, child);
	else
		snprintf(path, sizeof(path), "%s/cgroup.procs", root);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	fprintf(f, "%d\n", (int)getpid());
	CHECK(fclose(f) == 0);
	for (n = 0; child[0] && n < 100000000; n++)
		;
}

/* task-clock of cgroup child in a new snapshot; -1: no such row. */
static double
counted(struct collector *c, const char *child)
{
	char path[512];
	struct snapshot *s;
	double v = -1;
	size_t i;

	collector_collect(c);
	s = collector_snapshot(c);
	snprintf(path, sizeof(path), "%s/%s", parent, child);
	for (i = 0; s && i < s->nr_rows; i++)
		if (s->rows[i].cgroup && strcmp(s->rows[i].cgroup, path) == 0)
			v = s->rows[i].values[0];
	snapshot_unref(s);
	return v;
}

/* The running target of cgroup child. */
static struct target *
target_of(const struct collector *c, const char *child)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", parent, child);
	return target_find(c->set.v, c->set.nr, path);
}

/*
 * a1 worked in, then removed and made again between two passes (or with
 * a pass between, gap, that finds it gone), a rescan then a rebuild (why)
 * to see it: the target at its path is a new one
 * whose id is the new cgroup's (the walk's, name_to_handle_at's), no
 * instance of the old one adopted, and the series goes on from all the
 * old one counted (its work since the last collection too), then counts
 * the new cgroup's work.
 */
static void
remade(struct collector *c, enum reconcile_reason why, int gap,
    const char *what)
{
	struct target *old = target_of(c, "a1"), *t;
	double before, carried, after;
	uint64_t old_id = old ? old->id : 0, id = 0;
	size_t remade0 = c->set.remade;
	char path[8192];
	int fd;

	before = counted(c, "a1");
	CHECK(old != NULL && old_id != 0);
	/* Work since the last collection: the old cgroup's last reading
	 * must keep it. */
	run_in("a1");
	run_in("");
	cg("a1", 0);
	if (gap) {
		/* Gone for a pass: its series leave the snapshot, its
		 * counts are kept for its path (departed.h). */
		CHECK(targetset_reconcile(&c->set, c->ps.cfg, why, &asks) == 0);
		CHECK(target_of(c, "a1") == NULL && counted(c, "a1") == -1);
		CHECK(departed_find(&c->set.departed, old->cgroup) == old);
	}
	cg("a1", 1);
	CHECK(targetset_reconcile(&c->set, c->ps.cfg, why, &asks) == 0);
	CHECK(c->set.departed.nr == 0);
	t = target_of(c, "a1");
	snprintf(path, sizeof(path), "%s%s/a1", root, parent);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && cgroupfs_ino(fd, &id) == 0);
	/* The walk's id is the kernel's cgroup id, as BPF keys on it. */
	if (fd >= 0 && cgroupfs_id(fd, &old_id) == 0)
		CHECK(old_id == id);
	if (fd >= 0)
		close(fd);
	CHECK(t != NULL && target_is_open(t) && t->id == id);
	CHECK(c->set.remade == remade0 + 1);
	carried = counted(c, "a1");
	run_in("a1");
	run_in("");
	after = counted(c, "a1");
	printf("ok: %s sees a1 made again (id %llu): its task-clock %.3f, "
	    "%.3f after, %.3f once the new cgroup worked\n", what,
	    (unsigned long long)id, before, carried, after);
	CHECK(carried > before && after > carried);
	CHECK(whole(c, CHILDREN));
}

int
main(void)
{
	struct collector_opts o = { .log = logto };
	struct collector *c = NULL;
	struct plan *cfg, *next = NULL;
	char err[512], gone[300];
	char dir[] = "/tmp/targetset_test.XXXXXX";
	int v2;

	CHECK(fake_begin(dir) == 0);
	test_vanished(dir);
	CHECK(fake_end(dir) == 0);
	perf_ops = &perf_ops_kernel;
	/* What needs root is skipped; what ran must have passed. */
	if (geteuid() != 0) {
		printf("SKIP: cgroups need root\n");
		return check_failures ? 1 : 77;
	}
	if (cgroupfs_find("/proc/self/mountinfo", root, sizeof(root),
	    &v2) < 0) {
		printf("SKIP: no cgroup hierarchy with perf_event\n");
		return check_failures ? 1 : 77;
	}
	snprintf(parent, sizeof(parent), "/pmu_targetset_test.%d",
	    (int)getpid());
	tree(1);
	cfg = plan_of("  - name: sw\n    events: [task-clock]\n", "sw");
	if (cfg == NULL || collector_new(cfg, &o, &c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		CHECK(!"a collector");
		goto out;
	}
	CHECK(whole(c, CHILDREN));
	fds_beside = fds_open() - targetset_fds(&c->set);

	/* A cgroup comes and one goes: a rescan, failing at each of its
	 * allocations in turn, leaves the running set as it was. */
	cg("a0", 0);
	cg("b0", 1);
	phase(c, NULL, RECONCILE_RESCAN, NULL, "a rescan");
	snprintf(gone, sizeof(gone), "cgroup %s/a0 is gone", parent);
	CHECK(count_of(logbuf, gone) == 1);
	CHECK(collector_open_fds(c) > 0);

	/* A retry (a rebuild, every target made anew adopting what stays)
	 * failing at each of its allocations in turn leaves a usable set;
	 * the next one has every cgroup counted again. */
	phase(c, NULL, RECONCILE_RETRY, usable_set, "a retry");

	/* A reload to a plan with one more group, listed first (so a group
	 * index of the old plan names another group in the new one):
	 * failing before it takes anything over, it gives the running plan
	 * back with the set as it was; after, the new plan runs a usable
	 * set of its own targets. */
	next = plan_of("  - name: cs\n    events: [context-switches]\n"
	    "  - name: sw\n    events: [task-clock]\n", "sw, cs");
	reload_to = next;
	phase(c, next, RECONCILE_RELOAD, reloaded, "a reload");
	CHECK(c->ps.cfg == next);
	collector_enable(c);
	collector_collect(c);
	{
		struct snapshot *s = collector_snapshot(c);

		CHECK(s != NULL && s->cgroups_opened == CHILDREN);
		CHECK(s != NULL && s->nr_groups == 2);
		snapshot_unref(s);
	}
	remade(c, RECONCILE_RESCAN, 0, "a rescan");
	remade(c, RECONCILE_RETRY, 0, "a rebuild");
	remade(c, RECONCILE_RESCAN, 1, "a rescan after one without it");
	remade(c, RECONCILE_RETRY, 1, "a rebuild after one without it");
out:
	collector_free(c);
	plan_free(cfg);
	plan_free(next);
	tree(0);
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}
