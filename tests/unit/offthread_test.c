/*
 * offthread_test.c - a call given up on (util/offthread.c): its result
 * when it returns in time, -ETIMEDOUT when it does not and its arg freed
 * when it returns later, and at most OFFTHREAD_STUCK_MAX given up at
 * once: the next refused at once (-EBUSY, not called) until one returns.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/check.h"
#include "util/offthread.h"

static int calls, freed;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

/* A read of a pipe: blocks until its writer writes. */
static int
wait_pipe(void *arg)
{
	int *fd = arg;
	char b;

	__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	return read(fd[0], &b, 1) == 1 ? b : -EIO;
}

static void
release(void *arg)
{
	int *fd = arg;

	close(fd[0]);
	close(fd[1]);
	free(fd);
	__atomic_fetch_add(&freed, 1, __ATOMIC_RELAXED);
}

static int *
pipe_of(void)
{
	int *fd = malloc(2 * sizeof(*fd));

	if (fd == NULL || pipe(fd) != 0)
		abort();
	return fd;
}

/* Until the abandoned calls are down to n: each returns as soon as its
 * pipe is written; 60 s is the test's loud failure, never its timing. */
static int
stuck_down_to(unsigned n)
{
	struct timespec ts = { 0, 10000000 };
	int i;

	for (i = 0; i < 6000 && offthread_stuck() > n; i++)
		nanosleep(&ts, NULL);
	return offthread_stuck() == n;
}

int
main(void)
{
	int *fd[OFFTHREAD_STUCK_MAX + 1], *now;
	int i;

	/* In time: the result, the arg the caller's. */
	now = pipe_of();
	CHECK(write(now[1], "x", 1) == 1);
	CHECK(offthread_run(wait_pipe, now, release, 60000000000ULL) == 'x');
	CHECK(LOAD(freed) == 0 && offthread_stuck() == 0);
	release(now);
	__atomic_store_n(&freed, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&calls, 0, __ATOMIC_RELEASE);
	/* Given up: OFFTHREAD_STUCK_MAX of them, then refused. */
	for (i = 0; i < OFFTHREAD_STUCK_MAX; i++) {
		fd[i] = pipe_of();
		CHECK(offthread_run(wait_pipe, fd[i], release, 1000000) ==
		    -ETIMEDOUT);
	}
	CHECK(offthread_stuck() == OFFTHREAD_STUCK_MAX);
	fd[i] = pipe_of();
	CHECK(offthread_run(wait_pipe, fd[i], release, 1000000) == -EBUSY);
	CHECK(LOAD(calls) <= OFFTHREAD_STUCK_MAX);
	/* One returns: one more may wait. */
	CHECK(write(fd[0][1], "y", 1) == 1);
	CHECK(stuck_down_to(OFFTHREAD_STUCK_MAX - 1));
	CHECK(LOAD(freed) == 1);
	CHECK(offthread_run(wait_pipe, fd[i], release, 1000000) ==
	    -ETIMEDOUT);
	CHECK(offthread_stuck() == OFFTHREAD_STUCK_MAX);
	for (i = 1; i <= OFFTHREAD_STUCK_MAX; i++)
		CHECK(write(fd[i][1], "z", 1) == 1);
	CHECK(stuck_down_to(0));
	/* Each ran once, the refused call never. */
	CHECK(LOAD(freed) == OFFTHREAD_STUCK_MAX + 1);
	CHECK(LOAD(calls) == OFFTHREAD_STUCK_MAX + 1);
	return CHECK_DONE();
}
