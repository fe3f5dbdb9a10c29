/*
 * web_test.c - the web config (errors with file:line:column, the GnuTLS
 * priority string made from Go's TLS settings, bcrypt checks) and the
 * HTTP content negotiation, without a server.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "daemon/http/http.h"
#include "daemon/http/http_request.h"
#include "daemon/http/webconfig.h"
#include "daemon/http/webconfig_tls.h"
#include "tests/lib/check.h"

/* htpasswd -nbBC 10 prom s3cret */
#define HASH "$2y$10$FiQkN54ksDFOW7Wv98681.LWLqHTm3VYDZk62FAmDrm7tQ1t1I/42"

static struct webcfg *
parse(const char *yaml, char *err, size_t errlen)
{
	struct webcfg *w = NULL;

	err[0] = '\0';
	if (webcfg_parse("web.yml", SRCDIR "/tests/fixtures", yaml,
	    strlen(yaml), &w, err, errlen) < 0)
		return NULL;
	return w;
}

static void
expect_error(const char *yaml, const char *want)
{
	char err[1024];
	struct webcfg *w = parse(yaml, err, sizeof(err));

	CHECK(w == NULL);
	CHECK_CONTAINS(err, want);
	webcfg_free(w);
}

static void
test_errors(void)
{
	expect_error("tls_server_config:\n  cert_fle: a\n",
	    "web.yml:2:3: unknown key \"cert_fle\" in tls_server_config "
	    "(did you mean \"cert_file\"?)");
	expect_error("tls_server_config:\n  cert_file: nope.crt\n"
	    "  key_file: nope.key\n", "web.yml:2:14: cert_file \"");
	expect_error("tls_server_config:\n  min_version: TLS14\n",
	    "web.yml:2:16: min_version: unknown TLS version \"TLS14\"");
	expect_error("tls_server_config:\n  client_auth_type: Sometimes\n",
	    "web.yml:2:21: client_auth_type: unknown value \"Sometimes\"");
	expect_error("tls_server_config:\n  cipher_suites: [TLS_FOO]\n",
	    "web.yml:2:19: unknown cipher suite \"TLS_FOO\"");
	expect_error("basic_auth_users:\n  alice: plaintext\n",
	    "web.yml:2:10: user \"alice\": the password must be a bcrypt hash");
	expect_error("http_server_config:\n  headers:\n    Server: x\n",
	    "web.yml:3:5: HTTP header \"Server\" can not be configured");
	expect_error("http_server_config:\n  headers:\n"
	    "    X-Frame-Options: allow\n",
	    "web.yml:3:22: X-Frame-Options must be deny or sameorigin");
	expect_error("basic_auth_users: [a]\n",
	    "web.yml:1:19: basic_auth_users must be a mapping, not a list");
	expect_error("tls_server_config: {\n", "web.yml:2:1: ");
	expect_error("colour: blue\n",
	    "web.yml:1:1: unknown key \"colour\" in the web config");
}

static void
test_tls(void)
{
	char err[1024];
	struct webcfg *w;

	w = parse("tls_server_config:\n  cert_file: web.crt\n"
	    "  key_file: web.key\n", err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(w->tls);
	CHECK_CONTAINS(w->cert_pem, "BEGIN CERTIFICATE");
	CHECK_CONTAINS(w->key_pem, "PRIVATE KEY");
	/* The toolkit's defaults: TLS 1.2 to 1.3, server preference. */
	CHECK_STR(w->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
	    ":%SERVER_PRECEDENCE");
	webcfg_free(w);

	w = parse("tls_server_config:\n  cert_file: web.crt\n"
	    "  key_file: web.key\n  min_version: TLS12\n"
	    "  max_version: TLS12\n  prefer_server_cipher_suites: false\n"
	    "  cipher_suites:\n"
	    "    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
	    "    - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256\n"
	    "    - TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA\n"
	    "  curve_preferences: [X25519, CurveP256]\n", err, sizeof(err));
	CHECK(w != NULL);
	if (w)
		CHECK_STR(w->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.2"
		    ":-CIPHER-ALL:+AES-128-GCM:+AES-256-CBC"
		    ":-MAC-ALL:+AEAD:+SHA1"
		    ":-KX-ALL:+ECDHE-RSA:+ECDHE-ECDSA"
		    ":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1");
	webcfg_free(w);

	w = parse("tls_server_config:\n  cert_file: web.crt\n"
	    "  key_file: web.key\n  min_version: TLS10\n", err, sizeof(err));
	CHECK(w != NULL);
	if (w)
		CHECK_STR(w->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3"
		    ":+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0:%SERVER_PRECEDENCE");
	webcfg_free(w);

	expect_error("tls_server_config:\n  cert_file: web.crt\n",
	    "web.yml:2:3: tls_server_config needs both cert_file and key_file "
	    "(key_file is missing)");
	expect_error("tls_server_config:\n  cert_file: web.crt\n"
	    "  key_file: web.key\n  client_auth_type: "
	    "RequireAndVerifyClientCert\n",
	    "web.yml:4:21: client_auth_type RequireAndVerifyClientCert needs "
	    "client_ca_file");
	expect_error("tls_server_config:\n  cert_file: web.crt\n"
	    "  key_file: web.key\n  min_version: TLS13\n"
	    "  max_version: TLS12\n", "min_version is above max_version");
	CHECK(webcfg_tls_version("TLS11") == 0x0302);
	CHECK(webcfg_tls_version("SSL3") == -1);
}

static void
test_users(void)
{
	char err[1024];
	struct webcfg *w;

	w = parse("basic_auth_users:\n  prom: " HASH "\n"
	    "  other: " HASH "\nhttp_server_config:\n  headers:\n"
	    "    x-content-type-options: nosniff\n", err, sizeof(err));
	CHECK(w != NULL);
	if (w == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(w->nr_users == 2 && !w->tls);
	CHECK(webcfg_check_password(w, "prom", "s3cret") == 1);
	CHECK(webcfg_check_password(w, "other", "s3cret") == 1);
	CHECK(webcfg_check_password(w, "prom", "s3cret ") == 0);
	CHECK(webcfg_check_password(w, "prom", "") == 0);
	CHECK(webcfg_check_password(w, "nobody", "s3cret") == 0);
	CHECK(w->nr_headers == 1);
	CHECK_STR(w->headers[0].name, "X-Content-Type-Options");
	webcfg_free(w);

	/* An empty file: plain HTTP, no users. */
	w = parse("", err, sizeof(err));
	CHECK(w != NULL && !w->tls && w->nr_users == 0);
	webcfg_free(w);
}

static void
test_negotiation(void)
{
	/* What Prometheus 2.42 sends. */
	CHECK(http_wants_openmetrics("application/openmetrics-text;"
	    "version=1.0.0,application/openmetrics-text;version=0.0.1;"
	    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	/* Older Prometheus 2.x. */
	CHECK(http_wants_openmetrics("application/openmetrics-text; "
	    "version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	CHECK(http_wants_openmetrics("application/openmetrics-text"));
	CHECK(!http_wants_openmetrics(NULL));
	CHECK(!http_wants_openmetrics("*/*"));
	CHECK(!http_wants_openmetrics("text/plain"));
	CHECK(!http_wants_openmetrics("text/plain;version=0.0.4,"
	    "application/openmetrics-text;version=1.0.0;q=0.5"));
	CHECK(!http_wants_openmetrics("application/openmetrics-text;q=0"));
	CHECK(!http_wants_openmetrics("application/openmetrics-text;"
	    "version=2.0.0"));
	CHECK(http_wants_openmetrics("Application/OpenMetrics-Text; q=0.9, "
	    "text/plain; q=0.8"));

	CHECK(http_accepts_gzip("gzip"));
	CHECK(http_accepts_gzip("deflate, gzip;q=1.0, *;q=0.5"));
	CHECK(http_accepts_gzip("br, GZIP"));
	CHECK(http_accepts_gzip("*"));
	CHECK(!http_accepts_gzip(NULL));
	CHECK(!http_accepts_gzip("identity"));
	CHECK(!http_accepts_gzip("gzip;q=0"));
	CHECK(!http_accepts_gzip("gzip;q=0, *"));
	CHECK(!http_accepts_gzip("gzipx"));
	CHECK(http_accepts_gzip("x-gzip"));
	CHECK(http_accepts_gzip("identity;q=0.5, X-GZIP;q=0.4"));
	CHECK(!http_accepts_gzip("x-gzip;q=0"));
	CHECK(!http_accepts_gzip("x-gzip;q=0, *"));
	CHECK(!http_accepts_gzip("*;q=0"));
	CHECK(!http_accepts_gzip("identity, *;q=0"));
	CHECK(!http_accepts_gzip("GZIP; Q=0"));
	CHECK(http_accepts_gzip("gzip;q=0.001"));
}

int
main(void)
{
	test_errors();
	test_tls();
	test_users();
	test_negotiation();
	return CHECK_DONE();
}
