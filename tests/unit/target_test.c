/*
 * target_test.c - one target (collectors/collector/target.c, target.h):
 * its order and look-up among targets; planning and opening within the
 * fd budget it is given, on real software events (the budget one short
 * of what it needs, then exactly it), its states (skipped, open,
 * unopened again), what it holds and closing; the system-wide target as
 * the union of the cpus: entries; a group opened only on the CPUs its
 * PMU covers (the Intel hybrid fixture, a PMU whose CPUs are offline).
 * The latter on the scripted PMU of tests/lib/fake_pmu.h.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/collector_int.h"
#include "collectors/collector/target.h"
#include "collectors/events/pmu.h"
#include "config/config.h"
#include "tests/lib/check.h"
#include "tests/lib/fake_pmu.h"
#include "tests/lib/scratch.h"

/* Sorted: the system-wide target first, then cgroups by path; found by
 * binary search, named. */
static void
test_order(void)
{
	struct target *v[4], *t;
	const char *paths[] = { "/b", NULL, "/a/x", "/a" };
	size_t i;

	for (i = 0; i < 4; i++)
		CHECK((v[i] = target_new(paths[i])) != NULL);
	qsort(v, 4, sizeof(*v), target_cmp);
	CHECK(v[0]->cgroup == NULL);
	CHECK_STR(v[1]->cgroup, "/a");
	CHECK_STR(v[2]->cgroup, "/a/x");
	CHECK_STR(v[3]->cgroup, "/b");
	CHECK((t = target_find(v, 4, "/a/x")) == v[2]);
	CHECK(target_find(v, 4, NULL) == v[0]);
	CHECK(target_find(v, 4, "/c") == NULL);
	CHECK(target_find(v, 0, "/a") == NULL);
	CHECK_STR(target_name(v[0]), "system-wide");
	CHECK_STR(target_name(t), "/a/x");
	for (i = 0; i < 4; i++) {
		CHECK(v[i]->state == TARGET_UNOPENED && !target_is_open(v[i]));
		target_free(v[i]);
	}
	target_free(NULL);
}

/*
 * A system-wide target planned from a cpus: entry of two software events
 * and opened on the real kernel: one fd short of its need it is skipped
 * and holds nothing; with exactly its need it opens, holding one fd per
 * event per online CPU; closed, it holds none and may open again.
 */
static void
test_open_budget(void)
{
	struct plan *cfg = NULL;
	struct collector *c;
	struct target *t;
	struct asks as = { 0 };
	size_t need;

	c = fake_kernel_make("groups:\n  - name: sw\n"
	    "    events: [cpu-clock, context-switches]\n"
	    "cpus:\n  - cpus: all\n    groups: [sw]\n", &cfg);
	if (c == NULL)
		return;
	need = 2 * c->online.map.nr;
	CHECK((t = target_new(NULL)) != NULL);
	CHECK(target_plan_cpus(&c->set.ix, t, &c->ps.cfg->targets[0]) == 0);
	CHECK(t->nr_groups == 1 && t->groups[0].cpus.nr == c->online.map.nr);
	CHECK(target_open(&c->set.ix, t, NULL, &as, need - 1, 0) == -E2BIG);
	CHECK(t->state == TARGET_SKIPPED && target_fds(t) == 0);
	CHECK(target_open(&c->set.ix, t, NULL, &as, need, 1) == (long)need);
	CHECK(target_is_open(t) && target_fds(t) == need);
	CHECK(as.retry == 0 && as.retry_soon == 0);
	target_close(t);
	CHECK(t->state == TARGET_UNOPENED && target_fds(t) == 0);
	CHECK(target_open(&c->set.ix, t, NULL, &as, need, 0) == (long)need);
	target_free(t);
	fake_kernel_free(c, cfg);
}

/*
 * The system-wide target is the union of the cpus: entries, each group
 * once, in the order the entries first name them (--check-config prints
 * them so): 40 groups, the first entry naming g19..g0, the second g10..g39,
 * so half are found again and widened, through every growth of the
 * target's group list.
 */
static void
test_union(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	char yaml[4096], line[64], *text = NULL;
	const char *at;
	size_t len = 0, n, i, in_order = 0, once = 0;
	FILE *out = open_memstream(&text, &len);

	n = (size_t)snprintf(yaml, sizeof(yaml), "groups:\n");
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
		    "  - {name: g%zu, events: [cycles]}\n", i);
	n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
	    "cpus:\n  - cpus: \"0\"\n    groups: [");
	for (i = 20; i-- > 0;)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n, "g%zu%s", i,
		    i ? ", " : "]\n");
	n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
	    "  - cpus: \"1\"\n    groups: [");
	for (i = 10; i < 40; i++)
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n, "g%zu%s", i,
		    i < 39 ? ", " : "]\n");
	fake.log[0] = '\0';
	fake.step_enabled = fake.step_running = 1000000000ULL;
	c = fake_make(yaml, &cfg, sysfs);
	/* g0-g9 on CPU 0, g10-g19 on both, g20-g39 on CPU 1. */
	CHECK(fake_open_fds() == 50);
	CHECK(probe_check_config(c, out, 1) == 0);
	fclose(out);
	for (at = text, i = 0; i < 40; i++) {
		size_t g = i < 20 ? 19 - i : i;

		snprintf(line, sizeof(line), "system-wide group g%zu on CPUs "
		    "%s:", g, g < 10 ? "0" : g < 20 ? "0-1" : "1");
		once += count_of(text, line) == 1;
		if (at && (at = strstr(at, line)) != NULL)
			in_order++;
	}
	CHECK(once == 40 && in_order == 40);
	free(text);
	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
}


/* The hybrid fixture's 16 CPUs x 3 events, plus data_read on CPU 0
 * only: cycles and instructions with cpu_core's extended type (4) on
 * CPUs 0-7, cpu_atom's (10) on 8-15. */
static void
check_hybrid_fds(void)
{
	size_t core = 0, atom = 0;
	int k;

	CHECK(fake_open_fds() == 16 * 3 + 1);
	for (k = 0; k < FAKE_MAXFD; k++) {
		if (!fake.fds[k].used || fake.fds[k].config == 0x20ff)
			continue;
		if (fake.fds[k].config == 1ULL)	/* task-clock */
			continue;
		if (fake.fds[k].cpu < 8)
			core += fake.fds[k].config >> 32 == 4;
		else
			atom += fake.fds[k].config >> 32 == 10;
	}
	CHECK(core == 16 && atom == 16);
}

/* One row per CPU, each naming its core PMU, and the uncore row on CPU
 * 0 scaled by its sysfs scale. */
static void
check_hybrid_rows(const struct snapshot *s)
{
	size_t i, core = 0, atom = 0;

	CHECK(s && s->nr_rows == 17);
	for (i = 0; s && i < s->nr_rows; i++) {
		const struct snap_row *r = &s->rows[i];

		if (strcmp(r->group, "imc") == 0) {
			CHECK(r->cpu == 0 && r->pmu == NULL);
			/* 3/ns * (0x20ff + 1) counts, times the sysfs scale. */
			CHECK(r->values[0] == 3e9 * 0x2100 * 6.103515625e-5);
			continue;
		}
		CHECK(r->pmu != NULL);
		if (r->pmu && strcmp(r->pmu, "cpu_core") == 0)
			core += r->cpu < 8;
		else if (r->pmu && strcmp(r->pmu, "cpu_atom") == 0)
			atom += r->cpu >= 8;
	}
	CHECK(core == 8 && atom == 8);
	CHECK(s && s->nr_support == 7);
	CHECK(s && strcmp(s->support[6].pmu, "uncore_imc_free_running_0") == 0);
	CHECK(s && strcmp(s->support[2].pmu, "software") == 0);
}

/*
 * The Intel hybrid fixture: a generic group becomes one group per core
 * PMU, each opened only on that PMU's CPUs with its extended type, and
 * an uncore event opens only on its cpumask CPU, its counts scaled.
 */
static void
test_pmus(void)
{
	struct collector_opts o = {
		.mountinfo = "/nonexistent",
		.log = fake_capture,
	};
	const char *top = getenv("top_srcdir");
	struct pmu_list l;
	struct event_ctx ctx = { &l, NULL, 1, NULL };
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char sysfs[4096], err[1024];
	static const char yaml[] =
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions, task-clock]\n"
	    "  - name: imc\n"
	    "    events: [uncore_imc_free_running_0/data_read/]\n"
	    "cpus:\n"
	    "  - cpus: all\n"
	    "    groups: [ipc, imc]\n"
	    "  - cpus: \"9\"\n"
	    "    groups: [imc]\n";

	fake.log[0] = '\0';
	snprintf(sysfs, sizeof(sysfs), "%s/tests/fixtures/sysfs-intel-hybrid",
	    top ? top : ".");
	o.sysfs = sysfs;
	CHECK(pmu_scan(sysfs, &l, err, sizeof(err)) == 0);
	CHECK(config_parse(&ctx, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == 0);
	CHECK(cfg && cfg->nr_groups == 3);
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		pmu_list_free(&l);
		return;
	}
	CHECK(collector_new(cfg, &o, &c, err, sizeof(err)) == 0);
	check_hybrid_fds();
	CHECK(count_of(fake.log, "group \"imc\" counts PMU "
	    "\"uncore_imc_free_running_0\", which covers CPUs 0 only, none of "
	    "the CPUs 9") == 1);
	collector_enable(c);
	fake.step_enabled = fake.step_running = 1000000000ULL;
	fake_tick(c);
	s = collector_snapshot(c);
	check_hybrid_rows(s);
	snapshot_unref(s);
	collector_free(c);
	plan_free(cfg);
	pmu_list_free(&l);
	CHECK(fake_open_fds() == 0);
}

/*
 * The hybrid fixture with its E-cores offline: a cgroup's group copy for
 * cpu_atom covers none of the online CPUs, so the cgroup has no such
 * group (no summed row of zeros); cpu_core's counts.
 */
static void
test_pmu_offline(const char *dir)
{
	struct collector_opts o = { .log = fake_capture };
	const char *top = getenv("top_srcdir");
	struct pmu_list l;
	struct event_ctx ctx = { &l, NULL, 1, NULL };
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char sysfs[4096], cmd[8800], mi[8400], err[1024], *text;
	size_t len;
	FILE *out;
	static const char yaml[] =
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions]\n"
	    "cgroups:\n"
	    "  - path: /x\n"
	    "    groups: [ipc]\n";

	snprintf(sysfs, sizeof(sysfs), "%s/hybrid-off", dir);
	snprintf(cmd, sizeof(cmd), "cp -r %s/tests/fixtures/sysfs-intel-hybrid "
	    "%s && mkdir -p %s/cgo/x", top ? top : ".", sysfs, dir);
	CHECK(system(cmd) == 0);
	scratch_put(sysfs, "devices/system/cpu/online", "0-7\n");
	fake_mount(dir, "cgo", mi, sizeof(mi));
	o.sysfs = sysfs;
	o.mountinfo = mi;
	CHECK(pmu_scan(sysfs, &l, err, sizeof(err)) == 0);
	CHECK(config_parse(&ctx, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) == 0);
	CHECK(cfg && cfg->nr_groups == 2);
	if (cfg && collector_new(cfg, &o, &c, err, sizeof(err)) == 0) {
		collector_enable(c);
		fake.step_enabled = fake.step_running = 1000000000ULL;
		fake_tick(c);
		s = collector_snapshot(c);
		CHECK(s && s->nr_rows == 1);
		CHECK(s && s->nr_rows && s->rows[0].pmu &&
		    strcmp(s->rows[0].pmu, "cpu_core") == 0);
		snapshot_unref(s);
		/* --check-config shows no cpu_atom copy on no CPUs. */
		text = NULL;
		len = 0;
		out = open_memstream(&text, &len);
		CHECK(probe_check_config(c, out, 1) == 0);
		fclose(out);
		CHECK_CONTAINS(text, "/x group ipc pmu cpu_core on CPUs 0-7: "
		    "8 of 8 instances open");
		CHECK(text && strstr(text, "cpu_atom on") == NULL);
		free(text);
		collector_free(c);
	}
	plan_free(cfg);
	pmu_list_free(&l);
	CHECK(fake_open_fds() == 0);
	fake.mountinfo = "/nonexistent";
}

int
main(void)
{
	char dir[] = "/tmp/target_test.XXXXXX";

	CHECK(fake_begin(dir) == 0);
	test_order();
	test_open_budget();
	test_union(dir);
	test_pmus();
	test_pmu_offline(dir);
	CHECK(fake_end(dir) == 0);
	if (check_failures)
		fprintf(stderr, "log was:\n%s", fake.log);
	return CHECK_DONE();
}
