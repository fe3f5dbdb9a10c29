/*
 * publish.c - reference-counted objects and the slot they are published in
 * (publish.h).
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include "util/publish.h"

void
publish_ref_init(struct publish_ref *r, void (*free)(struct publish_ref *r))
{
	atomic_init(&r->refs, 1);
	r->free = free;
}

void
publish_ref(struct publish_ref *r)
{
	atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

void
publish_unref(struct publish_ref *r)
{
	if (r != NULL &&
	    atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1)
		r->free(r);
}

void
publish_slot_init(struct publish_slot *s, struct publish_ref *first)
{
	pthread_mutex_init(&s->lock, NULL);
	s->cur = first;
}

void
publish_slot_fini(struct publish_slot *s)
{
	publish_unref(s->cur);
	s->cur = NULL;
	pthread_mutex_destroy(&s->lock);
}

void
publish_swap(struct publish_slot *s, struct publish_ref *r)
{
	struct publish_ref *old;

	pthread_mutex_lock(&s->lock);
	old = s->cur;
	s->cur = r;
	pthread_mutex_unlock(&s->lock);
	publish_unref(old);
}

struct publish_ref *
publish_get(struct publish_slot *s)
{
	struct publish_ref *r;

	pthread_mutex_lock(&s->lock);
	if ((r = s->cur) != NULL)
		publish_ref(r);
	pthread_mutex_unlock(&s->lock);
	return r;
}

struct publish_ref *
publish_get_or_make(struct publish_slot *s,
    int (*keep)(const struct publish_ref *cur, void *arg),
    struct publish_ref *(*make)(void *arg), void *arg)
{
	struct publish_ref *r, *old = NULL;

	pthread_mutex_lock(&s->lock);
	if ((r = s->cur) == NULL || !keep(r, arg)) {
		if ((r = make(arg)) == NULL) {
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		old = s->cur;
		s->cur = r;
	}
	publish_ref(r);
	pthread_mutex_unlock(&s->lock);
	publish_unref(old);
	return r;
}
