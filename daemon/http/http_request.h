/*
 * http_request.h - the access handler and scrapes.
 * Design: docs/architecture.md, "daemon/, by folder".
 */
#ifndef PMU_HTTP_REQUEST_H
#define PMU_HTTP_REQUEST_H

#include "daemon/http/http_int.h"

MHD_Result http_request_handle(void *cls, struct MHD_Connection *conn,
    const char *url, const char *method, const char *version,
    const char *upload_data, size_t *upload_data_size, void **req_cls);
void http_request_completed(void *cls, struct MHD_Connection *conn,
    void **req_cls, enum MHD_RequestTerminationCode toe);

/*
 * Content negotiation, exposed for the unit tests: does this Accept header
 * prefer OpenMetrics to the text format?  Does this Accept-Encoding allow
 * gzip?  NULL headers mean no preference (text, identity).
 */
int http_wants_openmetrics(const char *accept);
int http_accepts_gzip(const char *accept_encoding);

#endif
