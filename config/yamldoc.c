/*
 * yamldoc.c - shared YAML checks with positions (see yamldoc.h).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdint.h>

#include "config/yamldoc.h"
#include "util/text.h"

/*
 * libyaml's scanner does work proportional to the nesting depth for
 * every token (one pending simple key per flow level), so a document
 * that is nothing but nesting costs quadratic time: 200 KB of '[' took
 * 18 s of CPU.  A first pass over the parser's events stops at the first
 * node deeper than YAMLDOC_MAX_DEPTH, long before that cost builds up.
 */
static int
check_depth(const char *source, const char *text, size_t len, char *err,
    size_t errlen)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, r = 0;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", source);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	    len);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev))
			break;		/* yaml_parser_load reports it */
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > YAMLDOC_MAX_DEPTH) {
				snprintf(err, errlen, "%s:%lu:%lu: nested more "
				    "than %d levels deep", source,
				    (unsigned long)ev.start_mark.line + 1,
				    (unsigned long)ev.start_mark.column + 1,
				    YAMLDOC_MAX_DEPTH);
				r = -EINVAL;
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT ||
		    ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (r < 0 || ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return r;
}

int
yamldoc_load(const char *source, const char *text, size_t len,
    yaml_document_t *doc, char *err, size_t errlen)
{
	yaml_parser_t parser;
	int r;

	if ((r = check_depth(source, text, len, err, errlen)) < 0)
		return r;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", source);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	    len);
	if (!yaml_parser_load(&parser, doc)) {
		snprintf(err, errlen, "%s:%lu:%lu: %s%s%s", source,
		    (unsigned long)parser.problem_mark.line + 1,
		    (unsigned long)parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "invalid YAML",
		    parser.context ? " " : "",
		    parser.context ? parser.context : "");
		r = -EINVAL;
	}
	yaml_parser_delete(&parser);
	return r;
}

int
yamldoc_parse(const struct yamldoc *d, const char *text, size_t len,
    int (*parse)(void *arg, yaml_node_t *root), void *arg)
{
	int r;

	if ((r = yamldoc_load(d->source, text, len, d->doc, d->err,
	    d->errlen)) < 0)
		return r;
	r = parse(arg, yaml_document_get_root_node(d->doc));
	if (r == -ENOMEM)
		snprintf(d->err, d->errlen, "%s: out of memory", d->source);
	yaml_document_delete(d->doc);
	return r;
}

int
yamldoc_read_file(const char *path, size_t max, char **buf, size_t *len,
    char *err, size_t errlen)
{
	char *p = NULL, *tmp;
	size_t n, used = 0, cap = 0;
	struct stat st;
	FILE *f;
	int r = 0;

	if ((f = fopen(path, "re")) == NULL) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fileno(f), &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory, not a YAML file",
		    path);
		r = -EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a %s)", path,
		    S_ISFIFO(st.st_mode) ? "FIFO" : S_ISCHR(st.st_mode) ?
		    "character device" : S_ISBLK(st.st_mode) ?
		    "block device" : S_ISSOCK(st.st_mode) ? "socket" :
		    "special file");
		r = -EINVAL;
	} else if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: %llu bytes, more than the %zu "
		    "bytes a YAML file here may have", path,
		    (unsigned long long)st.st_size, max);
		r = -EFBIG;
	}
	for (; r == 0;) {
		if (cap - used < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > max + 8192 ||
			    (tmp = realloc(p, cap + 1)) == NULL) {
				snprintf(err, errlen, "%s: more than the %zu "
				    "bytes a YAML file here may have", path,
				    max);
				r = -EFBIG;
				break;
			}
			p = tmp;
		}
		if ((n = fread(p + used, 1, cap - used, f)) == 0)
			break;
		used += n;
	}
	if (r == 0 && used > max) {
		snprintf(err, errlen, "%s: more than the %zu bytes a YAML file "
		    "here may have", path, max);
		r = -EFBIG;
	}
	if (r == 0 && ferror(f)) {
		r = -EIO;
		snprintf(err, errlen, "%s: read error: %s", path,
		    strerror(errno ? errno : EIO));
	}
	fclose(f);
	if (r < 0) {
		free(p);
		return r;
	}
	p[used] = '\0';
	*buf = p;
	*len = used;
	return 0;
}

int
yamldoc_err(const struct yamldoc *d, const yaml_node_t *n, const char *fmt,
    ...)
{
	va_list ap;
	int off;

	off = snprintf(d->err, d->errlen, "%s:%lu:%lu: ", d->source,
	    n ? (unsigned long)n->start_mark.line + 1 : 0UL,
	    n ? (unsigned long)n->start_mark.column + 1 : 0UL);
	if (off < 0 || (size_t)off >= d->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(d->err + off, d->errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *
yamldoc_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

int
yamldoc_expect(const struct yamldoc *d, const yaml_node_t *n,
    yaml_node_type_t t, const char *what)
{
	static const char *const names[] = {
		[YAML_NO_NODE] = "nothing",
		[YAML_SCALAR_NODE] = "a scalar",
		[YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping",
	};

	if (n->type == t)
		return 0;
	return yamldoc_err(d, n, "%s must be %s, not %s", what, names[t],
	    names[n->type]);
}

int
yamldoc_check_keys(const struct yamldoc *d, yaml_node_t *map,
    const char *const *allowed, const char *where)
{
	yaml_node_pair_t *a, *b;
	const char *const *k;
	const char *best;
	size_t dist, bestd;

	for (a = map->data.mapping.pairs.start;
	    a < map->data.mapping.pairs.top; a++) {
		yaml_node_t *key = yaml_document_get_node(d->doc, a->key);

		if (key->type != YAML_SCALAR_NODE)
			return yamldoc_err(d, key, "keys must be scalars");
		for (b = map->data.mapping.pairs.start; b < a; b++) {
			yaml_node_t *prev = yaml_document_get_node(d->doc,
			    b->key);

			if (prev->type == YAML_SCALAR_NODE &&
			    strcmp(yamldoc_scalar(prev),
			    yamldoc_scalar(key)) == 0)
				return yamldoc_err(d, key, "duplicate key "
				    "\"%s\"", yamldoc_scalar(key));
		}
		if (allowed == NULL)
			continue;
		best = NULL;
		bestd = (size_t)-1;
		for (k = allowed; *k; k++) {
			if (strcmp(*k, yamldoc_scalar(key)) == 0)
				break;
			dist = text_distance(*k, yamldoc_scalar(key));
			if (dist < bestd) {
				bestd = dist;
				best = *k;
			}
		}
		if (*k)
			continue;
		if (best && bestd <= 2)
			return yamldoc_err(d, key, "unknown key \"%s\" in %s "
			    "(did you mean \"%s\"?)", yamldoc_scalar(key),
			    where, best);
		return yamldoc_err(d, key, "unknown key \"%s\" in %s",
		    yamldoc_scalar(key), where);
	}
	return 0;
}

yaml_node_t *
yamldoc_get(const struct yamldoc *d, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	for (pair = map->data.mapping.pairs.start;
	    pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(d->doc, pair->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp(yamldoc_scalar(k), key) == 0)
			return yaml_document_get_node(d->doc, pair->value);
	}
	return NULL;
}
