/*
 * config_test.c - the YAML schema: a valid file becomes the right structs,
 * and every kind of mistake is reported as file:line:column with the
 * message a user can act on; what a config may cost (aliases expanded,
 * entries, relabel rules weighed by their regexes) is refused before any
 * of it is built.
 *
 * One file: one subject, the config's schema; each case is a YAML text
 * and the plan or the error it must give, through the same two helpers
 * (parse, bad), and a key's cases are found by its name in one file.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events/pmu.h"
#include "collectors/bpf/bpfcg.h"
#include "config/config.h"
#include "tests/lib/check.h"
#include "tests/lib/kinds.h"
#include "util/text.h"
#include "util/text.h"

static char err[1024];

static struct plan *
parse(const char *yaml)
{
	struct plan *cfg = NULL;

	err[0] = '\0';
	if (config_parse(NULL, "t.yaml", yaml, strlen(yaml), &cfg, err,
	    sizeof(err)) < 0)
		return NULL;
	return cfg;
}

#define GROUPS "groups:\n  - name: ipc\n    events: [cycles, instructions]\n"

static void
bad(const char *yaml, const char *want)
{
	struct plan *cfg = parse(yaml);

	CHECK(cfg == NULL);
	CHECK_STR(err, want);
	plan_free(cfg);
}

static void
test_valid(void)
{
	struct plan *cfg = parse(
	    "interval: 500ms\n"
	    "cgroup_rescan_interval: 2s\n"
	    "groups:\n"
	    "  - name: ipc\n"
	    "    events: [cycles, instructions:u]\n"
	    "  - name: sw\n"
	    "    events:\n"
	    "      - task-clock\n"
	    "      - cs\n"
	    "cpus:\n"
	    "  - cpus: all\n"
	    "    groups: [ipc]\n"
	    "  - cpus: \"0-3,8\"\n"
	    "    groups: [sw, ipc]\n"
	    "cgroups:\n"
	    "  - path: /system.slice/nginx.service\n"
	    "    groups: [ipc, sw]\n"
	    "    per_cpu: true\n"
	    "  - path: /*\n"
	    "    groups: [sw]\n");

	CHECK(cfg != NULL);
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(cfg->interval_ns == 500000000ULL);
	CHECK(cfg->rescan_ns == 2000000000ULL);
	CHECK(cfg->nr_groups == 2);
	CHECK_STR(cfg->groups[0].name, "ipc");
	CHECK(cfg->groups[0].nr_events == 2);
	CHECK_STR(cfg->groups[0].events[1].name, "instructions:u");
	CHECK(cfg->groups[0].events[1].perf.attr.exclude_kernel);
	CHECK(cfg->groups[0].events[1].line == 5);
	CHECK(cfg->groups[0].events[1].col == 22);
	CHECK(cfg->groups[1].nr_events == 2);
	CHECK(cfg->nr_targets == 4);
	CHECK(cfg->targets[0].kind == PLAN_TARGET_CPU && cfg->targets[0].all_cpus);
	CHECK(cfg->targets[1].cpus.nr == 5 && cfg->targets[1].cpus.cpu[4] == 8);
	CHECK(cfg->targets[1].nr_groups == 2 && cfg->targets[1].groups[0] == 1);
	CHECK(cfg->targets[2].kind == PLAN_TARGET_CGROUP);
	CHECK_STR(cfg->targets[2].path, "/system.slice/nginx.service");
	CHECK(cfg->targets[2].per_cpu == 1);
	CHECK(cfg->targets[3].per_cpu == 0);
	plan_free(cfg);

	/* Defaults. */
	cfg = parse(GROUPS "cpus:\n  - cpus: all\n    groups: [ipc]\n");
	CHECK(cfg && cfg->interval_ns == 1000000000ULL);
	plan_free(cfg);
}

static void
test_embedded(void)
{
	struct plan *cfg = NULL;

	CHECK(config_parse(NULL, "<default>", config_default_yaml,
	    strlen(config_default_yaml), &cfg, err, sizeof(err)) == 0);
	/* The CPUs, then the layouts' entries (tests/layouts_test.c). */
	CHECK(cfg && cfg->nr_groups == 2 && cfg->nr_targets > 2 &&
	    cfg->nr_layouts > 1);
	CHECK(cfg && strcmp(cfg->groups[0].name, "ipc") == 0);
	/* Top-down only on perf-metrics PMUs: here, none, and silent
	 * (tests/unit/topdown_test.c checks the machines that have them). */
	CHECK(cfg && strcmp(cfg->groups[1].name, "td") == 0 &&
	    cfg->groups[1].preset && cfg->groups[1].nr_events == 0 &&
	    cfg->groups[1].nr_missing == 0);
	CHECK(cfg && cfg->targets[1].layout == 1 &&
	    strcmp(cfg->targets[1].path, "/*") == 0);
	CHECK(cfg && strcmp(cfg->layouts[0], "top") == 0);
	plan_free(cfg);
	cfg = NULL;
	CHECK(config_parse(NULL, "<default>", config_fallback_yaml,
	    strlen(config_fallback_yaml), &cfg, err, sizeof(err)) == 0);
	CHECK(cfg && cfg->groups[0].events[0].perf.attr.type == PERF_TYPE_SOFTWARE);
	plan_free(cfg);
}

static void
test_errors(void)
{
	bad("interval: 1s\ngroups:\n  - name: ipc\n    events: [cylces, instructions]\n",
	    "t.yaml:4:14: unknown event \"cylces\" (did you mean \"cycles\"?)");
	bad(GROUPS "cpus:\n  - cpus: all\n    groups: [ipc]\nintreval: 1s\n",
	    "t.yaml:7:1: unknown key \"intreval\" in the config (did you mean \"interval\"?)");
	bad(GROUPS "cpus:\n  - cpus: all\n    group: [ipc]\n",
	    "t.yaml:6:5: unknown key \"group\" in a cpus entry (did you mean \"groups\"?)");
	bad(GROUPS "cpus:\n  - cpus: all\n    groups: [ipcc]\n",
	    "t.yaml:6:14: group \"ipcc\" is used but not defined (did you mean \"ipc\"?)");
	bad(GROUPS "cpus:\n  - cpus: all\n    groups: [memory]\n",
	    "t.yaml:6:14: group \"memory\" is used but not defined");
	bad(GROUPS "  - name: ipc\n    events: [cycles]\n",
	    "t.yaml:4:11: duplicate group name \"ipc\" (first defined at line 2)");
	bad("groups:\n  - name: empty\n    events: []\n",
	    "t.yaml:3:13: group \"empty\" has no events");
	bad("groups:\n  - name: x\n    events: cycles\n",
	    "t.yaml:3:13: events must be a list, not a scalar");
	bad("groups:\n  - name: x\n    events: [cycles, cycles]\n",
	    "t.yaml:3:22: event \"cycles\" is listed twice in group \"x\"");
	/* Pinning is a group's, through its leader (as perf stat says). */
	bad("groups:\n  - name: x\n    events: [cycles, instructions:D]\n",
	    "t.yaml:3:22: event \"instructions:D\" in group \"x\" is pinned (:D), but only a group's leader can be: perf_event_open refuses a pinned member (EINVAL), as perf stat does; put :D on the leader (\"cycles\"), which pins the whole group");
	bad("groups:\n  - name: x\n", "t.yaml:2:5: group \"x\" has no \"events\" (or \"preset: topdown\")");
	bad("groups:\n  - events: [cycles]\n", "t.yaml:2:5: group has no \"name\"");
	bad("interval: 1 second\n" GROUPS,
	    "t.yaml:1:11: interval: invalid duration \"1 second\" (expected a number with ms, s, m or h, e.g. \"1s\")");
	bad("interval: 1ms\n" GROUPS,
	    "t.yaml:1:11: interval: 1ms is out of range (10ms to 1h)");
	bad("interval: [1s]\n" GROUPS,
	    "t.yaml:1:11: interval must be a scalar, not a list");
	bad(GROUPS, "t.yaml:1:1: nothing to count: add a \"cpus\" or a \"cgroups\" target");
	bad(GROUPS "cpus:\n  - cpus: 0-3,x\n    groups: [ipc]\n",
	    "t.yaml:5:11: invalid CPU list \"0-3,x\" at character 5 (expected \"all\" or a list such as \"0-3,8\")");
	bad(GROUPS "cgroups:\n  - path: system.slice\n    groups: [ipc]\n",
	    "t.yaml:5:11: cgroup path \"system.slice\" must start with '/' (it is relative to the cgroup root)");
	bad(GROUPS "cgroups:\n  - path: /a/../b\n    groups: [ipc]\n",
	    "t.yaml:5:11: cgroup path \"/a/../b\" may not contain '.' or '..' components");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    per_cpu: maybe\n",
	    "t.yaml:7:14: per_cpu must be true or false, not \"maybe\"");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc, ipc]\n",
	    "t.yaml:6:19: group \"ipc\" is listed twice for this target");
	bad(GROUPS "cgroups:\n  - groups: [ipc]\n",
	    "t.yaml:5:5: cgroups entry has no \"path\"");
	bad(GROUPS "cpus:\n  - cpus: all\n    cpus: 1\n    groups: [ipc]\n",
	    "t.yaml:6:5: duplicate key \"cpus\"");
	bad("- just\n- a list\n", "t.yaml:1:1: the config must be a mapping, not a list");
	bad("", "t.yaml:1:1: the config is empty");
	/* Only comments: told apart from a bad file (the daemon then runs
	 * its embedded default). */
	{
		static const char c[] = "# interval: 1s\n#groups:\n";
		struct plan *cfg = NULL;

		CHECK(config_parse(NULL, "t.yaml", c, strlen(c), &cfg, err,
		    sizeof(err)) == -ENODATA && cfg == NULL);
		CHECK(config_parse(NULL, "t.yaml", "[", 1, &cfg, err,
		    sizeof(err)) == -EINVAL);
	}
	bad("groups: [\n", "t.yaml:2:1: did not find expected node content while parsing a flow node");
	bad("groups:\n  - name: ipc\n\tevents: [cycles]\n",
	    "t.yaml:3:1: found a tab character that violates indentation while scanning a plain scalar");
}

/*
 * A capture longer than the label's buffer is cut between characters:
 * 200 two-byte characters into 255 bytes are 127 of them, not 127 and
 * half of one (which the exposition would write as U+FFFD).
 */
static void
check_cut_capture(const struct plan_relabel *r)
{
	char path[512], out[256], want[256];
	size_t i, n;

	n = (size_t)snprintf(path, sizeof(path), "/system.slice/");
	for (i = 0; i < 200; i++, n += 2)
		memcpy(path + n, "\xc3\xa9", 3);
	for (i = 0; i < 127; i++)
		memcpy(want + 2 * i, "\xc3\xa9", 3);
	CHECK(plan_relabel_apply(r, path, out, sizeof(out)) == 1);
	CHECK(strlen(out) == 254);
	CHECK_STR(out, want);
}

static void
test_cgroup_keys(void)
{
	char out[256];
	struct plan *cfg = parse(GROUPS
	    "max_fds: 5000\n"
	    "cgroups:\n"
	    "  - path: /kubepods.slice/**/cri-containerd-*.scope\n"
	    "    depth: 4\n"
	    "    exclude: [/kubepods.slice/**/cri-containerd-pause*.scope]\n"
	    "    groups: [ipc]\n"
	    "    relabel:\n"
	    "      - source: path\n"
	    "        regex: \".*/cri-containerd-([0-9a-f]+)\\\\.scope\"\n"
	    "        target_label: container_id\n"
	    "      - regex: \".*pod([0-9a-f_]+)\\\\.slice/.*\"\n"
	    "        target_label: pod_uid\n"
	    "        replacement: \"uid-${1}\"\n"
	    "  - path: /system.slice/*.service\n"
	    "    exclude: /system.slice/cron.service\n"
	    "    groups: [ipc]\n"
	    "    relabel:\n"
	    "      - regex: \"/system.slice/(.*)\"\n"
	    "        target_label: unit\n");

	CHECK(cfg != NULL);
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(cfg->max_fds == 5000);
	CHECK(cfg->rescan_ns == 60000000000ULL);
	CHECK(cfg->targets[0].depth == 4);
	/* Unless given: the walk's bounds (issue 42); a path without "**"
	 * needs no depth. */
	CHECK(cfg->targets[0].max_dirs == PLAN_DEFAULT_MAX_DIRS);
	CHECK(cfg->targets[1].depth == 0);
	CHECK(cfg->targets[0].nr_exclude == 1);
	CHECK(cfg->targets[1].nr_exclude == 1);
	CHECK_STR(cfg->targets[1].exclude[0], "/system.slice/cron.service");
	CHECK(cfg->targets[0].nr_relabel == 2);
	CHECK(plan_relabel_apply(&cfg->targets[0].relabel[0],
	    "/kubepods.slice/kubepods-pod12ab_34.slice/cri-containerd-0f3e.scope",
	    out, sizeof(out)) == 1);
	CHECK_STR(out, "0f3e");
	CHECK(plan_relabel_apply(&cfg->targets[0].relabel[1],
	    "/kubepods.slice/kubepods-pod12ab_34.slice/cri-containerd-0f3e.scope",
	    out, sizeof(out)) == 1);
	CHECK_STR(out, "uid-12ab_34");
	/* Anchored: a partial match is no match. */
	CHECK(plan_relabel_apply(&cfg->targets[1].relabel[0],
	    "/other/system.slice/x.service", out, sizeof(out)) == 0);
	CHECK(plan_relabel_apply(&cfg->targets[1].relabel[0],
	    "/system.slice/nginx.service", out, sizeof(out)) == 1);
	CHECK_STR(out, "nginx.service");
	check_cut_capture(&cfg->targets[1].relabel[0]);
	plan_free(cfg);
}

/* The errors of the cgroups: keys, each at its line and column. */
/* The walk's bounds an entry gets unless it gives its own (issue 42):
 * a "**" spans 32 levels, not any number a tenant nests. */
static void
test_walk_defaults(void)
{
	struct plan *cfg = parse(GROUPS "cgroups:\n  - path: /u/**/*.scope\n"
	    "    groups: [ipc]\n  - path: /k/**\n    max_cgroups: 7\n"
	    "    groups: [ipc]\n");

	CHECK(cfg != NULL);
	if (cfg == NULL)
		return;
	CHECK(cfg->targets[0].depth == PLAN_DEFAULT_DEPTH);
	CHECK(PLAN_DEFAULT_DEPTH == 32);
	CHECK(cfg->targets[0].max_dirs == 10000);
	CHECK(cfg->targets[1].max_dirs == 7);
	plan_free(cfg);
}

static void
test_cgroup_key_errors(void)
{
	bad(GROUPS "cgroups:\n  - path: /a**\n    groups: [ipc]\n",
	    "t.yaml:5:11: cgroup path \"/a**\": '**' must be a whole path component (column 3)");
	/* A '**' with more of its component after it ("**x", "**.scope")
	 * is neither a '**' component nor a '*' one. */
	bad(GROUPS "cgroups:\n  - path: /a/**x\n    groups: [ipc]\n",
	    "t.yaml:5:11: cgroup path \"/a/**x\": '**' must be a whole path component (column 4)");
	bad(GROUPS "cgroups:\n  - path: /a/**.scope/b\n    groups: [ipc]\n",
	    "t.yaml:5:11: cgroup path \"/a/**.scope/b\": '**' must be a whole path component (column 4)");
	bad(GROUPS "cgroups:\n  - path: /a\n    exclude: [/a/**-pause]\n    groups: [ipc]\n",
	    "t.yaml:6:15: exclude pattern \"/a/**-pause\": '**' must be a whole path component (column 4)");
	bad(GROUPS "cgroups:\n  - path: /a/*\n    depth: 3\n    groups: [ipc]\n",
	    "t.yaml:6:12: depth limits '**', and path \"/a/*\" has none");
	bad(GROUPS "cgroups:\n  - path: /a/**\n    depth: 0\n    groups: [ipc]\n",
	    "t.yaml:6:12: depth must be a whole number from 1 to 64, not \"0\"");
	bad(GROUPS "cgroups:\n  - path: /a/**\n    max_cgroups: 0\n    groups: [ipc]\n",
	    "t.yaml:6:18: max_cgroups must be a whole number from 1 to 1000000, not \"0\"");
	bad(GROUPS "cgroups:\n  - path: /a\n    exclude: [b]\n    groups: [ipc]\n",
	    "t.yaml:6:15: exclude pattern \"b\" must start with '/' (it is relative to the cgroup root)");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: \"(\"\n        target_label: x\n",
	    "t.yaml:8:16: regex \"(\": Unmatched ( or \\(");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: a\n        target_label: cgroup\n",
	    "t.yaml:9:23: target_label \"cgroup\" is reserved: pmu_exporter sets it itself");
	/* Prometheus keeps labels starting with "__" for itself (its
	 * data model: "reserved for internal use"). */
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: a\n        target_label: __name__\n",
	    "t.yaml:9:23: target_label \"__name__\" is reserved: names starting with \"__\" are Prometheus's own");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: a\n        target_label: __x\n",
	    "t.yaml:9:23: target_label \"__x\" is reserved: names starting with \"__\" are Prometheus's own");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: a\n        target_label: 1x\n",
	    "t.yaml:9:23: target_label \"1x\" is not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*)");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - source: name\n        regex: a\n        target_label: x\n",
	    "t.yaml:8:17: relabel source \"name\" is not known (the only source is \"path\")");
	bad(GROUPS "max_fds: -3\ncpus:\n  - cpus: all\n    groups: [ipc]\n",
	    "t.yaml:4:10: max_fds must be a positive whole number, not \"-3\"");
	/* strtoull takes a leading space, then "-1" as its largest value:
	 * no fd budget at all (issue 50, item 10). */
	bad(GROUPS "max_fds: ' -1'\ncpus:\n  - cpus: all\n    groups: [ipc]\n",
	    "t.yaml:4:10: max_fds must be a positive whole number, not \" -1\"");
	bad(GROUPS "max_fds: 0x100\ncpus:\n  - cpus: all\n    groups: [ipc]\n",
	    "t.yaml:4:10: max_fds must be a positive whole number, not \"0x100\"");
	bad(GROUPS "cgroups:\n  - path: /a/**\n    depth: ' 3'\n    groups: [ipc]\n",
	    "t.yaml:6:12: depth must be a whole number from 1 to 64, not \" 3\"");
	bad(GROUPS "cgroups:\n  - path: /a/**\n    depth: +3\n    groups: [ipc]\n",
	    "t.yaml:6:12: depth must be a whole number from 1 to 64, not \"+3\"");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: a\n        target_label: x\n        replace: [a, b]\n",
	    "t.yaml:10:18: replace must be a mapping, not a list");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    relabel:\n      - regex: a\n        target_label: x\n        replace: {'': b}\n",
	    "t.yaml:10:19: replace: the string to replace is empty");
	bad(GROUPS "cgroups:\n  - layout: my docker\n    path: /a\n    groups: [ipc]\n",
	    "t.yaml:5:13: layout must be a name of 1 to 64 characters without spaces, not \"my docker\"");
}

/* layout: names entries, one name for several; relabel's replace. */
static void
test_layout_keys(void)
{
	char out[256];
	struct plan *cfg = parse(GROUPS "cgroups:\n"
	    "  - layout: docker\n    path: /docker/*\n    groups: [ipc]\n"
	    "  - path: /x\n    groups: [ipc]\n"
	    "  - layout: pods\n    path: /kubepods/*/pod*\n    groups: [ipc]\n"
	    "    relabel:\n"
	    "      - regex: '.*-pod([0-9a-f_]+)\\.slice'\n"
	    "        target_label: pod_uid\n"
	    "        replace: {'_': '-', 'ab': 'AB'}\n"
	    "      - regex: '.*/machine-(.*)\\.scope'\n"
	    "        target_label: machine\n"
	    "        replace: {'\\x2d': '-'}\n"
	    "      - regex: '/u/(.*)'\n"
	    "        target_label: user\n"
	    "        replace: {'-': '\xc3\xa9'}\n"
	    "  - layout: docker\n    path: /system.slice/docker-*.scope\n"
	    "    groups: [ipc]\n");

	CHECK(cfg != NULL);
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(cfg->nr_layouts == 2);
	CHECK_STR(cfg->layouts[0], "docker");
	CHECK_STR(cfg->layouts[1], "pods");
	CHECK(cfg->targets[0].layout == 1 && cfg->targets[1].layout == 0 &&
	    cfg->targets[2].layout == 2 && cfg->targets[3].layout == 1);
	CHECK(cfg->targets[2].relabel[0].nr_replace == 2);
	CHECK(plan_relabel_apply(&cfg->targets[2].relabel[0],
	    "/k/kubepods-podab_cd_ab.slice", out, sizeof(out)) == 1);
	CHECK_STR(out, "AB-cd-AB");
	CHECK(plan_relabel_apply(&cfg->targets[2].relabel[1],
	    "/machine.slice/machine-qemu\\x2d1\\x2dweb\\x2d01.scope", out,
	    sizeof(out)) == 1);
	CHECK_STR(out, "qemu-1-web-01");
	/* Cut to the buffer, replaced within it. */
	CHECK(plan_relabel_apply(&cfg->targets[2].relabel[0],
	    "/k/kubepods-podabab.slice", out, 4) == 1);
	CHECK_STR(out, "ABa");
	/* Grown past the buffer by a replacement: cut between characters
	 * too ("x\xc3\xa9y" and not the first byte of the next). */
	CHECK(plan_relabel_apply(&cfg->targets[2].relabel[2], "/u/x-y-z", out,
	    6) == 1);
	CHECK_STR(out, "x\xc3\xa9y");
	plan_free(cfg);
}

/* mode: bpf counts at most 32 events per CPU over all its entries'
 * groups, each group once however many entries name it. */
static void
test_bpf_event_budget(void)
{
	struct plan *cfg;
	char many[4096];
	size_t n, i;

	/* 33 raw events over two bpf-mode entries: one too many. */
	n = (size_t)snprintf(many, sizeof(many), "groups:\n  - name: a\n    events: [");
	for (i = 1; i <= 17; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%sr%zx",
		    i > 1 ? ", " : "", i);
	n += (size_t)snprintf(many + n, sizeof(many) - n,
	    "]\n  - name: b\n    events: [");
	for (i = 18; i <= 33; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%sr%zx",
		    i > 18 ? ", " : "", i);
	snprintf(many + n, sizeof(many) - n, "]\ncgroups:\n"
	    "  - path: /a\n    groups: [a]\n    mode: bpf\n"
	    "  - path: /b\n    groups: [b]\n    mode: bpf\n");
	bad(many, "t.yaml:12:11: mode: bpf: the groups of the bpf-mode entries "
	    "have 33 events in all, and bpf mode counts at most 32 per CPU; "
	    "use fewer, or mode: perf for some");
	/* A group several bpf-mode entries name counts once: a (17) and b
	 * (16) both twice are 33, over; a three times is 17, fine. */
	n = strlen(many) - strlen("  - path: /b\n    groups: [b]\n    mode: bpf\n");
	snprintf(many + n, sizeof(many) - n,
	    "  - path: /b\n    groups: [a]\n    mode: bpf\n"
	    "  - path: /c\n    groups: [a]\n    mode: bpf\n"
	    "  - path: /d\n    groups: [b, a]\n    mode: bpf\n");
	bad(many, "t.yaml:18:11: mode: bpf: the groups of the bpf-mode entries "
	    "have 33 events in all, and bpf mode counts at most 32 per CPU; "
	    "use fewer, or mode: perf for some");
	many[strlen(many) - strlen("  - path: /d\n    groups: [b, a]\n    mode: bpf\n")] = '\0';
	cfg = parse(many);
	CHECK(cfg != NULL);
	plan_free(cfg);
}

/* The generic spellings a kind's description gives (plan.h): modes.KIND
 * for its options, fallback: for bpf_fallback; and each only once. */
static void
test_kind_spellings(void)
{
	struct plan *cfg;
	char want[512];

	cfg = parse(GROUPS "modes:\n  bpf:\n    max_cgroups: 7\ncgroups:\n"
	    "  - path: /a\n    groups: [ipc]\n    mode: bpf\n"
	    "    fallback: skip\n");
	CHECK(cfg != NULL && plan_mode_option(cfg, "bpf", "max_cgroups",
	    0) == 7 && cfg->targets[0].fallback == PLAN_FALLBACK_SKIP);
	plan_free(cfg);
	bad(GROUPS "modes:\n  bpf:\n    max_cgroups: 7\nbpf_max_cgroups: 8\n"
	    "cgroups:\n  - path: /a\n    groups: [ipc]\n",
	    "t.yaml:7:18: bpf_max_cgroups is modes.bpf.max_cgroups's older "
	    "name: give one of them");
	bad(GROUPS "modes:\n  bpf:\n    max_cgroup: 7\ncgroups:\n"
	    "  - path: /a\n    groups: [ipc]\n",
	    "t.yaml:6:5: unknown key \"max_cgroup\" in modes.bpf "
	    "(did you mean \"max_cgroups\"?)");
	bad(GROUPS "modes:\n  bfp: {}\ncgroups:\n"
	    "  - path: /a\n    groups: [ipc]\n",
	    kinds_said(want, sizeof(want), "t.yaml:5:3: modes: no mode "
	    "\"bfp\" in this build, which has ", ""));
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    mode: bpf\n"
	    "    fallback: skip\n    bpf_fallback: skip\n",
	    "t.yaml:9:19: bpf_fallback is fallback's older name: give one of "
	    "them");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    mode: perf\n"
	    "    fallback: skip\n",
	    kinds_said_which(want, sizeof(want), "t.yaml:8:15: fallback "
	    "applies to mode: ", ", not mode: perf", 1));
}

/* mode: bpf and its keys; without a BPF build, mode: bpf is an error. */
static void
test_bpf_keys(void)
{
	struct plan *cfg;
	char want[512];

	cfg = parse(GROUPS "bpf_max_cgroups: 5\ncgroups:\n"
	    "  - path: /a/*\n    groups: [ipc]\n    mode: bpf\n"
	    "    bpf_fallback: refuse\n"
	    "  - path: /b/*\n    groups: [ipc]\n    mode: perf\n"
	    "  - path: /c/*\n    groups: [ipc]\n");
	if (!bpfcg_built()) {
		CHECK(cfg == NULL);
		CHECK_STR(err, "t.yaml:8:11: mode: bpf: this pmu_exporter was "
		    "built without BPF support (configure --enable-bpf, which "
		    "needs clang, bpftool and libbpf-dev); use mode: perf");
		return;
	}
	CHECK(cfg != NULL);
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(plan_mode_option(cfg, "bpf", "max_cgroups", 0) == 5);
	CHECK(plan_target_mode_is(&cfg->targets[0], "bpf") &&
	    cfg->targets[0].fallback == PLAN_FALLBACK_REFUSE);
	CHECK(cfg->targets[0].mode_line == 8 && cfg->targets[0].mode_col == 11);
	CHECK(cfg->targets[1].mode == NULL && cfg->targets[2].mode == NULL);
	plan_free(cfg);
	cfg = parse(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n"
	    "    mode: bpf\n");
	CHECK(cfg != NULL &&
	    plan_mode_option(cfg, "bpf", "max_cgroups", 0) == 1024 &&
	    cfg->targets[0].fallback == PLAN_FALLBACK_PERF);
	plan_free(cfg);
	/* skip: counted in mode: bpf or not at all. */
	cfg = parse(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n"
	    "    mode: bpf\n    bpf_fallback: skip\n");
	CHECK(cfg != NULL && cfg->targets[0].fallback == PLAN_FALLBACK_SKIP);
	plan_free(cfg);

	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    mode: bfp\n",
	    kinds_said(want, sizeof(want), "t.yaml:7:11: mode must be ",
	    ", not \"bfp\""));
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    bpf_fallback: perf\n",
	    "t.yaml:7:19: bpf_fallback applies to mode: bpf, and this entry has no mode");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    mode: perf\n    bpf_fallback: refuse\n",
	    "t.yaml:8:19: bpf_fallback applies to mode: bpf, not mode: perf");
	bad(GROUPS "cgroups:\n  - path: /a\n    groups: [ipc]\n    mode: bpf\n    bpf_fallback: never\n",
	    "t.yaml:8:19: bpf_fallback must be perf, refuse or skip, not \"never\"");
	bad(GROUPS "bpf_max_cgroups: 0\ncgroups:\n  - path: /a\n    groups: [ipc]\n",
	    "t.yaml:4:18: bpf_max_cgroups must be a whole number from 1 to 1000000, not \"0\"");
	bad(GROUPS "bpf_max_cgroups: ' 10'\ncgroups:\n  - path: /a\n    groups: [ipc]\n",
	    "t.yaml:4:18: bpf_max_cgroups must be a whole number from 1 to 1000000, not \" 10\"");
	test_bpf_event_budget();
	test_kind_spellings();
}


/*
 * Many groups, one target naming them all in reverse order: every name
 * resolves to its own group, and the errors that relate one entry to the
 * others still point at the right place.  How long 20,000 groups take is
 * bench/config_bench.sh's business (and tests/integration/fuzz.test runs such a file
 * under ASan within the fuzzer's time limit); valgrind.test runs this
 * test too, hence fewer here.
 */
#define MANY 1000
static void
test_many_groups(void)
{
	size_t len = 64 + MANY * 64, n, i, ok = 0;
	char *y = malloc(len), want[128];
	struct plan *cfg;

	CHECK(y != NULL);
	if (y == NULL)
		return;
	n = (size_t)snprintf(y, len, "groups:\n");
	for (i = 0; i < MANY; i++)
		n += (size_t)snprintf(y + n, len - n, "  - {name: g%zu, events: "
		    "[%s, cs]}\n", i, i % 2 ? "task-clock" : "cpu-clock");
	n += (size_t)snprintf(y + n, len - n, "cpus:\n  - cpus: all\n"
	    "    groups: [");
	for (i = MANY; i-- > 0;)
		n += (size_t)snprintf(y + n, len - n, "g%zu%s", i,
		    i ? ", " : "]\n");
	cfg = parse(y);
	CHECK(cfg != NULL);
	if (cfg) {
		CHECK(cfg->nr_groups == MANY && cfg->targets[0].nr_groups == MANY);
		for (i = 0; i < MANY; i++)
			ok += cfg->targets[0].groups[i] == MANY - 1 - i;
		CHECK(ok == MANY);
		CHECK_STR(cfg->groups[567].name, "g567");
	}
	plan_free(cfg);

	/* The last name of the list misspelt: the nearest defined one. */
	CHECK(y[n - 3] == '0');
	y[n - 3] = 'x';
	cfg = parse(y);
	CHECK(cfg == NULL);
	CHECK_CONTAINS(err, ": group \"gx\" is used but not defined (did you "
	    "mean \"g0\"?)");
	plan_free(cfg);

	/* The last group named like the first. */
	n = (size_t)(strstr(y, "cpus:\n") - y);
	n += (size_t)snprintf(y + n, len - n, "  - {name: g0, events: [cs]}\n"
	    "cpus:\n  - {cpus: all, groups: [g0]}\n");
	cfg = parse(y);
	CHECK(cfg == NULL);
	snprintf(want, sizeof(want), "t.yaml:%d:12: duplicate group name "
	    "\"g0\" (first defined at line 2)", MANY + 2);
	CHECK_STR(err, want);
	plan_free(cfg);
	free(y);
}

static void
test_durations(void)
{
	uint64_t ns;

	CHECK(text_parse_duration("1s", &ns) == 0 && ns == 1000000000ULL);
	CHECK(text_parse_duration("250ms", &ns) == 0 && ns == 250000000ULL);
	CHECK(text_parse_duration("1.5s", &ns) == 0 && ns == 1500000000ULL);
	CHECK(text_parse_duration("2m", &ns) == 0 && ns == 120000000000ULL);
	CHECK(text_parse_duration("1h", &ns) == 0);
	CHECK(text_parse_duration("1", &ns) == -EINVAL);
	CHECK(text_parse_duration("s", &ns) == -EINVAL);
	CHECK(text_parse_duration("-1s", &ns) == -EINVAL);
	CHECK(text_parse_duration("1d", &ns) == -EINVAL);
	/* Decimal only (issue 50, item 10): strtod alone read "0x10m" as
	 * 16 minutes. */
	CHECK(text_parse_duration("0x10m", &ns) == -EINVAL);
	CHECK(text_parse_duration("1e3s", &ns) == -EINVAL);
	CHECK(text_parse_duration("1.s", &ns) == -EINVAL);
	CHECK(text_parse_duration(" 1s", &ns) == -EINVAL);
	CHECK(text_parse_duration("0.5s", &ns) == 0 && ns == 500000000ULL);
	CHECK(text_is_whole("12", 0) && !text_is_whole("-1", 0) &&
	    text_is_whole("-1", 1) && !text_is_whole(" 1", 0) &&
	    !text_is_whole("+1", 0) && !text_is_whole("0x1", 0) &&
	    !text_is_whole("", 0) && !text_is_whole("-", 1));
	CHECK(text_is_decimal("0.001") && text_is_decimal("1e-4") &&
	    text_is_decimal(".5") && text_is_decimal("5.") &&
	    text_is_decimal("-1") && !text_is_decimal(" 1") &&
	    !text_is_decimal("0x10") && !text_is_decimal("inf") &&
	    !text_is_decimal("nan") && !text_is_decimal(".") &&
	    !text_is_decimal("1e") && !text_is_decimal("+1"));
}

static void
test_load(void)
{
	struct plan *cfg = NULL;

	CHECK(config_load(NULL, "/nonexistent/pmu.yaml", &cfg, err, sizeof(err)) ==
	    -ENOENT);
	CHECK_STR(err, "/nonexistent/pmu.yaml: No such file or directory");
	CHECK(cfg == NULL);
}

/* Groups against PMUs: one hardware PMU per group, uncore on CPUs only. */
static void
test_pmus(void)
{
	const char *top = getenv("top_srcdir");
	struct pmu_list l;
	struct event_ctx ctx = { &l, NULL, 1, NULL };
	struct plan *cfg = NULL;
	char sysfs[4096];
	int r;

#define PARSE(y) (err[0] = '\0', cfg = NULL, \
	config_parse(&ctx, "t.yaml", y, strlen(y), &cfg, err, sizeof(err)))
	snprintf(sysfs, sizeof(sysfs), "%s/tests/fixtures/sysfs-intel-hybrid",
	    top ? top : ".");
	CHECK(pmu_scan(sysfs, &l, err, sizeof(err)) == 0);

	r = PARSE("groups:\n  - name: ipc\n    events: [cycles, instructions:u, cs]\n"
	    "  - name: mem\n    events: [cpu_core/mem-loads/, cycles]\n"
	    "cgroups:\n  - path: /a\n    groups: [ipc, mem]\n");
	CHECK(r == 0 && cfg);
	if (cfg) {
		/* ipc: one copy per core PMU; mem: bound to cpu_core. */
		CHECK(cfg->nr_groups == 3);
		CHECK_STR(cfg->groups[0].pmu, "cpu_atom");
		CHECK(cfg->groups[0].hybrid && cfg->groups[0].pmu_cpus &&
		    cfg->groups[0].cpus.nr == 8 && cfg->groups[0].cpus.cpu[0] == 8);
		CHECK(cfg->groups[0].events[0].perf.attr.config == 10ULL << 32);
		CHECK_STR(cfg->groups[0].events[2].pmu, "software");
		CHECK_STR(cfg->groups[1].pmu, "cpu_core");
		CHECK(cfg->groups[1].events[1].perf.attr.config == (4ULL << 32 | 1));
		CHECK(!cfg->groups[2].hybrid);
		CHECK_STR(cfg->groups[2].pmu, "cpu_core");
		CHECK(cfg->groups[2].events[1].perf.attr.config == 4ULL << 32);
		CHECK(cfg->targets[0].nr_groups == 3);
	}
	plan_free(cfg);

	/* A hybrid group's copies share its name: a duplicate points at the
	 * first copy's line, and a target lists the name once. */
	r = PARSE("groups:\n  - name: sw\n    events: [cs]\n"
	    "  - name: ipc\n    events: [cycles]\n"
	    "  - name: ipc\n    events: [cs]\n");
	CHECK(r == -EINVAL);
	CHECK_STR(err, "t.yaml:6:11: duplicate group name \"ipc\" (first "
	    "defined at line 4)");
	r = PARSE("groups:\n  - name: ipc\n    events: [cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [ipc, ipc]\n");
	CHECK(r == -EINVAL);
	CHECK_STR(err, "t.yaml:6:19: group \"ipc\" is listed twice for this "
	    "target");

	r = PARSE("groups:\n  - name: x\n    events: [cpu_core/mem-loads/, cpu_atom/event=1/]\n"
	    "cpus:\n  - cpus: all\n    groups: [x]\n");
	CHECK(r == -EINVAL);
	CHECK_STR(err, "t.yaml:3:35: group \"x\" mixes events of PMU "
	    "\"cpu_core\" (\"cpu_core/mem-loads/\") and PMU \"cpu_atom\" "
	    "(\"cpu_atom/event=1/\"): the kernel schedules a group on one PMU, "
	    "so put them in separate groups");
	r = PARSE("groups:\n  - name: x\n    events: [data_read, cycles]\n"
	    "cpus:\n  - cpus: all\n    groups: [x]\n");
	CHECK(r == -EINVAL);
	CHECK_STR(err, "t.yaml:3:25: group \"x\" mixes events of PMU "
	    "\"uncore_imc_free_running_0\" (\"data_read\") and the core PMU "
	    "(\"cycles\"): the kernel schedules a group on one PMU, so put "
	    "them in separate groups");
	r = PARSE("groups:\n  - name: imc\n    events: [data_read, task-clock]\n"
	    "cpus:\n  - cpus: all\n    groups: [imc]\n"
	    "cgroups:\n  - path: /a\n    groups: [imc]\n");
	CHECK(r == -EINVAL);
	CHECK_STR(err, "t.yaml:9:14: group \"imc\" counts events of the uncore "
	    "PMU \"uncore_imc_free_running_0\", which counts for the whole "
	    "package and cannot be split by cgroup: count it under cpus: "
	    "instead");
	r = PARSE("groups:\n  - name: x\n    events: [cpu_core/evnt=1/]\n"
	    "cpus:\n  - cpus: all\n    groups: [x]\n");
	CHECK(r == -EINVAL);
	CHECK_CONTAINS(err, "t.yaml:3:14: event \"cpu_core/evnt=1/\": unknown "
	    "term 'evnt' for PMU \"cpu_core\" (column 10)");
	pmu_list_free(&l);
#undef PARSE
}

/*
 * Aliases counted as what they repeat: ten of ten of ... (10^7 nodes from
 * 200 bytes) refused at the innermost node that passes the limit; an
 * alias inside its own anchor refused as such.
 */
static void
test_amplification(void)
{
	char yaml[1024];
	size_t n = 0;
	int i, j;

	n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
	    "x0: &a0 [a, a, a, a, a, a, a, a, a, a]\n");
	for (i = 1; i < 7; i++) {
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
		    "x%d: &a%d [", i, i);
		for (j = 0; j < 10; j++)
			n += (size_t)snprintf(yaml + n, sizeof(yaml) - n,
			    "%s*a%d", j ? ", " : "", i - 1);
		n += (size_t)snprintf(yaml + n, sizeof(yaml) - n, "]\n");
	}
	bad(yaml, "t.yaml:7:5: this node expands to more than 2097152 nodes "
	    "(an alias counts as what it repeats)");
	bad("a: &s [x, *s]\n", "t.yaml:1:4: an alias here refers to a node "
	    "that contains it");
}

/* re's nodes, and its empties and anchors as want_e and want_a. */
static uint64_t
weight(const char *re, uint64_t want_e, uint64_t want_a)
{
	uint64_t e, an;
	uint64_t w = config_regex_weight(re, &e, &an);

	CHECK(e == want_e);
	CHECK(an == want_a);
	return w;
}

/* A config with one relabel rule whose regex is re. */
static const char *
one_rule(const char *re)
{
	static char yaml[512];

	snprintf(yaml, sizeof(yaml), GROUPS "cgroups:\n  - path: /a\n"
	    "    groups: [ipc]\n    relabel:\n      - regex: '%s'\n"
	    "        target_label: x\n", re);
	return yaml;
}

#define OVER_BUDGET "t.yaml:8:9: the relabel rules up to here would take " \
	"more than the 64 MiB a config may (each rule about 4 KiB, more for " \
	"a regex with repetitions or parts that match the empty string; an " \
	"alias counts as the rules it repeats)"

/* Regexes weighed by the nodes they compile to (anchors, groups and
 * empty alternatives included) and by the cube of those that match the
 * empty string once there is an anchor, and entries counted. */
static void
test_budget(void)
{
	size_t len = 64 + 40 * (CONFIG_MAX_ENTRIES + 1), n, i;
	char *yaml = malloc(len);
	struct plan *cfg;

	CHECK(weight("x", 0, 0) == 1);
	CHECK(weight("[0-9a-f]{64}", 0, 0) == 64);
	/* The group is a node of its own, copied with what it holds. */
	CHECK(weight("([0-9a-f]{64}){64}", 0, 0) == 65 * 64);
	/* {2,5}: five copies, three of them optional (a node each). */
	CHECK(weight("a{2,5}b", 3, 0) == 9);
	CHECK(weight("(ab|cd)*e?", 3, 0) == 9);
	/* "{,m}" is "{0,m}" to glibc: repeated as m copies too. */
	CHECK(weight("(a{,64}){,64}", 64 * 64 + 64, 0) == 129 * 64 + 64);
	/* Deeper than the weighing follows: refused whole. */
	CHECK(config_regex_bytes("((((((((((((((((((((((((((((((((("
	    "a)))))))))))))))))))))))))))))))))") > CONFIG_MAX_BYTES);
	CHECK(weight("[]a]\\{x", 0, 0) == 3);
	CHECK(weight("[[:alpha:]]+", 0, 0) == 2);
	CHECK(config_regex_bytes("((a{1000}){1000}){1000}") >
	    CONFIG_MAX_BYTES);
	/* Issue 50: nine bytes that weighed 0 and cost glibc 2.5 GB and
	 * 27 s; anchors, "()" and empty alternatives are nodes that match
	 * the empty string, multiplied by their repetitions. */
	CHECK(weight("((^){24}){24}", 576, 576) == 49 * 24);
	CHECK(weight("(){8}", 8, 0) == 8);
	CHECK(weight("(|){8}", 8, 0) == 16);
	CHECK(weight("(\\<$){4}", 8, 8) == 12);
	CHECK(weight("\\bx\\B", 2, 2) == 3);
	CHECK(config_regex_bytes("((^){24}){24}") > CONFIG_MAX_BYTES);
	CHECK(config_regex_bytes("^/kubepods(\\.slice)?/(.*)$") < 65536);
	/* At the budget's edge, as compiled ("^(re)$": two anchors more):
	 * 98 anchors go, 99 do not, whether repeated once or nested;
	 * with only the two, 415 empties go and 416 do not. */
	CHECK(config_regex_bytes("(^){98}") <= CONFIG_MAX_BYTES);
	CHECK(config_regex_bytes("(^){99}") > CONFIG_MAX_BYTES);
	CHECK(config_regex_bytes("((^){7}){14}") <= CONFIG_MAX_BYTES);
	CHECK(config_regex_bytes("(a?){415}") <= CONFIG_MAX_BYTES);
	CHECK(config_regex_bytes("(a?){416}") > CONFIG_MAX_BYTES);
	cfg = parse(one_rule("((^){7}){14}"));
	CHECK(cfg != NULL);
	plan_free(cfg);
	bad(one_rule("(^){99}"), OVER_BUDGET);
	/* Parsed only when weighed over: compiled, it takes 2.5 GB. */
	if (config_regex_bytes("((^){24}){24}") > CONFIG_MAX_BYTES)
		bad(one_rule("((^){24}){24}"), OVER_BUDGET);
	bad(one_rule("(^){90}x(^){9}"), OVER_BUDGET);
	CHECK(yaml != NULL);
	if (yaml == NULL)
		return;
	n = (size_t)snprintf(yaml, len, GROUPS "cgroups:\n");
	for (i = 0; i <= CONFIG_MAX_ENTRIES; i++)
		n += (size_t)snprintf(yaml + n, len - n,
		    "  - {path: /a, groups: [ipc]}\n");
	bad(yaml, "t.yaml:10005:5: more than 10000 cgroups entries");
	free(yaml);
	bad(one_rule("((a{1000}){1000}){100}"), OVER_BUDGET);
}

int
main(void)
{
	test_pmus();
	test_valid();
	test_embedded();
	test_errors();
	test_cgroup_keys();
	test_walk_defaults();
	test_cgroup_key_errors();
	test_layout_keys();
	test_durations();
	test_bpf_keys();
	test_many_groups();
	test_load();
	test_amplification();
	test_budget();
	return CHECK_DONE();
}
