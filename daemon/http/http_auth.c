/*
 * http_auth.c - who may in: the TLS client certificate, as
 * client_auth_type asks, then basic auth through auth.c's checker, the one
 * caller of it (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "daemon/http/http_auth.h"
#include "daemon/http/http_conn.h"
#include "daemon/http/http_reply.h"
#include "util/clock.h"

/*
 * A throttled request is answered 429 only after HTTP_HOLD_NS (give or
 * take the sweeper's quarter second): answered at once, an attacker's
 * connections would ask again at once, and the server's CPU would follow
 * their rate.  Held, each connection costs at most one request a second;
 * it stays counted against the per-address connection limit meanwhile.
 */
#define HTTP_HOLD_NS 1000000000ULL

/*
 * The client certificate, as client_auth_type asks.  MHD has GnuTLS
 * request one whenever a client CA is configured; it is judged here,
 * before any request is answered.  0 if acceptable, else a reason.
 */
static const char *
check_client_cert(struct http *h, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t tls;
	unsigned int n = 0, status = 0;
	enum webcfg_client_auth a = h->o.web->client_auth;

	if (!h->o.web->tls || a == WEBCFG_NO_CLIENT_CERT ||
	    a == WEBCFG_REQUEST_CLIENT_CERT)
		return NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (ci == NULL || ci->tls_session == NULL)
		return "no TLS session";
	tls = (gnutls_session_t)ci->tls_session;
	if (gnutls_certificate_get_peers(tls, &n) == NULL)
		n = 0;
	if (n == 0)
		return a == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN ? NULL :
		    "a client certificate is required";
	if (a == WEBCFG_REQUIRE_ANY_CLIENT_CERT)
		return NULL;
	if (gnutls_certificate_verify_peers2(tls, &status) < 0 || status != 0)
		return "the client certificate is not signed by client_ca_file "
		    "or not valid now";
	return NULL;
}

/* A password check is over, on a bcrypt worker: resume its request. */
static void
auth_done(struct auth_check *c, int ok)
{
	struct req *r = (struct req *)((char *)c - offsetof(struct req, check));
	struct MHD_Connection *conn = r->conn;

	atomic_store(&r->result, ok < 0 ? -ESHUTDOWN : ok);
	MHD_resume_connection(conn);	/* r is not ours after this */
}

MHD_Result
http_auth_reply_throttled(struct http *h, struct MHD_Connection *conn,
    unsigned secs)
{
	char retry[16];

	snprintf(retry, sizeof(retry), "%u", secs);
	return http_reply_hdr(h, conn, MHD_HTTP_TOO_MANY_REQUESTS,
	    "text/plain", "too many failed password checks from this "
	    "address; try again later\n", MHD_HTTP_HEADER_RETRY_AFTER, retry);
}

/* Hold a throttled request: the sweeper answers it later (see above). */
static MHD_Result
hold_throttled(struct http *h, struct MHD_Connection *conn, void **req_cls,
    unsigned retry_s)
{
	struct req *r;

	if ((r = http_reply_get(conn, req_cls)) == NULL)
		return http_auth_reply_throttled(h, conn, retry_s);
	r->wait = WAIT_HELD;
	r->retry_after = retry_s;
	r->held_until = mono_ns() + HTTP_HOLD_NS;
	r->next_held = NULL;
	MHD_suspend_connection(conn);
	if (http_conn_hold(h, r) < 0)
		MHD_resume_connection(conn);	/* answered at once */
	return MHD_YES;
}

/*
 * Basic auth on the serving thread: credentials that need bcrypt are
 * suspended for a check on a worker; cached ones pass at once (*answered
 * 0); anything else is answered here (401, 429) (*answered 1 but for a
 * pass).
 */
static MHD_Result
basic_auth(struct http *h, struct MHD_Connection *conn, void **req_cls,
    int *answered)
{
	const union MHD_ConnectionInfo *ci;
	struct auth_check check;
	enum auth_verdict v;
	char *user, *pass = NULL;
	unsigned retry_s = 1;
	struct req *r;
	int err;

	*answered = 1;
	memset(&check, 0, sizeof(check));
	/* Another scheme, or a header that cannot be read, is as none. */
	if (auth_parse_basic(MHD_lookup_connection_value(conn,
	    MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION), &user, &pass) < 0)
		user = pass = NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	v = auth_begin(h->auth, &check, user, pass,
	    ci ? ci->client_addr : NULL, &retry_s);
	auth_parse_free(&user, &pass);
	if (v == AUTH_CHECK) {
		if ((r = http_reply_get(conn, req_cls)) == NULL) {
			auth_abandon(&check);
			return http_reply_error(h, conn, -ENOMEM);
		}
		r->check = check;
		r->check.done = auth_done;
		r->wait = WAIT_AUTH;
		MHD_suspend_connection(conn);
		if ((err = auth_submit(h->auth, &r->check)) < 0) {
			atomic_store(&r->result, err);
			MHD_resume_connection(conn);
		}
		return MHD_YES;
	}
	if (v == AUTH_MISSING)
		return http_reply(h, conn, MHD_HTTP_UNAUTHORIZED,
		    "text/plain", "Unauthorized\n");
	if (v == AUTH_THROTTLED)
		return hold_throttled(h, conn, req_cls, retry_s);
	*answered = 0;		/* AUTH_PASS */
	return MHD_YES;
}

/*
 * May the request in?  Its client certificate, then its credentials; a
 * request resumed after its bcrypt check reads the check's result, and
 * one that passed is not judged again.  *answered 0: let in; 1: answered
 * here, or suspended for a check.
 */
MHD_Result
http_auth_authorize(struct http *h, struct MHD_Connection *conn, void **req_cls,
    int *answered)
{
	struct req *r = http_reply_of(*req_cls);
	const char *why;
	int res;

	*answered = 1;
	if (r && r->wait == WAIT_AUTH) {
		r->wait = WAIT_NONE;
		res = atomic_load(&r->result);
		if (res == 0)
			return http_reply(h, conn,
			    MHD_HTTP_UNAUTHORIZED, "text/plain",
			    "Unauthorized\n");
		if (res == -EAGAIN)	/* too many checks waiting */
			return http_auth_reply_throttled(h, conn, 1);
		if (res < 0)
			return http_reply_error(h, conn, res);
		r->authed = 1;
	}
	if (r && r->authed) {
		*answered = 0;
		return MHD_YES;
	}
	if (h->o.web && (why = check_client_cert(h, conn)) != NULL) {
		http_log(h, LOG_DEBUG, "refusing a TLS client: %s", why);
		return http_reply(h, conn, MHD_HTTP_FORBIDDEN,
		    "text/plain", "client certificate required\n");
	}
	if (h->auth)
		return basic_auth(h, conn, req_cls, answered);
	*answered = 0;
	return MHD_YES;
}
