/*
 * nameidx.h - find a number by a name in time independent of how many names
 * there are (group names, a group's event names).  The index borrows the
 * names; a zeroed struct nameidx is an empty index.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_NAMEIDX_H
#define PMU_NAMEIDX_H

#include <stddef.h>

struct nameidx {
	struct nameidx_slot {
		const char *name;	/* NULL: empty */
		size_t value;
	} *slot;			/* [mask + 1], or NULL while empty */
	size_t mask;
	size_t nr;
};

/* Add name with value.  0, -EEXIST if name is there already (it keeps its
 * value), or -ENOMEM (the index is unchanged). */
int nameidx_add(struct nameidx *x, const char *name, size_t value);

/* 1 and *value if name is in x (value may be NULL), else 0. */
int nameidx_find(const struct nameidx *x, const char *name, size_t *value);

/* Free the slots; x is empty again (NULL is fine).  The names are not
 * the index's. */
void nameidx_free(struct nameidx *x);

#endif
