/*
 * textfmt.h - a reader of the Prometheus text format (0.0.4), the one the
 * daemon serves, for pmu_exporter top.
 * Hand-written: the daemon has no reader of its own text to reuse.
 * Design: docs/top.md, "How it is built".
 */
#ifndef PMU_TOP_TEXTFMT_H
#define PMU_TOP_TEXTFMT_H

#include <stddef.h>

#define TEXTFMT_MAX_LABELS 64

struct textfmt_label {
	const char *name;
	const char *value;	/* unescaped: \\, \" and \n */
};

struct textfmt_sample {
	const char *name;
	const struct textfmt_label *labels;
	size_t nr_labels;
	double value;
};

/* The value of label NAME of s, or NULL. */
const char *textfmt_label(const struct textfmt_sample *s, const char *name);

/*
 * Read text (len bytes, text[len] must be writable: it becomes a NUL)
 * in place, calling fn for each sample in order; fn returns 0 to go on
 * or a negative errno to stop with it.  Returns 0, fn's error, or
 * -EINVAL with "line N: what" in err for a line that is not the format.
 */
int textfmt_parse(char *text, size_t len,
    int (*fn)(const struct textfmt_sample *s, void *ctx), void *ctx,
    char *err, size_t errlen);

#endif
