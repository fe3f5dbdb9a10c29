/*
 * auth.h - HTTP basic auth against the web config's bcrypt users, without
 * ever making a serving thread wait for bcrypt: a success cache, a budget
 * of failed checks per address, and bcrypt on workers in two lanes
 * (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_AUTH_H
#define PMU_AUTH_H

#include <stdint.h>
#include <sys/socket.h>

#include "daemon/http/webconfig.h"
#include "daemon/http/workq.h"
#include "util/logfields.h"

/* Why a request's credentials were refused (the metric's reason label). */
enum auth_reason {
	AUTH_REASON_PASSWORD,		/* a known user, a wrong password */
	AUTH_REASON_USER,		/* no such user */
	AUTH_REASON_THROTTLED,		/* over the budget: not checked */
	AUTH_NR_REASONS,
};

struct auth;

/* One request's check, embedded in the caller's request state. */
struct auth_check {
	struct workq_job job;		/* the queue's */
	struct auth *a;
	char *user, *pass;		/* copies; wiped and freed when done */
	unsigned char digest[32];
	unsigned char client[16];	/* the budget's key */
	int first;			/* for the front lane */
	int known;			/* ...at its front (auth_known.h) */
	int follows;			/* takes the front check's verdict */
	struct auth_check *followers;	/* (the front check's) */
	struct auth_check *next_follower;
	/*
	 * Called once on a worker thread when the check is done: ok is 1
	 * (the credentials are now cached) or 0; -1 when the server is
	 * stopping and the check was cancelled.
	 */
	void (*done)(struct auth_check *c, int ok);
};

enum auth_verdict {
	AUTH_PASS,			/* cached: go on */
	AUTH_MISSING,			/* no credentials: 401, not counted */
	AUTH_THROTTLED,			/* no budget left: 429, counted */
	AUTH_CHECK,			/* auth_submit() it; a token is held */
};

/*
 * Basic auth for w's users.  failures_per_minute 0: no budget.  workers:
 * bcrypt threads (at least 1).  connections: the most the server holds
 * open, each with one request at most waiting for a check (the front
 * lane's room).  0, or -errno.
 */
int auth_new(const struct webcfg *w, unsigned failures_per_minute,
    unsigned workers, unsigned connections, struct auth **out);

/*
 * Judge a request's credentials (user and pass as the client sent them,
 * NULL when absent) from client.  Cheap: a hash and a table lookup.  For
 * AUTH_CHECK, c is filled (copies of the credentials) and must go to
 * auth_submit(); for AUTH_THROTTLED, *retry_after_s says when to try
 * again (a token back, or 1 when the address has its checks in hand or
 * the CPU for failed checks is spent).
 */
enum auth_verdict auth_begin(struct auth *a, struct auth_check *c,
    const char *user, const char *pass, const struct sockaddr *client,
    unsigned *retry_after_s);

/*
 * Queue c (from auth_begin's AUTH_CHECK) for bcrypt, or have it wait for
 * the verdict of the same credentials' check from its address (done may
 * then be called before this returns, on the caller's thread, when that
 * check has just passed); c->done must be set.
 * 0; or -EAGAIN (too many checks waiting: answer 429, counted as
 * throttled) or -ESHUTDOWN, and then c is released (its token given back)
 * and done is never called.
 */
int auth_submit(struct auth *a, struct auth_check *c);

/* Let go of c from auth_begin's AUTH_CHECK without submitting it: its
 * token is given back, its copies wiped.  done is never called. */
void auth_abandon(struct auth_check *c);

/*
 * Keep the addresses whose credentials passed (the last 16) in path
 * across restarts: read now, their first checks then going ahead of
 * every other address's, and written when one is added
 * (auth_known.h).  0, -ENOENT (none yet), or statefile_read()'s error
 * (see statefile_strerror): the set starts empty, and is written there.
 * A failed write is reported through log (NULL: not at all).
 */
int auth_known_file(struct auth *a, const char *path, log_fields_fn log);

/* Refused credentials so far, by reason. */
void auth_failures(struct auth *a, uint64_t out[AUTH_NR_REASONS]);

/* Cancel queued checks (done(c, -1)) and stop the workers; auth_begin and
 * auth_submit keep working (submit then fails).  Idempotent. */
void auth_stop(struct auth *a);

/* Accepts NULL. */
void auth_free(struct auth *a);

/*
 * A client's key, for the budget here and the per-address limits of
 * http.c: an IPv4 address as ::ffff:a.b.c.d (so a v4-mapped IPv6 peer, as
 * a dual-stack socket reports IPv4 clients, is the same client), an IPv6
 * address by its /64, since one host commonly has a whole /64.  Anything
 * else (NULL included) shares the all-zero key.
 */
void auth_client_key(const struct sockaddr *sa, unsigned char key[16]);

/*
 * The credentials of an Authorization header (NULL: none), its scheme
 * "Basic" in any case (RFC 7617): 0 with *user and *pass malloc'ed (both
 * NULL for no header), or -EINVAL (another scheme, bad base64, no ':')
 * or -ENOMEM with both NULL.  auth_parse_free wipes and frees them.
 */
int auth_parse_basic(const char *header, char **user, char **pass);
void auth_parse_free(char **user, char **pass);

#endif
