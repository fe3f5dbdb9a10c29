/*
 * kinds.h - the modes of the kinds table as config/ lists them in its
 * errors ("perf or bpf", "perf, bpf or null"), for tests that check those
 * errors without naming how many kinds the build has.
 */
#ifndef PMU_TESTS_KINDS_H
#define PMU_TESTS_KINDS_H

#include <stdio.h>

#include "collectors/collector/plan.h"

/* The kinds in the table now: the product's, then any a test added. */
static inline size_t
kinds_nr(void)
{
	size_t n = 0;

	while (plan_kind_at(n) != NULL)
		n++;
	return n;
}

/* pre, the modes' names in the table's order (only those that take
 * fallback:, with fallback_only), post: in buf. */
static inline const char *
kinds_said_which(char *buf, size_t len, const char *pre, const char *post,
    int fallback_only)
{
	size_t n = 0, i, k = 0;
	int o = snprintf(buf, len, "%s", pre);

	for (i = 0; i < kinds_nr(); i++)
		n += !fallback_only || plan_kind_at(i)->falls_back;
	for (i = 0; i < kinds_nr() && o >= 0 && (size_t)o < len; i++) {
		if (fallback_only && !plan_kind_at(i)->falls_back)
			continue;
		o += snprintf(buf + o, len - (size_t)o, "%s%s",
		    k == 0 ? "" : k + 1 == n ? " or " : ", ",
		    plan_kind_at(i)->name);
		k++;
	}
	if (o >= 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, "%s", post);
	return buf;
}

static inline const char *
kinds_said(char *buf, size_t len, const char *pre, const char *post)
{
	return kinds_said_which(buf, len, pre, post, 0);
}

#endif
