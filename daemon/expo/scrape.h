/*
 * scrape.h - the scrape cache: what the HTTP side rendered from a snapshot,
 * each variant's body and tail rendered once and shared by the scrapes that
 * follow (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_SCRAPE_H
#define PMU_SCRAPE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/expo/expo.h"
#include "util/publish.h"

#define SCRAPE_BODY(f, gz) ((unsigned)(f) + ((gz) ? 2u : 0u))	/* 0-3 */
#define SCRAPE_TAIL(f, gz) (4u + SCRAPE_BODY(f, gz))		/* 4-7 */
#define SCRAPE_SLOTS 8

/* One rendered variant or tail. */
struct scrape_blob {
	char *p;			/* malloc'ed */
	size_t len;
	uint32_t crc;			/* a gzip body: its plain bytes' CRC-32 */
	size_t plain_len;		/* ... and their length */
	int whole;			/* a tail: its body copied ahead of it */
};

struct scrape;

struct scrape_cache {
	struct publish_slot p;		/* util/publish.h */
};

void scrape_cache_init(struct scrape_cache *c);
void scrape_cache_fini(struct scrape_cache *c);

/*
 * The scrape of s, with a reference: the cached one when it is s's, else
 * a new one, which the cache keeps in place of the old.  Takes over the
 * caller's reference on s whatever it returns; NULL on ENOMEM.
 */
struct scrape *scrape_get(struct scrape_cache *c, struct snapshot *s);

/* Drops a reference; the last frees the blobs and releases the snapshot.
 * Accepts NULL. */
void scrape_unref(struct scrape *sc);

/* Slot `slot` if it is rendered, else NULL: never renders, never waits
 * for a render in progress. */
const struct scrape_blob *scrape_ready(struct scrape *sc, unsigned slot);

/*
 * The body of a variant, rendered (and, with gzip, compressed) on first
 * use; NULL on ENOMEM.  o must be the same for every call on sc.  A gzip
 * body carries its plain bytes' crc and plain_len, what gzip_tail needs to
 * close the member.
 */
const struct scrape_blob *scrape_body(struct scrape *sc, enum expo_format f,
    int gz, const struct expo_opts *o);

/*
 * A variant's body and its tail, rendered on first use: the tail holds
 * the series that change between scrapes, which live fills in (scrape
 * counts, auth failures, process_*), and "# EOF" in OpenMetrics.  The tail
 * is rendered once per snapshot and variant, with the body, and cached
 * like it: every later scrape of the snapshot sends the same bytes, so a
 * scrape does no rendering at all, and those series are as of the first
 * scrape of each snapshot, at most one interval old.
 *
 * A small body is copied into its tail's slot, ahead of the tail (the
 * tail's whole set): the response is then
 * one buffer, and MHD sends headers and body with one writev() instead of
 * a send() for the headers and a sendmsg() for the body.  At loopback
 * speeds that system call is a fifth of what a small scrape costs the
 * server; above SCRAPE_WHOLE_MAX the copy would cost more than the call
 * saves, and the body is sent from where it is.
 */
#define SCRAPE_WHOLE_MAX 65536

/*
 * What one response sends: a variant of a snapshot's scrape, its body and
 * tail once rendered.  sc carries a reference, which goes with the reply
 * (the response's free callback drops it with scrape_unref); body and
 * tail are sc's blobs and live as long as it.
 */
struct scrape_reply {
	struct scrape *sc;		/* with a reference */
	enum expo_format f;
	int gz;
	const struct scrape_blob *body, *tail;	/* NULL until rendered */
};

/*
 * The reply for variant (f, gz) of snapshot s, from c (the scrape as
 * scrape_get finds or makes it; takes over the caller's reference on s
 * whatever it returns).  1: its body and tail are rendered, r can be sent
 * now.  0: they are not, and scrape_render(r) must run first, where a
 * slow render holds up nobody.  Both fill r, with a reference on r->sc.
 * -ENOMEM: r is left alone.  The HTTP server's one call per scrape.
 */
int scrape_take(struct scrape_cache *c, struct snapshot *s,
    enum expo_format f, int gz, struct scrape_reply *r);

/*
 * Render r's variant, body and tail (live for the tail; see above), and
 * fill r->body and r->tail.  0, or -ENOMEM.
 */
int scrape_render(struct scrape_reply *r, const struct expo_opts *o,
    void (*live)(void *arg, struct expo_live *l), void *arg);

#endif
