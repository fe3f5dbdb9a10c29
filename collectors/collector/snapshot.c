/*
 * snapshot.c - immutable, reference-counted collection results (see
 * snapshot.h).  Everything a snapshot points to lives in its own arena, so
 * it stays valid after a reload frees the config it was built from, and it
 * is freed with a handful of free() calls.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/snapshot.h"

struct snap_chunk {
	struct snap_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

#define SNAP_CHUNK 16384

struct snapshot *
snapshot_new(void)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	unsigned i;

	if (s == NULL)
		return NULL;
	atomic_init(&s->refs, 1);
	for (i = 0; i < SNAP_RENDER_SLOTS; i++) {
		atomic_init(&s->render[i].done, 0);
		pthread_mutex_init(&s->render[i].lock, NULL);
	}
	return s;
}

void *
snapshot_alloc(struct snapshot *s, size_t n)
{
	struct snap_chunk *c = s->chunks;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (c == NULL || c->size - c->used < n) {
		size_t size = n > SNAP_CHUNK ? n : SNAP_CHUNK;

		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return NULL;
		c->next = s->chunks;
		c->used = 0;
		c->size = size;
		s->chunks = c;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

char *
snapshot_strdup(struct snapshot *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = snapshot_alloc(s, n);

	if (p)
		memcpy(p, str, n);
	return p;
}

void
snapshot_ref(struct snapshot *s)
{
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void
snapshot_unref(struct snapshot *s)
{
	struct snap_chunk *c, *next;
	unsigned i;

	if (s == NULL ||
	    atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (c = s->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	for (i = 0; i < SNAP_RENDER_SLOTS; i++) {
		free(s->render[i].blob.p);
		pthread_mutex_destroy(&s->render[i].lock);
	}
	free(s);
}

const struct snap_blob *
snapshot_blob(struct snapshot *s, unsigned slot, snapshot_render_fn render,
    void *arg)
{
	struct snap_render *r = &s->render[slot];
	int ok = 1;

	if (atomic_load_explicit(&r->done, memory_order_acquire))
		return &r->blob;
	pthread_mutex_lock(&r->lock);
	if (!atomic_load_explicit(&r->done, memory_order_relaxed)) {
		struct snap_blob b = { NULL, 0, { 0, 0 } };

		if (render(s, arg, &b) == 0) {
			r->blob = b;
			atomic_store_explicit(&r->done, 1,
			    memory_order_release);
		} else
			ok = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return ok ? &r->blob : NULL;
}

/* snapshot_text's adapter: the buffer-returning renderer, in a box. */
struct text_renderer {
	char *(*fn)(const struct snapshot *, size_t *);
};

static int
render_text(struct snapshot *s, void *arg, struct snap_blob *out)
{
	const struct text_renderer *t = arg;

	if ((out->p = t->fn(s, &out->len)) == NULL)
		return -ENOMEM;
	return 0;
}

const char *
snapshot_text(struct snapshot *s, size_t *len,
    char *(*render)(const struct snapshot *, size_t *))
{
	struct text_renderer t = { render };
	const struct snap_blob *b = snapshot_blob(s, 0, render_text, &t);

	if (b == NULL)
		return NULL;
	*len = b->len;
	return b->p;
}

void
snapshot_slot_init(struct snapshot_slot *slot)
{
	pthread_mutex_init(&slot->lock, NULL);
	slot->cur = NULL;
}

void
snapshot_publish(struct snapshot_slot *slot, struct snapshot *s)
{
	struct snapshot *old;

	pthread_mutex_lock(&slot->lock);
	old = slot->cur;
	slot->cur = s;
	pthread_mutex_unlock(&slot->lock);
	snapshot_unref(old);
}

struct snapshot *
snapshot_get(struct snapshot_slot *slot)
{
	struct snapshot *s;

	pthread_mutex_lock(&slot->lock);
	s = slot->cur;
	if (s)
		snapshot_ref(s);
	pthread_mutex_unlock(&slot->lock);
	return s;
}

void
snapshot_slot_fini(struct snapshot_slot *slot)
{
	snapshot_unref(slot->cur);
	slot->cur = NULL;
	pthread_mutex_destroy(&slot->lock);
}
