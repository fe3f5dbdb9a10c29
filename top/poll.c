/*
 * poll.c - one refresh (poll.h): fetch, read, derive, swap.
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <stdio.h>
#include <time.h>

#include "top/poll.h"
#include "util/clock.h"

double
poller_now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

int
poller_refresh(struct poller *p)
{
	struct top_snap *s;
	char *body, err[400];
	size_t len;
	double t = poller_now();

	if (fetch_get(p->fetch, &body, &len, err, sizeof(err)) < 0 ||
	    !(s = top_snap_parse(body, len, t, err, sizeof(err)))) {
		snprintf(p->err, sizeof(p->err), "%s", err);
		p->failing = 1;
		return -1;
	}
	if (p->last && s->h.last_ts > 0 && s->h.last_ts == p->last->h.last_ts) {
		/* The same collection again (top asks more often than the
		 * daemon counts): nothing new to rate. */
		top_snap_free(s);
		p->last_ok = t;
		p->failing = 0;
		return 0;
	}
	top_snap_derive(s, p->last);
	top_snap_free(p->last);
	p->last = s;
	p->last_ok = t;
	p->failing = 0;
	p->err[0] = '\0';
	return 0;
}

void
poller_fini(struct poller *p)
{
	top_snap_free(p->last);
	p->last = NULL;
	fetch_free(p->fetch);
	p->fetch = NULL;
}
