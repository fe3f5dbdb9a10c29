/*
 * plan.c - applying a plan's relabel rules (regex, replacement, then the
 * rule's string replacements), looking up what a plan asks of a mode,
 * and freeing a plan (see plan.h).
 */
#include "autoconf.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/plan.h"
#include "util/utf8.h"

/* Replace every from in out (of size len) by to, left to right. */
static void
replace_all(char *out, size_t len, const char *from, const char *to)
{
	char tmp[4096];
	size_t fl = strlen(from), tl = strlen(to), o = 0;
	const char *s = out, *hit;

	if (fl == 0 || strstr(out, from) == NULL)
		return;		/* the common case: nothing to copy */
	while ((hit = strstr(s, from)) != NULL && o + 1 < sizeof(tmp)) {
		size_t n = (size_t)(hit - s);

		if (n > sizeof(tmp) - 1 - o)
			n = sizeof(tmp) - 1 - o;
		memcpy(tmp + o, s, n);
		o += n;
		n = tl < sizeof(tmp) - 1 - o ? tl : sizeof(tmp) - 1 - o;
		memcpy(tmp + o, to, n);
		o += n;
		s = hit + fl;
	}
	snprintf(tmp + o, sizeof(tmp) - o, "%s", s);
	o = utf8_prefix(tmp, len - 1);	/* cut between characters */
	memcpy(out, tmp, o);
	out[o] = '\0';
}

int
plan_relabel_apply(const struct plan_relabel *r, const char *path,
    char *out, size_t len)
{
	regmatch_t m[11];
	const char *s = r->replacement;
	size_t o = 0;
	int g;

	if (len == 0 || regexec(&r->re, path, 11, m, 0) != 0)
		return 0;
	while (*s && o + 1 < len) {
		g = -1;
		if (s[0] == '$' && isdigit((unsigned char)s[1])) {
			g = s[1] - '0';
			s += 2;
		} else if (s[0] == '$' && s[1] == '{' &&
		    isdigit((unsigned char)s[2]) && s[3] == '}') {
			g = s[2] - '0';
			s += 4;
		}
		if (g < 0) {
			out[o++] = *s++;
			continue;
		}
		/* Group 1 is our own anchoring group: user's $N is N+1. */
		if (g + 1 <= 10 && m[g + 1].rm_so >= 0) {
			size_t n = (size_t)(m[g + 1].rm_eo - m[g + 1].rm_so);

			if (n > len - 1 - o)	/* cut between characters */
				n = utf8_prefix(path + m[g + 1].rm_so,
				    len - 1 - o);
			memcpy(out + o, path + m[g + 1].rm_so, n);
			o += n;
		}
	}
	out[o] = '\0';
	for (g = 0; (size_t)g < r->nr_replace; g++)
		replace_all(out, len, r->replace_from[g], r->replace_to[g]);
	return 1;
}

uint64_t
plan_mode_option(const struct plan *plan, const char *mode, const char *key,
    uint64_t dflt)
{
	size_t i;

	for (i = 0; i < plan->nr_mode_options; i++)
		if (strcmp(plan->mode_options[i].mode, mode) == 0 &&
		    strcmp(plan->mode_options[i].key, key) == 0)
			return plan->mode_options[i].value;
	return dflt;
}

int
plan_target_mode_is(const struct plan_target *t, const char *mode)
{
	return t->kind == PLAN_TARGET_CGROUP && t->mode != NULL &&
	    strcmp(t->mode, mode) == 0;
}

void
plan_free(struct plan *cfg)
{
	size_t i, j, k;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nr_groups; i++) {
		struct plan_group *g = &cfg->groups[i];

		if (g->events)
			for (j = 0; j < g->nr_events; j++) {
				free(g->events[j].name);
				free(g->events[j].pmu);
			}
		free(g->events);
		free(g->name);
		free(g->pmu);
		cpumap_free(&g->cpus);
		free(g->definition);
		for (j = 0; j < g->nr_missing; j++)
			free(g->missing[j]);
		free(g->missing);
		free(g->why);
	}
	free(cfg->groups);
	for (i = 0; i < cfg->nr_targets; i++) {
		struct plan_target *t = &cfg->targets[i];

		cpumap_free(&t->cpus);
		free(t->path);
		free(t->groups);
		for (j = 0; j < t->nr_exclude; j++)
			free(t->exclude[j]);
		free(t->exclude);
		for (j = 0; j < t->nr_relabel; j++) {
			regfree(&t->relabel[j].re);
			free(t->relabel[j].target_label);
			free(t->relabel[j].replacement);
			for (k = 0; k < t->relabel[j].nr_replace; k++) {
				free(t->relabel[j].replace_from[k]);
				free(t->relabel[j].replace_to[k]);
			}
			free(t->relabel[j].replace_from);
			free(t->relabel[j].replace_to);
		}
		free(t->relabel);
		free(t->mode);
	}
	free(cfg->targets);
	for (i = 0; i < cfg->nr_mode_options; i++) {
		free(cfg->mode_options[i].mode);
		free(cfg->mode_options[i].key);
	}
	free(cfg->mode_options);
	for (i = 0; i < cfg->nr_layouts; i++)
		free(cfg->layouts[i]);
	free(cfg->layouts);
	free(cfg->source);
	free(cfg);
}

/* Same name and the very same events: a group a reload may keep. */
int
plan_group_same(const struct plan_group *a, const struct plan_group *b)
{
	size_t i;

	if (strcmp(a->name, b->name) != 0 || a->nr_events != b->nr_events)
		return 0;
	for (i = 0; i < a->nr_events; i++)
		if (strcmp(a->events[i].name, b->events[i].name) != 0 ||
		    memcmp(&a->events[i].perf.attr, &b->events[i].perf.attr,
		    sizeof(a->events[i].perf.attr)) != 0)
			return 0;
	return 1;
}
