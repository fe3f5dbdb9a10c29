/*
 * testhooks.h - what daemon/ files show the unit tests and nobody else:
 * a look inside an object whose public header has no need of it (which
 * snapshot a scrape holds, how many jobs wait, the failure budget on its
 * own).  The daemon includes it only in the files that define these;
 * a call from anywhere else is a sign the public header lacks something.
 */
#ifndef PMU_TESTHOOKS_H
#define PMU_TESTHOOKS_H

#include <stdint.h>

struct auth;
struct scrape;
struct snapshot;
struct sockaddr;
struct workq;

/* scrape.c: the snapshot sc holds (its reference stays sc's). */
struct snapshot *scrape_snapshot(const struct scrape *sc);

/* workq.c: jobs waiting now (not running). */
unsigned workq_queued(struct workq *q);

/*
 * auth.c: the budget on its own: take a token for client at now_ns (0,
 * or -EAGAIN with *retry_after_s), give one back.
 */
int auth_budget_take(struct auth *a, const struct sockaddr *client,
    uint64_t now_ns, unsigned *retry_after_s);
void auth_budget_refund(struct auth *a, const struct sockaddr *client,
    uint64_t now_ns);

/* auth.c: its bcrypt workers (a test holds them up with a job of its
 * own). */
struct workq *auth_workers(struct auth *a);

#endif
