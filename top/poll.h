/*
 * poll.h - top's refresh: a page fetched, read and derived against the last
 * good one, which it replaces; a failed one keeps it.
 * Design: docs/top.md, "How it is built".
 */
#ifndef PMU_TOP_POLL_H
#define PMU_TOP_POLL_H

#include "top/fetch.h"
#include "top/model.h"

struct poller {
	struct fetch *fetch;
	struct top_snap *last;	/* the last good page, or NULL */
	double last_ok;		/* when it came (monotonic s) */
	int failing;		/* the last refresh failed: err says why */
	char err[512];
};

/* 0: p->last is a new page; -1: p->err says what failed. */
int poller_refresh(struct poller *p);

void poller_fini(struct poller *p);

/* The monotonic clock in seconds. */
double poller_now(void);

#endif
