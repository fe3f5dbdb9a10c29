/*
 * expo_buf.h - the exposition's writer: one growing buffer, so no label
 * is ever truncated (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_EXPO_BUF_H
#define PMU_EXPO_BUF_H

#include <stddef.h>

struct expo_buf {
	char *p;
	size_t len, cap;
	int oom;
	int om;			/* OpenMetrics: counter families drop _total */
};

/* Room for n more bytes (b->oom set when there is none), and n bytes
 * appended. */
void expo_reserve(struct expo_buf *b, size_t n);
void expo_put(struct expo_buf *b, const char *s, size_t n);
void expo_puts(struct expo_buf *b, const char *s);
/* A label value, escaped per the text format: \\, \" and \n; made
 * valid UTF-8 one-to-one (each invalid byte U+FFFD and its two hex
 * digits, a U+FFFD doubled), so distinct values stay distinct. */
void expo_put_label_value(struct expo_buf *b, const char *s);
/* A sample value: shortest round-trip form, NaN, +Inf, -Inf. */
void expo_put_double(struct expo_buf *b, double v);
/* Format a double as expo_put_double does; returns buf. */
char *expo_format_double(double v, char *buf, size_t len);

/* Append a family's HELP and TYPE lines (counters lose _total in OM). */
void expo_family(struct expo_buf *b, const char *name, const char *type,
    const char *help);

#endif
