/*
 * bpfcg_test.c - mode: bpf's table of cgroup slots (collectors/bpf/
 * bpfcg.c) against a plain model, through a real loaded program and its
 * kernel maps: random tracks, retracks and untracks of cgroup ids drawn
 * from a small range (so that ids come back while still in the kernel's
 * hash, and the index's runs of probes collide and shift), refreshes
 * between rounds, and the table filled to the last slot.  Needs BPF
 * support and the privilege to load a program (CAP_BPF and CAP_PERFMON,
 * or root); exits 77 saying so otherwise.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpfcg.h"
#include "tests/lib/check.h"
#include "tests/lib/xorshift.h"

#define MAX_SLOTS 1500
#define IDS 4000			/* ids drawn from [1, IDS] */

/* The model: per id its slot and references; per slot who holds it. */
static uint32_t id_slot[IDS + 1];
static unsigned id_refs[IDS + 1];
static int id_in_hash[IDS + 1];		/* tracked, or untracked and
					   not refreshed since */
static uint64_t slot_owner[MAX_SLOTS];	/* id in the hash there, or 0:
					   a slot is reused only after the
					   refresh that deleted its id */

static uint64_t rng = XORSHIFT_SEED;

static size_t
live(void)
{
	size_t n = 0, i;

	for (i = 1; i <= IDS; i++)
		n += id_in_hash[i];
	return n;
}

static int
track(struct bpfcg *b, uint64_t id)
{
	uint32_t slot = UINT32_MAX;
	int r = bpfcg_track(b, id, &slot);

	if (id_in_hash[id]) {
		/* In the hash: the same slot, another reference. */
		CHECK(r == 1);
		CHECK(slot == id_slot[id]);
		if (r == 1)
			id_refs[id]++;
		return r;
	}
	if (live() == MAX_SLOTS) {
		CHECK(r == -ENOSPC);
		return r;
	}
	CHECK(r == 0);
	if (r != 0)
		return r;
	CHECK(slot < MAX_SLOTS);
	if (slot >= MAX_SLOTS)
		return -ERANGE;
	CHECK(slot_owner[slot] == 0);	/* nobody else's, and not one the
					   kernel may still charge */
	slot_owner[slot] = id;
	id_slot[id] = slot;
	id_refs[id] = 1;
	id_in_hash[id] = 1;
	return 0;
}

static void
untrack(struct bpfcg *b, uint64_t id)
{
	bpfcg_untrack(b, id_slot[id]);
	id_refs[id]--;
}

static void
refresh(struct bpfcg *b)
{
	size_t i, pending = 0;

	for (i = 1; i <= IDS; i++)
		pending += id_in_hash[i] && id_refs[i] == 0;
	CHECK(bpfcg_pending(b) == pending);
	CHECK(bpfcg_refresh(b) == 0);
	CHECK(bpfcg_pending(b) == 0);
	for (i = 1; i <= IDS; i++)
		if (id_in_hash[i] && id_refs[i] == 0) {
			id_in_hash[i] = 0;
			slot_owner[id_slot[i]] = 0;
		}
}

int
main(void)
{
	struct bpfcg *b = NULL;
	struct bpfcg_stats st;
	char why[512];
	uint64_t full;
	size_t round, op, i, n;
	int r;

	if (!bpfcg_built()) {
		printf("SKIP: built without BPF support\n");
		return 77;
	}
	r = bpfcg_open(1, MAX_SLOTS, 0, &b, why, sizeof(why));
	if (r == -EPERM || r == -EACCES) {
		printf("SKIP: cannot load a BPF program here: %s\n", why);
		return 77;
	}
	CHECK(r == 0);
	if (r != 0) {
		fprintf(stderr, "bpfcg_open: %s\n", why);
		return CHECK_DONE();
	}

	/* Churn: ids come, come back, and go, with refreshes between. */
	for (round = 0; round < 60; round++) {
		for (op = 0; op < 400; op++) {
			uint64_t id = 1 + xorshift64(&rng) % IDS;

			if (id_in_hash[id] && id_refs[id] > 0 && xorshift64(&rng) % 2)
				untrack(b, id);
			else
				track(b, id);
		}
		if (round % 3 != 2)
			refresh(b);
	}

	/* Fill every slot, then one more is refused. */
	for (i = 1; i <= IDS; i++)
		while (id_in_hash[i] && id_refs[i] > 0)
			untrack(b, i);
	refresh(b);
	CHECK(live() == 0);
	bpfcg_get_stats(b, &st);
	CHECK(st.entries == 0);
	full = st.full;
	for (i = 1, n = 0; i <= IDS && n < MAX_SLOTS; i++, n++)
		CHECK(track(b, i) == 0);
	CHECK(live() == MAX_SLOTS);
	CHECK(track(b, IDS) == -ENOSPC);
	bpfcg_get_stats(b, &st);
	CHECK(st.entries == MAX_SLOTS);
	CHECK(st.full == full + 1);

	/* Free the even ones; after a refresh their slots are reused. */
	for (i = 2; i <= MAX_SLOTS; i += 2)
		untrack(b, i);
	CHECK(track(b, IDS) == -ENOSPC);	/* not before the refresh */
	refresh(b);
	for (i = 0; i < MAX_SLOTS / 2; i++)
		CHECK(track(b, IDS - i) == 0);
	CHECK(live() == MAX_SLOTS);
	CHECK(track(b, IDS - MAX_SLOTS) == -ENOSPC);

	bpfcg_close(b);
	return CHECK_DONE();
}
