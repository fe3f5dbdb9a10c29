/*
 * expo_buf.c - the exposition's writer (see expo_buf.h), through which every
 * part of a response is written: the buffer, label values escaped and made
 * valid UTF-8, shortest-form doubles, HELP and TYPE.
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/expo/expo_buf.h"
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

/* What replaces s's n bytes: U+FFFD U+FFFD for a U+FFFD (valid), else
 * U+FFFD and two hex digits for each byte. */
static void
put_repaired(struct expo_buf *b, const char *s, size_t n, int valid)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (valid) {
		expo_put(b, UTF8_REPLACEMENT UTF8_REPLACEMENT,
		    2 * UTF8_REPLACEMENT_LEN);
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char x[2] = { hex[c >> 4], hex[c & 15] };

		expo_put(b, UTF8_REPLACEMENT, UTF8_REPLACEMENT_LEN);
		expo_put(b, x, 2);
	}
}

/*
 * Escaped as both formats require, and valid UTF-8 whatever s holds (a
 * cgroup's name, a runtime's file): one invalid byte would make
 * Prometheus refuse the whole scrape.  The repair is one-to-one, so two
 * names never become one series (cgroups "job\xfe" and "job\xff" were
 * both "job\uFFFD", and Prometheus kept one sample of the two): each
 * byte that is not part of a valid character becomes U+FFFD and the
 * byte's two lowercase hex digits ("job\uFFFDfe"), and a U+FFFD that
 * was in s becomes two (U+FFFD U+FFFD).  Read back, U+FFFD is always
 * followed by a second U+FFFD (a U+FFFD of the name) or by two hex digits
 * (a byte), so the original bytes are known (util/utf8.h).
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
		if (!valid || (n == UTF8_REPLACEMENT_LEN &&
		    memcmp(s, UTF8_REPLACEMENT, n) == 0)) {
			expo_put(b, run, (size_t)(s - run));
			put_repaired(b, s, n, valid);
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
