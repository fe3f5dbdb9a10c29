/*
 * config_group.c - the groups: block (config_int.h): each group's events
 * resolved through the event parser, presets and hybrid groups expanded per
 * core PMU, the names put in the groups' index.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "collectors/events/event.h"
#include "collectors/events/topdown.h"
#include "config/config_int.h"
#include "util/text.h"

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
		ce->perf.attr = e->attr;
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
int
config_group_named(const struct plan_group *g, const char *name)
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
		ce->perf.attr = ev[0].attr;
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

/* The groups, in order. */
int
config_groups(struct parse *p, yaml_node_t *root)
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
