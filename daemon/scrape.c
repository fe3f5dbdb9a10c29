/*
 * scrape.c - the scrape cache (see scrape.h): a snapshot's rendered
 * variants, each rendered once under its slot's lock and published with
 * a release store, so a reader that sees the slot done reads its blob
 * without a lock.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/gzip.h"
#include "daemon/scrape.h"

struct scrape {
	atomic_int refs;
	struct snapshot *snap;		/* with a reference */
	struct scrape_slot {
		pthread_mutex_t lock;
		atomic_int done;
		struct scrape_blob blob;
	} slot[SCRAPE_SLOTS];
};

static struct scrape *
scrape_new(struct snapshot *s)
{
	struct scrape *sc = calloc(1, sizeof(*sc));
	unsigned i;

	if (sc == NULL)
		return NULL;
	atomic_init(&sc->refs, 1);
	sc->snap = s;
	for (i = 0; i < SCRAPE_SLOTS; i++) {
		atomic_init(&sc->slot[i].done, 0);
		pthread_mutex_init(&sc->slot[i].lock, NULL);
	}
	return sc;
}

void
scrape_ref(struct scrape *sc)
{
	atomic_fetch_add_explicit(&sc->refs, 1, memory_order_relaxed);
}

void
scrape_unref(struct scrape *sc)
{
	unsigned i;

	if (sc == NULL ||
	    atomic_fetch_sub_explicit(&sc->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (i = 0; i < SCRAPE_SLOTS; i++) {
		free(sc->slot[i].blob.p);
		pthread_mutex_destroy(&sc->slot[i].lock);
	}
	snapshot_unref(sc->snap);
	free(sc);
}

struct snapshot *
scrape_snapshot(const struct scrape *sc)
{
	return sc->snap;
}

void
scrape_cache_init(struct scrape_cache *c)
{
	pthread_mutex_init(&c->lock, NULL);
	c->cur = NULL;
}

void
scrape_cache_fini(struct scrape_cache *c)
{
	scrape_unref(c->cur);
	c->cur = NULL;
	pthread_mutex_destroy(&c->lock);
}

struct scrape *
scrape_get(struct scrape_cache *c, struct snapshot *s)
{
	struct scrape *sc, *old = NULL;

	pthread_mutex_lock(&c->lock);
	if ((sc = c->cur) != NULL && sc->snap == s) {
		scrape_ref(sc);
		pthread_mutex_unlock(&c->lock);
		snapshot_unref(s);	/* sc holds one already */
		return sc;
	}
	/* The cache's reference on the snapshot it keeps stops the
	 * snapshot being freed, so a pointer match is the same snapshot. */
	if ((sc = scrape_new(s)) == NULL) {
		pthread_mutex_unlock(&c->lock);
		snapshot_unref(s);
		return NULL;
	}
	old = c->cur;
	c->cur = sc;
	scrape_ref(sc);
	pthread_mutex_unlock(&c->lock);
	scrape_unref(old);
	return sc;
}

const struct scrape_blob *
scrape_blob(struct scrape *sc, unsigned slot, scrape_render_fn render,
    void *arg)
{
	struct scrape_slot *r = &sc->slot[slot];
	int ok = 1;

	if (atomic_load_explicit(&r->done, memory_order_acquire))
		return &r->blob;
	pthread_mutex_lock(&r->lock);
	if (!atomic_load_explicit(&r->done, memory_order_relaxed)) {
		struct scrape_blob b = { NULL, 0, { 0, 0 } };

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
	out->meta[0] = crc;
	out->meta[1] = plain->len;
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
	if (gzip_tail((uint32_t)a->body->meta[0], a->body->meta[1],
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
	out->meta[0] = a->body->len;
	out->meta[1] = 1;
	out->p = whole;
	out->len = a->body->len + tail.len;
	free(tail.p);
	return 0;
}

int
scrape_variant(struct scrape *sc, enum expo_format f, int gz,
    const struct expo_opts *o, void (*live)(void *arg, struct expo_live *l),
    void *arg)
{
	struct tail_arg ta = { f, gz, o, NULL, live, arg };

	if ((ta.body = scrape_body(sc, f, gz, o)) == NULL)
		return -ENOMEM;
	if (scrape_blob(sc, SCRAPE_TAIL(f, gz), render_tail, &ta) == NULL)
		return -ENOMEM;
	return 0;
}
