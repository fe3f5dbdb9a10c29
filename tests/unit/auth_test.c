/*
 * auth_test.c - basic auth's parts without a server: the budget of
 * failed checks (token bucket arithmetic on a fake clock, which addresses
 * share a bucket), the success cache (it admits exactly the pair that
 * passed: not another password, not another user, not the same bytes
 * split differently between user and password), the failure counts by
 * reason, and the worker queue (jobs run; stopping cancels what waits and
 * refunds its token; a stopped queue refuses work), and the
 * Authorization header read with its scheme in any case (RFC 7617).
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/http/webconfig.h"
/* The files under test, for a look inside the budget and the queues
 * (chrony's way): the product build has no hook of this test's. */
#include "daemon/http/auth.c"
#include "daemon/http/workq.c"
#include "tests/lib/check.h"

/* The budget on its own: take a token for client at now_ns (0, or
 * -EAGAIN with *retry_after_s), give one back. */
static int
auth_budget_take(struct auth *a, const struct sockaddr *client,
    uint64_t now_ns, unsigned *retry_after_s)
{
	unsigned char key[16];
	int r;

	auth_client_key(client, key);
	pthread_mutex_lock(&a->lock);
	r = budget_take(a, key, now_ns, retry_after_s);
	pthread_mutex_unlock(&a->lock);
	return r;
}

static void
auth_budget_refund(struct auth *a, const struct sockaddr *client,
    uint64_t now_ns)
{
	unsigned char key[16];

	auth_client_key(client, key);
	pthread_mutex_lock(&a->lock);
	budget_refund(a, key, now_ns);
	pthread_mutex_unlock(&a->lock);
}

/* Its bcrypt workers (a test holds them up with a job of its own). */
static struct workq *
auth_workers(struct auth *a)
{
	return a->workers;
}

/* Jobs waiting now (not running). */
static unsigned
workq_queued(struct workq *q)
{
	unsigned n;

	pthread_mutex_lock(&q->lock);
	n = q->queued[0] + q->queued[1];
	pthread_mutex_unlock(&q->lock);
	return n;
}

/* htpasswd -nbBC 4: cheap bcrypt, the same code path as cost 10. */
#define HASH_PROM "$2y$04$MuSQlagd/ARit0Rormhef.wL9m0H4m03J0mdOJ3VfXdVRIrxzC3TS"
#define HASH_AB "$2y$04$ODFFuH1Fl2EYfHS1Qcc8iu18hPwuCreHEjw0ctKbK3jtqH5odx.TO"
#define HASH_OTHER "$2y$04$aiRftNGO.etBdszNpQoc1.mo90mtVX5tbAXyYNE5H.xEMO4j8nUH6"

#define SEC 1000000000ULL

static struct sockaddr_storage
addr(const char *text)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1)
		in->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1)
		in6->sin6_family = AF_INET6;
	return ss;
}

static struct webcfg *
users(void)
{
	static const char yaml[] = "basic_auth_users:\n"
	    "  prom: " HASH_PROM "\n  ab: " HASH_AB "\n"
	    "  other: " HASH_OTHER "\n";
	struct webcfg *w = NULL;
	char err[512];

	if (webcfg_parse("web.yml", NULL, yaml, strlen(yaml), &w, err,
	    sizeof(err)) < 0)
		fprintf(stderr, "%s\n", err);
	return w;
}

/* Take n tokens for client at t; how many were granted. */
static int
take_n(struct auth *a, const char *client, int n, uint64_t t,
    unsigned *retry)
{
	struct sockaddr_storage ss = addr(client);
	int i, got = 0;

	for (i = 0; i < n; i++)
		got += auth_budget_take(a, (struct sockaddr *)&ss, t,
		    retry) == 0;
	return got;
}

static void
test_budget(struct webcfg *w)
{
	struct auth *a = NULL;
	struct sockaddr_storage ss;
	unsigned retry = 0;
	uint64_t t0 = 1000 * SEC;

	CHECK(auth_new(w, 10, 1, 64, &a) == 0);
	if (a == NULL)
		return;
	/* A burst of 10, then nothing; one back every 6 s (10 a minute). */
	CHECK(take_n(a, "192.0.2.1", 10, t0, &retry) == 10);
	CHECK(take_n(a, "192.0.2.1", 1, t0, &retry) == 0);
	CHECK(retry == 6);
	CHECK(take_n(a, "192.0.2.1", 1, t0 + 3 * SEC, &retry) == 0);
	CHECK(retry == 3);
	CHECK(take_n(a, "192.0.2.1", 2, t0 + 6 * SEC + 1000, &retry) == 1);
	/* A minute later the bucket is full again, and holds no more. */
	CHECK(take_n(a, "192.0.2.1", 12, t0 + 600 * SEC, &retry) == 10);
	/* A refund gives one back. */
	ss = addr("192.0.2.1");
	auth_budget_refund(a, (struct sockaddr *)&ss, t0 + 600 * SEC);
	CHECK(take_n(a, "192.0.2.1", 2, t0 + 600 * SEC, &retry) == 1);

	/* Other addresses have budgets of their own... */
	CHECK(take_n(a, "192.0.2.2", 10, t0 + 600 * SEC, &retry) == 10);
	/* ...but a dual-stack socket's v4-mapped peer is that IPv4 one. */
	CHECK(take_n(a, "::ffff:192.0.2.2", 1, t0 + 600 * SEC, &retry) == 0);
	CHECK(take_n(a, "::ffff:192.0.2.3", 1, t0 + 600 * SEC, &retry) == 1);
	/* IPv6 by /64: a host changing its interface id is the same. */
	CHECK(take_n(a, "2001:db8:0:1::1", 10, t0, &retry) == 10);
	CHECK(take_n(a, "2001:db8:0:1:ffff::2", 1, t0, &retry) == 0);
	CHECK(take_n(a, "2001:db8:0:2::1", 1, t0, &retry) == 1);
	auth_free(a);

	/* No budget: never throttled. */
	CHECK(auth_new(w, 0, 1, 64, &a) == 0);
	if (a) {
		CHECK(take_n(a, "192.0.2.1", 1000, t0, &retry) == 1000);
		auth_free(a);
	}
}

/* A check run to its end on the workers: done's verdict. */
struct waiter {
	struct auth_check c;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, ok;
	int seq;			/* its place among the verdicts */
};

static int verdicts;

static void
on_done(struct auth_check *c, int ok)
{
	struct waiter *wt = (struct waiter *)c;

	pthread_mutex_lock(&wt->lock);
	wt->ok = ok;
	wt->seq = __atomic_add_fetch(&verdicts, 1, __ATOMIC_SEQ_CST);
	wt->done = 1;
	pthread_cond_signal(&wt->cond);
	pthread_mutex_unlock(&wt->lock);
}

/* Judge user:pass from client; for AUTH_CHECK run it and return
 * 10 + done's verdict. */
static int
judge(struct auth *a, const char *user, const char *pass,
    const char *client, unsigned *retry)
{
	struct sockaddr_storage ss = addr(client);
	struct waiter wt;
	enum auth_verdict v;
	int ok;

	memset(&wt, 0, sizeof(wt));
	pthread_mutex_init(&wt.lock, NULL);
	pthread_cond_init(&wt.cond, NULL);
	v = auth_begin(a, &wt.c, user, pass, (struct sockaddr *)&ss, retry);
	if (v != AUTH_CHECK)
		return (int)v;
	wt.c.done = on_done;
	if (auth_submit(a, &wt.c) < 0)
		return -1;
	pthread_mutex_lock(&wt.lock);
	while (!wt.done)
		pthread_cond_wait(&wt.cond, &wt.lock);
	ok = wt.ok;
	pthread_mutex_unlock(&wt.lock);
	pthread_cond_destroy(&wt.cond);
	pthread_mutex_destroy(&wt.lock);
	return 10 + ok;
}

static void
test_cache(struct webcfg *w)
{
	struct auth *a = NULL;
	uint64_t f[AUTH_NR_REASONS];
	unsigned retry = 0;

	CHECK(auth_new(w, 100, 2, 64, &a) == 0);
	if (a == NULL)
		return;
	CHECK(judge(a, NULL, NULL, "192.0.2.9", &retry) == AUTH_MISSING);
	CHECK(judge(a, "prom", NULL, "192.0.2.9", &retry) == AUTH_MISSING);
	/* First time: bcrypt.  Then cached. */
	CHECK(judge(a, "prom", "right pass", "192.0.2.9", &retry) == 11);
	CHECK(judge(a, "prom", "right pass", "192.0.2.9", &retry) ==
	    AUTH_PASS);
	CHECK(judge(a, "prom", "right pass", "198.51.100.1", &retry) ==
	    AUTH_PASS);
	/* The cached pair admits nothing else: each of these is checked
	 * with bcrypt, and fails. */
	CHECK(judge(a, "prom", "wrong", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "prom", "right pass ", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "prom", "right pas", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "prom", "", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "other", "right pass", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "Prom", "right pass", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "nobody", "right pass", "192.0.2.9", &retry) == 10);
	/* The same bytes split otherwise between user and password: "ab"
	 * with "c" passes and is cached; "a" with "bc" is not admitted. */
	CHECK(judge(a, "ab", "c", "192.0.2.9", &retry) == 11);
	CHECK(judge(a, "a", "bc", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "abc", "", "192.0.2.9", &retry) == 10);
	/* Another user's right password passes on its own merit. */
	CHECK(judge(a, "other", "xyzzy", "192.0.2.9", &retry) == 11);
	CHECK(judge(a, "other", "xyzzy", "192.0.2.9", &retry) == AUTH_PASS);
	/* Counted: 5 wrong passwords of known users, 4 unknown users
	 * ("Prom", "nobody", "a", "abc"); missing credentials are not. */
	auth_failures(a, f);
	CHECK(f[AUTH_REASON_PASSWORD] == 5);
	CHECK(f[AUTH_REASON_USER] == 4);
	CHECK(f[AUTH_REASON_THROTTLED] == 0);
	auth_free(a);

	/* A budget of 2: the third wrong password is not checked, but the
	 * cached pair still passes from that address, and an uncached
	 * right password from another address is checked. */
	CHECK(auth_new(w, 2, 1, 64, &a) == 0);
	if (a == NULL)
		return;
	CHECK(judge(a, "prom", "right pass", "192.0.2.9", &retry) == 11);
	CHECK(judge(a, "prom", "wrong1", "203.0.113.5", &retry) == 10);
	CHECK(judge(a, "prom", "wrong2", "203.0.113.5", &retry) == 10);
	retry = 0;
	CHECK(judge(a, "prom", "wrong3", "203.0.113.5", &retry) ==
	    AUTH_THROTTLED);
	CHECK(retry >= 1 && retry <= 30);
	CHECK(judge(a, "other", "xyzzy", "203.0.113.5", &retry) ==
	    AUTH_THROTTLED);
	CHECK(judge(a, "prom", "right pass", "203.0.113.5", &retry) ==
	    AUTH_PASS);
	CHECK(judge(a, "other", "xyzzy", "203.0.113.6", &retry) == 11);
	/* A right password gives its token back: 192.0.2.9 spent none. */
	CHECK(judge(a, "ab", "c", "192.0.2.9", &retry) == 11);
	CHECK(judge(a, "ab", "x", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "ab", "y", "192.0.2.9", &retry) == 10);
	CHECK(judge(a, "ab", "z", "192.0.2.9", &retry) == AUTH_THROTTLED);
	auth_failures(a, f);
	CHECK(f[AUTH_REASON_PASSWORD] == 4);
	CHECK(f[AUTH_REASON_USER] == 0);
	CHECK(f[AUTH_REASON_THROTTLED] == 3);

	/* Stopped: a check can no longer be queued, and its token comes
	 * back (the address can try again once the server runs). */
	auth_stop(a);
	CHECK(judge(a, "prom", "wrong", "198.51.100.7", &retry) == -1);
	CHECK(judge(a, "prom", "wrong", "198.51.100.7", &retry) == -1);
	CHECK(judge(a, "prom", "wrong", "198.51.100.7", &retry) == -1);
	auth_free(a);
}

/* ---- the queue ------------------------------------------------------ */

struct job {
	struct workq_job j;
	int ran, cancelled;
	pthread_mutex_t *gate;		/* held by the test: the job waits */
};

static void
job_run(struct workq_job *j, int cancelled)
{
	struct job *job = (struct job *)j;

	if (cancelled) {
		__atomic_store_n(&job->cancelled, 1, __ATOMIC_RELEASE);
		return;
	}
	if (job->gate) {
		pthread_mutex_lock(job->gate);
		pthread_mutex_unlock(job->gate);
	}
	__atomic_store_n(&job->ran, 1, __ATOMIC_RELEASE);
}

static int
ran(struct job *j)
{
	return __atomic_load_n(&j->ran, __ATOMIC_ACQUIRE);
}

struct stopper {
	struct workq *q;
	int done;
};

static void *
stop_main(void *arg)
{
	struct stopper *s = arg;

	workq_stop(s->q);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
test_workq(void)
{
	static struct job jobs[20];
	pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
	struct stopper st;
	struct workq *q = NULL;
	pthread_t t;
	int i, n, cancelled = 0;

	/* Everything queued runs, once. */
	CHECK(workq_new("test", 3, 20, 20, 0, &q) == 0);
	for (i = 0; i < 20; i++) {
		jobs[i].j.run = job_run;
		CHECK(workq_submit(q, &jobs[i].j) == 0);
	}
	for (n = 0; n < 10000; n++) {
		for (i = 0; i < 20 && ran(&jobs[i]); i++)
			;
		if (i == 20)
			break;
		usleep(1000);
	}
	CHECK(i == 20);
	workq_free(q);
	for (i = 0; i < 20; i++)
		CHECK(!jobs[i].cancelled);

	/* One worker held up: the queue fills to its bound; stopping
	 * cancels what waits and waits for what runs. */
	memset(jobs, 0, sizeof(jobs));
	CHECK(workq_new("test", 1, 3, 2, 0, &q) == 0);
	pthread_mutex_lock(&gate);
	jobs[0].j.run = job_run;
	jobs[0].gate = &gate;
	CHECK(workq_submit(q, &jobs[0].j) == 0);
	while (workq_queued(q) != 0)	/* the worker has taken it */
		usleep(1000);
	for (i = 1; i <= 3; i++) {
		jobs[i].j.run = job_run;
		CHECK(workq_submit(q, &jobs[i].j) == 0);
	}
	jobs[4].j.run = job_run;
	CHECK(workq_submit(q, &jobs[4].j) == -EAGAIN);
	/* The front lane has its own room. */
	for (i = 5; i <= 7; i++)
		jobs[i].j.run = job_run;
	CHECK(workq_submit_first(q, &jobs[5].j) == 0);
	CHECK(workq_submit_first(q, &jobs[6].j) == 0);
	CHECK(workq_submit_first(q, &jobs[7].j) == -EAGAIN);
	CHECK(workq_queued(q) == 5);
	st = (struct stopper){ q, 0 };
	CHECK(pthread_create(&t, NULL, stop_main, &st) == 0);
	/* Cancelled at once, while the running job still waits. */
	for (i = 0; i < 10000 && !__atomic_load_n(&jobs[3].cancelled,
	    __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	CHECK(workq_submit(q, &jobs[4].j) == -ESHUTDOWN);
	CHECK(!__atomic_load_n(&st.done, __ATOMIC_ACQUIRE));
	pthread_mutex_unlock(&gate);
	pthread_join(t, NULL);
	CHECK(ran(&jobs[0]) && !jobs[0].cancelled);
	for (i = 1; i <= 6; i++)
		cancelled += jobs[i].cancelled && !ran(&jobs[i]);
	CHECK(cancelled == 5);
	CHECK(!ran(&jobs[4]) && !jobs[4].cancelled);
	CHECK(!ran(&jobs[7]) && !jobs[7].cancelled);
	workq_free(q);
}

/* ---- a check's followers --------------------------------------------- */

/* Begin user:pass from client into wt and submit it, not waiting: the
 * verdict, or AUTH_CHECK once submitted (-1: refused). */
static int
start(struct auth *a, struct waiter *wt, const char *user, const char *pass,
    const char *client)
{
	struct sockaddr_storage ss = addr(client);
	enum auth_verdict v;
	unsigned retry = 0;

	memset(wt, 0, sizeof(*wt));
	pthread_mutex_init(&wt->lock, NULL);
	pthread_cond_init(&wt->cond, NULL);
	v = auth_begin(a, &wt->c, user, pass, (struct sockaddr *)&ss, &retry);
	if (v != AUTH_CHECK)
		return (int)v;
	wt->c.done = on_done;
	return auth_submit(a, &wt->c) < 0 ? -1 : (int)v;
}

/* 10 + wt's verdict, once it has one. */
static int
finish(struct waiter *wt)
{
	int ok;

	pthread_mutex_lock(&wt->lock);
	while (!wt->done)
		pthread_cond_wait(&wt->cond, &wt->lock);
	ok = wt->ok;
	pthread_mutex_unlock(&wt->lock);
	pthread_cond_destroy(&wt->cond);
	pthread_mutex_destroy(&wt->lock);
	return 10 + ok;
}

/* Has wt its verdict yet? */
static int
has_verdict(struct waiter *wt)
{
	int d;

	pthread_mutex_lock(&wt->lock);
	d = wt->done;
	pthread_mutex_unlock(&wt->lock);
	return d;
}

/*
 * A fresh address whose check waits in the front lane (the one worker
 * held up by a job of the test's): its next request with the same
 * credentials takes that check's verdict (before: it went to the other
 * lane, and with that lane full got 429 at once); other credentials
 * from it go to the other lane; one that follows a check already over
 * takes the cache's word, or is checked itself.
 */
static void
test_followers(struct webcfg *w)
{
	static struct waiter lead, f1, f2, other, late;
	pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
	struct job hold = { .j.run = job_run, .gate = &gate };
	uint64_t f[AUTH_NR_REASONS];
	struct auth *a = NULL;
	struct workq *q;

	/* A budget of 2 a minute: the followers take none. */
	CHECK(auth_new(w, 2, 1, 64, &a) == 0);
	if (a == NULL)
		return;
	q = auth_workers(a);
	pthread_mutex_lock(&gate);
	CHECK(workq_submit_first(q, &hold.j) == 0);
	while (workq_queued(q) != 0)	/* the worker has taken it */
		usleep(1000);
	CHECK(start(a, &lead, "prom", "right pass", "192.0.2.20") ==
	    AUTH_CHECK);
	CHECK(start(a, &f1, "prom", "right pass", "192.0.2.20") ==
	    AUTH_CHECK);
	CHECK(start(a, &f2, "prom", "right pass", "192.0.2.20") ==
	    AUTH_CHECK);
	CHECK(start(a, &other, "prom", "wrong", "192.0.2.20") == AUTH_CHECK);
	/* The lead and other queued; the followers wait on the lead. */
	CHECK(workq_queued(q) == 2);
	CHECK(!has_verdict(&f1) && !has_verdict(&f2));
	pthread_mutex_unlock(&gate);
	CHECK(finish(&lead) == 11);
	CHECK(finish(&f1) == 11);
	CHECK(finish(&f2) == 11);
	CHECK(finish(&other) == 10);
	while (!ran(&hold))
		usleep(1000);

	/* Wrong credentials: the followers are refused with the lead, and
	 * each refusal counted. */
	memset(&hold, 0, sizeof(hold));
	hold.j.run = job_run;
	hold.gate = &gate;
	pthread_mutex_lock(&gate);
	CHECK(workq_submit_first(q, &hold.j) == 0);
	while (workq_queued(q) != 0)
		usleep(1000);
	CHECK(start(a, &lead, "other", "wrong", "192.0.2.21") == AUTH_CHECK);
	CHECK(start(a, &f1, "other", "wrong", "192.0.2.21") == AUTH_CHECK);
	CHECK(workq_queued(q) == 1);
	/* Begun behind the lead, submitted after it is over: checked on
	 * its own (the address has failed since: the other lane). */
	memset(&late, 0, sizeof(late));
	pthread_mutex_init(&late.lock, NULL);
	pthread_cond_init(&late.cond, NULL);
	{
		struct sockaddr_storage ss = addr("192.0.2.21");
		unsigned retry = 0;

		CHECK(auth_begin(a, &late.c, "other", "wrong",
		    (struct sockaddr *)&ss, &retry) == AUTH_CHECK);
		CHECK(late.c.follows);
		pthread_mutex_unlock(&gate);
		CHECK(finish(&lead) == 10);
		CHECK(finish(&f1) == 10);
		late.c.done = on_done;
		CHECK(auth_submit(a, &late.c) == 0);
		CHECK(!late.c.follows && !late.c.first);
		CHECK(finish(&late) == 10);
	}
	auth_failures(a, f);
	CHECK(f[AUTH_REASON_PASSWORD] == 4);	/* other, lead, f1, late */
	CHECK(f[AUTH_REASON_THROTTLED] == 0);
	while (!ran(&hold))
		usleep(1000);
	auth_free(a);
}

/*
 * The addresses that passed, kept across a restart: a new auth reads
 * them, and a check from one of them goes ahead of the new addresses'
 * checks queued before it (one worker held up meanwhile); a file that
 * is not the daemon's is refused, the set then empty.
 */
static void
test_known(struct webcfg *w)
{
	static struct waiter known, wrong[3], fresh;
	pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
	struct job hold = { .j.run = job_run, .gate = &gate };
	char dir[] = "/tmp/auth_test.XXXXXX", path[64], cmd[96];
	struct auth *a = NULL;
	unsigned retry = 0;
	struct workq *q;
	int i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/auth.state", dir);
	CHECK(auth_new(w, 10, 1, 64, &a) == 0);
	if (a == NULL)
		return;
	CHECK(auth_known_file(a, path, NULL) == -ENOENT);
	CHECK(judge(a, "prom", "right pass", "192.0.2.40", &retry) == 11);
	auth_free(a);
	CHECK(access(path, R_OK) == 0);

	/* The restart. */
	CHECK(auth_new(w, 10, 1, 64, &a) == 0);
	if (a == NULL)
		return;
	CHECK(auth_known_file(a, path, NULL) == 0);
	q = auth_workers(a);
	pthread_mutex_lock(&gate);
	CHECK(workq_submit_first(q, &hold.j) == 0);
	while (workq_queued(q) != 0)
		usleep(1000);
	for (i = 0; i < 3; i++) {
		char addr_text[32];

		snprintf(addr_text, sizeof(addr_text), "198.51.100.%d", 50 + i);
		CHECK(start(a, &wrong[i], "prom", "wrong", addr_text) ==
		    AUTH_CHECK);
	}
	CHECK(start(a, &fresh, "other", "xyzzy", "198.51.100.60") ==
	    AUTH_CHECK);
	CHECK(start(a, &known, "prom", "right pass", "192.0.2.40") ==
	    AUTH_CHECK);
	CHECK(known.c.known && !fresh.c.known);
	pthread_mutex_unlock(&gate);
	CHECK(finish(&known) == 11);
	for (i = 0; i < 3; i++) {
		CHECK(finish(&wrong[i]) == 10);
		CHECK(known.seq < wrong[i].seq);
	}
	CHECK(finish(&fresh) == 11);
	CHECK(known.seq < fresh.seq);
	while (!ran(&hold))
		usleep(1000);
	auth_free(a);

	/* Not the daemon's file: refused, the set empty. */
	snprintf(cmd, sizeof(cmd), "echo garbage > %s", path);
	CHECK(system(cmd) == 0);
	CHECK(auth_new(w, 10, 1, 64, &a) == 0);
	if (a) {
		CHECK(auth_known_file(a, path, NULL) < 0);
		auth_free(a);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* "prom:right pass" in base64, under schemes in any case. */
static void
test_parse_basic(void)
{
	static const char *const ok[] = { "Basic cHJvbTpyaWdodCBwYXNz",
	    "basic cHJvbTpyaWdodCBwYXNz", "BASIC  cHJvbTpyaWdodCBwYXNz",
	    " bAsIc\tcHJvbTpyaWdodCBwYXNz" };
	static const char *const bad[] = { "Bearer cHJvbTpyaWdodCBwYXNz",
	    "Basicx cHJvbTpyaWdodCBwYXNz", "Basic cHJvbQ==", "Basic !!!!",
	    "Basic" };
	char *user, *pass;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK(auth_parse_basic(ok[i], &user, &pass) == 0);
		CHECK(user && strcmp(user, "prom") == 0);
		CHECK(pass && strcmp(pass, "right pass") == 0);
		auth_parse_free(&user, &pass);
		CHECK(user == NULL && pass == NULL);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(auth_parse_basic(bad[i], &user, &pass) == -EINVAL);
		CHECK(user == NULL && pass == NULL);
	}
	CHECK(auth_parse_basic(NULL, &user, &pass) == 0);
	CHECK(user == NULL && pass == NULL);
}

int
main(void)
{
	struct webcfg *w = users();

	CHECK(w != NULL);
	if (w) {
		test_budget(w);
		test_cache(w);
	}
	test_workq();
	if (w) {
		test_followers(w);
		test_known(w);
	}
	test_parse_basic();
	webcfg_free(w);
	return CHECK_DONE();
}
