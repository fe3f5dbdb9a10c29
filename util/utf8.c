/*
 * utf8.c - UTF-8 validation and repair (utf8.h): a table-free decoder after
 * RFC 3629's syntax.
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <string.h>

#include "util/utf8.h"

size_t
utf8_char(const char *s, int *valid)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	*valid = 1;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;		/* overlong below U+0800 */
		else if (p[0] == 0xed)
			hi = 0x9f;		/* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;		/* overlong below U+10000 */
		else if (p[0] == 0xf4)
			hi = 0x8f;		/* above U+10FFFF */
	} else {
		*valid = 0;			/* 80..C1, F5..FF */
		return 1;
	}
	/* A NUL is no continuation byte: the loop stops there. */
	for (i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi) {
			*valid = 0;
			return i;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

size_t
utf8_copy(char *dst, size_t cap, const char *src)
{
	size_t o = 0, n, w;
	int valid;

	while (*src) {
		n = utf8_char(src, &valid);
		w = valid ? n : UTF8_REPLACEMENT_LEN;
		if (o + w >= cap)
			break;
		memcpy(dst + o, valid ? src : UTF8_REPLACEMENT, w);
		o += w;
		src += n;
	}
	dst[o] = '\0';
	return o;
}

size_t
utf8_whole(const char *s)
{
	size_t o = 0, n;
	int valid;

	while (s[o]) {
		n = utf8_char(s + o, &valid);
		/* Invalid only for want of bytes: the string ends in it. */
		if (!valid && n > 1 && s[o + n] == '\0')
			break;
		if (!valid && n == 1 && (unsigned char)s[o] >= 0xc2 &&
		    (unsigned char)s[o] <= 0xf4 && s[o + 1] == '\0')
			break;
		o += n;
	}
	return o;
}

size_t
utf8_prefix(const char *s, size_t max)
{
	size_t o = 0, n;
	int valid;

	while (s[o]) {
		n = utf8_char(s + o, &valid);
		if (o + n > max)
			break;
		o += n;
	}
	return o;
}
