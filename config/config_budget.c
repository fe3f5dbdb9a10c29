/*
 * config_budget.c - what a config may cost before any of it is built.
 *
 * Parsing a config compiles one regex per relabel rule, and a reload
 * builds the new config beside the running one, so a config's memory is
 * mostly its compiled regexes, and what they cost is known from the text
 * before a single regcomp: the rules are counted, and each regex weighed
 * by the atoms it expands to (glibc copies a repeated part once per
 * repetition, so "(x{64}){64}" compiles as 4,096 atoms).  This pass runs
 * first, over the document whose aliases yamldoc.c has already bounded,
 * and refuses at the rule that goes over the budget, so a config that
 * would take gigabytes (1,000 entries each aliasing 1,000 rules) is
 * refused in milliseconds with its line and column, and a reload keeps
 * the running config rather than being killed for its memory.
 *
 * The cost model, from glibc 2.36's regcomp measured with mallinfo2
 * (uordblks before and after): "x" 4 KB; "[0-9a-f]{64}" 22 KB;
 * "([0-9a-f]{64}){64}" 451 KB; the same {64} once more 8.8 MB.  So a rule
 * is counted as CONFIG_RULE_BYTES plus CONFIG_ATOM_BYTES per atom, at
 * least what each of those measured.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/yamldoc_short.h"

#define CONFIG_RULE_BYTES 4096u
#define CONFIG_ATOM_BYTES 256u
/* Nesting of parentheses the weight follows; deeper is refused. */
#define WEIGH_DEPTH 32

struct budget {
	struct yamldoc y;
	uint64_t bytes;
	size_t entries;
};

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

/*
 * The atoms an extended regex compiles to, repetitions multiplied out:
 * each frame sums its atoms; `last` is what a following {n,m} repeats.
 */
uint64_t
config_regex_weight(const char *re)
{
	uint64_t sum[WEIGH_DEPTH + 1] = { 0 }, last = 0, n, m;
	const char *s;
	char *end;
	int depth = 0;

	for (s = re; *s; s++) {
		if (*s == '(') {
			if (depth == WEIGH_DEPTH)
				return CONFIG_MAX_BYTES;	/* refused */
			sum[++depth] = 0;
			last = 0;
			continue;
		}
		if (*s == ')' && depth > 0) {
			last = sum[depth--];
			sum[depth] += last;
		} else if (*s == '{' && ((s[1] >= '0' && s[1] <= '9') ||
		    (s[1] == ',' && s[2] >= '0' && s[2] <= '9'))) {
			/* glibc reads "{,m}" as "{0,m}". */
			n = s[1] == ',' ? 0 : strtoull(s + 1, &end, 10);
			if (s[1] == ',')
				end = (char *)s + 1;
			m = *end == ',' && end[1] != '}' ?
			    strtoull(end + 1, &end, 10) : n;
			if (*end == ',')
				end++;
			m = m > n ? m : n;
			if (m > 1) {
				sum[depth] += capped_mul(last, m - 1);
				last = capped_mul(last, m);
			}
			s = *end == '}' ? end : end - 1;
		} else if (*s == '*' || *s == '+' || *s == '?' || *s == '|' ||
		    *s == '^' || *s == '$') {
			continue;
		} else {
			if (*s == '[')
				s = skip_bracket(s);
			else if (*s == '\\' && s[1])
				s++;
			last = 1;
			sum[depth]++;
			if (*s == '\0')
				break;
		}
	}
	for (; depth > 0; depth--)
		sum[depth - 1] += sum[depth];	/* a '(' never closed */
	return sum[0];
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
	b->bytes += CONFIG_RULE_BYTES + capped_mul(CONFIG_ATOM_BYTES,
	    config_regex_weight(scalar(re)));
	if (b->bytes > CONFIG_MAX_BYTES)
		return perr(b, rule->start_mark.index <
		    entry->start_mark.index ? entry : rule, "the relabel rules up to here would take "
		    "more than the %u MiB a config may (each rule about %u "
		    "KiB, more for a regex with repetitions; an alias counts "
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
