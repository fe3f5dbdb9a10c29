/*
 * yamldoc.h - what every YAML file of pmu_exporter is read with: errors at
 * file:line:column, type checks, keys checked with a "did you mean"; config.c
 * and daemon/http/webconfig.c both parse with these.
 * Design: docs/architecture.md, "config/".
 */
#ifndef PMU_YAMLDOC_H
#define PMU_YAMLDOC_H

#include <stddef.h>
#include <yaml.h>

/* Deeper YAML is refused before libyaml's scanner, which is quadratic in
 * the depth, spends seconds on it; no config needs more than a few. */
#define YAMLDOC_MAX_DEPTH 64
/* The most bytes a config file and a web config file may have: a config
 * with thousands of entries is a few hundred KB. */
#define YAMLDOC_MAX_CONFIG (4u << 20)
#define YAMLDOC_MAX_WEBCONFIG (1u << 20)
/*
 * The most nodes a document may expand to, an alias counted as the nodes
 * it repeats: as many as the densest config of YAMLDOC_MAX_CONFIG bytes
 * holds without aliases ("[a,a,...]", 2 bytes a node), so aliases can
 * shorten a document but not make it larger than its bytes allow.
 */
#define YAMLDOC_MAX_NODES (YAMLDOC_MAX_CONFIG / 2)

struct yamldoc {
	const char *source;		/* file name in messages */
	yaml_document_t *doc;
	char *err;			/* where a message goes */
	size_t errlen;
};

/*
 * A whole file's parse, written once for the config and the web config:
 * text loaded (yamldoc_load) into d->doc, then parse(arg, root), root
 * NULL for a document of comments only.  parse's -ENOMEM is reported as
 * "source: out of memory" in d->err; its other errors it reports itself.
 * The document is deleted before this returns.  yamldoc_load's error,
 * or parse's result.
 */
int yamldoc_parse(const struct yamldoc *d, const char *text, size_t len,
    int (*parse)(void *arg, yaml_node_t *root), void *arg);

/*
 * Read a whole regular file of at most max bytes into a malloc'ed buffer
 * (NUL terminated).  Opened without blocking (a FIFO in its place does
 * not hang the caller) and checked to be a regular file before anything
 * is read; a symbolic link is followed (a ConfigMap's files are links).
 * 0, or -errno with "path: reason" in err: a directory (-EISDIR) and a
 * FIFO or device (-EINVAL) are named as such, a larger file is -EFBIG.
 * The open and the reads run on a thread of their own (util/offthread.h):
 * a file on a hung mount is given up after YAMLDOC_READ_TIMEOUT_S
 * (-ETIMEDOUT), or at once when SIGTERM or SIGINT is pending (-EINTR).
 */
#define YAMLDOC_READ_TIMEOUT_S 10
int yamldoc_read_file(const char *path, size_t max, char **buf, size_t *len,
    char *err, size_t errlen);

/* Write "source:line:col: message" into d->err; returns -EINVAL. */
int yamldoc_err(const struct yamldoc *d, const yaml_node_t *n,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A scalar node's text. */
const char *yamldoc_scalar(const yaml_node_t *n);

/* 0 if n is of type t, else "what must be a list, not a scalar". */
int yamldoc_expect(const struct yamldoc *d, const yaml_node_t *n,
    yaml_node_type_t t, const char *what);

/*
 * Keys must be scalars, each once, and (unless allowed is NULL) one of
 * allowed; an unknown one is reported with the nearest allowed name.
 * The first problem in document order is reported (-EINVAL); -ENOMEM.
 */
int yamldoc_check_keys(const struct yamldoc *d, yaml_node_t *map,
    const char *const *allowed, const char *where);

/* The value of key in map, or NULL. */
yaml_node_t *yamldoc_get(const struct yamldoc *d, yaml_node_t *map,
    const char *key);

/* How many items the sequence node seq holds. */
static inline size_t
yamldoc_len(const yaml_node_t *seq)
{
	return (size_t)(seq->data.sequence.items.top -
	    seq->data.sequence.items.start);
}

/*
 * Each item of the sequence node seq in turn, as a node of d's document,
 * it the place in the sequence (yaml_node_item_t *, item
 * yaml_node_t *):  YAMLDOC_EACH(d, seq, it, item) { ... }
 */
#define YAMLDOC_EACH(d, seq, it, item)					\
	for ((it) = (seq)->data.sequence.items.start;			\
	    (it) < (seq)->data.sequence.items.top &&			\
	    ((item) = yaml_document_get_node((d)->doc, *(it))) != NULL;	\
	    (it)++)

/*
 * config.c and webconfig.c call these through one set of short names
 * (yamldoc_short.h).
 */

#endif
