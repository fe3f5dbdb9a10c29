/*
 * workq.h - a few worker threads taking jobs from a bounded queue of two
 * lanes: the server's slow work, so the serving threads never wait for it
 * (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_WORKQ_H
#define PMU_WORKQ_H

struct workq_job {
	/* Called on a worker thread, or by workq_stop() with cancelled. */
	void (*run)(struct workq_job *job, int cancelled);
	struct workq_job *next;		/* the queue's */
};

struct workq;

/*
 * Start threads workers named name ("pmu-auth"), running at nice +nice
 * relative to the process, with room for max_queued jobs waiting, and
 * max_first more in the front lane.  0, or -errno (nothing started).
 */
int workq_new(const char *name, unsigned threads, unsigned max_queued,
    unsigned max_first, int nice, struct workq **out);

/*
 * Queue job.  0; -EAGAIN when max_queued jobs already wait; -ESHUTDOWN
 * once workq_stop() has begun.  On failure job is not run.
 */
int workq_submit(struct workq *q, struct workq_job *job);

/*
 * The same, in the front lane: a worker takes every job waiting there
 * before any workq_submit() queued, in the max_first places of its
 * own.
 */
int workq_submit_first(struct workq *q, struct workq_job *job);

/*
 * The same, at the front lane's front: ahead of every job that
 * workq_submit_first() queued, behind those this queued before it.  In
 * the front lane's room.
 */
int workq_submit_front(struct workq *q, struct workq_job *job);

/* Cancel queued jobs, wait for running ones, join.  Idempotent. */
void workq_stop(struct workq *q);

/* Stop if needed, then free.  Accepts NULL. */
void workq_free(struct workq *q);

#endif
