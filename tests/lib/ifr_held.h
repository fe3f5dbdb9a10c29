/*
 * ifr_held.h - for the interference rule tests that include
 * analysis/suspects.c whole (after it): victim v's suspects with only u
 * held for it, as the correlation (onset 0) or the onset (1) named it.
 */
#ifndef PMU_TEST_IFR_HELD_H
#define PMU_TEST_IFR_HELD_H

/* Is u named for v with only u held (strength 0.99, its use the most of
 * its last victim window)? */
static int
held_named(struct interference *ifr, size_t v, size_t u, int onset)
{
	struct pick best[INTERFERENCE_MAX_SUSPECTS];
	struct held *h = calloc(1, sizeof(*h));
	size_t n, i;
	int found = 0;

	if (h == NULL)
		abort();
	h->key = ifr->cgs[u].key;
	h->r = 0.99;
	h->use = most_use(ifr, &ifr->cgs[u], ifr->geo.victim_samples);
	h->onset = onset;
	suspects_forget(&ifr->cgs[v]);
	ifr->cgs[v].held = h;
	ifr->cgs[v].nheld = 1;
	suspects_of(ifr, v, ifr->scratch, best, &n);
	for (i = 0; i < n; i++)
		found |= best[i].cg == u;
	return found;
}

#endif
