/*
 * share.h - each delegated subtree's share of what one pass opens
 * (share.c; see its header for why there is a share at all).  A pass of
 * the target set (targetset.c) asks it, target by target, whether one
 * may open; the set keeps the last pass's shares, which the snapshot
 * reports.  Collector thread only.
 */
#ifndef PMU_COLLECTOR_SHARE_H
#define PMU_COLLECTOR_SHARE_H

#include <stddef.h>

struct plan;
struct report;
struct target;

/* A delegated subtree's share of what a pass opens: its cgroups counted,
 * and those in the set not counted (for the share, or for want of
 * room). */
struct share {
	char *subtree;			/* its root, from the cgroup root */
	size_t counted, refused;
};

struct shares {
	struct share *v;		/* in the order first met */
	size_t nr;
};

/*
 * shares_begin: every cgroup target of v (the next set) looked up once
 * (is it delegated, and where), its subtree's counted ones counted, its
 * TARGET_SHARE_REFUSED undone; 0 or -ENOMEM.  shares_admit: 1 when t may be
 * opened, 0 when its subtree has its share or it gave its room up in
 * this pass (TARGET_SHARE_REFUSED).  shares_opened: t was.  shares_evict:
 * the last opened delegated target of v closed for for_whom, which found
 * no room; 1 with the perf fds it held in *fds, 0 when there is none.
 * shares_end: what each subtree of sh has left uncounted in v (the
 * set swapped in), its changes since last (the set's shares until now)
 * said; the number refused for the share alone, which the target set
 * keeps with sh.
 */
int shares_begin(const char *cgroot, struct target *const *v, size_t n,
    struct shares *sh);
int shares_admit(const struct plan *cfg, struct shares *sh,
    struct target *t);
void shares_opened(struct shares *sh, const struct target *t);
int shares_evict(const struct report *rp, struct shares *sh,
    struct target *const *v, size_t n, const struct target *for_whom,
    size_t *fds);
size_t shares_end(const struct report *rp, const struct plan *cfg,
    struct shares *sh, const struct shares *last,
    struct target *const *v, size_t n);
void shares_free(struct shares *sh);

#endif
