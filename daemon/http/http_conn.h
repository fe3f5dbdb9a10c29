/*
 * http_conn.h - admission and limits: the connection table, the request
 * deadline and its sweeper, the held requests, the refusals.
 * Design: docs/architecture.md, "daemon/, by folder".
 */
#ifndef PMU_HTTP_CONN_H
#define PMU_HTTP_CONN_H

#include "daemon/http/http_int.h"

int http_conn_init(struct http *h);
int http_conn_start(struct http *h);
void http_conn_stop(struct http *h);
void http_conn_close_held(struct http *h);
int http_conn_hold(struct http *h, struct req *r);
void http_conn_refused(struct http *h, enum http_refusal why, uint64_t n);
int http_conn_claim(struct http *h, struct MHD_Connection *conn);
int http_conn_reclaim(struct http *h, struct MHD_Connection *conn);
void http_conn_arrived(struct MHD_Connection *conn);
void http_conn_answering(struct MHD_Connection *conn);
void http_conn_done(struct http *h, struct MHD_Connection *conn);
int http_conn_refuse_early(struct http *h, struct MHD_Connection *conn,
    enum http_refusal *why);
void http_conn_notify(void *cls, struct MHD_Connection *conn,
    void **socket_context, enum MHD_ConnectionNotificationCode toe);

#endif
