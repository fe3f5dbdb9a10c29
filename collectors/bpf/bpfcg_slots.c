/*
 * bpfcg_slots.c - the BPF cgroup counter's slots, one per tracked cgroup, and
 * the one read of its maps at each refresh (bpfcg_slots.h).
 * Design: docs/architecture.md, "collectors/bpf/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpfcg_int.h"
#include "collectors/bpf/bpfcg_slots.h"

/*
 * The slots of the cgroups in the kernel's hash (tracked, or untracked
 * and not yet deleted), by cgid: open addressing with linear probing at
 * most half full, so that a reload of 10,000 cgroups finds each in a
 * probe or two instead of a scan of every slot.
 */
static size_t
index_home(const struct bpfcg *b, uint64_t cgid)
{
	return (size_t)((cgid * 0x9e3779b97f4a7c15ULL) >> 32) & b->index_mask;
}

static uint32_t *
index_find(const struct bpfcg *b, uint64_t cgid)
{
	size_t h;

	for (h = index_home(b, cgid); b->index[h]; h = (h + 1) & b->index_mask)
		if (b->slot[b->index[h] - 1].cgid == cgid)
			return &b->index[h];
	return NULL;
}

static void
index_add(struct bpfcg *b, uint32_t slot)
{
	size_t h = index_home(b, b->slot[slot].cgid);

	while (b->index[h])
		h = (h + 1) & b->index_mask;
	b->index[h] = slot + 1;
}

/* Remove the entry at e, moving later entries of its run back. */
static void
index_remove(struct bpfcg *b, uint32_t *e)
{
	size_t i = (size_t)(e - b->index), j = i, home;

	for (;;) {
		b->index[i] = 0;
		for (;;) {
			j = (j + 1) & b->index_mask;
			if (b->index[j] == 0)
				return;
			home = index_home(b, b->slot[b->index[j] - 1].cgid);
			/* May the entry at j move to i: is home outside
			 * the cyclic range (i, j]? */
			if (i <= j ? (home <= i || home > j) :
			    (home <= i && home > j))
				break;
		}
		b->index[i] = b->index[j];
		i = j;
	}
}

int
bpfcg_track(struct bpfcg *b, uint64_t cgid, uint32_t *slot)
{
	size_t i, e, pick = b->max_slots;
	uint32_t *found;
	__u32 key, val;

	if ((found = index_find(b, cgid)) != NULL) {
		/* Tracked, or freed but still in the hash: its counts go
		 * on; the caller takes them as they are now. */
		i = *found - 1;
		if (b->slot[i].refs++ == 0) {
			b->slot[i].pending = 0;
			b->entries++;
		}
		*slot = (uint32_t)i;
		return 1;
	}
	for (i = b->free_from; i < b->hi && pick == b->max_slots; i++)
		if (b->slot[i].refs == 0 && !b->slot[i].pending &&
		    b->slot[i].freed_gen < b->gen)
			pick = i;
	b->free_from = i;
	if (pick == b->max_slots && b->hi < b->max_slots)
		pick = b->hi;
	if (pick == b->max_slots) {
		b->full++;
		return -ENOSPC;
	}
	for (e = 0; e < b->nr_events; e++) {
		key = (__u32)(pick * b->nr_events + e);
		if (bpf_map_update_elem(bpf_map__fd(b->counts),
		    &key, b->zero, BPF_ANY) < 0)
			goto fail;
	}
	val = (__u32)pick;
	/* No path cached before this change names the slot's last owner
	 * (before), and none walked before it lacks the new one (after). */
	bpfcg_paths_stale(b);
	if (bpf_map_update_elem(bpf_map__fd(b->slots), &cgid, &val,
	    BPF_NOEXIST) < 0)
		goto fail;
	bpfcg_paths_stale(b);
	b->slot[pick].cgid = cgid;
	b->slot[pick].refs = 1;
	index_add(b, (uint32_t)pick);
	if (pick == b->hi)
		b->hi++;
	b->entries++;
	*slot = (uint32_t)pick;
	return 0;
fail:
	e = (size_t)errno;
	if (pick < b->free_from)
		b->free_from = pick;	/* still free */
	return e == E2BIG ? -ENOSPC : -(int)e;
}

void
bpfcg_untrack(struct bpfcg *b, uint32_t slot)
{
	struct bpfslot *s;

	if (b == NULL || slot >= b->hi || b->slot[slot].refs == 0)
		return;
	s = &b->slot[slot];
	if (--s->refs > 0)
		return;
	s->pending = 1;			/* deleted at the next refresh */
	b->entries--;
}

/* Freed slots still in the hash or not yet past a refresh. */
size_t
bpfcg_pending(const struct bpfcg *b)
{
	size_t i, n = 0;

	for (i = 0; b && i < b->hi; i++)
		n += b->slot[i].refs == 0 && (b->slot[i].pending ||
		    b->slot[i].freed_gen >= b->gen);
	return n;
}

/* Read keys [0, n) of the per-CPU counts map into b->vals. */
static int
fetch_counts(struct bpfcg *b, size_t n)
{
	int fd = bpf_map__fd(b->counts), r;
	size_t stride = (size_t)b->ncpus, i;
	__u32 count = (__u32)n, out_batch;

	if (n > b->vals_keys) {
		struct cgc_value *v = realloc(b->vals, n * stride * sizeof(*v));
		__u32 *k = realloc(b->keys, n * sizeof(*k));

		if (v)
			b->vals = v;
		if (k)
			b->keys = k;
		if (!v || !k)
			return -ENOMEM;
		b->vals_keys = n;
	}
	if (n == 0) {
		b->vals_valid = 0;
		return 0;
	}
	r = bpf_map_lookup_batch(fd, NULL, &out_batch, b->keys, b->vals,
	    &count, NULL);
	if (r == 0 || (r < 0 && errno == ENOENT && count == n)) {
		/* A batch fills keys in order from 0 for an array. */
		b->vals_valid = count;
		return 0;
	}
	/* Kernels before 5.6 have no batch: one lookup a key. */
	for (i = 0; i < n; i++) {
		__u32 key = (__u32)i;

		if (bpf_map_lookup_elem(fd, &key, b->vals + i * stride) < 0)
			return -errno;
	}
	b->vals_valid = n;
	return 0;
}

int
bpfcg_refresh(struct bpfcg *b)
{
	struct bpfcg_stats st = { 0 };
	__u32 zero = 0;
	uint32_t *e;
	size_t i;
	int r, c;

	for (i = 0; i < b->hi; i++)
		if (b->slot[i].pending) {
			bpf_map_delete_elem(bpf_map__fd(b->slots),
			    &b->slot[i].cgid);
			if ((e = index_find(b, b->slot[i].cgid)) != NULL)
				index_remove(b, e);
			b->slot[i].pending = 0;
			b->slot[i].freed_gen = b->gen;
			if (i < b->free_from)
				b->free_from = i;
		}
	/* No cached path names a deleted slot after this; and each
	 * refresh bounds how long any cached path can be stale. */
	bpfcg_paths_stale(b);
	/* Also the barrier for the deletes above. */
	for (i = 0; i < b->nr_trig; i++)
		bpfcg_run_on(b, b->trig_cpu[i]);	/* -ENXIO: went offline */
	b->gen++;
	/* Freed slots at the top are not read any more. */
	while (b->hi > 0 && b->slot[b->hi - 1].refs == 0 &&
	    !b->slot[b->hi - 1].pending)
		b->hi--;
	if (b->free_from > b->hi)
		b->free_from = b->hi;
	if ((r = fetch_counts(b, b->hi * b->nr_events)) < 0) {
		b->stale = 1;
		return r;
	}
	b->stale = 0;
	if (bpf_map_lookup_elem(bpf_map__fd(b->state), &zero,
	    b->cpu_state) == 0)
		for (c = 0; c < b->ncpus; c++) {
			const __u64 *s = b->cpu_state[c].stat;

			st.runs += s[CGC_STAT_RUNS];
			st.switch_runs += s[CGC_STAT_SWITCH_RUNS];
			st.read_errors += s[CGC_STAT_READ_ERRORS];
			st.charges += s[CGC_STAT_CHARGES];
			st.unseen += s[CGC_STAT_UNSEEN];
			for (i = 0; i < CGC_CHANGE_NR; i++) {
				st.lag_ns[i] += s[CGC_STAT_LAG_NS + i];
				st.lag_n[i] += s[CGC_STAT_LAG_N + i];
			}
		}
	for (i = 0; b->cgfd && i < b->nr_trig; i++) {
		uint64_t n;

		if (b->cglink[i] && read(b->cgfd[i], &n, sizeof(n)) ==
		    (ssize_t)sizeof(n))
			st.switches += n;
	}
	/* The kernel's own count of runs its recursion guard skipped. */
	{
		struct bpf_prog_info info;
		__u32 ilen = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(b->on_switch),
		    &info, &ilen) == 0)
			st.prog_misses = info.recursion_misses;
	}
	st.trigger = b->trigger;
	st.lag = b->lag;
	st.full = b->full;
	st.entries = b->entries;
	st.capacity = b->max_slots;
	b->st = st;
	return 0;
}

int
bpfcg_read(const struct bpfcg *b, uint32_t slot, size_t ev, int cpu,
    struct count *out)
{
	size_t key = (size_t)slot * b->nr_events + ev;
	const struct cgc_value *v;

	memset(out, 0, sizeof(*out));
	if (b->stale)
		return -EAGAIN;
	if (key >= b->vals_valid || cpu < 0 || cpu >= b->ncpus ||
	    ev >= b->nr_events)
		return 0;
	v = &b->vals[key * (size_t)b->ncpus + (size_t)cpu];
	out->value = v->counter;
	out->enabled = v->enabled;
	out->running = v->running;
	return 0;
}
