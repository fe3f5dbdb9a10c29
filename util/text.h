/*
 * text.h - small text helpers shared by config/, collectors/ and daemon/.
 */
#ifndef PMU_TEXT_H
#define PMU_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Edit distance between a and b, for "did you mean"; (size_t)-1 when
 * either is 63 characters or longer. */
size_t text_distance(const char *a, const char *b);

/* Parse a duration such as "1s", "500ms", "2m", "1h" into ns: digits
 * first, then a unit.  0 or -EINVAL. */
int text_parse_duration(const char *s, uint64_t *ns);

/* Read a small text file (sysfs, cgroupfs, tracefs) into buf, at most
 * len - 1 bytes, trailing whitespace cut.  0, -EINVAL for a file with a
 * NUL inside, or -errno. */
int text_read_small(const char *path, char *buf, size_t len);

#endif
