/*
 * event_int.h - what the event parser's three files share (event.c,
 * event_names.c, event_terms.c): struct parse, its error and a new event's
 * defaults; nothing outside collectors/events/ includes it.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_INT_H
#define PMU_EVENT_INT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "collectors/events/event_types.h"

struct parse {
	const struct event_ctx *ctx;
	const char *s;			/* the whole event, for messages */
	char *err;
	size_t errlen;
};

static inline int __attribute__((format(printf, 2, 3)))
fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	int off;

	off = snprintf(p->err, p->errlen, "event \"%s\": ", p->s);
	if (off < 0 || (size_t)off >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + off, p->errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Column (1-based) of a pointer into the event string. */
static inline size_t
col(const struct parse *p, const char *at)
{
	return (size_t)(at - p->s) + 1;
}

static inline void
event_init(struct event *e, const char *pmu, const struct pmu *pp,
    enum event_kind kind)
{
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	e->p = pp;
	e->kind = kind;
	e->scale = 1.0;
}

/* ---- event_names.c: perf's own names ------------------------------- */

/* A generic hardware or software event, as perf names it. */
struct event_name {
	const char *name;
	unsigned type;
	unsigned long long config;
};

/* The generic event named s[0..n), or NULL. */
const struct event_name *event_generic_lookup(const char *s, size_t n);

/*
 * A hw-cache name, as perf's parse_events_add_cache reads it.  1 and the
 * config when s[0..n) is one; 0 when it is not; -EINVAL (message) when it
 * is one perf refuses (an operation that cache does not have).
 */
int event_hwcache_lookup(struct parse *p, const char *s, size_t n,
    unsigned long long *config);

/* rNNNN: 1 to 16 hex digits.  1 and the config, or 0. */
int event_raw_lookup(const char *s, size_t n, unsigned long long *config);

/* The modifiers m (NULL: none given) applied to a, with perf's rules.
 * 0 or -EINVAL (message). */
int event_apply_modifiers(struct parse *p, const char *m,
    struct perf_event_attr *a);

/* ---- event_terms.c: a sysfs PMU's syntax --------------------------- */

/* "pmu/term=value,alias,.../mods", slash at the first '/': 1 variant in
 * out, or -EINVAL (message). */
int event_pmu_syntax(struct parse *p, const char *slash, struct event *out,
    size_t max);

/* A sysfs alias written bare ("tsc"), mods after it or NULL: 1 when
 * exactly one PMU has it, 0 when none does, -EINVAL (message). */
int event_bare_alias(struct parse *p, const char *base, size_t n,
    const char *mods, struct event *out, size_t max);

#endif
