/*
 * publish.h - the one way a thread hands immutable data to others: a
 * reference-counted object, published by pointer swap in a slot.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_PUBLISH_H
#define PMU_PUBLISH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct publish_ref {
	atomic_int refs;
	void (*free)(struct publish_ref *r);	/* called at the last unref */
};

/* One reference, the caller's; free(r) runs when the last is dropped. */
void publish_ref_init(struct publish_ref *r,
    void (*free)(struct publish_ref *r));
void publish_ref(struct publish_ref *r);
/* Drops a reference; the last calls the destructor.  Accepts NULL. */
void publish_unref(struct publish_ref *r);

struct publish_slot {
	pthread_mutex_t lock;		/* held only to swap or take a ref */
	struct publish_ref *cur;	/* with the slot's reference; or NULL */
};

/* The slot holds first (taking the caller's reference; may be NULL). */
void publish_slot_init(struct publish_slot *s, struct publish_ref *first);
/* Drops the slot's reference on what it holds. */
void publish_slot_fini(struct publish_slot *s);

/* Publish r in place of the current object (the slot takes the caller's
 * reference on r; the old one's is dropped after the lock). */
void publish_swap(struct publish_slot *s, struct publish_ref *r);

/* The current object with a reference (the caller's to drop), or NULL. */
struct publish_ref *publish_get(struct publish_slot *s);

/*
 * The current object with a reference if keep(cur, arg) says it will do;
 * else make(arg) builds one (with one reference) under the lock, so that
 * readers racing for the same thing build it once, and it is published in
 * the current one's place and returned with a reference.  keep is called
 * with the lock held and may not call into the slot; it sees NULL when
 * the slot is empty.  NULL when make fails (the slot is left as it was).
 */
struct publish_ref *publish_get_or_make(struct publish_slot *s,
    int (*keep)(const struct publish_ref *cur, void *arg),
    struct publish_ref *(*make)(void *arg), void *arg);

/* The object that embeds r as its member m. */
#define publish_of(r, type, m) \
	((type *)(void *)((char *)(r) - offsetof(type, m)))

#endif
