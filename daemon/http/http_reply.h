/*
 * http_reply.h - a request's state and the fixed replies.
 * Design: docs/architecture.md, "daemon/, by folder".
 */
#ifndef PMU_HTTP_REPLY_H
#define PMU_HTTP_REPLY_H

#include "daemon/http/http_int.h"

struct req *http_reply_of(void *req_cls);
struct req *http_reply_get(struct MHD_Connection *conn, void **req_cls);
void http_reply_headers(struct http *h, struct MHD_Response *resp);
void http_reply_seen(void **req_cls);
void http_reply_count(void **req_cls);
int http_reply_counted(void *req_cls);
MHD_Result http_reply_hdr(struct http *h,
    struct MHD_Connection *conn, unsigned status, const char *type,
    const char *body, const char *extra_name, const char *extra_value);
MHD_Result http_reply(struct http *h, struct MHD_Connection *conn,
    unsigned status, const char *type, const char *body);
MHD_Result http_reply_error(struct http *h,
    struct MHD_Connection *conn, int err);

#endif
