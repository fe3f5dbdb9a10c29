/*
 * offthread.c - a call that may block for ever, made on a thread of its own so
 * that its caller can give up on it (offthread.h).
 * Hand-written: POSIX AIO cannot open (the open can hang too) nor be
 * abandoned; this is a thread, a condition variable and a flag.
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "util/clock.h"
#include "util/offthread.h"

/* How often the wait looks for a pending termination signal. */
#define SLICE_NS 50000000ULL

/* Calls given up on whose threads still wait in the kernel: past
 * OFFTHREAD_STUCK_MAX a new call is refused at once, so that a mount that
 * never answers, read at every reload, does not grow a thread a reload. */
static unsigned stuck;

struct call {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int (*fn)(void *arg);
	void *arg;
	void (*release)(void *arg);
	int result;
	int done;			/* fn returned: result is set */
	int abandoned;			/* the caller gave up: the runner frees */
};

static void
call_free(struct call *c)
{
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void *
runner(void *p)
{
	struct call *c = p;
	int r = c->fn(c->arg), gone;

	pthread_mutex_lock(&c->lock);
	c->result = r;
	c->done = 1;
	gone = c->abandoned;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	/* Not abandoned, c is the caller's from the unlock on. */
	if (gone) {
		c->release(c->arg);
		call_free(c);
		__atomic_fetch_sub(&stuck, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int
termination_pending(void)
{
	sigset_t s;

	return sigpending(&s) == 0 &&
	    (sigismember(&s, SIGTERM) == 1 || sigismember(&s, SIGINT) == 1);
}

unsigned
offthread_stuck(void)
{
	return __atomic_load_n(&stuck, __ATOMIC_ACQUIRE);
}

int
offthread_run(int (*fn)(void *arg), void *arg, void (*release)(void *arg),
    uint64_t timeout_ns)
{
	uint64_t deadline = mono_ns() + timeout_ns;
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t t;
	struct call *c;
	int r;

	if (__atomic_load_n(&stuck, __ATOMIC_RELAXED) >= OFFTHREAD_STUCK_MAX)
		return -EBUSY;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return fn(arg);
	c->fn = fn;
	c->arg = arg;
	c->release = release;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &ta, runner, c);
	pthread_attr_destroy(&ta);
	if (r != 0) {
		call_free(c);
		return fn(arg);
	}
	pthread_mutex_lock(&c->lock);
	for (;;) {
		uint64_t now = mono_ns(), until = now + SLICE_NS;
		struct timespec ts;

		if (c->done) {
			r = c->result;
			break;
		}
		if (termination_pending()) {
			r = -EINTR;
			break;
		}
		if (now >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		if (until > deadline)
			until = deadline;
		ts.tv_sec = (time_t)(until / 1000000000ULL);
		ts.tv_nsec = (long)(until % 1000000000ULL);
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	if (!c->done) {
		c->abandoned = 1;
		__atomic_fetch_add(&stuck, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&c->lock);
		return r;
	}
	pthread_mutex_unlock(&c->lock);
	call_free(c);
	return r;
}
