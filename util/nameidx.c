/*
 * nameidx.c - a name-to-number index (nameidx.h): open addressing, FNV-1a.
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/nameidx.h"

#define NAMEIDX_MIN 16		/* slots of the first table */

static size_t
name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

/* The slot holding name, or the empty slot where it would go. */
static struct nameidx_slot *
slot_of(const struct nameidx *x, const char *name)
{
	size_t h = name_hash(name) & x->mask;

	while (x->slot[h].name && strcmp(x->slot[h].name, name) != 0)
		h = (h + 1) & x->mask;
	return &x->slot[h];
}

/* Move every name into a table of n slots. */
static int
rehash(struct nameidx *x, size_t n)
{
	struct nameidx bigger = { calloc(n, sizeof(*x->slot)), n - 1, x->nr };
	size_t i;

	if (bigger.slot == NULL)
		return -ENOMEM;
	for (i = 0; x->slot && i <= x->mask; i++)
		if (x->slot[i].name)
			*slot_of(&bigger, x->slot[i].name) = x->slot[i];
	free(x->slot);
	*x = bigger;
	return 0;
}

int
nameidx_add(struct nameidx *x, const char *name, size_t value)
{
	struct nameidx_slot *s;
	int r;

	if (x->slot == NULL && (r = rehash(x, NAMEIDX_MIN)) < 0)
		return r;
	if ((s = slot_of(x, name))->name)
		return -EEXIST;
	if (2 * (x->nr + 1) > x->mask + 1) {
		if ((r = rehash(x, 2 * (x->mask + 1))) < 0)
			return r;
		s = slot_of(x, name);
	}
	s->name = name;
	s->value = value;
	x->nr++;
	return 0;
}

int
nameidx_find(const struct nameidx *x, const char *name, size_t *value)
{
	const struct nameidx_slot *s;

	if (x->slot == NULL || (s = slot_of(x, name))->name == NULL)
		return 0;
	if (value)
		*value = s->value;
	return 1;
}

void
nameidx_free(struct nameidx *x)
{
	if (x == NULL)
		return;
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
