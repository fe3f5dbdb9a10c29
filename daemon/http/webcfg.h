/*
 * webcfg.h - the web config as data: what webconfig.c and
 * webconfig_tls.c fill, and the server reads (TLS, users, headers).
 */
#ifndef PMU_WEBCFG_H
#define PMU_WEBCFG_H

#include <stddef.h>

/* tls_server_config.client_auth_type, in the toolkit's (Go's) terms. */
enum webcfg_client_auth {
	WEBCFG_NO_CLIENT_CERT,
	WEBCFG_REQUEST_CLIENT_CERT,
	WEBCFG_REQUIRE_ANY_CLIENT_CERT,
	WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

struct webcfg_user {
	char *name;
	char *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
};

struct webcfg_header {
	char *name;
	char *value;
};

/* The most bytes a certificate, key or CA file may have. */
#define WEBCFG_MAX_PEM (1u << 20)

struct webcfg {
	char *source;			/* the file name */
	int tls;			/* cert and key given: serve HTTPS */
	char *cert_pem, *key_pem;	/* file contents, NUL-terminated */
	char *client_ca_pem;		/* NULL unless client_ca_file */
	enum webcfg_client_auth client_auth;
	int min_version, max_version;	/* 0x0301 (TLS 1.0) .. 0x0304 */
	char *priorities;		/* GnuTLS priority string */
	size_t nr_users;
	struct webcfg_user *users;
	size_t nr_headers;
	struct webcfg_header *headers;
};

#endif
