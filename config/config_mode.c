/*
 * config_mode.c - what a config may say of the source kinds, learnt from their
 * descriptions (struct plan_kind, plan.h), never from a list of its own:
 * modes:, mode:, fallback:, the older names a kind keeps.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_int.h"
#include "util/text.h"

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
int
config_check_keys(struct parse *p, yaml_node_t *n, const char *const *keys,
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
int
config_mode(struct parse *p, yaml_node_t *n, struct plan_target *t)
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
	if (!text_is_whole(scalar(v), 0) || errno || *end || x < o->min ||
	    x > o->max)
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
int
config_modes(struct parse *p, yaml_node_t *root)
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
