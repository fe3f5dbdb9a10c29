/*
 * config.c - YAML to validated structs (see config.h).
 *
 * libyaml's document API is used rather than its event stream: every node
 * keeps its start mark, so any error can point at the exact line and
 * column, and checks that need the whole file (a group used before it is
 * defined) are plain lookups.  The first error stops parsing; nothing is
 * half-applied because the caller only ever gets a complete config.
 *
 * Every check that relates one entry to the others (a duplicate group or
 * event name, a group named by a target, the events of one mode's
 * groups) is a lookup in an index or a mark, not a scan of the entries
 * before it: a config of 20,000 groups is checked in linear time.
 *
 * Why one file of 800 lines: it is one schema, read top to bottom in the
 * order of the file it parses (top-level keys, groups, then targets, which
 * refer back to groups); the event grammar is events/, YAML helpers are
 * yamldoc.c.
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "collectors/events/event.h"
#include "collectors/events/topdown.h"
#include "config/config.h"
#include "config/yamldoc_short.h"
#include "util/nameidx.h"
#include "util/text.h"

struct parse {
	struct yamldoc y;		/* source, document, error buffer */
	const struct event_ctx *events;
	struct plan *cfg;
	size_t cap_groups;		/* cfg->groups has room for */
	struct nameidx group_idx;	/* name -> its first plan group */
	/* Per kind (plan_kind_at), where it limits its events: [nr_groups]
	 * an entry of the kind has it, and the events of those groups. */
	unsigned char *in_kind[PLAN_KINDS_MAX];
	size_t kind_events[PLAN_KINDS_MAX];
	yaml_node_t *preset_listed;	/* the target being parsed names this
					   preset group (a kind may refuse) */
	struct interference_config ifr;	/* the interference: block */
};

static int
parse_bool(const char *s, int *out)
{
	static const char *yes[] = { "true", "yes", "on", NULL };
	static const char *no[] = { "false", "no", "off", NULL };
	const char **w;

	for (w = yes; *w; w++)
		if (strcasecmp(s, *w) == 0)
			return *out = 1, 0;
	for (w = no; *w; w++)
		if (strcasecmp(s, *w) == 0)
			return *out = 0, 0;
	return -EINVAL;
}

static int
duration_key(struct parse *p, yaml_node_t *n, const char *key, uint64_t *ns,
    uint64_t min)
{
	int r;

	if ((r = expect(p, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	if (text_parse_duration(scalar(n), ns) < 0)
		return perr(p, n, "%s: invalid duration \"%s\" "
		    "(expected a number with ms, s, m or h, e.g. \"1s\")",
		    key, scalar(n));
	if (*ns < min || *ns > 3600ULL * 1000000000ULL)
		return perr(p, n, "%s: %s is out of range (%llums to 1h)",
		    key, scalar(n), (unsigned long long)(min / 1000000));
	return 0;
}

/* Append an empty group to the plan; NULL on ENOMEM.  The array doubles,
 * so that 20,000 groups are not 20,000 copies of it. */
static struct plan_group *
add_group(struct parse *p)
{
	struct plan *cfg = p->cfg;
	struct plan_group *tmp;
	size_t cap;

	if (cfg->nr_groups == p->cap_groups) {
		cap = p->cap_groups ? 2 * p->cap_groups : 16;
		tmp = realloc(cfg->groups, cap * sizeof(*tmp));
		if (tmp == NULL)
			return NULL;
		cfg->groups = tmp;
		p->cap_groups = cap;
	}
	tmp = &cfg->groups[cfg->nr_groups++];
	memset(tmp, 0, sizeof(*tmp));
	return tmp;
}

/* The variant of a resolved event that belongs on PMU pmu, or NULL. */
static const struct event *
variant_on(const struct event *v, int nv, const char *pmu)
{
	int k;

	if (v[0].kind != EVENT_GENERIC)
		return &v[0];
	for (k = 0; k < nv; k++)
		if (strcmp(v[k].pmu, pmu) == 0)
			return &v[k];
	return NULL;
}

/*
 * Fill g as the copy of a group for PMU pmu (NULL: software only) from
 * the resolved events.
 */
static int
fill_group(const char *name, yaml_node_t *n, struct plan_group *g,
    yaml_node_t **evnodes, struct event (*var)[EVENT_MAX_VARIANTS],
    const int *nvar, size_t nr, const char *pmu, int hybrid)
{
	const struct event *e;
	const struct pmu *pp = NULL;
	size_t i;

	g->line = (int)n->start_mark.line + 1;
	g->col = (int)n->start_mark.column + 1;
	g->hybrid = hybrid;
	if ((g->name = strdup(name)) == NULL)
		return -ENOMEM;
	if (pmu && (g->pmu = strdup(pmu)) == NULL)
		return -ENOMEM;
	if ((g->events = calloc(nr, sizeof(*g->events))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct plan_event *ce = &g->events[i];

		e = pmu ? variant_on(var[i], nvar[i], pmu) : &var[i][0];
		if (e->kind != EVENT_SOFTWARE && e->p)
			pp = e->p;
		g->nr_events++;
		ce->attr = e->attr;
		ce->scale = e->scale;
		ce->line = (int)evnodes[i]->start_mark.line + 1;
		ce->col = (int)evnodes[i]->start_mark.column + 1;
		if ((ce->name = strdup((const char *)
		    evnodes[i]->data.scalar.value)) == NULL ||
		    (ce->pmu = strdup(e->pmu)) == NULL)
			return -ENOMEM;
	}
	if (pp && pp->cpus_from != PMU_CPUS_ALL) {
		size_t bytes = (pp->cpus.nr + 1) * sizeof(int);

		if ((g->cpus.cpu = malloc(bytes)) == NULL)
			return -ENOMEM;
		memcpy(g->cpus.cpu, pp->cpus.cpu, pp->cpus.nr * sizeof(int));
		g->cpus.nr = pp->cpus.nr;
		g->pmu_cpus = 1;
	}
	g->uncore = pp && pmu_is_uncore(pp);
	return 0;
}

/* How many of the set's events of part are present. */
static size_t
preset_present(const struct topdown_set *set, int part)
{
	size_t i, n = 0;

	for (i = 0; i < set->nr; i++)
		n += set->ev[i].present && set->ev[i].part == part;
	return n;
}

/*
 * The name of a preset's second group (part 1, topdown.h): the preset's
 * name and ":smt", a name of its own because its series, coverage and
 * group metrics are its own; a target naming the preset counts both.
 */
#define PRESET_PART_SUFFIX ":smt"

/* Whether g is a group a target naming name counts. */
static int
group_named(const struct plan_group *g, const char *name)
{
	size_t n = strlen(name);

	if (strcmp(g->name, name) == 0)
		return 1;
	return g->preset && strncmp(g->name, name, n) == 0 &&
	    strcmp(g->name + n, PRESET_PART_SUFFIX) == 0;
}

/*
 * One copy of a preset group for core PMU pp (NULL: this machine has
 * none), from its expansion: the present events resolved through the
 * event parser, the missing ones named in g->missing, or, where nothing
 * is present, the single missing "topdown".
 */
static int
fill_preset(struct parse *p, yaml_node_t *n, yaml_node_t *pr,
    const char *name, const struct pmu *pp, const struct topdown_set *set,
    int part, struct plan_group *g)
{
	size_t i, present = set ? preset_present(set, part) : 0;
	struct event ev[EVENT_MAX_VARIANTS];
	char eerr[1024];
	int r;

	g->line = (int)n->start_mark.line + 1;
	g->col = (int)n->start_mark.column + 1;
	g->preset = 1;
	g->hybrid = 1;		/* the pmu label, on every machine */
	if ((g->name = strdup(name)) == NULL ||
	    (pp && (g->pmu = strdup(pp->name)) == NULL))
		return -ENOMEM;
	if (set && set->definition && present &&
	    (g->definition = strdup(set->definition)) == NULL)
		return -ENOMEM;
	if (set && set->why[0] && (g->why = strdup(set->why)) == NULL)
		return -ENOMEM;
	if (g->why == NULL && !present && (g->why = strdup(pp ? "no core "
	    "PMU events" : "no core PMU under sysfs (no hardware counters, "
	    "as in most VMs)")) == NULL)
		return -ENOMEM;
	if ((g->missing = calloc(set ? set->nr + 1 : 1,
	    sizeof(*g->missing))) == NULL)
		return -ENOMEM;
	if (!present) {
		if ((g->missing[0] = strdup("topdown")) == NULL)
			return -ENOMEM;
		g->nr_missing = 1;
		return 0;
	}
	g->level = set->level;
	g->slots_per_cycle = part == 0 ? set->slots_per_cycle : 0;
	if ((g->events = calloc(present, sizeof(*g->events))) == NULL)
		return -ENOMEM;
	for (i = 0; i < set->nr; i++) {
		struct plan_event *ce = &g->events[g->nr_events];

		if (set->ev[i].part != part)
			continue;
		if (!set->ev[i].present) {
			if ((g->missing[g->nr_missing] =
			    strdup(set->ev[i].name)) == NULL)
				return -ENOMEM;
			g->nr_missing++;
			continue;
		}
		r = event_parse(p->events, set->ev[i].spec, ev,
		    EVENT_MAX_VARIANTS, eerr, sizeof(eerr));
		if (r < 0)
			return perr(p, pr, "preset topdown: %s's event %s "
			    "(\"%s\"): %s", pp->name, set->ev[i].name,
			    set->ev[i].spec, eerr);
		ce->attr = ev[0].attr;
		ce->scale = ev[0].scale;
		ce->line = (int)pr->start_mark.line + 1;
		ce->col = (int)pr->start_mark.column + 1;
		if ((ce->name = strdup(set->ev[i].name)) == NULL ||
		    (ce->pmu = strdup(ev[0].pmu)) == NULL)
			return -ENOMEM;
		g->nr_events++;
	}
	if (pp->cpus_from != PMU_CPUS_ALL) {
		if ((g->cpus.cpu = malloc((pp->cpus.nr + 1) *
		    sizeof(int))) == NULL)
			return -ENOMEM;
		memcpy(g->cpus.cpu, pp->cpus.cpu, pp->cpus.nr * sizeof(int));
		g->cpus.nr = pp->cpus.nr;
		g->pmu_cpus = 1;
	}
	return 0;
}

/*
 * A copy that only: leaves out: no events, nothing missing, nothing to
 * say (the embedded default's way to add the preset where it costs no
 * general-purpose counter, and stay silent elsewhere).
 */
static int
quiet_preset(yaml_node_t *n, const char *name, const struct pmu *pp,
    struct plan_group *g)
{
	g->line = (int)n->start_mark.line + 1;
	g->col = (int)n->start_mark.column + 1;
	g->preset = g->hybrid = 1;
	if ((g->name = strdup(name)) == NULL ||
	    (pp && (g->pmu = strdup(pp->name)) == NULL))
		return -ENOMEM;
	return 0;
}

/*
 * - {name: td, preset: topdown}: one group per core PMU, each with the
 * events of that PMU's top-down definition (collectors/events/topdown.h).
 * only: <definition> keeps the expansion to PMUs of that definition.
 */
static int
parse_preset(struct parse *p, yaml_node_t *n, yaml_node_t *name,
    yaml_node_t *pr, yaml_node_t *only)
{
	const struct pmu_list *pl = p->events ? p->events->pmus : NULL;
	const struct topdown_cpu *cpu = p->events ? p->events->cpu : NULL;
	struct topdown_set set;
	struct plan_group *g;
	char part[512];
	size_t i, k, first = p->cfg->nr_groups, cores = 0;
	int r, quiet;

	if ((r = expect(p, pr, YAML_SCALAR_NODE, "preset")) < 0)
		return r;
	if (strcmp(scalar(pr), "topdown") != 0)
		return perr(p, pr, "unknown preset \"%s\" (the one preset is "
		    "\"topdown\")", scalar(pr));
	if (only && (r = expect(p, only, YAML_SCALAR_NODE, "only")) < 0)
		return r;
	for (i = 0; pl && i < pl->nr; i++) {
		if (!pl->pmu[i].core)
			continue;
		cores++;
		topdown_expand(cpu, &pl->pmu[i], &set);
		if ((g = add_group(p)) == NULL)
			return -ENOMEM;
		quiet = only && (set.definition == NULL ||
		    strcmp(set.definition, scalar(only)) != 0);
		if (quiet)
			r = quiet_preset(n, scalar(name), &pl->pmu[i], g);
		else
			r = fill_preset(p, n, pr, scalar(name), &pl->pmu[i],
			    &set, 0, g);
		if (r < 0)
			return r;
		if (quiet || preset_present(&set, 1) == 0)
			continue;
		/* Right after the first, so that a target's walk over
		 * the copies (parse_target_groups) meets it. */
		if ((g = add_group(p)) == NULL)
			return -ENOMEM;
		snprintf(part, sizeof(part), "%s" PRESET_PART_SUFFIX,
		    scalar(name));
		if ((r = fill_preset(p, n, pr, part, &pl->pmu[i], &set, 1,
		    g)) < 0)
			return r;
		/* Listed under its name too, so that no other group
		 * takes it (a later one is refused as a duplicate); the
		 * index keeps the name's pointer: the group's own copy. */
		if (!nameidx_find(&p->group_idx, part, &k))
			r = nameidx_add(&p->group_idx, g->name,
			    p->cfg->nr_groups - 1);
		else if (k < first)
			r = perr(p, name, "group \"%s\" is the name of this "
			    "preset's second group on %s: rename one", part,
			    pl->pmu[i].name);
		if (r < 0)
			return r;
	}
	if (cores == 0) {
		if ((g = add_group(p)) == NULL)
			return -ENOMEM;
		if (only)
			r = quiet_preset(n, scalar(name), NULL, g);
		else
			r = fill_preset(p, n, pr, scalar(name), NULL, NULL, 0,
			    g);
		if (r < 0)
			return r;
	}
	return nameidx_add(&p->group_idx, p->cfg->groups[first].name, first);
}

/* A group's events while they are parsed (parse_group). */
struct gevents {
	yaml_node_t *name;		/* the group's */
	size_t nr;
	yaml_node_t **nodes;		/* [nr] */
	struct event (*var)[EVENT_MAX_VARIANTS];	/* [nr] */
	int *nvar;			/* [nr] */
	struct nameidx names;
	const char *pmu;		/* the one hardware PMU, or NULL */
	size_t bound;			/* the event that named it */
	size_t generic;			/* 1 + the first generic event, or 0 */
};

/* The group's name: there, a scalar, not empty, not a duplicate. */
static int
group_name(struct parse *p, yaml_node_t *n, yaml_node_t **out)
{
	yaml_node_t *name;
	size_t first;
	int r;

	if ((name = lookup(p, n, "name")) == NULL)
		return perr(p, n, "group has no \"name\"");
	if ((r = expect(p, name, YAML_SCALAR_NODE, "group name")) < 0)
		return r;
	if (scalar(name)[0] == '\0')
		return perr(p, name, "group name is empty");
	if (nameidx_find(&p->group_idx, scalar(name), &first))
		return perr(p, name, "duplicate group name \"%s\" "
		    "(first defined at line %d)", scalar(name),
		    p->cfg->groups[first].line);
	*out = name;
	return 0;
}

/* Event i of a group, node ev: parsed, and checked against those before
 * it (a pinned member, a duplicate, a second hardware PMU). */
static int
group_event(struct parse *p, struct gevents *ge, size_t i, yaml_node_t *ev)
{
	struct event (*var)[EVENT_MAX_VARIANTS] = ge->var;
	yaml_node_t *name = ge->name, **evnodes = ge->nodes;
	char eerr[1024];
	int r;

	evnodes[i] = ev;
	if ((r = expect(p, ev, YAML_SCALAR_NODE, "an event")) < 0)
		return r;
	r = event_parse(p->events, scalar(ev), var[i],
	    EVENT_MAX_VARIANTS, eerr, sizeof(eerr));
	if (r < 0)
		return perr(p, ev, "%s", eerr);
	ge->nvar[i] = r;
	/* The kernel pins groups, not members (perf_event_open:
	 * EINVAL for a pinned event with a group_fd). */
	if (i > 0 && var[i][0].attr.pinned) {
		return perr(p, ev, "event \"%s\" in group \"%s\" is "
		    "pinned (:D), but only a group's leader can be: "
		    "perf_event_open refuses a pinned member "
		    "(EINVAL), as perf stat does; put :D on the "
		    "leader (\"%s\"), which pins the whole group",
		    scalar(ev), scalar(name), scalar(evnodes[0]));
	}
	if ((r = nameidx_add(&ge->names, scalar(ev), i)) < 0) {
		if (r == -EEXIST)
			r = perr(p, ev, "event \"%s\" is listed twice "
			    "in group \"%s\"", scalar(ev),
			    scalar(name));
		return r;
	}
	/* One hardware PMU per group, plus software events. */
	if (var[i][0].kind == EVENT_PMU) {
		if (ge->pmu && strcmp(ge->pmu, var[i][0].pmu) != 0)
			return perr(p, ev, "group \"%s\" mixes events of "
			    "PMU \"%s\" (\"%s\") and PMU \"%s\" "
			    "(\"%s\"): the kernel schedules a group "
			    "on one PMU, so put them in separate "
			    "groups", scalar(name), ge->pmu,
			    scalar(evnodes[ge->bound]), var[i][0].pmu,
			    scalar(ev));
		ge->pmu = var[i][0].pmu;
		ge->bound = i;
	} else if (var[i][0].kind == EVENT_GENERIC && !ge->generic)
		ge->generic = i + 1;
	return 0;
}

/*
 * The plan's groups from a group's events: generic events follow the
 * group's PMU, or make one copy per core PMU.  The copies are
 * consecutive, and the index of group names names the first.
 */
static int
group_add(struct parse *p, yaml_node_t *n, struct gevents *ge)
{
	const char *pmu = ge->pmu;
	size_t i, first, generic = ge->generic;
	struct plan_group *g;
	int r, k, copies = 1;

	for (i = 0; pmu && i < ge->nr; i++)
		if (ge->var[i][0].kind == EVENT_GENERIC &&
		    variant_on(ge->var[i], ge->nvar[i], pmu) == NULL)
			return perr(p, ge->nodes[i], "group \"%s\" mixes "
			    "events of PMU \"%s\" (\"%s\") and the core PMU "
			    "(\"%s\"): the kernel schedules a group on one "
			    "PMU, so put them in separate groups",
			    scalar(ge->name), pmu,
			    scalar(ge->nodes[ge->bound]),
			    scalar(ge->nodes[i]));
	if (!pmu && generic)
		copies = ge->nvar[generic - 1];
	first = p->cfg->nr_groups;
	for (k = 0; k < copies; k++) {
		if ((g = add_group(p)) == NULL)
			return -ENOMEM;
		r = fill_group(scalar(ge->name), n, g, ge->nodes, ge->var,
		    ge->nvar, ge->nr, pmu ? pmu : generic ?
		    ge->var[generic - 1][k].pmu : NULL, copies > 1);
		if (r < 0)
			return r;
	}
	/* The plan's copy of the name lives as long as the index. */
	return nameidx_add(&p->group_idx, p->cfg->groups[first].name, first);
}

static int
parse_group(struct parse *p, yaml_node_t *n)
{
	static const char *const keys[] = { "name", "events", "preset", "only",
	    NULL };
	struct gevents ge = { 0 };
	yaml_node_t *name = NULL, *events, *pr, *ev;
	yaml_node_item_t *it;
	size_t i;
	int r;

	if ((r = expect(p, n, YAML_MAPPING_NODE, "a group")) < 0)
		return r;
	if ((r = check_keys(p, n, keys, "a group")) < 0 ||
	    (r = group_name(p, n, &name)) < 0)
		return r;
	events = lookup(p, n, "events");
	if ((pr = lookup(p, n, "preset")) != NULL) {
		if (events != NULL)
			return perr(p, events, "group \"%s\" has a preset and "
			    "events: it takes one or the other", scalar(name));
		return parse_preset(p, n, name, pr, lookup(p, n, "only"));
	}
	if (lookup(p, n, "only") != NULL)
		return perr(p, lookup(p, n, "only"), "only: applies to a "
		    "preset group");
	if (events == NULL)
		return perr(p, n, "group \"%s\" has no \"events\" (or "
		    "\"preset: topdown\")", scalar(name));
	if ((r = expect(p, events, YAML_SEQUENCE_NODE, "events")) < 0)
		return r;
	ge.name = name;
	ge.nr = yamldoc_len(events);
	if (ge.nr == 0)
		return perr(p, events, "group \"%s\" has no events",
		    scalar(name));
	ge.var = calloc(ge.nr, sizeof(*ge.var));
	ge.nvar = calloc(ge.nr, sizeof(*ge.nvar));
	ge.nodes = calloc(ge.nr, sizeof(*ge.nodes));
	r = -ENOMEM;
	if (!ge.var || !ge.nvar || !ge.nodes)
		goto out;
	i = 0;
	YAMLDOC_EACH(&p->y, events, it, ev)
		if ((r = group_event(p, &ge, i++, ev)) < 0)
			goto out;
	r = group_add(p, n, &ge);
out:
	nameidx_free(&ge.names);
	free(ge.var);
	free(ge.nvar);
	free(ge.nodes);
	return r;
}

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
		    group_named(&p->cfg->groups[i], scalar(g)); i++) {
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

int
config_label_reserved(const char *name)
{
	static const char *const reserved[] = { "cgroup", "cpu", "group",
	    "event", "pmu", "rank", NULL };
	const char *const *r;

	for (r = reserved; *r; r++)
		if (strcmp(*r, name) == 0)
			return 1;
	/* suspect_*: the interference suspects' labels (daemon/expo.c). */
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

/* The kinds this build has (plan_kind_at), those that fall back only
 * when fb: "perf, bpf or null", for a message. */
static const char *
kind_list(char *buf, size_t len, int fb)
{
	const struct plan_kind *k;
	size_t i, n = 0, o = 0;

	for (i = 0; (k = plan_kind_at(i)) != NULL; i++)
		n += !fb || k->falls_back;
	buf[0] = '\0';
	for (i = 0; (k = plan_kind_at(i)) != NULL; i++) {
		if (fb && !k->falls_back)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o == 0 ? "" :
		    --n == 1 ? " or " : ", ", k->name);
		if (o >= len)
			break;
	}
	return buf;
}

/*
 * check_keys, allowing too the older spellings the kinds keep
 * (plan_kind): their options' at the top level (entry 0), fallback:'s
 * in a cgroups entry (entry 1).
 */
static int
check_keys_kinds(struct parse *p, yaml_node_t *n, const char *const *keys,
    int entry, const char *where)
{
	const char *all[64];
	const struct plan_kind *k;
	size_t i, j, nr = 0, cap = sizeof(all) / sizeof(*all) - 1;

	while (keys[nr] && nr < cap) {
		all[nr] = keys[nr];
		nr++;
	}
	for (i = 0; (k = plan_kind_at(i)) != NULL; i++) {
		if (entry && k->old_fallback && nr < cap)
			all[nr++] = k->old_fallback;
		for (j = 0; !entry && j < k->nr_options && nr < cap; j++)
			if (k->options[j].old_key)
				all[nr++] = k->options[j].old_key;
	}
	all[nr] = NULL;
	return yamldoc_check_keys(&p->y, n, all, where);
}

/*
 * An entry's fallback: (or a kind's older spelling of it, bpf_fallback):
 * what its cgroups get where its mode k (NULL: the default) cannot run:
 * perf (the default: counted in perf mode, logged), refuse (the config
 * is refused where the machine tells at load, else the cgroups are not
 * counted, a problem) or skip (not counted: an aggregate worth counting
 * only where it is cheap).  Only a kind that falls back takes it.
 */
static int
parse_fallback(struct parse *p, yaml_node_t *n, const struct plan_kind *k,
    struct plan_target *t)
{
	yaml_node_t *fb = lookup(p, n, "fallback"), *o;
	const struct plan_kind *d, *owner = NULL;
	const char *key = "fallback";
	char modes[128];
	size_t i;
	int r;

	for (i = 0; (d = plan_kind_at(i)) != NULL; i++)
		if (d->old_fallback &&
		    (o = lookup(p, n, d->old_fallback)) != NULL) {
			if (fb != NULL)
				return perr(p, o, "%s is fallback's older "
				    "name: give one of them", d->old_fallback);
			fb = o, key = d->old_fallback, owner = d;
		}
	if (fb == NULL)
		return 0;
	if (owner)
		snprintf(modes, sizeof(modes), "%s", owner->name);
	else
		kind_list(modes, sizeof(modes), 1);
	if (k == NULL)
		return perr(p, fb, "%s applies to mode: %s, and this entry "
		    "has no mode", key, modes);
	if (!k->falls_back || (owner && owner != k))
		return perr(p, fb, "%s applies to mode: %s, not mode: %s",
		    key, modes, k->name);
	if ((r = expect(p, fb, YAML_SCALAR_NODE, key)) < 0)
		return r;
	if (strcmp(scalar(fb), "refuse") == 0)
		t->fallback = PLAN_FALLBACK_REFUSE;
	else if (strcmp(scalar(fb), "skip") == 0)
		t->fallback = PLAN_FALLBACK_SKIP;
	else if (strcmp(scalar(fb), "perf") != 0)
		return perr(p, fb, "%s must be perf, refuse or skip, not "
		    "\"%s\"", key, scalar(fb));
	return 0;
}

/*
 * The events of the groups of kind ki's entries, each group once: the
 * union so far, this entry's groups marked and those new to it counted
 * (a kind whose entries share one set of counters per CPU limits it).
 */
static int
kind_events(struct parse *p, size_t ki, const struct plan_target *t,
    size_t *events)
{
	size_t i;

	if (p->in_kind[ki] == NULL &&
	    (p->in_kind[ki] = calloc(p->cfg->nr_groups, 1)) == NULL)
		return -ENOMEM;
	for (i = 0; i < t->nr_groups; i++)
		if (!p->in_kind[ki][t->groups[i]]) {
			p->in_kind[ki][t->groups[i]] = 1;
			p->kind_events[ki] +=
			    p->cfg->groups[t->groups[i]].nr_events;
		}
	*events = p->kind_events[ki];
	return 0;
}

/*
 * mode: the kind that counts the entry's cgroups, by name: perf (the
 * default: one perf event per event, CPU and cgroup) or another kind of
 * this build (plan_kind_at: bpf, the groups opened once per CPU and
 * cgroups charged by a BPF program), checked against what the kind
 * says of itself (plan.h): built, its preset groups, its events.
 */
static int
parse_mode(struct parse *p, yaml_node_t *n, struct plan_target *t)
{
	yaml_node_t *md = lookup(p, n, "mode");
	const struct plan_kind *k = NULL;
	const char *why;
	char modes[128];
	size_t ki, events;
	int r;

	if (md != NULL) {
		if ((r = expect(p, md, YAML_SCALAR_NODE, "mode")) < 0)
			return r;
		for (ki = 0; (k = plan_kind_at(ki)) != NULL; ki++)
			if (strcmp(k->name, scalar(md)) == 0)
				break;
		if (k == NULL)
			return perr(p, md, "mode must be %s, not \"%s\"",
			    kind_list(modes, sizeof(modes), 0), scalar(md));
	}
	if (k == NULL || ki == 0)	/* the default: t->mode stays NULL */
		return parse_fallback(p, n, k, t);
	if (k->unbuilt && (why = k->unbuilt()) != NULL)
		return perr(p, md, "mode: %s: %s; use mode: %s", k->name, why,
		    plan_kind_at(0)->name);
	if (k->no_preset && p->preset_listed != NULL)
		return perr(p, p->preset_listed, "mode: %s cannot count group "
		    "\"%s\" (preset: topdown): %s; count it in a cgroups "
		    "entry with mode: %s", k->name, scalar(p->preset_listed),
		    k->no_preset, plan_kind_at(0)->name);
	if ((r = parse_fallback(p, n, k, t)) < 0)
		return r;
	if ((t->mode = strdup(k->name)) == NULL)
		return -ENOMEM;
	t->mode_line = (int)md->start_mark.line + 1;
	t->mode_col = (int)md->start_mark.column + 1;
	if (k->max_events == 0)
		return 0;
	if ((r = kind_events(p, ki, t, &events)) < 0)
		return r;
	if (events > k->max_events)
		return perr(p, md, "mode: %s: the groups of the %s-mode "
		    "entries have %zu events in all, and %s mode counts at "
		    "most %zu per CPU; use fewer, or mode: %s for some",
		    k->name, k->name, events, k->name, k->max_events,
		    plan_kind_at(0)->name);
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

/* A whole number from lo to hi in scalar n, named key.  0 or -EINVAL. */
static int
whole_number(struct parse *p, yaml_node_t *n, const char *key, long lo,
    long hi, long *v)
{
	char *end;
	int r;

	if ((r = expect(p, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	errno = 0;
	*v = strtol(scalar(n), &end, 10);
	if (errno || *end || end == scalar(n) || *v < lo || *v > hi)
		return perr(p, n, "%s must be a whole number from %ld to %ld, "
		    "not \"%s\"", key, lo, hi, scalar(n));
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
		if ((r = whole_number(p, dp, "depth", 1, 64, &v)) < 0)
			return r;
		if (strstr(t->path, "**") == NULL)
			return perr(p, dp, "depth limits '**', and path "
			    "\"%s\" has none", t->path);
		t->depth = (unsigned)v;
	}
	t->max_dirs = PLAN_DEFAULT_MAX_DIRS;
	if ((mc = lookup(p, n, "max_cgroups")) != NULL) {
		if ((r = whole_number(p, mc, "max_cgroups", 1, 1000000,
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
	if ((r = check_keys_kinds(p, n, keys, 1, "a cgroups entry")) < 0)
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
		if (parse_bool(scalar(pc), &t->per_cpu) < 0)
			return perr(p, pc, "per_cpu must be true or false, "
			    "not \"%s\"", scalar(pc));
	}
	if ((r = parse_target_groups(p, n, t)) < 0)
		return r;
	return parse_mode(p, n, t);
}

/* Record mode's option key, value (plan_mode_option).  0 or -ENOMEM. */
static int
mode_option(struct plan *cfg, const char *mode, const char *key,
    uint64_t value)
{
	struct plan_mode_option *tmp, *o;

	tmp = realloc(cfg->mode_options, (cfg->nr_mode_options + 1) *
	    sizeof(*tmp));
	if (tmp == NULL)
		return -ENOMEM;
	cfg->mode_options = tmp;
	o = &tmp[cfg->nr_mode_options];
	o->mode = strdup(mode);
	o->key = strdup(key);
	o->value = value;
	cfg->nr_mode_options++;		/* freed by plan_free either way */
	return o->mode && o->key ? 0 : -ENOMEM;
}

/* Option o's value in scalar v, written as key: a whole number in its
 * range.  0 or -EINVAL. */
static int
option_value(struct parse *p, yaml_node_t *v, const char *key,
    const struct plan_kind_option *o, uint64_t *out)
{
	unsigned long long x;
	char *end;
	int r;

	if ((r = expect(p, v, YAML_SCALAR_NODE, key)) < 0)
		return r;
	errno = 0;
	x = strtoull(scalar(v), &end, 10);
	if (errno || *end || end == scalar(v) || x < o->min || x > o->max ||
	    scalar(v)[0] == '-')
		return perr(p, v, "%s must be a whole number from %llu to "
		    "%llu, not \"%s\"", key, (unsigned long long)o->min,
		    (unsigned long long)o->max, scalar(v));
	*out = x;
	return 0;
}

/* Kind k's options: under modes.<kind> (km, NULL: none), or at the top
 * level by an older name; the default where neither says. */
static int
kind_options(struct parse *p, yaml_node_t *root, yaml_node_t *km,
    const struct plan_kind *k)
{
	const struct plan_kind_option *o;
	yaml_node_t *v, *old;
	uint64_t value;
	size_t i;
	int r;

	for (i = 0; i < k->nr_options; i++) {
		o = &k->options[i];
		v = km ? lookup(p, km, o->key) : NULL;
		old = o->old_key ? lookup(p, root, o->old_key) : NULL;
		if (v && old)
			return perr(p, old, "%s is modes.%s.%s's older name: "
			    "give one of them", o->old_key, k->name, o->key);
		value = o->dflt;
		if ((v || old) && (r = option_value(p, v ? v : old, v ?
		    o->key : o->old_key, o, &value)) < 0)
			return r;
		if ((r = mode_option(p->cfg, k->name, o->key, value)) < 0)
			return r;
	}
	return 0;
}

/*
 * modes: per mode of this build, its options (plan_kind.options), as
 * {bpf: {max_cgroups: 2048}}.  A mode the build lacks is an error that
 * names those it has.
 */
static int
root_modes(struct parse *p, yaml_node_t *root)
{
	yaml_node_t *m = lookup(p, root, "modes"), *km;
	const struct plan_kind *k;
	const char *keys[16];
	yaml_node_pair_t *a;
	char modes[128], where[80];
	size_t i, j;
	int r;

	if (m && (r = expect(p, m, YAML_MAPPING_NODE, "modes")) < 0)
		return r;
	for (a = m ? m->data.mapping.pairs.start : NULL; m &&
	    a < m->data.mapping.pairs.top; a++) {
		yaml_node_t *key = yaml_document_get_node(p->y.doc, a->key);

		if (key->type == YAML_SCALAR_NODE &&
		    plan_kind_named(scalar(key)) == NULL)
			return perr(p, key, "modes: no mode \"%s\" in this "
			    "build, which has %s", scalar(key),
			    kind_list(modes, sizeof(modes), 0));
	}
	for (i = 0; (k = plan_kind_at(i)) != NULL; i++) {
		km = m ? lookup(p, m, k->name) : NULL;
		if (km) {
			snprintf(where, sizeof(where), "modes.%s", k->name);
			if ((r = expect(p, km, YAML_MAPPING_NODE, where)) < 0)
				return r;
			for (j = 0; j < k->nr_options && j < 15; j++)
				keys[j] = k->options[j].key;
			keys[j] = NULL;
			if ((r = yamldoc_check_keys(&p->y, km, keys,
			    where)) < 0)
				return r;
		}
		if ((r = kind_options(p, root, km, k)) < 0)
			return r;
	}
	return 0;
}

/* max_fds and delegated_max_cgroups. */
static int
root_limits(struct parse *p, yaml_node_t *root)
{
	struct plan *cfg = p->cfg;
	yaml_node_t *n;
	int r;

	if ((n = lookup(p, root, "max_fds")) != NULL) {
		char *end;
		unsigned long long v;

		if ((r = expect(p, n, YAML_SCALAR_NODE, "max_fds")) < 0)
			return r;
		errno = 0;
		v = strtoull(scalar(n), &end, 10);
		if (errno || *end || end == scalar(n) || v < 1 ||
		    scalar(n)[0] == '-')
			return perr(p, n, "max_fds must be a positive whole "
			    "number, not \"%s\"", scalar(n));
		cfg->max_fds = v;
	}
	cfg->delegated_max = PLAN_DEFAULT_DELEGATED_MAX;
	if ((n = lookup(p, root, "delegated_max_cgroups")) != NULL) {
		long v;

		if ((r = whole_number(p, n, "delegated_max_cgroups", 0,
		    1000000, &v)) < 0)
			return r;
		cfg->delegated_max = (size_t)v;
	}
	return 0;
}

/* The groups, in order. */
static int
root_groups(struct parse *p, yaml_node_t *root)
{
	yaml_node_t *n, *item;
	yaml_node_item_t *it;
	size_t nr;
	int r;

	if ((n = lookup(p, root, "groups")) == NULL)
		return perr(p, root, "the config defines no \"groups\"");
	if ((r = expect(p, n, YAML_SEQUENCE_NODE, "groups")) < 0)
		return r;
	nr = yamldoc_len(n);
	if (nr == 0)
		return perr(p, n, "groups is empty");
	YAMLDOC_EACH(&p->y, n, it, item) {
		/* A half-built group stays reachable for plan_free. */
		if ((r = parse_group(p, item)) < 0)
			return r;
	}
	return 0;
}

/* The targets: the cpus entries, then the cgroups entries. */
static int
root_targets(struct parse *p, yaml_node_t *root)
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

static int
parse_root(struct parse *p, yaml_node_t *root)
{
	static const char *const keys[] = {
		"interval", "groups", "cpus", "cgroups",
		"cgroup_rescan_interval", "max_fds", "delegated_max_cgroups",
		"modes", "interference", NULL
	};
	struct plan *cfg = p->cfg;
	yaml_node_t *n;
	int r;

	if ((r = expect(p, root, YAML_MAPPING_NODE, "the config")) < 0)
		return r;
	if ((r = check_keys_kinds(p, root, keys, 0, "the config")) < 0)
		return r;
	cfg->interval_ns = 1000000000ULL;
	cfg->rescan_ns = 60000000000ULL;
	if ((n = lookup(p, root, "interval")) != NULL &&
	    (r = duration_key(p, n, "interval", &cfg->interval_ns,
	    10000000ULL)) < 0)
		return r;
	if ((n = lookup(p, root, "cgroup_rescan_interval")) != NULL &&
	    (r = duration_key(p, n, "cgroup_rescan_interval", &cfg->rescan_ns,
	    100000000ULL)) < 0)
		return r;
	if ((r = root_limits(p, root)) < 0 ||
	    (r = root_modes(p, root)) < 0 ||
	    (r = root_groups(p, root)) < 0)
		return r;
	return root_targets(p, root);
}

/* The document's root: a config.  An empty one is an error of its own. */
static int
parse_doc(void *arg, yaml_node_t *root)
{
	struct parse *p = arg;

	if (root == NULL) {
		/* Distinct, so a file of comments can mean "the default". */
		snprintf(p->y.err, p->y.errlen, "%s:1:1: the config is empty",
		    p->y.source);
		return -ENODATA;
	}
	return parse_root(p, root);
}

int
config_parse(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out, char *err,
    size_t errlen)
{
	return config_parse_all(events, source, text, len, out, NULL, err,
	    errlen);
}

int
config_parse_all(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out,
    struct interference_config *ifr, char *err, size_t errlen)
{
	yaml_document_t doc;
	struct parse p = { .y = { source, &doc, err, errlen },
	    .events = events };
	size_t i;
	int r;

	if ((p.cfg = calloc(1, sizeof(*p.cfg))) == NULL)
		return -ENOMEM;
	if ((p.cfg->source = strdup(source)) == NULL) {
		free(p.cfg);
		return -ENOMEM;
	}
	r = yamldoc_parse(&p.y, text, len, parse_doc, &p);
	nameidx_free(&p.group_idx);
	for (i = 0; i < PLAN_KINDS_MAX; i++)
		free(p.in_kind[i]);
	if (r < 0) {
		interference_config_fini(&p.ifr);
		plan_free(p.cfg);
		return r;
	}
	if (ifr)
		*ifr = p.ifr;
	else
		interference_config_fini(&p.ifr);
	*out = p.cfg;
	return 0;
}

int
config_load(const struct event_ctx *events, const char *path,
    struct plan **out, char *err, size_t errlen)
{
	return config_load_all(events, path, out, NULL, err, errlen);
}

int
config_load_all(const struct event_ctx *events, const char *path,
    struct plan **out, struct interference_config *ifr, char *err,
    size_t errlen)
{
	char *buf;
	size_t len;
	int r;

	if ((r = yamldoc_read_file(path, YAMLDOC_MAX_CONFIG, &buf, &len, err,
	    errlen)) < 0)
		return r;
	r = config_parse_all(events, path, buf, len, out, ifr, err, errlen);
	free(buf);
	return r;
}

