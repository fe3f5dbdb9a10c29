/*
 * text.h - small text helpers shared by config/, collectors/ and daemon/.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_TEXT_H
#define PMU_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Edit distance between a and b, for "did you mean"; (size_t)-1 when
 * either is 63 characters or longer. */
size_t text_distance(const char *a, const char *b);

/* Parse a duration such as "1s", "500ms", "1.5s", "2m", "1h" into ns:
 * decimal digits (a fraction allowed), then a unit, nothing else (no
 * space, sign, hex or exponent).  0 or -EINVAL. */
int text_parse_duration(const char *s, uint64_t *ns);

/*
 * The number formats the config and the flags accept, checked before
 * strtoull or strtod reads them, which would also take a leading space,
 * a sign, hex ("0x10") and, for strtod, "inf" and "nan":
 * text_is_whole: decimal digits only, "-" first allowed with sign (so a
 * range check, not a syntax error, says why -1 is refused);
 * text_is_decimal: an optional "-", digits with an optional fraction
 * (".5" and "5." too), an optional exponent ("1e-4").
 */
int text_is_whole(const char *s, int sign);
int text_is_decimal(const char *s);

/* Read a small text file (sysfs, cgroupfs, tracefs) into buf, at most
 * len - 1 bytes, trailing whitespace cut.  0, -EINVAL for a file with a
 * NUL inside, or -errno. */
int text_read_small(const char *path, char *buf, size_t len);

/*
 * Open path for reading, as fopen(path, "re") but only a regular file: a
 * link is not followed, and the open never waits (a FIFO planted at the
 * path, with or without a writer, is refused, not waited on or read:
 * what the exporter reads at start-up under a --path.* root cannot hold
 * it up).  NULL with errno set: ELOOP for a link, EINVAL for anything
 * but a regular file.
 */
FILE *text_open_regular(const char *path);

#endif
