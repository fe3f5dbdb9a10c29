/*
 * webconfig.h - the --web.config.file: the Prometheus exporter-toolkit
 * web configuration (TLS, basic auth, response headers), parsed and
 * validated into a plain struct before the server starts.
 *
 * The file format is the toolkit's, so one file serves every exporter on
 * a host.  Mistakes are reported as "file:line:column: what", like the
 * main config.  File names in it are relative to the file's directory.
 * Certificates and keys are read at load time, so an unreadable one stops
 * the daemon at start, not at the first handshake.
 */
#ifndef PMU_WEBCONFIG_H
#define PMU_WEBCONFIG_H

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

/*
 * Parse YAML text; dir is where relative file names start (NULL: the
 * working directory).  Returns 0 and sets *out, or -EINVAL / -ENOMEM /
 * -errno of a file it names, with "source:line:col: message" in err.
 */
int webcfg_parse(const char *source, const char *dir, const char *text,
    size_t len, struct webcfg **out, char *err, size_t errlen);

/* Read and parse a file.  0, or -errno with the reason in err. */
int webcfg_load(const char *path, struct webcfg **out, char *err,
    size_t errlen);

void webcfg_free(struct webcfg *w);

/* "TLS12" -> 0x0303; -1 if unknown. */
int webcfg_tls_version(const char *name);

/*
 * Does password match user's bcrypt hash?  1 yes, 0 no.  An unknown user
 * costs the same bcrypt as a known one (the first user's hash is
 * computed and the result ignored), so timing does not tell which users
 * exist.  Slow by design: callers cache successes.
 */
int webcfg_check_password(const struct webcfg *w, const char *user,
    const char *password);

#endif
