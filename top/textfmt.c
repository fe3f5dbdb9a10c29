/*
 * textfmt.c - the text format read in place (textfmt.h).
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/textfmt.h"

const char *
textfmt_label(const struct textfmt_sample *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr_labels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return s->labels[i].value;
	return NULL;
}

static int
name_start(int c, int colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (colon && c == ':');
}

static int
name_char(int c, int colon)
{
	return name_start(c, colon) || (c >= '0' && c <= '9');
}

static char *
skip_blank(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A name at p (metric names may hold ':'); the first byte after it, or
 * NULL when there is none. */
static char *
scan_name(char *p, int colon)
{
	if (!name_start((unsigned char)*p, colon))
		return NULL;
	while (name_char((unsigned char)*p, colon))
		p++;
	return p;
}

/* A quoted value at p (on its opening quote), unescaped in place and
 * NUL-terminated; the byte after the closing quote, or NULL. */
static char *
scan_value(char *p)
{
	char *out = ++p;

	for (;;) {
		if (*p == '\0')
			return NULL;
		if (*p == '"')
			break;
		if (*p == '\\') {
			p++;
			if (*p == 'n')
				*out++ = '\n';
			else if (*p == '\\' || *p == '"')
				*out++ = *p;
			else
				return NULL;
			p++;
			continue;
		}
		*out++ = *p++;
	}
	*out = '\0';
	return p + 1;
}

/* The labels between braces, p just after '{'; the byte after '}', or
 * NULL with what is wrong in *why. */
static char *
scan_labels(char *p, struct textfmt_label *l, size_t *nr, const char **why)
{
	char *end;

	*nr = 0;
	for (;;) {
		p = skip_blank(p);
		if (*p == '}')
			return p + 1;
		if (*nr == TEXTFMT_MAX_LABELS)
			return *why = "too many labels", NULL;
		if (!(end = scan_name(p, 0)))
			return *why = "a label name expected", NULL;
		l[*nr].name = p;
		p = skip_blank(end);
		if (*p != '=')
			return *why = "'=' expected after a label name", NULL;
		*end = '\0';
		p = skip_blank(p + 1);
		if (*p != '"' || !(end = scan_value(p)))
			return *why = "a quoted label value expected", NULL;
		l[(*nr)++].value = p + 1;
		p = skip_blank(end);
		if (*p == ',')
			p++;
		else if (*p != '}')
			return *why = "',' or '}' expected", NULL;
	}
}

/* One line, NUL-terminated; 0 or -EINVAL with *why. */
static int
parse_line(char *line, int (*fn)(const struct textfmt_sample *, void *),
    void *ctx, const char **why)
{
	struct textfmt_label labels[TEXTFMT_MAX_LABELS];
	struct textfmt_sample s = { .labels = labels };
	char *p = skip_blank(line), *end, *num;

	if (*p == '\0' || *p == '#')
		return 0;
	if (!(end = scan_name(p, 1)))
		return *why = "a metric name expected", -EINVAL;
	s.name = p;
	p = end;
	if (*p == '{') {
		*p = '\0';
		if (!(p = scan_labels(p + 1, labels, &s.nr_labels, why)))
			return -EINVAL;
	}
	if (*p != ' ' && *p != '\t')
		return *why = "a blank expected before the value", -EINVAL;
	num = skip_blank(p);
	*end = '\0';
	s.value = strtod(num, &end);
	if (end == num || (*end != '\0' && *end != ' ' && *end != '\t'))
		return *why = "a number expected", -EINVAL;
	return fn(&s, ctx);
}

int
textfmt_parse(char *text, size_t len,
    int (*fn)(const struct textfmt_sample *s, void *ctx), void *ctx,
    char *err, size_t errlen)
{
	char *p = text, *nl, *end = text + len;
	const char *why = NULL;
	size_t lineno = 0;
	int r;

	text[len] = '\0';
	while (p < end) {
		lineno++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl)
			*nl = '\0';
		if (strlen(p) != (size_t)((nl ? nl : end) - p)) {
			why = "a NUL byte";
			r = -EINVAL;
		} else {
			r = parse_line(p, fn, ctx, &why);
		}
		if (r == -EINVAL && why) {
			snprintf(err, errlen, "line %zu: %s", lineno, why);
			return r;
		}
		if (r < 0)
			return r;
		p = nl ? nl + 1 : end;
	}
	return 0;
}
