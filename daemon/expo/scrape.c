/*
 * scrape.c - the scrape cache (see scrape.h): each slot rendered once under
 * its lock and published with a release store, so a reader that sees it
 * done reads it without a lock.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/expo/gzip.h"
#include "daemon/expo/scrape.h"

struct scrape {
	struct publish_ref ref;		/* util/publish.h */
	struct snapshot *snap;		/* with a reference */
	struct scrape_slot {
		pthread_mutex_t lock;
		atomic_int done;
		struct scrape_blob blob;
	} slot[SCRAPE_SLOTS];
};

/* The last reference's destructor. */
static void
scrape_free(struct publish_ref *r)
{
	struct scrape *sc = publish_of(r, struct scrape, ref);
	unsigned i;

	for (i = 0; i < SCRAPE_SLOTS; i++) {
		free(sc->slot[i].blob.p);
		pthread_mutex_destroy(&sc->slot[i].lock);
	}
	snapshot_unref(sc->snap);
	free(sc);
}

/* A scrape of s, with a reference of its own on s. */
static struct publish_ref *
scrape_new(void *arg)
{
	struct scrape *sc = calloc(1, sizeof(*sc));
	unsigned i;

	if (sc == NULL)
		return NULL;
	publish_ref_init(&sc->ref, scrape_free);
	sc->snap = arg;
	snapshot_ref(sc->snap);
	for (i = 0; i < SCRAPE_SLOTS; i++) {
		atomic_init(&sc->slot[i].done, 0);
		pthread_mutex_init(&sc->slot[i].lock, NULL);
	}
	return &sc->ref;
}

/* Is the cached scrape the snapshot's?  The cache's reference on the
 * snapshot it keeps stops the snapshot being freed, so a pointer match
 * is the same snapshot. */
static int
scrape_is_of(const struct publish_ref *cur, void *arg)
{
	return publish_of(cur, const struct scrape, ref)->snap == arg;
}

void
scrape_unref(struct scrape *sc)
{
	if (sc != NULL)
		publish_unref(&sc->ref);
}

void
scrape_cache_init(struct scrape_cache *c)
{
	publish_slot_init(&c->p, NULL);
}

void
scrape_cache_fini(struct scrape_cache *c)
{
	publish_slot_fini(&c->p);
}

struct scrape *
scrape_get(struct scrape_cache *c, struct snapshot *s)
{
	struct publish_ref *r;

	/* Made under the slot's lock: readers of one snapshot render into
	 * one scrape. */
	r = publish_get_or_make(&c->p, scrape_is_of, scrape_new, s);
	snapshot_unref(s);	/* the scrape holds its own */
	return r ? publish_of(r, struct scrape, ref) : NULL;
}

/*
 * Slot `slot` (< SCRAPE_SLOTS), rendered on first use: later calls
 * return the same blob.  render fills *out (a malloc'ed buffer, owned by
 * the scrape afterwards) and returns 0, or returns -errno and leaves *out
 * alone; the next call then tries again.  render may ask for another slot
 * (never its own).  NULL when render failed.
 */
typedef int (*scrape_render_fn)(struct scrape *sc, void *arg,
    struct scrape_blob *out);

static const struct scrape_blob *
scrape_blob(struct scrape *sc, unsigned slot, scrape_render_fn render,
    void *arg)
{
	struct scrape_slot *r = &sc->slot[slot];
	int ok = 1;

	if (atomic_load_explicit(&r->done, memory_order_acquire))
		return &r->blob;
	pthread_mutex_lock(&r->lock);
	if (!atomic_load_explicit(&r->done, memory_order_relaxed)) {
		struct scrape_blob b = { NULL, 0, 0, 0, 0 };

		if (render(sc, arg, &b) == 0) {
			r->blob = b;
			atomic_store_explicit(&r->done, 1,
			    memory_order_release);
		} else
			ok = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return ok ? &r->blob : NULL;
}

const struct scrape_blob *
scrape_ready(struct scrape *sc, unsigned slot)
{
	/* The acquire pairs with scrape_blob's release of done: whoever
	 * sees it set sees the blob it published. */
	if (!atomic_load_explicit(&sc->slot[slot].done, memory_order_acquire))
		return NULL;
	return &sc->slot[slot].blob;
}

/* ---- bodies ------------------------------------------------------- */

struct body_arg {
	enum expo_format f;
	const struct expo_opts *o;
};

static int
render_plain(struct scrape *sc, void *arg, struct scrape_blob *out)
{
	const struct body_arg *a = arg;

	out->p = expo_render_body(sc->snap, a->f, a->o, &out->len);
	return out->p ? 0 : -ENOMEM;
}

static int
render_gzip(struct scrape *sc, void *arg, struct scrape_blob *out)
{
	const struct body_arg *a = arg;
	const struct scrape_blob *plain;
	struct expo_buf b = { NULL, 0, 0, 0, 0 };
	uint32_t crc;

	if ((plain = scrape_blob(sc, SCRAPE_BODY(a->f, 0), render_plain,
	    arg)) == NULL)
		return -ENOMEM;
	if (gzip_body(plain->p, plain->len, &b, &crc) < 0)
		return -ENOMEM;
	out->p = b.p;
	out->len = b.len;
	out->crc = crc;
	out->plain_len = plain->len;
	return 0;
}

const struct scrape_blob *
scrape_body(struct scrape *sc, enum expo_format f, int gz,
    const struct expo_opts *o)
{
	struct body_arg a = { f, o };

	return scrape_blob(sc, SCRAPE_BODY(f, gz),
	    gz ? render_gzip : render_plain, &a);
}

/* ---- tails -------------------------------------------------------- */

struct tail_arg {
	enum expo_format f;
	int gz;
	const struct expo_opts *o;
	const struct scrape_blob *body;
	void (*live)(void *arg, struct expo_live *l);
	void *live_arg;
};

/* The tail alone, compressed to follow a gzip body. */
static int
render_tail_only(const struct tail_arg *a, struct expo_buf *tail)
{
	struct expo_buf zt = { NULL, 0, 0, 0, 0 };
	struct expo_live live;

	a->live(a->live_arg, &live);
	if (expo_render_tail(tail, a->f, a->o, &live) < 0)
		return -ENOMEM;
	if (!a->gz)
		return 0;
	if (gzip_tail(a->body->crc, a->body->plain_len,
	    tail->p ? tail->p : "", tail->len, &zt) < 0) {
		free(tail->p);
		free(zt.p);
		return -ENOMEM;
	}
	free(tail->p);
	*tail = zt;
	return 0;
}

static int
render_tail(struct scrape *sc, void *arg, struct scrape_blob *out)
{
	const struct tail_arg *a = arg;
	struct expo_buf tail = { NULL, 0, 0, 0, 0 };
	char *whole;

	(void)sc;
	if (render_tail_only(a, &tail) < 0)
		return -ENOMEM;
	if (a->body->len + tail.len > SCRAPE_WHOLE_MAX) {
		out->p = tail.p;
		out->len = tail.len;
		return 0;
	}
	if ((whole = malloc(a->body->len + tail.len + 1)) == NULL) {
		free(tail.p);
		return -ENOMEM;
	}
	memcpy(whole, a->body->p, a->body->len);
	if (tail.len)
		memcpy(whole + a->body->len, tail.p, tail.len);
	out->whole = 1;
	out->p = whole;
	out->len = a->body->len + tail.len;
	free(tail.p);
	return 0;
}

/* ---- replies ------------------------------------------------------ */

int
scrape_take(struct scrape_cache *c, struct snapshot *s, enum expo_format f,
    int gz, struct scrape_reply *r)
{
	struct scrape *sc;

	if ((sc = scrape_get(c, s)) == NULL)
		return -ENOMEM;
	*r = (struct scrape_reply){ sc, f, gz,
	    scrape_ready(sc, SCRAPE_BODY(f, gz)),
	    scrape_ready(sc, SCRAPE_TAIL(f, gz)) };
	return r->body && r->tail;
}

int
scrape_render(struct scrape_reply *r, const struct expo_opts *o,
    void (*live)(void *arg, struct expo_live *l), void *arg)
{
	struct tail_arg ta = { r->f, r->gz, o, NULL, live, arg };

	if ((r->body = ta.body = scrape_body(r->sc, r->f, r->gz, o)) == NULL ||
	    (r->tail = scrape_blob(r->sc, SCRAPE_TAIL(r->f, r->gz),
	    render_tail, &ta)) == NULL)
		return -ENOMEM;
	return 0;
}
