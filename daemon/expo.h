/*
 * expo.h - Prometheus text exposition (format 0.0.4) of a snapshot.
 *
 * Rendering writes into one growing buffer: no fixed-size line buffers, so
 * no label is ever truncated, and the result is handed to every scrape of
 * the snapshot as is.
 */
#ifndef PMU_EXPO_H
#define PMU_EXPO_H

#include <stddef.h>

#include "collectors/snapshot.h"

struct expo_buf {
	char *p;
	size_t len, cap;
	int oom;
};

void expo_puts(struct expo_buf *b, const char *s);
/* A label value, escaped per the text format: \\, \" and \n. */
void expo_put_label_value(struct expo_buf *b, const char *s);
/* A sample value: shortest round-trip form, NaN, +Inf, -Inf. */
void expo_put_double(struct expo_buf *b, double v);
/* Format a double as expo_put_double does; returns buf. */
char *expo_format_double(double v, char *buf, size_t len);

/*
 * Render s; returns a malloc'ed, NUL-terminated buffer and its length
 * (without the NUL), or NULL on ENOMEM.
 */
char *expo_render(const struct snapshot *s, size_t *len);

#endif
