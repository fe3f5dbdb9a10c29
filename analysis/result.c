/*
 * result.c - what the analysis publishes (result.h): each sample's
 * judged cgroups, its victims ranked with their suspects, behind the
 * publishing slot the HTTP side reads.
 * Design: docs/interference.md, "How".
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/interference_int.h"
#include "analysis/result.h"

/* ---- results -------------------------------------------------------- */

/* The last reference's destructor (util/publish.h). */
static void
result_free(struct publish_ref *ref)
{
	struct interference_result *r = publish_of(ref, struct
	    interference_result, ref);

	if (r->snap)
		snapshot_unref(r->snap);
	free(r->cgroups);
	free(r->suspects);
	free(r);
}

/* An empty result with one reference, the caller's; NULL without
 * memory. */
static struct interference_result *
result_new(void)
{
	struct interference_result *r = calloc(1, sizeof(*r));

	if (r != NULL)
		publish_ref_init(&r->ref, result_free);
	return r;
}

void
interference_result_unref(struct interference_result *r)
{
	if (r != NULL)
		publish_unref(&r->ref);
}

/* r in place of the newest result, the caller's reference with it. */
void
result_publish(struct interference *ifr, struct interference_result *r)
{
	publish_swap(&ifr->result, &r->ref);
}

/* An empty result: no cgroup analysed (yet). */
void
result_publish_empty(struct interference *ifr)
{
	struct interference_result *r = result_new();

	if (r == NULL)
		return;		/* the previous result stays */
	r->enabled = ifr->cfg.enabled;
	result_publish(ifr, r);
}

unsigned
result_outliers(const struct interference *ifr, const struct cg *c)
{
	unsigned w = ifr->geo.victim_samples;
	uint64_t m = w >= 64 ? ~0ULL : (1ULL << w) - 1;

	return (unsigned)__builtin_popcountll(c->bits & m);
}

struct vpick {
	size_t cg;
	unsigned outliers;
	double cpu;
};

static int
cmp_vpick(const void *a, const void *b)
{
	const struct vpick *x = a, *y = b;

	if (x->outliers != y->outliers)
		return x->outliers < y->outliers ? 1 : -1;
	return (x->cpu < y->cpu) - (x->cpu > y->cpu);
}

/* The victims of the sample, most outliers first, then the busiest:
 * into vp[], their number returned. */
static size_t
victims_ranked(const struct interference *ifr, struct vpick *vp)
{
	size_t i, nv = 0, last = (ifr->sample - 1) % INTERFERENCE_RING;

	for (i = 0; i < ifr->nr; i++) {
		const struct cg *c = &ifr->cgs[i];

		if (c->analysed && c->leaf && c->victim)
			vp[nv++] = (struct vpick){ i,
			    result_outliers(ifr, c), c->cpu[last] };
	}
	qsort(vp, nv, sizeof(*vp), cmp_vpick);
	return nv < INTERFERENCE_MAX_VICTIMS ? nv : INTERFERENCE_MAX_VICTIMS;
}

/* The judged cgroups into r, each's index in r into pos[]. */
static void
result_cgroups(const struct interference *ifr, const struct snapshot *s,
    struct interference_result *r, size_t *pos)
{
	size_t i;

	for (i = 0; i < ifr->nr; i++) {
		const struct cg *c = &ifr->cgs[i];
		struct interference_cgroup *o;

		if (!c->analysed || !c->leaf)
			continue;
		pos[i] = r->nr_cgroups;
		o = &r->cgroups[r->nr_cgroups++];
		o->row = &s->rows[c->row];
		o->victim = c->victim;
		o->outliers = c->outliers;
		o->victim_periods = c->periods;
	}
}

/* The result of the sample just closed, with s for the labels. */
struct interference_result *
result_build(struct interference *ifr, struct snapshot *s)
{
	struct interference_result *r = result_new();
	struct vpick *vp = NULL;
	struct pick best[INTERFERENCE_MAX_SUSPECTS];
	size_t i, n = ifr->nr, nv, k, nb, *pos = NULL;

	if (r == NULL)
		return NULL;
	r->enabled = 1;
	r->containing = ifr->containing;
	r->cgroups = calloc(n + 1, sizeof(*r->cgroups));
	r->suspects = calloc(INTERFERENCE_MAX_VICTIMS * ifr->cfg.suspects + 1,
	    sizeof(*r->suspects));
	vp = calloc(n + 1, sizeof(*vp));
	pos = calloc(n + 1, sizeof(*pos));
	if (!r->cgroups || !r->suspects || !vp || !pos)
		goto fail;
	result_cgroups(ifr, s, r, pos);
	nv = victims_ranked(ifr, vp);
	if (nv > 0)
		suspects_prepare(ifr, ifr->scratch);
	for (i = 0; i < nv; i++) {
		suspects_of(ifr, vp[i].cg, ifr->scratch, best, &nb);
		for (k = 0; k < nb; k++) {
			struct interference_suspect *o =
			    &r->suspects[r->nr_suspects++];

			o->victim = pos[vp[i].cg];
			o->row = &s->rows[ifr->cgs[best[k].cg].row];
			o->rank = (unsigned)k + 1;
			o->correlation = best[k].r;
		}
	}
	free(vp);
	free(pos);
	snapshot_ref(s);
	r->snap = s;
	return r;
fail:
	free(vp);
	free(pos);
	interference_result_unref(r);
	return NULL;
}

