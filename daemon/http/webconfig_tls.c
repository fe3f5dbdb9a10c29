/*
 * webconfig_tls.c - the web config's tls_server_config: certificate, key
 * and client CA loaded as the server will load them, the client
 * certificate policy, and Go's settings as one GnuTLS priority string
 * (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <gnutls/gnutls.h>

#include "config/yamldoc_short.h"
#include "daemon/http/webconfig_tls.h"

/* A scalar, or NULL when absent, empty or null. */
static int
str_key(struct wparse *p, yaml_node_t *map, const char *key,
    const char **out)
{
	yaml_node_t *n = lookup(p, map, key);
	int r;

	*out = NULL;
	if (n == NULL)
		return 0;
	if ((r = expect(p, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	if (scalar(n)[0] != '\0' && strcmp(scalar(n), "null") != 0 &&
	    strcmp(scalar(n), "~") != 0)
		*out = scalar(n);
	return 0;
}

/* Read a file named in the config (relative to its directory). */
static int
read_named_file(struct wparse *p, yaml_node_t *map, const char *key,
    char **out)
{
	yaml_node_t *n = lookup(p, map, key);
	char path[4096], why[4400];
	const char *name;
	size_t len;
	int r;

	if ((r = str_key(p, map, key, &name)) < 0 || name == NULL)
		return r;
	if (name[0] == '/' || p->dir == NULL)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	if ((r = yamldoc_read_file(path, WEBCFG_MAX_PEM, out, &len, why,
	    sizeof(why))) < 0) {
		/* why is "path: reason"; say it as key "path": reason. */
		size_t pl = strlen(path);

		return perr(p, n, "%s \"%s\": %s", key, path,
		    strncmp(why, path, pl) == 0 && why[pl] == ':' ?
		    why + pl + 2 : why);
	}
	if (len == 0) {
		free(*out);
		*out = NULL;
		return perr(p, n, "%s \"%s\": the file is empty", key, path);
	}
	return 0;
}

/*
 * Load the certificate, key and client CA the way the server will, so a
 * bad file stops the daemon before it opens anything rather than when
 * libmicrohttpd starts.
 */
static int
check_pem(struct wparse *p, yaml_node_t *n)
{
	struct webcfg *w = p->w;
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert, key, ca;
	int r = 0, g;

	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return perr(p, n, "out of memory");
	cert = (gnutls_datum_t){ (unsigned char *)w->cert_pem,
	    (unsigned)strlen(w->cert_pem) };
	key = (gnutls_datum_t){ (unsigned char *)w->key_pem,
	    (unsigned)strlen(w->key_pem) };
	g = gnutls_certificate_set_x509_key_mem(cred, &cert, &key,
	    GNUTLS_X509_FMT_PEM);
	if (g < 0)
		r = perr(p, n, "cert_file and key_file: %s", gnutls_strerror(g));
	if (r == 0 && w->client_ca_pem) {
		ca = (gnutls_datum_t){ (unsigned char *)w->client_ca_pem,
		    (unsigned)strlen(w->client_ca_pem) };
		g = gnutls_certificate_set_x509_trust_mem(cred, &ca,
		    GNUTLS_X509_FMT_PEM);
		if (g <= 0)
			r = perr(p, n, "client_ca_file: %s", g < 0 ?
			    gnutls_strerror(g) : "no certificate in it");
	}
	gnutls_certificate_free_credentials(cred);
	return r;
}

int
webcfg_tls_version(const char *name)
{
	static const struct { const char *name; int v; } v[] = {
		{ "TLS10", 0x0301 }, { "TLS11", 0x0302 },
		{ "TLS12", 0x0303 }, { "TLS13", 0x0304 },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (strcmp(name, v[i].name) == 0)
			return v[i].v;
	return -1;
}

/* Go's cipher suite names and their GnuTLS parts; kx NULL for TLS 1.3. */
static const struct suite {
	const char *go, *kx, *cipher, *mac;
} suites[] = {
	{ "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "RSA", "3DES-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256" },
	{ "TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD" },
	{ "TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC",
	    "SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC",
	    "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA", "3DES-CBC",
	    "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC",
	    "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC",
	    "SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA",
	    "AES-128-CBC", "SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC",
	    "SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM",
	    "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA",
	    "AES-128-GCM", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM",
	    "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA",
	    "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA",
	    "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA",
	    "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA",
	    "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA",
	    "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_AES_128_GCM_SHA256", NULL, "AES-128-GCM", "AEAD" },
	{ "TLS_AES_256_GCM_SHA384", NULL, "AES-256-GCM", "AEAD" },
	{ "TLS_CHACHA20_POLY1305_SHA256", NULL, "CHACHA20-POLY1305", "AEAD" },
};

/* Go's curve names and GnuTLS's groups. */
static const struct curve {
	const char *go, *gnutls;
} curves[] = {
	{ "CurveP256", "GROUP-SECP256R1" },
	{ "CurveP384", "GROUP-SECP384R1" },
	{ "CurveP521", "GROUP-SECP521R1" },
	{ "X25519", "GROUP-X25519" },
};

/* Append "+name" to the priority string unless it is there already. */
static void
prio_add(char *buf, size_t len, const char *name)
{
	char tok[64];
	size_t n = strlen(buf);

	snprintf(tok, sizeof(tok), ":+%s", name);
	if (strstr(buf, tok) == NULL || (strstr(buf, tok)[strlen(tok)] != ':' &&
	    strstr(buf, tok)[strlen(tok)] != '\0'))
		snprintf(buf + n, len - n, "%s", tok);
}

static const char *const client_auth_names[] = {
	[WEBCFG_NO_CLIENT_CERT] = "NoClientCert",
	[WEBCFG_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEBCFG_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT] =
	    "RequireAndVerifyClientCert",
};
#define NR_CLIENT_AUTH \
	(sizeof(client_auth_names) / sizeof(client_auth_names[0]))

/* The certificate, its key and the client CA: both or neither of the
 * first two, and a pair that loads. */
static int
tls_files(struct wparse *p, yaml_node_t *n)
{
	struct webcfg *w = p->w;
	int r;

	if ((r = read_named_file(p, n, "cert_file", &w->cert_pem)) < 0 ||
	    (r = read_named_file(p, n, "key_file", &w->key_pem)) < 0 ||
	    (r = read_named_file(p, n, "client_ca_file",
	    &w->client_ca_pem)) < 0)
		return r;
	if (!w->cert_pem != !w->key_pem)
		return perr(p, n, "tls_server_config needs both cert_file and "
		    "key_file (%s is missing)", w->cert_pem ? "key_file" :
		    "cert_file");
	w->tls = w->cert_pem != NULL;
	if (w->tls && (r = check_pem(p, n)) < 0)
		return r;
	return 0;
}

/* client_auth_type, and the client CA it needs (or that needs it). */
static int
tls_client_auth(struct wparse *p, yaml_node_t *n)
{
	struct webcfg *w = p->w;
	const char *s;
	size_t i;
	int r;

	if ((r = str_key(p, n, "client_auth_type", &s)) < 0)
		return r;
	if (s) {
		for (i = 0; i < NR_CLIENT_AUTH; i++)
			if (strcmp(s, client_auth_names[i]) == 0)
				break;
		if (i == NR_CLIENT_AUTH)
			return perr(p, lookup(p, n, "client_auth_type"),
			    "client_auth_type: unknown value \"%s\" "
			    "(NoClientCert, RequestClientCert, "
			    "RequireAnyClientCert, VerifyClientCertIfGiven, "
			    "RequireAndVerifyClientCert)", s);
		w->client_auth = (enum webcfg_client_auth)i;
	}
	if ((w->client_auth == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN ||
	    w->client_auth == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT) &&
	    w->client_ca_pem == NULL)
		return perr(p, lookup(p, n, "client_auth_type"),
		    "client_auth_type %s needs client_ca_file",
		    client_auth_names[w->client_auth]);
	if (w->client_ca_pem && w->client_auth == WEBCFG_NO_CLIENT_CERT)
		return perr(p, lookup(p, n, "client_ca_file"), "client_ca_file "
		    "is set but client_auth_type is NoClientCert: set "
		    "client_auth_type (RequireAndVerifyClientCert)");
	return 0;
}

/* min_version and max_version (TLS 1.2 to 1.3 unless set). */
static int
tls_versions(struct wparse *p, yaml_node_t *n)
{
	struct webcfg *w = p->w;
	const char *s;
	int r;

	w->min_version = 0x0303;
	w->max_version = 0x0304;
	if ((r = str_key(p, n, "min_version", &s)) < 0)
		return r;
	if (s && (w->min_version = webcfg_tls_version(s)) < 0)
		return perr(p, lookup(p, n, "min_version"), "min_version: "
		    "unknown TLS version \"%s\" (TLS10, TLS11, TLS12, TLS13)",
		    s);
	if ((r = str_key(p, n, "max_version", &s)) < 0)
		return r;
	if (s && (w->max_version = webcfg_tls_version(s)) < 0)
		return perr(p, lookup(p, n, "max_version"), "max_version: "
		    "unknown TLS version \"%s\" (TLS10, TLS11, TLS12, TLS13)",
		    s);
	if (w->min_version > w->max_version)
		return perr(p, n, "min_version is above max_version");
	return 0;
}

/* What the lists of a tls_server_config add to GnuTLS's priorities. */
struct tls_lists {
	char ciphers[512], macs[256], kxs[256], groups[256];
	int prefer;			/* the server's order of suites */
};

/* cipher_suites, in Go's names. */
static int
tls_ciphers(struct wparse *p, yaml_node_t *c, struct tls_lists *l)
{
	yaml_node_item_t *it;
	yaml_node_t *item;
	size_t i;
	int r;

	if ((r = expect(p, c, YAML_SEQUENCE_NODE, "cipher_suites")) < 0)
		return r;
	YAMLDOC_EACH(&p->y, c, it, item) {
		if ((r = expect(p, item, YAML_SCALAR_NODE,
		    "a cipher suite")) < 0)
			return r;
		for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
			if (strcmp(scalar(item), suites[i].go) == 0)
				break;
		if (i == sizeof(suites) / sizeof(suites[0]))
			return perr(p, item, "unknown cipher suite "
			    "\"%s\" (Go's names, e.g. "
			    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)",
			    scalar(item));
		prio_add(l->ciphers, sizeof(l->ciphers), suites[i].cipher);
		prio_add(l->macs, sizeof(l->macs), suites[i].mac);
		if (suites[i].kx)
			prio_add(l->kxs, sizeof(l->kxs), suites[i].kx);
	}
	return 0;
}

/* curve_preferences, in Go's names. */
static int
tls_curves(struct wparse *p, yaml_node_t *c, struct tls_lists *l)
{
	yaml_node_item_t *it;
	yaml_node_t *item;
	size_t i;
	int r;

	if ((r = expect(p, c, YAML_SEQUENCE_NODE,
	    "curve_preferences")) < 0)
		return r;
	YAMLDOC_EACH(&p->y, c, it, item) {
		if ((r = expect(p, item, YAML_SCALAR_NODE, "a curve")) < 0)
			return r;
		for (i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
			if (strcmp(scalar(item), curves[i].go) == 0)
				break;
		if (i == sizeof(curves) / sizeof(curves[0]))
			return perr(p, item, "unknown curve \"%s\" "
			    "(CurveP256, CurveP384, CurveP521, X25519)",
			    scalar(item));
		prio_add(l->groups, sizeof(l->groups), curves[i].gnutls);
	}
	return 0;
}

/* prefer_server_cipher_suites, cipher_suites and curve_preferences. */
static int
tls_lists(struct wparse *p, yaml_node_t *n, struct tls_lists *l)
{
	yaml_node_t *c;
	int r;

	l->prefer = 1;
	if ((c = lookup(p, n, "prefer_server_cipher_suites")) != NULL) {
		if ((r = expect(p, c, YAML_SCALAR_NODE,
		    "prefer_server_cipher_suites")) < 0)
			return r;
		if (strcmp(scalar(c), "true") == 0)
			l->prefer = 1;
		else if (strcmp(scalar(c), "false") == 0)
			l->prefer = 0;
		else
			return perr(p, c, "prefer_server_cipher_suites must be "
			    "true or false");
	}
	if ((c = lookup(p, n, "cipher_suites")) != NULL &&
	    (r = tls_ciphers(p, c, l)) < 0)
		return r;
	if ((c = lookup(p, n, "curve_preferences")) != NULL &&
	    (r = tls_curves(p, c, l)) < 0)
		return r;
	return 0;
}

/* GnuTLS's priority string: NORMAL, then only the versions asked for,
 * then the lists.  0 or -ENOMEM. */
static int
tls_priorities(struct webcfg *w, const struct tls_lists *l)
{
	char prio[2048];
	int v;

	snprintf(prio, sizeof(prio), "NORMAL:-VERS-ALL");
	for (v = w->max_version; v >= w->min_version; v--) {
		char ver[32];

		snprintf(ver, sizeof(ver), "VERS-TLS1.%d", v - 0x0301);
		prio_add(prio, sizeof(prio), ver);
	}
	if (l->ciphers[0])
		snprintf(prio + strlen(prio), sizeof(prio) - strlen(prio),
		    ":-CIPHER-ALL%s:-MAC-ALL%s", l->ciphers, l->macs);
	if (l->kxs[0])
		snprintf(prio + strlen(prio), sizeof(prio) - strlen(prio),
		    ":-KX-ALL%s", l->kxs);
	if (l->groups[0])
		snprintf(prio + strlen(prio), sizeof(prio) - strlen(prio),
		    ":-GROUP-ALL%s", l->groups);
	if (l->prefer)
		snprintf(prio + strlen(prio), sizeof(prio) - strlen(prio),
		    ":%%SERVER_PRECEDENCE");
	if ((w->priorities = strdup(prio)) == NULL)
		return -ENOMEM;
	return 0;
}

int
webcfg_parse_tls(struct wparse *p, yaml_node_t *n)
{
	static const char *const keys[] = { "cert_file", "key_file",
	    "client_auth_type", "client_ca_file", "cipher_suites",
	    "curve_preferences", "min_version", "max_version",
	    "prefer_server_cipher_suites", NULL };
	struct tls_lists l = { "", "", "", "", 1 };
	int r;

	if ((r = expect(p, n, YAML_MAPPING_NODE, "tls_server_config")) < 0 ||
	    (r = check_keys(p, n, keys, "tls_server_config")) < 0 ||
	    (r = tls_files(p, n)) < 0 ||
	    (r = tls_client_auth(p, n)) < 0 ||
	    (r = tls_versions(p, n)) < 0 ||
	    (r = tls_lists(p, n, &l)) < 0)
		return r;
	return tls_priorities(p->w, &l);
}
