/*
 * yamldoc.c - shared YAML checks with positions (yamldoc.h), bounded by the
 * size of the text, not by what the text can make a parser do.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#include "config/yamldoc.h"
#include "util/offthread.h"
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

/*
 * The expanded size of the document: libyaml keeps an alias as a second
 * reference to its anchor's node, so 1,000 aliases of a list of 1,000
 * rules are 1,000 references in memory but a million rules to whoever
 * walks them.  Each node is counted as 1 plus what its children expand
 * to, once per node (memo), depth first in document order: an alias can
 * only name an anchor defined before it, so its node is either counted
 * already or one the walk is inside of (a cycle, refused).  The first node
 * found to expand beyond YAMLDOC_MAX_NODES (the innermost such) is the
 * one reported.
 */
struct expand {
	yaml_document_t *doc;
	uint64_t *size;			/* per node id - 1; 0: not yet */
	unsigned char *busy;		/* being counted */
	yaml_node_t *over;		/* the node reported */
	int cycle;
};

static uint64_t
expand_node(struct expand *e, int id)
{
	yaml_node_t *n = yaml_document_get_node(e->doc, id);
	uint64_t total = 1;
	yaml_node_item_t *it;
	yaml_node_pair_t *pr;

	if (n == NULL || e->over)
		return 0;
	if (e->size[id - 1])
		return e->size[id - 1];
	if (e->busy[id - 1]) {
		e->over = n;
		e->cycle = 1;
		return 0;
	}
	e->busy[id - 1] = 1;
	if (n->type == YAML_SEQUENCE_NODE)
		for (it = n->data.sequence.items.start;
		    it < n->data.sequence.items.top && !e->over; it++)
			total += expand_node(e, *it);
	else if (n->type == YAML_MAPPING_NODE)
		for (pr = n->data.mapping.pairs.start;
		    pr < n->data.mapping.pairs.top && !e->over; pr++)
			total += expand_node(e, pr->key) +
			    expand_node(e, pr->value);
	e->busy[id - 1] = 0;
	if (total > YAMLDOC_MAX_NODES && e->over == NULL)
		e->over = n;
	e->size[id - 1] = total;
	return e->over ? 0 : total;
}

static int
check_expanded(const char *source, yaml_document_t *doc, char *err,
    size_t errlen)
{
	size_t nr = (size_t)(doc->nodes.top - doc->nodes.start);
	struct expand e = { doc, NULL, NULL, NULL, 0 };
	int r = 0;

	if (nr == 0)
		return 0;
	e.size = calloc(nr, sizeof(*e.size));
	e.busy = calloc(nr, 1);
	if (e.size == NULL || e.busy == NULL) {
		snprintf(err, errlen, "%s: out of memory", source);
		r = -ENOMEM;
	} else
		expand_node(&e, 1);
	if (e.over) {
		snprintf(err, errlen, e.cycle ? "%s:%lu:%lu: an alias here "
		    "refers to a node that contains it" : "%s:%lu:%lu: this "
		    "node expands to more than %u nodes (an alias counts as "
		    "what it repeats)", source,
		    (unsigned long)e.over->start_mark.line + 1,
		    (unsigned long)e.over->start_mark.column + 1,
		    YAMLDOC_MAX_NODES);
		r = e.cycle ? -ELOOP : -E2BIG;
	}
	free(e.size);
	free(e.busy);
	return r;
}

/*
 * Parse text into doc (the caller yaml_document_delete()s it on success).
 * A syntax error is reported as "source:line:col: problem context" in
 * err, and so is nesting deeper than YAMLDOC_MAX_DEPTH (-EINVAL), a
 * document that expands beyond YAMLDOC_MAX_NODES (-E2BIG, at the
 * innermost node that does) and an alias inside the node it names
 * (-ELOOP): all before any parser walks it.  0, or those, or -ENOMEM.
 */
static int
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
	if (r == 0 && (r = check_expanded(source, doc, err, errlen)) < 0)
		yaml_document_delete(doc);
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

static int
read_now(const char *path, size_t max, char **buf, size_t *len, char *err,
    size_t errlen)
{
	char *p = NULL, *tmp;
	size_t n, used = 0, cap = 0;
	struct stat st;
	FILE *f;
	int fd, r = 0;

	/*
	 * O_NONBLOCK: a FIFO (or a device) in the file's place must not
	 * block the open, which would hang the main thread and every signal
	 * it waits for; fstat then refuses it.  Symbolic links are followed:
	 * the path is the operator's own, and a Kubernetes ConfigMap or
	 * Secret mounts every file as a link into its ..data directory.
	 */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) < 0 || (f = fdopen(fd, "r")) == NULL) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (fstat(fd, &st) < 0) {
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

/* One read, as offthread_run runs it. */
struct read_job {
	char *path;
	size_t max, len;
	char *buf;
	char err[512];
};

static int
read_run(void *arg)
{
	struct read_job *j = arg;

	return read_now(j->path, j->max, &j->buf, &j->len, j->err,
	    sizeof(j->err));
}

static void
read_free(void *arg)
{
	struct read_job *j = arg;

	free(j->buf);
	free(j->path);
	free(j);
}

int
yamldoc_read_file(const char *path, size_t max, char **buf, size_t *len,
    char *err, size_t errlen)
{
	struct read_job *j = calloc(1, sizeof(*j));
	int r;

	if (j == NULL || (j->path = strdup(path)) == NULL) {
		free(j);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	j->max = max;
	r = offthread_run(read_run, j, read_free,
	    YAMLDOC_READ_TIMEOUT_S * 1000000000ULL);
	/* Given up, j is the read's now. */
	if (r == -EINTR) {
		snprintf(err, errlen, "%s: not read: a termination signal came "
		    "first (its file system is not answering)", path);
		return r;
	}
	if (r == -EBUSY && j->err[0] == '\0') {
		snprintf(err, errlen, "%s: not read: %d earlier reads still wait "
		    "on file systems that do not answer", path,
		    OFFTHREAD_STUCK_MAX);
		read_free(j);
		return r;
	}
	if (r == -ETIMEDOUT) {
		snprintf(err, errlen, "%s: no answer from its file system "
		    "within %d s (a hung mount?)", path,
		    YAMLDOC_READ_TIMEOUT_S);
		return r;
	}
	if (r < 0)
		snprintf(err, errlen, "%s", j->err);
	else {
		*buf = j->buf;
		*len = j->len;
		j->buf = NULL;
	}
	read_free(j);
	return r;
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

/* A mapping's scalar key and its place, for the duplicate search. */
struct keyat {
	const char *name;
	size_t at;
};

static int
keyat_cmp(const void *a, const void *b)
{
	const struct keyat *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

/*
 * The place of the first key (in document order) that repeats an earlier
 * one, or SIZE_MAX: the keys sorted by name and place, so equal names sit
 * side by side.  80,000 basic_auth_users compared each with every earlier
 * one took 32 s of CPU; sorted, milliseconds.  -ENOMEM, or 0.
 */
static int
first_duplicate(const struct yamldoc *d, yaml_node_t *map, size_t *dup)
{
	size_t nr = (size_t)(map->data.mapping.pairs.top -
	    map->data.mapping.pairs.start), n = 0, i;
	struct keyat *k;

	*dup = SIZE_MAX;
	if (nr < 2)
		return 0;
	if ((k = malloc(nr * sizeof(*k))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		yaml_node_t *key = yaml_document_get_node(d->doc,
		    map->data.mapping.pairs.start[i].key);

		if (key->type == YAML_SCALAR_NODE)
			k[n++] = (struct keyat){ yamldoc_scalar(key), i };
	}
	qsort(k, n, sizeof(*k), keyat_cmp);
	for (i = 1; i < n; i++)
		if (strcmp(k[i - 1].name, k[i].name) == 0 && k[i].at < *dup)
			*dup = k[i].at;
	free(k);
	return 0;
}

int
yamldoc_check_keys(const struct yamldoc *d, yaml_node_t *map,
    const char *const *allowed, const char *where)
{
	yaml_node_pair_t *a;
	const char *const *k;
	const char *best;
	size_t dist, bestd, dup;

	if (first_duplicate(d, map, &dup) < 0)
		return -ENOMEM;
	for (a = map->data.mapping.pairs.start;
	    a < map->data.mapping.pairs.top; a++) {
		yaml_node_t *key = yaml_document_get_node(d->doc, a->key);

		if (key->type != YAML_SCALAR_NODE)
			return yamldoc_err(d, key, "keys must be scalars");
		if ((size_t)(a - map->data.mapping.pairs.start) == dup)
			return yamldoc_err(d, key, "duplicate key \"%s\"",
			    yamldoc_scalar(key));
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
