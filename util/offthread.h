/*
 * offthread.h - a call that may block for ever, made where its caller
 * can give up on it (util/offthread.c).
 */
#ifndef PMU_OFFTHREAD_H
#define PMU_OFFTHREAD_H

#include <stdint.h>

/*
 * Run fn(arg) on a thread of its own and wait for it, until timeout_ns
 * has passed or SIGTERM or SIGINT is pending (blocked, as the daemon
 * blocks them to take them in its main loop).  fn's result; or
 * -ETIMEDOUT or -EINTR, and then the call is abandoned: it runs on until
 * the kernel returns, and then release(arg) frees what it holds (arg is
 * the call's from then on).  Without a thread to be had, fn runs here.
 */
int offthread_run(int (*fn)(void *arg), void *arg, void (*release)(void *arg),
    uint64_t timeout_ns);

#endif
