/*
 * http_auth.h - who may in (TLS client certificates, basic auth).
 * Design: docs/architecture.md, "daemon/, by folder".
 */
#ifndef PMU_HTTP_AUTH_H
#define PMU_HTTP_AUTH_H

#include "daemon/http/http_int.h"

MHD_Result http_auth_authorize(struct http *h, struct MHD_Connection *conn,
    void **req_cls, int *answered);
MHD_Result http_auth_reply_throttled(struct http *h,
    struct MHD_Connection *conn, unsigned secs);

#endif
