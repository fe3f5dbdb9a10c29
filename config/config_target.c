/*
 * config_target.c - the cpus: and cgroups: blocks (config_int.h): the targets
 * and their groups, path patterns, walk bounds, relabel rules and layouts.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_budget.h"
#include "config/config_int.h"
#include "config/config_interference.h"
#include "util/text.h"

/* A target names a group that is not defined: say so, with the nearest
 * defined name if one is close.  Only this error scans every group. */
static int
undefined_group(struct parse *p, yaml_node_t *g)
{
	const char *best = NULL;
	size_t i, d, bestd = (size_t)-1;

	for (i = 0; i < p->cfg->nr_groups; i++) {
		d = text_distance(p->cfg->groups[i].name, scalar(g));
		if (d < bestd) {
			bestd = d;
			best = p->cfg->groups[i].name;
		}
	}
	if (best && bestd <= 2)
		return perr(p, g, "group \"%s\" is used but not defined "
		    "(did you mean \"%s\"?)", scalar(g), best);
	return perr(p, g, "group \"%s\" is used but not defined",
	    scalar(g));
}

static int
parse_target_groups(struct parse *p, yaml_node_t *n, struct plan_target *t)
{
	yaml_node_t *gl = lookup(p, n, "groups"), *g;
	yaml_node_item_t *it;
	struct nameidx listed = { 0 };
	size_t i, nr, cap = 0, *tmp;
	int r;

	if (gl == NULL)
		return perr(p, n, "target has no \"groups\"");
	if ((r = expect(p, gl, YAML_SEQUENCE_NODE, "groups")) < 0)
		return r;
	nr = yamldoc_len(gl);
	if (nr == 0)
		return perr(p, gl, "target lists no groups");
	p->preset_listed = NULL;
	YAMLDOC_EACH(&p->y, gl, it, g) {
		if ((r = expect(p, g, YAML_SCALAR_NODE, "a group name")) < 0)
			goto out;
		if (!nameidx_find(&p->group_idx, scalar(g), &i)) {
			r = undefined_group(p, g);
			goto out;
		}
		if ((r = nameidx_add(&listed, scalar(g), i)) < 0) {
			if (r == -EEXIST)
				r = perr(p, g, "group \"%s\" is listed twice "
				    "for this target", scalar(g));
			goto out;
		}
		if (t->kind == PLAN_TARGET_CGROUP && p->cfg->groups[i].uncore) {
			r = perr(p, g, "group \"%s\" counts events of the "
			    "uncore PMU \"%s\", which counts for the whole "
			    "package and cannot be split by cgroup: count "
			    "it under cpus: instead", scalar(g),
			    p->cfg->groups[i].pmu);
			goto out;
		}
		if (p->cfg->groups[i].preset && p->preset_listed == NULL)
			p->preset_listed = g;
		/* Every per-PMU copy of a hybrid group; a preset's copy
		 * with no events counts nothing. */
		for (; i < p->cfg->nr_groups &&
		    config_group_named(&p->cfg->groups[i], scalar(g)); i++) {
			if (p->cfg->groups[i].nr_events == 0)
				continue;
			if (t->nr_groups == cap) {
				cap = cap ? 2 * cap : nr;
				tmp = realloc(t->groups, cap * sizeof(*tmp));
				if (tmp == NULL) {
					r = -ENOMEM;
					goto out;
				}
				t->groups = tmp;
			}
			t->groups[t->nr_groups++] = i;
		}
	}
	r = 0;
out:
	nameidx_free(&listed);
	return r;
}

static int
parse_cpu_target(struct parse *p, yaml_node_t *n, struct plan_target *t)
{
	static const char *const keys[] = { "cpus", "groups", NULL };
	yaml_node_t *c;
	size_t pos;
	int r;

	t->kind = PLAN_TARGET_CPU;
	if ((r = expect(p, n, YAML_MAPPING_NODE, "a cpus entry")) < 0)
		return r;
	if ((r = check_keys(p, n, keys, "a cpus entry")) < 0)
		return r;
	t->line = (int)n->start_mark.line + 1;
	t->col = (int)n->start_mark.column + 1;
	if ((c = lookup(p, n, "cpus")) == NULL)
		return perr(p, n, "cpus entry has no \"cpus\" "
		    "(\"all\" or a list such as \"0-3,8\")");
	if ((r = expect(p, c, YAML_SCALAR_NODE, "cpus")) < 0)
		return r;
	if (strcmp(scalar(c), "all") == 0)
		t->all_cpus = 1;
	else if ((r = cpumap_parse(scalar(c), &t->cpus, &pos)) < 0) {
		if (r == -ENOMEM)
			return r;
		return perr(p, c, "invalid CPU list \"%s\" at character %zu "
		    "(expected \"all\" or a list such as \"0-3,8\")",
		    scalar(c), pos + 1);
	}
	return parse_target_groups(p, n, t);
}

/* Labels the exporter sets itself, which relabel rules may not. */
static int
config_label_reserved(const char *name)
{
	static const char *const reserved[] = { "cgroup", "cpu", "group",
	    "event", "pmu", "rank", NULL };
	const char *const *r;

	for (r = reserved; *r; r++)
		if (strcmp(*r, name) == 0)
			return 1;
	/* suspect_*: the interference suspects' labels (daemon/expo/). */
	return strncmp(name, "__", 2) == 0 ||
	    strncmp(name, "suspect_", 8) == 0;
}

static int
label_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/*
 * replace: {"_": "-"}: string replacements applied, in order, to the
 * value a rule makes; what regex and $N cannot do (systemd writes a pod
 * uid's "-" as "_", and a machine name's "-" as "\x2d").
 */
/* What parse_replace filled in, freed when the rule fails after it. */
static void
replace_free(struct plan_relabel *rl)
{
	size_t i;

	for (i = 0; i < rl->nr_replace; i++) {
		free(rl->replace_from[i]);
		free(rl->replace_to[i]);
	}
	free(rl->replace_from);
	free(rl->replace_to);
	rl->replace_from = rl->replace_to = NULL;
	rl->nr_replace = 0;
}

static int
parse_replace(struct parse *p, yaml_node_t *n, struct plan_relabel *rl)
{
	yaml_node_pair_t *pr;
	yaml_node_t *k, *v;
	size_t nr;
	int r;

	if ((r = expect(p, n, YAML_MAPPING_NODE, "replace")) < 0)
		return r;
	nr = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	rl->replace_from = calloc(nr + 1, sizeof(char *));
	rl->replace_to = calloc(nr + 1, sizeof(char *));
	if (rl->replace_from == NULL || rl->replace_to == NULL)
		return -ENOMEM;
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	    pr++) {
		k = yaml_document_get_node(p->y.doc, pr->key);
		v = yaml_document_get_node(p->y.doc, pr->value);
		if ((r = expect(p, k, YAML_SCALAR_NODE, "a replace key")) < 0 ||
		    (r = expect(p, v, YAML_SCALAR_NODE, "a replace value")) < 0)
			return r;
		if (scalar(k)[0] == '\0')
			return perr(p, k, "replace: the string to replace is "
			    "empty");
		if ((rl->replace_from[rl->nr_replace] = strdup(scalar(k))) ==
		    NULL || (rl->replace_to[rl->nr_replace] =
		    strdup(scalar(v))) == NULL) {
			free(rl->replace_from[rl->nr_replace]);
			return -ENOMEM;
		}
		rl->nr_replace++;
	}
	return 0;
}

static int
parse_relabel(struct parse *p, yaml_node_t *n, struct plan_relabel *rl)
{
	static const char *const keys[] = { "source", "regex", "target_label",
	    "replacement", "replace", NULL };
	yaml_node_t *src, *re, *tl, *rp, *rs;
	char *anchored, ebuf[256];
	int r;

	if ((r = expect(p, n, YAML_MAPPING_NODE, "a relabel rule")) < 0)
		return r;
	if ((r = check_keys(p, n, keys, "a relabel rule")) < 0)
		return r;
	rl->line = (int)n->start_mark.line + 1;
	rl->col = (int)n->start_mark.column + 1;
	if ((src = lookup(p, n, "source")) != NULL) {
		if ((r = expect(p, src, YAML_SCALAR_NODE, "source")) < 0)
			return r;
		if (strcmp(scalar(src), "path") != 0)
			return perr(p, src, "relabel source \"%s\" is not "
			    "known (the only source is \"path\")",
			    scalar(src));
	}
	if ((re = lookup(p, n, "regex")) == NULL)
		return perr(p, n, "relabel rule has no \"regex\"");
	if ((tl = lookup(p, n, "target_label")) == NULL)
		return perr(p, n, "relabel rule has no \"target_label\"");
	if ((r = expect(p, re, YAML_SCALAR_NODE, "regex")) < 0 ||
	    (r = expect(p, tl, YAML_SCALAR_NODE, "target_label")) < 0)
		return r;
	if (!label_name_ok(scalar(tl)))
		return perr(p, tl, "target_label \"%s\" is not a valid label "
		    "name ([a-zA-Z_][a-zA-Z0-9_]*)", scalar(tl));
	if (config_label_reserved(scalar(tl)))
		return perr(p, tl, "target_label \"%s\" is reserved: %s",
		    scalar(tl), strncmp(scalar(tl), "__", 2) == 0 ?
		    "names starting with \"__\" are Prometheus's own" :
		    "pmu_exporter sets it itself");
	if ((rp = lookup(p, n, "replacement")) != NULL &&
	    (r = expect(p, rp, YAML_SCALAR_NODE, "replacement")) < 0)
		return r;
	/* The rule is counted (and freed with the plan) only when this
	 * returns 0: every failure below frees what it had filled in. */
	if ((rs = lookup(p, n, "replace")) != NULL &&
	    (r = parse_replace(p, rs, rl)) < 0) {
		replace_free(rl);
		return r;
	}
	if ((anchored = malloc(strlen(scalar(re)) + 5)) == NULL) {
		replace_free(rl);
		return -ENOMEM;
	}
	sprintf(anchored, "^(%s)$", scalar(re));
	r = regcomp(&rl->re, anchored, REG_EXTENDED);
	free(anchored);
	if (r != 0) {
		regerror(r, &rl->re, ebuf, sizeof(ebuf));
		replace_free(rl);
		return perr(p, re, "regex \"%s\": %s", scalar(re), ebuf);
	}
	if ((rl->target_label = strdup(scalar(tl))) == NULL ||
	    (rl->replacement = strdup(rp ? scalar(rp) : "$1")) == NULL) {
		free(rl->target_label);
		rl->target_label = NULL;
		regfree(&rl->re);
		replace_free(rl);
		return -ENOMEM;
	}
	return 0;
}

static int
check_pattern(struct parse *p, yaml_node_t *n, const char *what)
{
	const char *s = scalar(n), *c;

	if (s[0] != '/')
		return perr(p, n, "%s \"%s\" must start with '/' (it is "
		    "relative to the cgroup root)", what, s);
	if (strstr(s, "/../") || strstr(s, "/./") ||
	    (strlen(s) >= 3 && strcmp(s + strlen(s) - 3, "/..") == 0))
		return perr(p, n, "%s \"%s\" may not contain '.' or '..' "
		    "components", what, s);
	for (c = s; (c = strstr(c, "**")) != NULL; c += 2)
		if (c[-1] != '/' || (c[2] != '/' && c[2] != '\0'))
			return perr(p, n, "%s \"%s\": '**' must be a whole "
			    "path component (column %zu)", what, s,
			    (size_t)(c - s) + 1);
	return 0;
}

/*
 * layout: a name for the entry, shared by the entries of one cgroup
 * layout (the embedded default's "docker" has two: systemd and cgroupfs
 * drivers).  The log says per layout how many cgroups it holds, and an
 * entry with a layout is not warned about when it matches nothing: most
 * machines run few of the layouts.
 */
static int
parse_layout(struct parse *p, yaml_node_t *n, struct plan_target *t)
{
	struct plan *cfg = p->cfg;
	const char *s;
	char **tmp;
	size_t i;
	int r;

	if ((r = expect(p, n, YAML_SCALAR_NODE, "layout")) < 0)
		return r;
	s = scalar(n);
	if (s[0] == '\0' || strlen(s) > 64 || strpbrk(s, " \t\r\n"))
		return perr(p, n, "layout must be a name of 1 to 64 "
		    "characters without spaces, not \"%s\"", s);
	for (i = 0; i < cfg->nr_layouts; i++)
		if (strcmp(cfg->layouts[i], s) == 0)
			break;
	if (i == cfg->nr_layouts) {
		tmp = realloc(cfg->layouts, (i + 1) * sizeof(*tmp));
		if (tmp == NULL)
			return -ENOMEM;
		cfg->layouts = tmp;
		if ((tmp[i] = strdup(s)) == NULL)
			return -ENOMEM;
		cfg->nr_layouts++;
	}
	t->layout = i + 1;
	return 0;
}

/* One exclude pattern of a cgroups entry. */
static int
exclude_add(struct parse *p, yaml_node_t *item, struct plan_target *t)
{
	int r;

	if ((r = expect(p, item, YAML_SCALAR_NODE, "an exclude pattern")) < 0 ||
	    (r = check_pattern(p, item, "exclude pattern")) < 0)
		return r;
	if ((t->exclude[t->nr_exclude] = strdup(scalar(item))) == NULL)
		return -ENOMEM;
	t->nr_exclude++;
	return 0;
}

/* A cgroups entry's exclude: one pattern, or a list of them. */
static int
target_exclude(struct parse *p, yaml_node_t *ex, struct plan_target *t)
{
	int seq = ex->type == YAML_SEQUENCE_NODE, r;
	yaml_node_t *item;
	yaml_node_item_t *it;

	if (!seq && (r = expect(p, ex, YAML_SCALAR_NODE, "exclude")) < 0)
		return r;
	if ((t->exclude = calloc((seq ? yamldoc_len(ex) : 1) + 1,
	    sizeof(char *))) == NULL)
		return -ENOMEM;
	if (!seq)
		return exclude_add(p, ex, t);
	YAMLDOC_EACH(&p->y, ex, it, item)
		if ((r = exclude_add(p, item, t)) < 0)
			return r;
	return 0;
}

/* A cgroups entry's relabel rules. */
static int
target_relabel(struct parse *p, yaml_node_t *rl, struct plan_target *t)
{
	yaml_node_t *item;
	yaml_node_item_t *it;
	size_t nr;
	int r;

	if ((r = expect(p, rl, YAML_SEQUENCE_NODE, "relabel")) < 0)
		return r;
	nr = yamldoc_len(rl);
	if ((t->relabel = calloc(nr + 1, sizeof(*t->relabel))) == NULL)
		return -ENOMEM;
	YAMLDOC_EACH(&p->y, rl, it, item) {
		if ((r = parse_relabel(p, item,
		    &t->relabel[t->nr_relabel])) < 0)
			return r;
		t->nr_relabel++;
	}
	return 0;
}

/*
 * What bounds an entry's walk: depth, the levels a "**" spans (32 unless
 * given, so a tenant nesting directories cannot make the walk endless),
 * and max_cgroups, the directories it opens in a pass.
 */
static int
target_limits(struct parse *p, yaml_node_t *n, struct plan_target *t)
{
	yaml_node_t *dp, *mc;
	long v;
	int r;

	t->depth = strstr(t->path, "**") ? PLAN_DEFAULT_DEPTH : 0;
	if ((dp = lookup(p, n, "depth")) != NULL) {
		if ((r = config_whole_number(p, dp, "depth", 1, 64, &v)) < 0)
			return r;
		if (strstr(t->path, "**") == NULL)
			return perr(p, dp, "depth limits '**', and path "
			    "\"%s\" has none", t->path);
		t->depth = (unsigned)v;
	}
	t->max_dirs = PLAN_DEFAULT_MAX_DIRS;
	if ((mc = lookup(p, n, "max_cgroups")) != NULL) {
		if ((r = config_whole_number(p, mc, "max_cgroups", 1, 1000000,
		    &v)) < 0)
			return r;
		t->max_dirs = (size_t)v;
	}
	return 0;
}

static int
parse_cgroup_target(struct parse *p, yaml_node_t *n, struct plan_target *t)
{
	static const char *const keys[] = { "layout", "path", "groups",
	    "per_cpu", "exclude", "depth", "max_cgroups", "relabel", "mode",
	    "fallback", NULL };
	yaml_node_t *path, *pc, *ex, *rl, *ly;
	int r;

	t->kind = PLAN_TARGET_CGROUP;
	if ((r = expect(p, n, YAML_MAPPING_NODE, "a cgroups entry")) < 0)
		return r;
	if ((r = config_check_keys(p, n, keys, 1, "a cgroups entry")) < 0)
		return r;
	t->line = (int)n->start_mark.line + 1;
	t->col = (int)n->start_mark.column + 1;
	if ((path = lookup(p, n, "path")) == NULL)
		return perr(p, n, "cgroups entry has no \"path\"");
	if ((r = expect(p, path, YAML_SCALAR_NODE, "path")) < 0)
		return r;
	if ((r = check_pattern(p, path, "cgroup path")) < 0)
		return r;
	if ((t->path = strdup(scalar(path))) == NULL)
		return -ENOMEM;
	if ((ly = lookup(p, n, "layout")) != NULL &&
	    (r = parse_layout(p, ly, t)) < 0)
		return r;
	if ((ex = lookup(p, n, "exclude")) != NULL &&
	    (r = target_exclude(p, ex, t)) < 0)
		return r;
	if ((r = target_limits(p, n, t)) < 0)
		return r;
	if ((rl = lookup(p, n, "relabel")) != NULL &&
	    (r = target_relabel(p, rl, t)) < 0)
		return r;
	if ((pc = lookup(p, n, "per_cpu")) != NULL) {
		if ((r = expect(p, pc, YAML_SCALAR_NODE, "per_cpu")) < 0)
			return r;
		if (config_bool(scalar(pc), &t->per_cpu) < 0)
			return perr(p, pc, "per_cpu must be true or false, "
			    "not \"%s\"", scalar(pc));
	}
	if ((r = parse_target_groups(p, n, t)) < 0)
		return r;
	return config_mode(p, n, t);
}

/* The targets: the cpus entries, then the cgroups entries. */
int
config_targets(struct parse *p, yaml_node_t *root)
{
	struct plan *cfg = p->cfg;
	yaml_node_t *n, *item;
	yaml_node_item_t *it;
	size_t nr = 0;
	int r;

	if ((n = lookup(p, root, "cpus")) != NULL) {
		if ((r = expect(p, n, YAML_SEQUENCE_NODE, "cpus")) < 0)
			return r;
		nr += yamldoc_len(n);
	}
	if ((n = lookup(p, root, "cgroups")) != NULL) {
		if ((r = expect(p, n, YAML_SEQUENCE_NODE, "cgroups")) < 0 ||
		    (r = config_budget(&p->y, n)) < 0)
			return r;
		nr += yamldoc_len(n);
	}
	if (nr == 0)
		return perr(p, root, "nothing to count: add a \"cpus\" or a "
		    "\"cgroups\" target");
	if ((cfg->targets = calloc(nr, sizeof(*cfg->targets))) == NULL)
		return -ENOMEM;
	if ((n = lookup(p, root, "cpus")) != NULL)
		YAMLDOC_EACH(&p->y, n, it, item) {
			r = parse_cpu_target(p, item,
			    &cfg->targets[cfg->nr_targets++]);
			if (r < 0)
				return r;
		}
	if ((n = lookup(p, root, "cgroups")) != NULL)
		YAMLDOC_EACH(&p->y, n, it, item) {
			r = parse_cgroup_target(p, item,
			    &cfg->targets[cfg->nr_targets++]);
			if (r < 0)
				return r;
		}
	/* After the groups and targets it refers to. */
	return config_interference(&p->y, lookup(p, root, "interference"),
	    cfg, &p->ifr);
}
