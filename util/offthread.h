/*
 * offthread.h - a call that may block for ever, made where its caller can give
 * up on it (util/offthread.c).
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_OFFTHREAD_H
#define PMU_OFFTHREAD_H

#include <stdint.h>

/* Calls given up on that may still wait at once; past them, -EBUSY. */
#define OFFTHREAD_STUCK_MAX 8

/*
 * Run fn(arg) on a thread of its own and wait for it, until timeout_ns
 * has passed or SIGTERM or SIGINT is pending (blocked, as the daemon
 * blocks them to take them in its main loop).  fn's result; or
 * -ETIMEDOUT or -EINTR, and then the call is abandoned: it runs on until
 * the kernel returns, and then release(arg) frees what it holds (arg is
 * the call's from then on).  -EBUSY, fn not called, while
 * OFFTHREAD_STUCK_MAX abandoned calls still wait.  Without a thread to be
 * had, fn runs here.
 */
int offthread_run(int (*fn)(void *arg), void *arg, void (*release)(void *arg),
    uint64_t timeout_ns);
/* The abandoned calls still waiting. */
unsigned offthread_stuck(void);

#endif
