/*
 * config_budget.c - what a config may cost before any of it is built: its
 * relabel regexes weighed from the text, refused at the rule that goes over,
 * before a single regcomp.
 * Limits: docs/configuration.md, "Start, reload, stop"; the cost model and its
 * measurements: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_budget.h"
#include "config/yamldoc_short.h"

#define CONFIG_RULE_BYTES 4096u
#define CONFIG_ATOM_BYTES 256u
#define CONFIG_EMPTY_BYTES 256u
#define CONFIG_ANCHOR_BYTES 64u
/* Nesting of parentheses the weight follows; deeper is refused. */
#define WEIGH_DEPTH 32

struct budget {
	struct yamldoc y;
	uint64_t bytes;
	size_t entries;
};

/* a + b, at most CONFIG_MAX_BYTES + 1 (beyond it is all the same). */
static uint64_t
capped_add(uint64_t a, uint64_t b)
{
	uint64_t cap = CONFIG_MAX_BYTES + 1;

	return a >= cap || b >= cap || a + b > cap ? cap : a + b;
}

/* a * b, at most CONFIG_MAX_BYTES + 1 (beyond it is all the same). */
static uint64_t
capped_mul(uint64_t a, uint64_t b)
{
	uint64_t cap = CONFIG_MAX_BYTES + 1;

	return b && a > cap / b ? cap : a * b > cap ? cap : a * b;
}

/* Past a bracket expression starting at s ('['), or at its NUL. */
static const char *
skip_bracket(const char *s)
{
	s++;
	if (*s == '^')
		s++;
	if (*s == ']')
		s++;
	for (; *s && *s != ']'; s++)
		if (s[0] == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
			const char *e = strchr(s + 2, s[1]);

			if (e && e[1] == ']')
				s = e + 1;
		}
	return s;
}

/* What a regex, or a part of one, compiles to: its nodes, those of them
 * that match the empty string, and those of these that are anchors. */
struct weight {
	uint64_t atoms, empties, anchors;
};

static struct weight
weight_add(struct weight a, struct weight b)
{
	a.atoms = capped_add(a.atoms, b.atoms);
	a.empties = capped_add(a.empties, b.empties);
	a.anchors = capped_add(a.anchors, b.anchors);
	return a;
}

static struct weight
weight_mul(struct weight a, uint64_t m)
{
	a.atoms = capped_mul(a.atoms, m);
	a.empties = capped_mul(a.empties, m);
	a.anchors = capped_mul(a.anchors, m);
	return a;
}

/* At s, after '{': whether it is a bound, and its n and m (m >= n); the
 * end of it in *end ('}' or where it stops). */
static int
read_bound(const char *s, uint64_t *n, uint64_t *m, const char **end)
{
	char *e;

	if (!((s[1] >= '0' && s[1] <= '9') ||
	    (s[1] == ',' && s[2] >= '0' && s[2] <= '9')))
		return 0;
	/* glibc reads "{,m}" as "{0,m}". */
	*n = s[1] == ',' ? 0 : strtoull(s + 1, &e, 10);
	if (s[1] == ',')
		e = (char *)s + 1;
	*m = *e == ',' && e[1] != '}' ? strtoull(e + 1, &e, 10) : *n;
	if (*e == ',')
		e++;
	*m = *m > *n ? *m : *n;
	*end = *e == '}' ? e : e - 1;
	return 1;
}

/*
 * What an extended regex compiles to (struct weight), repetitions
 * multiplied out.  glibc copies a repeated part once per repetition, and
 * every node counts: an anchor (^, $, \b, \B, \<, \>, \`, \'), a group, an
 * alternative, a '*' or '?' and each optional copy of {n,m} (m - n of
 * them) are nodes as much as a character is, and each of these matches
 * the empty string besides.  Each frame sums its items; `last` is what a
 * following {n,m} repeats.
 */
static struct weight
regex_weigh(const char *re)
{
	static const struct weight node = { 1, 0, 0 }, empty = { 1, 1, 0 },
	    anchor = { 1, 1, 1 }, refused = { CONFIG_MAX_BYTES,
	    CONFIG_MAX_BYTES, CONFIG_MAX_BYTES };
	struct weight f[WEIGH_DEPTH + 1], last = { 0, 0, 0 }, g;
	const char *open[WEIGH_DEPTH + 1] = { NULL }, *s, *end;
	uint64_t n, m;
	int depth = 0;

	f[0] = last;
	for (s = re; *s; s++) {
		if (*s == '(') {
			if (depth == WEIGH_DEPTH)
				return refused;
			open[++depth] = s;
			f[depth] = last = (struct weight){ 0, 0, 0 };
		} else if (*s == ')' && depth > 0) {
			/* The group's own node; "()" matches the empty string. */
			g = weight_add(f[depth], s == open[depth] + 1 ? empty :
			    node);
			depth--;
			f[depth] = weight_add(f[depth], g);
			last = g;
		} else if (*s == '{' && read_bound(s, &n, &m, &end)) {
			s = end;
			if (m == 0)
				continue;
			/* m copies of the last item, m - n of them optional:
			 * the last is in f once already. */
			g = weight_add(weight_mul(last, m - 1),
			    weight_mul(empty, m - n));
			f[depth] = weight_add(f[depth], g);
			last = weight_add(last, g);
		} else if (*s == '*' || *s == '?' || *s == '+') {
			/* A node around the last item, which '*' and '?' make
			 * one that can be skipped. */
			g = *s == '+' ? node : empty;
			f[depth] = weight_add(f[depth], g);
			last = weight_add(last, g);
		} else if (*s == '|') {
			f[depth] = weight_add(f[depth], last = empty);
		} else if (*s == '^' || *s == '$' || (*s == '\\' && s[1] &&
		    strchr("bB<>`'", s[1]))) {
			s += *s == '\\';
			f[depth] = weight_add(f[depth], last = anchor);
		} else {
			if (*s == '[')
				s = skip_bracket(s);
			else if (*s == '\\' && s[1])
				s++;
			f[depth] = weight_add(f[depth], last = node);
			if (*s == '\0')
				break;
		}
	}
	for (; depth > 0; depth--)	/* a '(' never closed */
		f[depth - 1] = weight_add(f[depth - 1], f[depth]);
	return f[0];
}

uint64_t
config_regex_weight(const char *re, uint64_t *empties, uint64_t *anchors)
{
	struct weight w = regex_weigh(re);

	*empties = w.empties;
	*anchors = w.anchors;
	return w.atoms;
}

/*
 * As compiled, "^(re)$" (config_target.c): two anchors, a group.  The
 * empties cost glibc their square (epsilon closures), and more with
 * anchors among them: each anchor another CONFIG_ANCHOR_BYTES * e^2.
 */
uint64_t
config_regex_bytes(const char *re)
{
	static const struct weight wrap = { 3, 2, 2 };
	struct weight w = weight_add(regex_weigh(re), wrap);
	uint64_t e2 = capped_mul(w.empties, w.empties);

	return capped_add(capped_add(CONFIG_RULE_BYTES,
	    capped_mul(CONFIG_ATOM_BYTES, w.atoms)),
	    capped_mul(capped_add(CONFIG_EMPTY_BYTES,
	    capped_mul(CONFIG_ANCHOR_BYTES, w.anchors)), e2));
}

/*
 * One rule of entry: its cost added; past the budget, refused at the rule,
 * or at the entry when it reached the rule through an alias (the rule's
 * own place is then another entry's).
 */
static int
budget_rule(struct budget *b, yaml_node_t *entry, yaml_node_t *rule)
{
	yaml_node_t *re;

	if (rule->type != YAML_MAPPING_NODE ||
	    (re = lookup(b, rule, "regex")) == NULL ||
	    re->type != YAML_SCALAR_NODE)
		return 0;	/* the parse says what is wrong with it */
	b->bytes += config_regex_bytes(scalar(re));
	if (b->bytes > CONFIG_MAX_BYTES)
		return perr(b, rule->start_mark.index <
		    entry->start_mark.index ? entry : rule, "the relabel rules up to here would take "
		    "more than the %u MiB a config may (each rule about %u "
		    "KiB, more for a regex with repetitions or parts that "
		    "match the empty string; an alias counts "
		    "as the rules it repeats)", CONFIG_MAX_BYTES >> 20,
		    CONFIG_RULE_BYTES >> 10);
	return 0;
}

int
config_budget(const struct yamldoc *d, yaml_node_t *entries)
{
	struct budget b = { *d, 0, 0 };
	yaml_node_item_t *it, *rit;
	yaml_node_t *entry, *rl, *rule;
	int r;

	if (entries == NULL || entries->type != YAML_SEQUENCE_NODE)
		return 0;
	YAMLDOC_EACH(d, entries, it, entry) {
		if (++b.entries > CONFIG_MAX_ENTRIES)
			return perr(&b, entry, "more than %u cgroups entries",
			    CONFIG_MAX_ENTRIES);
		if (entry->type != YAML_MAPPING_NODE ||
		    (rl = lookup(&b, entry, "relabel")) == NULL ||
		    rl->type != YAML_SEQUENCE_NODE)
			continue;
		YAMLDOC_EACH(d, rl, rit, rule)
			if ((r = budget_rule(&b, entry, rule)) < 0)
				return r;
	}
	return 0;
}
