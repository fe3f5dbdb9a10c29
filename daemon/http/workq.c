/*
 * workq.c - worker threads and their two FIFOs (see workq.h): one mutex,
 * held to link or unlink a job, never while one runs.
 */
#include "autoconf.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "daemon/http/workq.h"

struct workq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* [0]: the front lane (workq_submit_first), taken first; [1]. */
	struct workq_job *head[2], *tail[2];
	struct workq_job *front;	/* the last of lane 0's own front */
	unsigned queued[2], max_queued[2];
	int stopping, stopped;
	int nice;
	char name[16];
	unsigned nr_threads;
	pthread_t *threads;
};

static void *
worker_main(void *arg)
{
	struct workq *q = arg;
	struct workq_job *job;
	int l;

	pthread_setname_np(pthread_self(), q->name);
	if (q->nice)
		setpriority(PRIO_PROCESS, (id_t)gettid(),
		    getpriority(PRIO_PROCESS, (id_t)gettid()) + q->nice);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head[0] && !q->head[1] && !q->stopping)
			pthread_cond_wait(&q->cond, &q->lock);
		l = q->head[0] ? 0 : 1;
		if (q->head[l] == NULL)
			break;		/* stopping, and nothing left */
		job = q->head[l];
		if ((q->head[l] = job->next) == NULL)
			q->tail[l] = NULL;
		if (job == q->front)
			q->front = NULL;
		q->queued[l]--;
		pthread_mutex_unlock(&q->lock);
		job->next = NULL;
		job->run(job, 0);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int
workq_new(const char *name, unsigned threads, unsigned max_queued,
    unsigned max_first, int nice, struct workq **out)
{
	struct workq *q;
	unsigned i;
	int r;

	if (threads == 0)
		return -EINVAL;
	if ((q = calloc(1, sizeof(*q))) == NULL ||
	    (q->threads = calloc(threads, sizeof(*q->threads))) == NULL) {
		free(q);
		return -ENOMEM;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->max_queued[0] = max_first;
	q->max_queued[1] = max_queued;
	q->nice = nice;
	snprintf(q->name, sizeof(q->name), "%s", name);
	for (i = 0; i < threads; i++) {
		if ((r = pthread_create(&q->threads[i], NULL, worker_main,
		    q)) != 0) {
			workq_free(q);
			return -r;
		}
		q->nr_threads++;
	}
	*out = q;
	return 0;
}

/* Queue job in lane l (0: the front one). */
/* Queue job in lane l: at its tail, or with front at its front, after
 * the jobs queued there so before it. */
static int
submit(struct workq *q, struct workq_job *job, int l, int front)
{
	struct workq_job **at;
	int r = 0;

	pthread_mutex_lock(&q->lock);
	if (q->stopping)
		r = -ESHUTDOWN;
	else if (q->queued[l] >= q->max_queued[l])
		r = -EAGAIN;
	else {
		at = !front ? (q->tail[l] ? &q->tail[l]->next : &q->head[l]) :
		    q->front ? &q->front->next : &q->head[l];
		job->next = *at;
		*at = job;
		if (job->next == NULL)
			q->tail[l] = job;
		if (front)
			q->front = job;
		q->queued[l]++;
		pthread_cond_signal(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return r;
}

int
workq_submit(struct workq *q, struct workq_job *job)
{
	return submit(q, job, 1, 0);
}

int
workq_submit_first(struct workq *q, struct workq_job *job)
{
	return submit(q, job, 0, 0);
}

int
workq_submit_front(struct workq *q, struct workq_job *job)
{
	return submit(q, job, 0, 1);
}

void
workq_stop(struct workq *q)
{
	struct workq_job *job, *next;
	unsigned i;
	int l;

	pthread_mutex_lock(&q->lock);
	if (q->stopped) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	q->stopping = q->stopped = 1;
	/* What nobody has started is cancelled, not run: at shutdown a
	 * queue of bcrypt checks would take seconds. */
	pthread_cond_broadcast(&q->cond);
	for (l = 0; l < 2; l++) {
		job = q->head[l];
		q->head[l] = q->tail[l] = NULL;
		q->front = NULL;
		q->queued[l] = 0;
		pthread_mutex_unlock(&q->lock);
		for (; job; job = next) {
			next = job->next;
			job->next = NULL;
			job->run(job, 1);
		}
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	for (i = 0; i < q->nr_threads; i++)
		pthread_join(q->threads[i], NULL);
}

void
workq_free(struct workq *q)
{
	if (q == NULL)
		return;
	workq_stop(q);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q->threads);
	free(q);
}
