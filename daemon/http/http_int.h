/*
 * http_int.h - what the server's files share: struct http, each part with
 * one owner, and struct req; each file's calls are in its own header
 * (http_conn.h, http_reply.h, http_auth.h, http_request.h), which alone
 * include it (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_HTTP_INT_H
#define PMU_HTTP_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <syslog.h>
#include <microhttpd.h>

#include "daemon/expo/expo.h"
#include "daemon/expo/procstat.h"
#include "daemon/expo/scrape.h"
#include "daemon/http/auth.h"
#include "daemon/http/http_opts.h"

#if MHD_VERSION < 0x00097100
typedef int MHD_Result;
#else
typedef enum MHD_Result MHD_Result;
#endif

/* Requests refused before they were let in: the metric's reasons. */
enum http_refusal {
	REFUSED_ADDRESS_BUSY,		/* --web.max-requests-per-ip */
	REFUSED_PIPELINED,		/* beyond HTTP_MAX_PIPELINE unread */
	REFUSED_BODY,			/* a request with a body */
	REFUSED_DEADLINE,		/* not all in by the request deadline */
	REFUSED_WRITE_DEADLINE,		/* its answer not all sent in time */
	REFUSED_RECLAIMED,		/* its scrape slot given to another */
	REFUSED_IDLE,			/* idle, closed for room */
};
_Static_assert(REFUSED_IDLE + 1 == EXPO_NR_REFUSALS,
    "expo.c names each refusal");

struct conn;
struct render_task;

struct http {
	struct MHD_Daemon *mhd;
	struct http_opts o;
	struct expo_opts eo;
	char *path;
	int fd;

	atomic_uint inflight;
	atomic_uint_fast64_t scrapes[2][2];	/* [format][gzip] */
	atomic_uint_fast64_t rejected;
	atomic_uint_fast64_t refused[EXPO_NR_REFUSALS];
	atomic_uint_fast64_t said_ns[EXPO_NR_REFUSALS];	/* logged then */

	/* Header deadline: the connection table and its sweeper, which
	 * also releases throttled requests when their hold is over. */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_cond;
	struct conn *conns, *free_conns;
	struct conn **by_peer;		/* idle_bound()'s scratch, nr_conns */
	struct conn **scrapers;		/* those scraping, nr_scrapers */
	size_t nr_conns, nr_scrapers;
	pthread_t sweeper;
	int sweeping, stopping;
	struct req *held, *held_tail;	/* oldest first */
	int held_closed;		/* stopping: hold nothing more */

	/* Basic auth (NULL without users), and the render workers with the
	 * renders they have in hand. */
	struct auth *auth;
	struct workq *render;
	pthread_mutex_t render_lock;	/* tasks */
	struct render_task *tasks;

	/* What was rendered for each path's newest snapshot. */
	struct scrape_cache cache, extra_cache;
	struct procstat proc;		/* process_*'s procfs and boot time */
};

/*
 * A request that waits for a worker: for its password check or for its
 * variant's first render.  Allocated only then (a scrape answered from
 * what is cached needs none); MHD's *req_cls points at it until the
 * request completes.  The worker writes result and resumes the request;
 * the access handler, called again, reads it.  Nothing else is shared.
 */
enum req_wait { WAIT_NONE, WAIT_AUTH, WAIT_RENDER, WAIT_HELD };

struct req {
	struct MHD_Connection *conn;
	enum req_wait wait;
	atomic_int result;		/* auth: 1, 0, -errno; render: 0, -errno */
	int inflight;			/* counted in h->inflight */
	int authed;			/* its credentials passed */
	struct auth_check check;
	struct scrape_reply reply;	/* WAIT_RENDER: what it will send */
	struct req *next_waiter;	/* the render task's list */
	uint64_t held_until;		/* WAIT_HELD: answer 429 then */
	unsigned retry_after;		/* ... with this Retry-After */
	struct req *next_held;		/* h->held */
};

/* A report through the server's log hook, when it has one. */
#define http_log(h, prio, ...) do {					\
	if ((h)->o.log != NULL)						\
		(h)->o.log((prio), NULL, __VA_ARGS__);			\
} while (0)

#endif
