/*
 * snapshot.c - immutable, reference-counted collection results (see
 * snapshot.h).  Everything a snapshot points to lives in its own arena, so
 * it stays valid after a reload frees the config it was built from, and it
 * is freed with a handful of free() calls; the name labels' values, the
 * same in every snapshot, are the resolver's map's, held by reference.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "collectors/collector/snapshot.h"
#include "names/names.h"

struct snap_chunk {
	struct snap_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

#define SNAP_CHUNK 16384

/* The last reference's destructor (util/publish.h). */
static void
snapshot_free(struct publish_ref *r)
{
	struct snapshot *s = publish_of(r, struct snapshot, ref);
	struct snap_chunk *c, *next;

	for (c = s->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	namemap_unref(s->names);
	free(s);
}

struct snapshot *
snapshot_new(void)
{
	struct snapshot *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	publish_ref_init(&s->ref, snapshot_free);
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
	publish_ref(&s->ref);
}

void
snapshot_unref(struct snapshot *s)
{
	if (s != NULL)
		publish_unref(&s->ref);
}

void
snapshot_slot_init(struct snapshot_slot *slot)
{
	publish_slot_init(&slot->p, NULL);
}

void
snapshot_publish(struct snapshot_slot *slot, struct snapshot *s)
{
	publish_swap(&slot->p, s ? &s->ref : NULL);
}

struct snapshot *
snapshot_get(struct snapshot_slot *slot)
{
	struct publish_ref *r = publish_get(&slot->p);

	return r ? publish_of(r, struct snapshot, ref) : NULL;
}

void
snapshot_slot_fini(struct snapshot_slot *slot)
{
	publish_slot_fini(&slot->p);
}
