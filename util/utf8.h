/*
 * utf8.h - valid UTF-8 out of any bytes, for what the exporter writes that
 * others parse: label values and log fields.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_UTF8_H
#define PMU_UTF8_H

#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER, as UTF-8. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"
#define UTF8_REPLACEMENT_LEN 3

/*
 * The character at s (NUL-terminated, *s != '\0'): how many bytes it
 * spans, 1 to 4, and *valid 1; or, when it is not valid UTF-8, how many
 * bytes make its maximal invalid subpart (1 to 3), to be replaced by one
 * U+FFFD, and *valid 0.  Never reads past the terminating NUL.
 */
size_t utf8_char(const char *s, int *valid);

/*
 * Copy src into dst (cap bytes, cap > 0, always NUL-terminated) with
 * each invalid subpart replaced by U+FFFD, cut at the last whole
 * character that fits.  The length written.
 */
size_t utf8_copy(char *dst, size_t cap, const char *src);

/* The longest prefix of s, at most max bytes, that ends at a character
 * boundary (a cut there splits no character; invalid bytes count as
 * characters of their own). */
size_t utf8_prefix(const char *s, size_t max);

/* The length of s without a character that a cut before its end left
 * unfinished (what snprintf leaves when it truncates): the cut then falls
 * before that character, not inside it. */
size_t utf8_whole(const char *s);

#endif
