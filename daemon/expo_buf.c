/*
 * expo_buf.c - the exposition's writer (see expo.h): a growing buffer,
 * label values escaped and made valid UTF-8, doubles in the shortest form
 * that reads back the same, and a family's HELP and TYPE lines in either
 * format.  Every part of the body is written with these: expo.c's
 * families, expo_interference.c's and the scrape's tail.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/expo.h"
#include "util/utf8.h"

void
expo_reserve(struct expo_buf *b, size_t n)
{
	char *p;
	size_t cap;

	if (b->oom || b->cap - b->len >= n)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n)
		cap *= 2;
	if ((p = realloc(b->p, cap)) == NULL) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

void
expo_put(struct expo_buf *b, const char *s, size_t n)
{
	expo_reserve(b, n + 1);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void
expo_puts(struct expo_buf *b, const char *s)
{
	expo_put(b, s, strlen(s));
}

/*
 * Escaped as both formats require, and valid UTF-8 whatever s holds (a
 * cgroup's name, a runtime's file): one invalid byte would make
 * Prometheus refuse the whole scrape, so each invalid subpart becomes
 * U+FFFD (util/utf8.h).
 */
void
expo_put_label_value(struct expo_buf *b, const char *s)
{
	const char *run = s;
	size_t n;
	int valid;

	while (*s) {
		const char *esc;

		n = utf8_char(s, &valid);
		if (!valid) {
			expo_put(b, run, (size_t)(s - run));
			expo_put(b, UTF8_REPLACEMENT, UTF8_REPLACEMENT_LEN);
			s += n;
			run = s;
			continue;
		}
		switch (*s) {
		case '\\': esc = "\\\\"; break;
		case '"': esc = "\\\""; break;
		case '\n': esc = "\\n"; break;
		default: s += n; continue;
		}
		expo_put(b, run, (size_t)(s - run));
		expo_put(b, esc, 2);
		run = ++s;
	}
	expo_put(b, run, (size_t)(s - run));
}

char *
expo_format_double(double v, char *buf, size_t len)
{
	int prec;

	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		for (prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	return buf;
}

void
expo_put_double(struct expo_buf *b, double v)
{
	char num[40];

	expo_puts(b, expo_format_double(v, num, sizeof(num)));
}

void
expo_family(struct expo_buf *b, const char *name, const char *type,
    const char *help)
{
	size_t n = strlen(name);

	if (b->om && strcmp(type, "counter") == 0 && n > 6 &&
	    strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	expo_puts(b, "# HELP ");
	expo_put(b, name, n);
	expo_puts(b, " ");
	expo_puts(b, help);
	expo_puts(b, "\n# TYPE ");
	expo_put(b, name, n);
	expo_puts(b, " ");
	expo_puts(b, type);
	expo_puts(b, "\n");
}
