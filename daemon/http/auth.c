/*
 * auth.c - basic auth off the serving threads (see auth.h): the success
 * cache and the budget table under one mutex, never held for bcrypt
 * (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "daemon/http/auth.h"
#include "daemon/http/auth_known.h"
#include "util/clock.h"

#define AUTH_CACHE 16			/* credentials that passed */
#define AUTH_CLIENTS 4096		/* addresses in the budget table */
#define AUTH_PROBE 16			/* places an address may take */
#define AUTH_MAX_QUEUED 64		/* checks waiting for a worker */
/* Checks queued or running at once for one address that has failed. */
#define AUTH_MAX_PENDING 2
/* An address is fresh (its checks go first) until it fails, and again
 * this long after its last failure. */
#define AUTH_FRESH_NS (600 * 1000000000ULL)
/* CPU for failed checks from addresses that are not fresh: a bucket of
 * AUTH_CPU_BURST_NS CPU time, refilled at AUTH_CPU_SHARE of one CPU. */
#define AUTH_CPU_BURST_NS 1000000000.0
#define AUTH_CPU_SHARE 0.1

struct bucket {
	unsigned char key[16];
	int used;
	double tokens;
	uint64_t at_ns;			/* when tokens was last brought up */
	uint64_t failed_ns;		/* its last failure; 0: none */
	unsigned pending;		/* its checks queued or running */
	struct auth_check *front;	/* its check in the front lane */
};

struct auth {
	const struct webcfg *w;
	struct workq *workers;
	pthread_mutex_t lock;		/* the cache and the budget */
	unsigned char cache[AUTH_CACHE][32];
	int cache_used[AUTH_CACHE];
	unsigned cache_next;
	double cap;			/* tokens a bucket holds; 0: no budget */
	double per_ns;			/* tokens back per nanosecond */
	uint64_t seed;
	struct bucket *buckets;
	double cpu_ns;			/* CPU left for failed checks */
	uint64_t cpu_at_ns;		/* when cpu_ns was last brought up */
	atomic_uint_fast64_t failures[AUTH_NR_REASONS];
	struct known *known;		/* addresses that passed */
};

void
auth_client_key(const struct sockaddr *sa, unsigned char key[16])
{
	struct sockaddr_in in;
	struct sockaddr_in6 in6;

	memset(key, 0, 16);
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		memcpy(&in, sa, sizeof(in));
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &in.sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(&in6, sa, sizeof(in6));
		memcpy(key, &in6.sin6_addr, IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr) ?
		    16 : 8);
	}
}

/* FNV-1a over the key, from the seed. */
static size_t
key_hash(const struct auth *a, const unsigned char key[16])
{
	uint64_t h = 0xcbf29ce484222325ULL ^ a->seed;
	int i;

	for (i = 0; i < 16; i++) {
		h ^= key[i];
		h *= 0x100000001b3ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

/* A bucket's tokens as of now (not stored). */
static double
refilled(const struct auth *a, const struct bucket *b, uint64_t now)
{
	double t = b->tokens;

	/* Threads read the clock before taking the lock: now may be a
	 * little older than at_ns. */
	if (now > b->at_ns)
		t += (double)(now - b->at_ns) * a->per_ns;
	return t > a->cap ? a->cap : t;
}

/* Has the bucket's address not failed lately?  Its checks go first. */
static int
fresh(const struct bucket *b, uint64_t now)
{
	return b->failed_ns == 0 || now - b->failed_ns >= AUTH_FRESH_NS ||
	    now < b->failed_ns;
}

/* CPU time left for failed checks, brought up to now.  Lock held. */
static double
cpu_left(struct auth *a, uint64_t now)
{
	if (now > a->cpu_at_ns) {
		a->cpu_ns += (double)(now - a->cpu_at_ns) * AUTH_CPU_SHARE;
		a->cpu_at_ns = now;
	}
	if (a->cpu_ns > AUTH_CPU_BURST_NS)
		a->cpu_ns = AUTH_CPU_BURST_NS;
	return a->cpu_ns;
}

/* The client's bucket, brought up to now; created if create.  Lock held. */
static struct bucket *
bucket_find(struct auth *a, const unsigned char key[16], uint64_t now,
    int create)
{
	size_t h = key_hash(a, key), i;
	struct bucket *b, *victim = NULL;
	double best = -1, t;

	for (i = 0; i < AUTH_PROBE; i++) {
		b = &a->buckets[(h + i) & (AUTH_CLIENTS - 1)];
		if (b->used && memcmp(b->key, key, 16) == 0) {
			b->tokens = refilled(a, b, now);
			if (now > b->at_ns)
				b->at_ns = now;
			return b;
		}
		/* The one to give up: unused, else the fullest, one that
		 * failed lately or has a check in hand last. */
		t = b->used ? refilled(a, b, now) : 3 * a->cap + 3;
		if (b->used && b->pending)
			t -= 2 * (a->cap + 1);
		else if (b->used && !fresh(b, now))
			t -= a->cap + 1;
		if (t > best) {
			best = t;
			victim = b;
		}
	}
	if (!create)
		return NULL;
	memcpy(victim->key, key, 16);
	victim->used = 1;
	victim->tokens = a->cap;
	victim->at_ns = now;
	victim->failed_ns = 0;
	victim->pending = 0;
	victim->front = NULL;
	return victim;
}

static int
budget_take(struct auth *a, const unsigned char key[16], uint64_t now,
    unsigned *retry_after_s)
{
	struct bucket *b;
	double wait_s;

	if (a->cap <= 0)
		return 0;
	b = bucket_find(a, key, now, 1);
	if (b->tokens >= 1) {
		b->tokens -= 1;
		return 0;
	}
	/* Less a nanosecond: 6.000000000000001 s is 6 s, not 7. */
	wait_s = (1 - b->tokens) / a->per_ns / 1e9 - 1e-9;
	*retry_after_s = wait_s < 1 ? 1 : (unsigned)ceil(wait_s);
	return -EAGAIN;
}

static void
budget_refund(struct auth *a, const unsigned char key[16], uint64_t now)
{
	struct bucket *b;

	if (a->cap <= 0 || (b = bucket_find(a, key, now, 0)) == NULL)
		return;
	b->tokens = b->tokens + 1 > a->cap ? a->cap : b->tokens + 1;
}

/* Do two digests match?  In a time that does not say where they differ. */
static int
same_digest(const unsigned char x[32], const unsigned char y[32])
{
	unsigned char diff = 0;
	size_t i;

	for (i = 0; i < 32; i++)
		diff |= (unsigned char)(x[i] ^ y[i]);
	return diff == 0;
}

/* Is digest in the cache?  Every entry is compared in full, whatever
 * matches: the time does not depend on where, or whether. Lock held. */
static int
cache_has(const struct auth *a, const unsigned char digest[32])
{
	int hit = 0;
	size_t k;

	for (k = 0; k < AUTH_CACHE; k++)
		hit |= a->cache_used[k] & same_digest(digest, a->cache[k]);
	return hit;
}

/* Wipe and free c's copies of the credentials. */
static void
wipe(struct auth_check *c)
{
	if (c->pass) {
		explicit_bzero(c->pass, strlen(c->pass));
		free(c->pass);
	}
	free(c->user);
	c->user = c->pass = NULL;
	explicit_bzero(c->digest, sizeof(c->digest));
}

/* c's check is over, or will not run: its address's place given back
 * (and its token, if refund; a check that follows another holds
 * neither), the copies wiped. */
static void
release(struct auth_check *c, int refund)
{
	struct auth *a = c->a;
	struct bucket *b;

	pthread_mutex_lock(&a->lock);
	if (!c->follows &&
	    (b = bucket_find(a, c->client, mono_ns(), 0)) != NULL) {
		if (b->front == c)
			b->front = NULL;
		if (b->pending)
			b->pending--;
		if (refund && a->cap > 0)
			b->tokens = b->tokens + 1 > a->cap ? a->cap :
			    b->tokens + 1;
	}
	pthread_mutex_unlock(&a->lock);
	wipe(c);
}

/*
 * May the address of key have a check now (lock held)?  0, with c->first
 * set for an address that has not failed lately and has no check in
 * hand (its check goes ahead of the others), or c->follows for one whose
 * check in the front lane has c's credentials (c takes its verdict); else
 * -EAGAIN: the budget of failures per address (*retry_after_s set), or,
 * with a budget, an address that failed lately has AUTH_MAX_PENDING
 * checks in hand, or the CPU for failed checks is spent (1 s).
 */
static int
admit(struct auth *a, struct auth_check *c, const unsigned char key[16],
    uint64_t now, unsigned *retry_after_s)
{
	struct bucket *b = bucket_find(a, key, now, 1);
	int r;

	c->first = fresh(b, now) && b->pending == 0;
	c->known = c->first && known_has(a->known, key);
	c->follows = !c->first && fresh(b, now) && b->front != NULL &&
	    same_digest(b->front->digest, c->digest);
	if (c->follows)
		return 0;
	if ((r = budget_take(a, key, now, retry_after_s)) < 0)
		return r;
	if (!c->first && a->cap > 0 && (b->pending >= AUTH_MAX_PENDING ||
	    cpu_left(a, now) <= 0)) {
		b->tokens = b->tokens + 1 > a->cap ? a->cap : b->tokens + 1;
		*retry_after_s = 1;
		return -EAGAIN;
	}
	b->pending++;
	return 0;
}

enum auth_verdict
auth_begin(struct auth *a, struct auth_check *c, const char *user,
    const char *pass, const struct sockaddr *client, unsigned *retry_after_s)
{
	unsigned char key[16];
	char *both;
	size_t ul, pl;
	int hit, r = 0;

	if (user == NULL || pass == NULL)
		return AUTH_MISSING;
	ul = strlen(user);
	pl = strlen(pass);
	if ((both = malloc(ul + pl + 2)) == NULL)
		goto busy;
	memcpy(both, user, ul + 1);
	memcpy(both + ul + 1, pass, pl + 1);
	r = gnutls_hash_fast(GNUTLS_DIG_SHA256, both, ul + pl + 2, c->digest);
	explicit_bzero(both, ul + pl + 2);
	free(both);
	if (r < 0)
		goto busy;
	auth_client_key(client, key);
	pthread_mutex_lock(&a->lock);
	if ((hit = cache_has(a, c->digest)) == 0)
		r = admit(a, c, key, mono_ns(), retry_after_s);
	pthread_mutex_unlock(&a->lock);
	if (hit) {
		explicit_bzero(c->digest, sizeof(c->digest));
		return AUTH_PASS;
	}
	if (r < 0) {
		atomic_fetch_add(&a->failures[AUTH_REASON_THROTTLED], 1);
		explicit_bzero(c->digest, sizeof(c->digest));
		return AUTH_THROTTLED;
	}
	c->a = a;
	memcpy(c->client, key, sizeof(key));
	c->user = strdup(user);
	c->pass = strdup(pass);
	if (c->user == NULL || c->pass == NULL) {
		release(c, 1);
		goto busy;
	}
	return AUTH_CHECK;
busy:
	/* Out of memory: no check now, try again in a second. */
	*retry_after_s = 1;
	atomic_fetch_add(&a->failures[AUTH_REASON_THROTTLED], 1);
	return AUTH_THROTTLED;
}

static int
user_exists(const struct webcfg *w, const char *user)
{
	size_t i;
	int found = 0;

	for (i = 0; i < w->nr_users; i++)
		found |= strcmp(w->users[i].name, user) == 0;
	return found;
}

/* This thread's CPU time so far, in ns. */
static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A check from the address of key failed, costing cpu_ns: the address
 * is no longer fresh, and the CPU for failed checks pays for it. */
static void
failed(struct auth *a, const unsigned char key[16], uint64_t cpu_ns)
{
	uint64_t now = mono_ns();
	struct bucket *b;

	pthread_mutex_lock(&a->lock);
	if ((b = bucket_find(a, key, now, 0)) != NULL)
		b->failed_ns = now ? now : 1;
	cpu_left(a, now);
	a->cpu_ns -= (double)cpu_ns;
	pthread_mutex_unlock(&a->lock);
}

/* Count a refusal of c's credentials by why they were wrong. */
static void
count_wrong(struct auth *a, const struct auth_check *c)
{
	atomic_fetch_add(&a->failures[user_exists(a->w, c->user) ?
	    AUTH_REASON_PASSWORD : AUTH_REASON_USER], 1);
}

/* The front-lane check c is over with ok (1, 0, or -1: not made): the
 * checks that follow it take its verdict.  Lock not held. */
static void
lead_done(struct auth *a, struct auth_check *c, int ok)
{
	struct auth_check *f, *next;

	pthread_mutex_lock(&a->lock);
	f = c->followers;
	c->followers = NULL;
	pthread_mutex_unlock(&a->lock);
	for (; f != NULL; f = next) {
		next = f->next_follower;
		if (ok == 0)
			count_wrong(a, f);
		release(f, 0);
		f->done(f, ok);		/* may free f */
	}
}

static void
check_run(struct workq_job *job, int cancelled)
{
	struct auth_check *c = (struct auth_check *)((char *)job -
	    offsetof(struct auth_check, job));
	struct auth *a = c->a;
	uint64_t cpu0;
	int ok;

	if (cancelled) {
		release(c, 1);
		lead_done(a, c, -1);
		c->done(c, -1);
		return;
	}
	cpu0 = thread_cpu_ns();
	ok = webcfg_check_password(a->w, c->user, c->pass);
	if (!ok)
		failed(a, c->client, thread_cpu_ns() - cpu0);
	if (ok) {
		pthread_mutex_lock(&a->lock);
		if (!cache_has(a, c->digest)) {
			memcpy(a->cache[a->cache_next], c->digest, 32);
			a->cache_used[a->cache_next] = 1;
			a->cache_next = (a->cache_next + 1) % AUTH_CACHE;
		}
		/* A right password costs no budget. */
		budget_refund(a, c->client, mono_ns());
		pthread_mutex_unlock(&a->lock);
		known_add(a->known, c->client);
	} else
		count_wrong(a, c);
	release(c, 0);		/* no more followers from here */
	lead_done(a, c, ok);
	c->done(c, ok);		/* may free c: the last use */
}

/* c follows a front-lane check with its credentials: 0, c will have its
 * verdict (or has: it passed since); 1, the check is over and its verdict
 * gone (failed, or out of the cache): c is admitted for a check of its
 * own; -EAGAIN, c could not be (counted). */
static int
follow(struct auth *a, struct auth_check *c)
{
	unsigned retry_s;
	struct bucket *b;
	uint64_t now = mono_ns();
	int hit = 0, r = 0, led = 0;

	pthread_mutex_lock(&a->lock);
	b = bucket_find(a, c->client, now, 0);
	if (b != NULL && b->front != NULL &&
	    same_digest(b->front->digest, c->digest)) {
		c->next_follower = b->front->followers;
		b->front->followers = c;
		led = 1;
	} else if ((hit = cache_has(a, c->digest)) == 0)
		r = admit(a, c, c->client, now, &retry_s);
	pthread_mutex_unlock(&a->lock);
	if (led)
		return 0;
	if (hit) {
		wipe(c);
		c->done(c, 1);
		return 0;
	}
	if (r < 0) {
		atomic_fetch_add(&a->failures[AUTH_REASON_THROTTLED], 1);
		wipe(c);
		return r;
	}
	return 1;	/* its own check (admit saw no other lead here) */
}

int
auth_submit(struct auth *a, struct auth_check *c)
{
	struct bucket *b;
	int r;

	c->job.run = check_run;
	c->followers = NULL;
	if (c->follows && (r = follow(a, c)) <= 0)
		return r;
	if (c->first) {
		/* Before the queue: its worker may be done at once. */
		pthread_mutex_lock(&a->lock);
		if ((b = bucket_find(a, c->client, mono_ns(), 0)) != NULL &&
		    b->front == NULL)
			b->front = c;
		pthread_mutex_unlock(&a->lock);
	}
	if ((r = c->known ? workq_submit_front(a->workers, &c->job) :
	    c->first ? workq_submit_first(a->workers, &c->job) :
	    workq_submit(a->workers, &c->job)) < 0) {
		if (r == -EAGAIN)
			atomic_fetch_add(&a->failures[AUTH_REASON_THROTTLED],
			    1);
		release(c, 1);
		lead_done(a, c, -1);
	}
	return r;
}

void
auth_abandon(struct auth_check *c)
{
	release(c, 1);
}

void
auth_failures(struct auth *a, uint64_t out[AUTH_NR_REASONS])
{
	int i;

	for (i = 0; i < AUTH_NR_REASONS; i++)
		out[i] = atomic_load(&a->failures[i]);
}

int
auth_new(const struct webcfg *w, unsigned failures_per_minute,
    unsigned workers, unsigned connections, struct auth **out)
{
	struct auth *a;
	int r, i;

	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    (a->buckets = calloc(AUTH_CLIENTS, sizeof(*a->buckets))) == NULL) {
		free(a);
		return -ENOMEM;
	}
	pthread_mutex_init(&a->lock, NULL);
	for (i = 0; i < AUTH_NR_REASONS; i++)
		atomic_init(&a->failures[i], 0);
	a->w = w;
	a->cpu_ns = AUTH_CPU_BURST_NS;
	a->cpu_at_ns = mono_ns();
	a->cap = failures_per_minute;
	a->per_ns = failures_per_minute / 60e9;
	if (getrandom(&a->seed, sizeof(a->seed), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(a->seed))
		a->seed = mono_ns() ^ (uint64_t)(uintptr_t)a;
	/* Lowered priority: an attacker's bcrypt yields to scrapes. */
	if ((r = known_new(&a->known)) < 0 || (r = workq_new("pmu-auth", workers ? workers : 1,
	    AUTH_MAX_QUEUED, connections, 10, &a->workers)) < 0) {
		auth_free(a);
		return r;
	}
	*out = a;
	return 0;
}

int
auth_known_file(struct auth *a, const char *path, log_fields_fn log)
{
	return known_keep(a->known, path, log);
}

void
auth_stop(struct auth *a)
{
	if (a && a->workers)
		workq_stop(a->workers);
}

/*
 * RFC 7617: the scheme is case-insensitive ("basic" and "BASIC" are
 * "Basic"), so the header is read here rather than by libmicrohttpd,
 * whose reader wanted "Basic " exactly.
 */
int
auth_parse_basic(const char *header, char **user, char **pass)
{
	gnutls_datum_t in, out = { NULL, 0 };
	const char *p = header;
	char *colon;
	int r = -EINVAL;

	*user = *pass = NULL;
	if (header == NULL)
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncasecmp(p, "basic", 5) != 0 || (p[5] != ' ' && p[5] != '\t'))
		return -EINVAL;
	for (p += 5; *p == ' ' || *p == '\t'; p++)
		;
	in.data = (unsigned char *)p;
	in.size = (unsigned)strcspn(p, " \t");
	if (gnutls_base64_decode2(&in, &out) < 0)
		return -EINVAL;
	if (memchr(out.data, '\0', out.size) == NULL &&
	    (colon = memchr(out.data, ':', out.size)) != NULL) {
		r = -ENOMEM;
		*user = strndup((char *)out.data, (size_t)(colon -
		    (char *)out.data));
		*pass = strndup(colon + 1, out.size - (size_t)(colon + 1 -
		    (char *)out.data));
		if (*user && *pass)
			r = 0;
	}
	explicit_bzero(out.data, out.size);
	gnutls_free(out.data);
	if (r < 0)
		auth_parse_free(user, pass);
	return r;
}

void
auth_parse_free(char **user, char **pass)
{
	if (*pass)
		explicit_bzero(*pass, strlen(*pass));
	free(*pass);
	free(*user);
	*user = *pass = NULL;
}

void
auth_free(struct auth *a)
{
	if (a == NULL)
		return;
	workq_free(a->workers);
	known_free(a->known);
	explicit_bzero(a->cache, sizeof(a->cache));
	pthread_mutex_destroy(&a->lock);
	free(a->buckets);
	free(a);
}
