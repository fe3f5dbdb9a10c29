/*
 * wanted.c - the wanted target set (see wanted.h): the expanded lists
 * merged into one array sorted by path, so that a rescan merges it with
 * the sorted targets in O(n log n) rather than searching per match.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/wanted.h"

static int
match_cmp(const void *a, const void *b)
{
	const struct match *x = a, *y = b;
	int d = strcmp(x->path, y->path);

	if (d)
		return d;
	return (x->entry > y->entry) - (x->entry < y->entry);
}

static int
wanted_matches(const struct plan *cfg, const struct cgroup_list *lists,
    struct match **out, size_t *nout)
{
	struct match *m;
	size_t i, j, n = 0;

	for (i = 0; i < cfg->nr_targets; i++)
		n += lists[i].nr;
	if ((m = malloc((n + 1) * sizeof(*m))) == NULL)
		return -ENOMEM;
	for (i = 0, n = 0; i < cfg->nr_targets; i++)
		for (j = 0; j < lists[i].nr; j++)
			m[n++] = (struct match){ lists[i].path[j], i,
			    lists[i].id ? lists[i].id[j] : 0 };
	qsort(m, n, sizeof(*m), match_cmp);
	*out = m;
	*nout = n;
	return 0;
}

/*
 * Distinct cgroups the entries of layout (1-based) match, in m sorted by
 * path (a cgroup two entries of one layout match is counted once).
 * Layouts are few (the default has ten): a pass over the matches each.
 */
static size_t
wanted_layout_count(const struct plan *cfg, const struct match *m,
    size_t nm, size_t layout)
{
	const char *prev = NULL;
	size_t i, n = 0;

	for (i = 0; i < nm; i++)
		if (cfg->targets[m[i].entry].layout == layout &&
		    (prev == NULL || strcmp(prev, m[i].path) != 0)) {
			prev = m[i].path;
			n++;
		}
	return n;
}

int
wanted_build(const struct plan *cfg, const struct cgroup_list *lists,
    struct wanted *w)
{
	size_t l;
	int r;

	*w = (struct wanted){ NULL, 0, NULL };
	if ((r = wanted_matches(cfg, lists, &w->m, &w->nm)) < 0)
		return r;
	if ((w->per_layout = calloc(cfg->nr_layouts + 1,
	    sizeof(*w->per_layout))) == NULL)
		return -ENOMEM;
	for (l = 0; l < cfg->nr_layouts; l++)
		w->per_layout[l] = wanted_layout_count(cfg, w->m, w->nm, l + 1);
	return 0;
}

void
wanted_free(struct wanted *w)
{
	free(w->m);
	free(w->per_layout);
	*w = (struct wanted){ NULL, 0, NULL };
}
