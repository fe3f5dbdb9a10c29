/*
 * collector_test.c - the collector whole against a fake PMU
 * (tests/lib/fake_pmu.h): a collection's arithmetic and its error handling
 * checked exactly, without hardware: multiplexing, an interval with no
 * running time, an event the CPU lacks, a group whose read returns 0
 * bytes, a group that is never scheduled (and --check-config's count of
 * the counters it needs), and that every fd opened is closed again.  And
 * the embedded default's cgroup layouts against a tree made from
 * tests/fixtures/layouts, and a pod's sandbox container shown apart.
 * What one target, one instance or the target set does alone is
 * checked in their own unit tests (tests/unit/).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/collector/collector.h"
#include "collectors/events/pmu.h"
#include "collectors/perf/group.h"
#include "collectors/perf/perf_sys.h"
#include "config/config.h"
#include "daemon/expo/expo.h"
#include "names/names.h"
#include "tests/lib/check.h"
#include "tests/lib/fake_pmu.h"
#include "tests/lib/scratch.h"

/*
 * One group read, straight through group.c: members matched back by
 * their ids whatever order they come in, and a short read refused.
 */
static void
test_group_read(void)
{
	struct perf_event_attr a[3];
	struct perf_group pg;
	struct count out[3];
	size_t i;

	memset(a, 0, sizeof(a));
	for (i = 0; i < 3; i++) {
		a[i].type = PERF_TYPE_HARDWARE;
		a[i].config = i;	/* the fake counts config + 1 per step */
	}
	CHECK(group_init(&pg, 3) == 0);
	CHECK(group_open(&pg, a, -1, 0, 0) == 0 && pg.nr == 3);
	CHECK(group_enable(&pg, 1) == 0);
	fake.step_enabled = fake.step_running = 1000;
	fake.read_reversed = 1;
	memset(out, 0, sizeof(out));
	CHECK(group_read(&pg, out) == 0);
	fake.read_reversed = 0;
	CHECK(out[0].value == (uint64_t)(fake.rate * 1000));
	CHECK(out[1].value == 2 * out[0].value);
	CHECK(out[2].value == 3 * out[0].value);
	CHECK(out[0].enabled == 1000 && out[2].running == 1000);
	fake.read_short = 1;
	CHECK(group_read(&pg, out) == -EIO);
	fake.read_short = 0;
	group_fini(&pg);
	fake.step_enabled = fake.step_running = 0;
	CHECK(fake_open_fds() == 0);
}

/*
 * After three intervals (fully counted, multiplexed at 50%, not
 * scheduled): CPU 1's row holds the scaled truth, bus-cycles is counted
 * nowhere and has no series, only its supported 0.
 */
static void
check_scaled(struct collector *c, double truth_c, double truth_i)
{
	struct snapshot *s = collector_snapshot(c);
	const struct snap_row *r;
	size_t len;
	char *text;

	CHECK(s != NULL && s->nr_rows == 2 && s->seq == 3);
	r = fake_row(s, 1);
	CHECK(r != NULL);
	if (r) {
		CHECK(r->nr_events == 4);
		CHECK(r->values[0] == truth_c);
		CHECK(r->values[1] == truth_i);
		CHECK(r->values[2] == 0);
		CHECK(r->values[3] == truth_c * 10);	/* config 9 */
		CHECK(r->counted[0] && r->counted[1] && !r->counted[2] &&
		    r->counted[3]);
		CHECK(r->pmu == NULL);
		CHECK(r->enabled_s == 3.0);
		CHECK(r->running_s == 1.5);
	}
	CHECK(s->nr_support == 4 && s->support[0].supported == 1 &&
	    s->support[2].supported == 0 && s->support[3].supported == 1);
	CHECK_STR(s->support[0].pmu, "cpu");
	CHECK(s->open_fds == 6);
	text = expo_render(s, &len);
	CHECK(count_of(text, "_events_total{cpu=\"0\",group=\"ipc\","
	    "event=\"bus-cycles\"") == 0);
	CHECK_CONTAINS(text, "pmu_exporter_event_supported{group=\"ipc\","
	    "event=\"bus-cycles\",pmu=\"cpu\"} 0\n");
	CHECK_CONTAINS(text, "pmu_exporter_collection_interval_seconds 1\n");
	/* Its time, stamped by the collection (interval.c). */
	CHECK(s->interval_s == 1 && s->began_ns > 0 && s->duration_s >= 0);
	free(text);
	snapshot_unref(s);
}

/* 4: CPU 1's group fails (0-byte read): reported once, CPU 0 goes on,
 * CPU 1's last counts are kept. */
static void
check_error_state(struct collector *c, double truth_c)
{
	struct snapshot *s;

	fake.step_running = fake.step_enabled;
	fake.zero_read_cpu = 1;
	fake_tick(c);
	fake_tick(c);
	CHECK(count_of(fake.log, "group \"ipc\" on cpu 1 for system-wide is in "
	    "error state (read returned 0 bytes)") == 1);
	s = collector_snapshot(c);
	CHECK(fake_row(s, 0) && fake_row(s, 0)->values[0] == truth_c + 6e9);
	CHECK(fake_row(s, 1) && fake_row(s, 1)->values[0] == truth_c);	/* kept */
	CHECK(s->open_fds == 3);
	snapshot_unref(s);
	fake.zero_read_cpu = -1;
}

static void
test_counting(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	/* cycles = config 0, instructions = 1: rates 3 and 6 per ns. */
	double truth_c = 0, truth_i = 0;

	fake.log[0] = '\0';
	c = fake_make("interval: 1s\n"
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions, bus-cycles, ref-cycles]\n"
	    "cpus:\n"
	    "  - cpus: all\n"
	    "    groups: [ipc]\n"
	    "  - cpus: \"1\"\n"
	    "    groups: [ipc]\n", &cfg, sysfs);
	/*
	 * Two CPUs, three fake.fds each (bus-cycles fake.missing, ref-cycles opened
	 * again without exclude_guest), despite the overlap.
	 */
	CHECK(fake_open_fds() == 6);
	CHECK(collector_open_fds(c) == 6);
	CHECK(count_of(fake.log, "t.yaml:4:36: event \"bus-cycles\" in group "
	    "\"ipc\" cannot be counted on cpu 0: No such file or directory; "
	    "the rest keep counting") == 1);
	CHECK(count_of(fake.log, "bus-cycles") == 1);	/* once, not per CPU */
	collector_enable(c);

	/* 1: fully counted. */
	fake.step_enabled = fake.step_running = 1000000000ULL;
	fake_tick(c);
	truth_c += 3e9;
	truth_i += 6e9;
	/* 2: multiplexed at 50%: the estimate fills the gap. */
	fake.step_running = 500000000ULL;
	fake_tick(c);
	truth_c += 3e9;
	truth_i += 6e9;
	/* 3: not scheduled at all: nothing is added, no spike, no zero. */
	fake.step_running = 0;
	fake_tick(c);
	check_scaled(c, truth_c, truth_i);
	check_error_state(c, truth_c);

	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
}

static void
test_unscheduled(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	int i;

	fake.log[0] = '\0';
	c = fake_make("groups:\n  - name: big\n    events: [cycles]\n"
	    "cpus:\n  - cpus: \"0\"\n    groups: [big]\n", &cfg, sysfs);
	collector_enable(c);
	fake.step_enabled = 1000000000ULL;
	fake.step_running = 0;
	for (i = 0; i < 5; i++)
		fake_tick(c);
	CHECK(count_of(fake.log, "group \"big\" for system-wide has not been "
	    "scheduled on cpu 0 (time_running is 0)") == 1);
	fake.step_running = fake.step_enabled;
	fake_tick(c);
	CHECK(count_of(fake.log, "is being scheduled now") == 1);
	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
}

/*
 * A software group that shows enabled time and no running time (a cgroup
 * that has not run on that CPU since it was opened, on Linux 6.18) waits
 * for no counter: nothing logged, and --check-config finds no problem.
 */
static void
test_unscheduled_software(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int i;

	fake.log[0] = '\0';
	c = fake_make("groups:\n  - name: sw\n    events: [task-clock, "
	    "context-switches]\n"
	    "cpus:\n  - cpus: \"0\"\n    groups: [sw]\n", &cfg, sysfs);
	collector_enable(c);
	fake.step_enabled = 1000000000ULL;
	fake.step_running = 0;
	for (i = 0; i < 5; i++)
		fake_tick(c);
	CHECK(count_of(fake.log, "has not been scheduled") == 0);
	out = open_memstream(&text, &len);
	CHECK(probe_check_config(c, out, 1) == 0);
	fclose(out);
	CHECK(strstr(text, "never scheduled") == NULL);
	free(text);
	fake.step_enabled = fake.step_running = 0;
	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
}

/*
 * --check-config on a group bigger than the PMU's counters: it says so,
 * with the number of counters the PMU showed when probed.
 */
static void
test_check_counters(const char *sysfs)
{
	struct plan *cfg = NULL;
	struct collector *c;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	fake.log[0] = '\0';
	fake.counters = 3;
	fake.step_enabled = fake.step_running = 1000000000ULL;
	c = fake_make("groups:\n  - name: big\n"
	    "    events: [cycles, instructions, branches, branch-misses]\n"
	    "cpus:\n  - cpus: \"0\"\n    groups: [big]\n", &cfg, sysfs);
	CHECK(probe_check_config(c, out, 1) >= 1);
	fclose(out);
	CHECK_CONTAINS(text, "never scheduled on 1 CPUs: the group has 4 "
	    "hardware events and the PMU showed 3 counters for them (cpu 0): "
	    "split the group");
	free(text);
	collector_free(c);
	plan_free(cfg);
	fake.counters = 0;
	CHECK(fake_open_fds() == 0);
}

/* One line of tests/fixtures/layouts. */
struct layout_case {
	char path[1024];
	char layouts[128];		/* "docker", "top,lxc"; "-": none */
	char labels[1024];		/* "k=v k=v", sorted */
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort the space-separated words of s in place. */
static void
sort_words(char *s)
{
	char buf[1024], *w[32], *save = NULL, *t;
	size_t n = 0, i, o = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, " ", &save); t && n < 32;
	    t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	qsort(w, n, sizeof(*w), cmp_str);
	s[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, 1024 - o, "%s%s", i ? " " : "",
		    w[i]);
}

static size_t
read_layout_cases(struct layout_case *lc, size_t max)
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[4096];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/layouts",
	    top ? top : ".");
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f) && n < max) {
		char *p, *l;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '/')
			continue;
		p = strchr(line, ' ');
		CHECK(p != NULL);
		if (p == NULL)
			continue;
		*p++ = '\0';
		l = strchr(p, ' ');
		if (l)
			*l++ = '\0';
		snprintf(lc[n].path, sizeof(lc[n].path), "%.1000s", line);
		snprintf(lc[n].layouts, sizeof(lc[n].layouts), "%.100s", p);
		snprintf(lc[n].labels, sizeof(lc[n].labels), "%.1000s",
		    l ? l : "");
		sort_words(lc[n].labels);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static int
in_layout(const struct layout_case *lc, const char *layout)
{
	char buf[128], *save = NULL, *t;

	snprintf(buf, sizeof(buf), "%s", lc->layouts);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strcmp(t, layout) == 0)
			return 1;
	return 0;
}

/* The summed row of cgroup path, or NULL. */
static const struct snap_row *
cgroup_row(const struct snapshot *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nr_rows; i++)
		if (s->rows[i].cgroup && s->rows[i].cpu == -1 &&
		    strcmp(s->rows[i].cgroup, path) == 0)
			return &s->rows[i];
	return NULL;
}

/*
 * Each case of one pass: counted with exactly its labels if it is in a
 * layout (other than those in uncounted, ","-separated), not counted
 * otherwise, and nothing else counted.
 */
static void
check_layout_rows(const struct snapshot *s, const struct layout_case *lc,
    size_t n, const char *uncounted)
{
	char got[1024];
	size_t i, j, o, rows = 0, want_rows = 0;

	for (i = 0; i < n; i++) {
		const struct snap_row *r = cgroup_row(s, lc[i].path);
		int want = strcmp(lc[i].layouts, "-") != 0 &&
		    strcmp(lc[i].layouts, uncounted) != 0;

		want_rows += want;
		if (!want != !r)
			fprintf(stderr, "%s: %s, want %s\n", lc[i].path,
			    r ? "counted" : "not counted", want ? "counted" :
			    "not counted");
		CHECK(!want == !r);
		if (r == NULL || !want)
			continue;
		for (j = 0, o = 0, got[0] = '\0'; j < r->nr_labels; j++)
			o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s=%s",
			    j ? " " : "", r->label_names[j], r->label_values[j]);
		sort_words(got);
		if (strcmp(got, lc[i].labels) != 0)
			fprintf(stderr, "%s:\n", lc[i].path);
		CHECK_STR(got, lc[i].labels);
	}
	for (i = 0; i < s->nr_rows; i++)
		rows += s->rows[i].cgroup && s->rows[i].cpu == -1;
	CHECK(rows == want_rows);
}

/*
 * The embedded default on the cgroups of every layout it knows, as their
 * runtimes make them (tests/fixtures/layouts), through the real
 * discovery: patterns, excludes, relabel rules, labels merged from
 * several entries, and one log line per layout with its count.  First as
 * it is, where mode: bpf cannot run (the fake PMU's fake.fds are no perf
 * events to the BPF map): containers in perf mode, pods not counted;
 * then with every entry in perf mode, pods with their labels.
 */
/* The cgroups of every layout case under dir/lay, parents first. */
static void
make_layout_dirs(const char *dir, const struct layout_case *lc, size_t n)
{
	char path[8400], *q;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%.4000s/lay%.1000s", dir,
		    lc[i].path);
		for (q = path + strlen(dir) + 1; (q = strchr(q + 1, '/'));) {
			*q = '\0';
			(void)mkdir(path, 0755);
			*q = '/';
		}
		(void)mkdir(path, 0755);
	}
}

/* One line per layout, with its count and mode. */
static void
check_layout_lines(const struct plan *cfg, const struct layout_case *lc,
    size_t n)
{
	char want[512];
	size_t l, i, count;

	for (l = 0; l < cfg->nr_layouts; l++) {
		int pods = strcmp(cfg->layouts[l], "kubernetes-pod") == 0;
		int bpf = 0;

		for (i = 0; i < cfg->nr_targets; i++)
			bpf |= cfg->targets[i].layout == l + 1 &&
			    cfg->targets[i].mode != NULL;
		for (i = 0, count = 0; i < n; i++)
			count += in_layout(&lc[i], cfg->layouts[l]);
		CHECK(count > 0);
		snprintf(want, sizeof(want), "layout %s: "
		    "%zu cgroup%s (%s)\n", cfg->layouts[l], count,
		    count == 1 ? "" : "s", !bpf ? "mode perf" : pods ?
		    "not counted: mode bpf is not available" :
		    "mode perf: mode bpf is not available");
		if (count_of(fake.log, want) != 1)
			fprintf(stderr, "no line \"%s\"\n", want);
		CHECK(count_of(fake.log, want) == 1);
	}
}

/* The embedded default over the layouts' cgroups, as it is (pass 0) or
 * with every entry in perf mode (pass 1).  -1 when it could not start. */
static int
layouts_pass(const char *dir, const struct layout_case *lc, size_t n,
    int pass)
{
	struct collector_opts o = {
		.sysfs = dir,
		.mountinfo = fake.mountinfo,
		.log = fake_capture,
	};
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;
	char err[8400];
	size_t i;

	fake.log[0] = '\0';
	CHECK(config_parse(NULL, "<default>", config_default_yaml,
	    strlen(config_default_yaml), &cfg, err, sizeof(err)) == 0);
	if (cfg == NULL)
		return -1;
	for (i = 0; pass == 1 && i < cfg->nr_targets; i++) {
		free(cfg->targets[i].mode);
		cfg->targets[i].mode = NULL;
	}
	CHECK(collector_new(cfg, &o, &c, err, sizeof(err)) == 0);
	if (c == NULL)
		return -1;
	collector_enable(c);
	fake_tick(c);
	s = collector_snapshot(c);
	CHECK(s != NULL);
	if (s)
		check_layout_rows(s, lc, n, pass == 0 ? "kubernetes-pod" : "");
	snapshot_unref(s);
	check_layout_lines(cfg, lc, n);
	/* Layouts the machine does not run are not warned about. */
	CHECK(count_of(fake.log, "matches no cgroup") == 0);
	collector_free(c);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
	return 0;
}

static void
test_layouts(const char *dir)
{
	static struct layout_case lc[256];
	char mi[8400], path[8400];
	size_t n;
	int pass;

	n = read_layout_cases(lc, 256);
	CHECK(n > 50);
	make_layout_dirs(dir, lc, n);
	fake_mount(dir, "lay", mi, sizeof(mi));
	for (pass = 0; pass < 2; pass++)
		if (layouts_pass(dir, lc, n, pass) < 0)
			return;
	snprintf(path, sizeof(path), "rm -r %s/lay", dir);
	CHECK(system(path) == 0);
	fake.mountinfo = "/nonexistent";
}

/* The value of label name on row r, or NULL. */
static const char *
row_label(const struct snap_row *r, const char *name)
{
	size_t i;

	for (i = 0; r && i < r->nr_labels; i++)
		if (strcmp(r->label_names[i], name) == 0)
			return r->label_values[i];
	return NULL;
}

/* How many labels name has on row r. */
static size_t
label_count(const struct snap_row *r, const char *name)
{
	size_t i, n = 0;

	for (i = 0; r && i < r->nr_labels; i++)
		n += strcmp(r->label_names[i], name) == 0;
	return n;
}

/* Whether the resolver n comes to know both the container ctr at cpath
 * and the sandbox pod at ppath, within 5 s. */
static int
names_known(struct names *n, const char *ctr, const char *cpath,
    const char *pod, const char *ppath)
{
	const struct namemap_entry *e, *f;
	struct namemap *m;
	int i, known = 0;

	for (i = 0; i < 500 && !known; i++) {
		m = names_map(n);
		e = namemap_find(m, ctr, cpath);
		f = namemap_find(m, pod, ppath);
		known = e && e->found && f && f->found;
		namemap_unref(m);
		if (!known)
			usleep(10000);
	}
	return known;
}

/* The container's row carries its pod's names; the sandbox's is hidden,
 * without names, still counted. */
static void
check_sandbox_rows(const struct snapshot *s, const char *ctr,
    const char *cpath, const char *pod, const char *ppath)
{
	CHECK(s != NULL && s->cgroups_counted == 2);
	CHECK_STR(row_label(cgroup_row(s, cpath), "container_id"), ctr);
	CHECK_STR(row_label(cgroup_row(s, cpath), "pod"), "web-7d4b9");
	CHECK_STR(row_label(cgroup_row(s, cpath), "container"), "nginx");
	/* A label the path gave is kept, once, over the resolver's. */
	CHECK_STR(row_label(cgroup_row(s, cpath), "namespace"), "besteffort");
	CHECK(label_count(cgroup_row(s, cpath), "namespace") == 1);
	CHECK(cgroup_row(s, cpath) && !cgroup_row(s, cpath)->hidden);
	CHECK(cgroup_row(s, ppath) && cgroup_row(s, ppath)->hidden);
	CHECK(row_label(cgroup_row(s, ppath), "pod") == NULL);
	CHECK_STR(row_label(cgroup_row(s, ppath), "container_id"), pod);
	CHECK(s != NULL && s->nr_rows == 2);
}

/*
 * Container names on the rows (names/, reading the containerd state
 * captured in tests/fixtures/names): a CRI container's series carry its
 * pod's names; its pod's sandbox (pause) container, whose cgroup the
 * path cannot tell from a container's, once the resolver knows it is
 * one, is shown apart (its rows hidden: pmu_cgroup_hidden_*), without
 * names, still counted: nothing disappears.
 */
static void
test_names_sandbox(const char *dir)
{
	static const char ctr[] =
	    "4e7feab8eafb14e4d6a2a2ab2f92f7ef1ebfa44e754a0b548899c5a15a20789f";
	static const char pod[] =
	    "67d1b6990fe1f5eb4c8e8a5e85ab3249fed65f99e2449baf164d161c533b6cf8";
	const char *top = getenv("top_srcdir");
	char mi[8400], path[8400], root[4200], cpath[200], ppath[200];
	struct names_opts no = { root, NULL };
	struct collector_opts o = {
		.sysfs = dir,
		.log = fake_capture,
	};
	struct names *n = NULL;
	struct plan *cfg = NULL;
	struct collector *c = NULL;
	struct snapshot *s;

	snprintf(root, sizeof(root), "%s/tests/fixtures/names/root",
	    top ? top : ".");
	/* Where containerd's records put them. */
	snprintf(cpath, sizeof(cpath), "/kubepods/besteffort/"
	    "pod1a2b3c4d-0000-4000-8000-000000000001/%s", ctr);
	snprintf(ppath, sizeof(ppath), "/kubepods/besteffort/"
	    "pod1a2b3c4d-0000-4000-8000-000000000001/%s", pod);
	snprintf(path, sizeof(path), "mkdir -p %s/nm%s %s/nm%s", dir, cpath,
	    dir, ppath);
	CHECK(system(path) == 0);
	fake_mount(dir, "nm", mi, sizeof(mi));
	o.mountinfo = fake.mountinfo;
	CHECK(names_new(&no, &n) == 0 && names_start(n) == 0);
	o.names = n;
	snprintf(path, sizeof(path), "groups:\n  - name: sw\n"
	    "    events: [cycles]\ncgroups:\n  - path: /kubepods/*/*/*\n"
	    "    groups: [sw]\n    relabel:\n"
	    "      - regex: '.*/([0-9a-f]{64})'\n"
	    "        target_label: container_id\n"
	    "      - regex: '/kubepods/([a-z]+)/.*'\n"
	    "        target_label: namespace\n");
	CHECK(config_parse(NULL, "t.yaml", path, strlen(path), &cfg, mi,
	    sizeof(mi)) == 0);
	CHECK(cfg && collector_new(cfg, &o, &c, mi, sizeof(mi)) == 0);
	if (c == NULL) {
		names_free(n);
		plan_free(cfg);
		return;
	}
	collector_enable(c);
	/* The first collection tells the resolver both ids; wait until it
	 * knows them. */
	fake_tick(c);
	CHECK(names_known(n, ctr, cpath, pod, ppath));
	fake_tick(c);
	s = collector_snapshot(c);
	check_sandbox_rows(s, ctr, cpath, pod, ppath);
	collector_free(c);
	names_free(n);
	/* The snapshot holds the map its name labels point into: they
	 * outlive the resolver. */
	CHECK_STR(row_label(cgroup_row(s, cpath), "pod"), "web-7d4b9");
	snapshot_unref(s);
	plan_free(cfg);
	CHECK(fake_open_fds() == 0);
	snprintf(path, sizeof(path), "rm -r %s/nm", dir);
	CHECK(system(path) == 0);
	fake.mountinfo = "/nonexistent";
}

int
main(void)
{
	char dir[] = "/tmp/collector_test.XXXXXX";

	CHECK(fake_begin(dir) == 0);

	test_group_read();
	test_counting(dir);
	test_unscheduled(dir);
	test_check_counters(dir);
	test_unscheduled_software(dir);
	test_layouts(dir);
	test_names_sandbox(dir);

	CHECK(fake_end(dir) == 0);
	if (check_failures)
		fprintf(stderr, "log was:\n%s", fake.log);
	return CHECK_DONE();
}
