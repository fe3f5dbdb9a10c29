/*
 * webconfig.c - the web config's file read and parsed, its response headers
 * and users checked, and the password check; tls_server_config is
 * webconfig_tls.c's (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "config/yamldoc_short.h"
#include "daemon/http/webconfig.h"
#include "daemon/http/webconfig_tls.h"

/* The headers the toolkit lets a config set, with its value checks. */
static int
parse_headers(struct wparse *p, yaml_node_t *n)
{
	static const char *const allowed[] = { "Strict-Transport-Security",
	    "X-Content-Type-Options", "X-Frame-Options", "X-XSS-Protection",
	    "Content-Security-Policy", NULL };
	struct webcfg *w = p->w;
	yaml_node_pair_t *pair;
	const char *const *a;
	int r;

	if ((r = expect(p, n, YAML_MAPPING_NODE, "headers")) < 0 ||
	    (r = check_keys(p, n, NULL, "headers")) < 0)
		return r;
	w->headers = calloc((size_t)(n->data.mapping.pairs.top -
	    n->data.mapping.pairs.start) + 1, sizeof(*w->headers));
	if (w->headers == NULL)
		return -ENOMEM;
	for (pair = n->data.mapping.pairs.start;
	    pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->y.doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->y.doc, pair->value);
		struct webcfg_header *h = &w->headers[w->nr_headers];

		for (a = allowed; *a; a++)
			if (strcasecmp(*a, scalar(k)) == 0)
				break;
		if (*a == NULL)
			return perr(p, k, "HTTP header \"%s\" can not be "
			    "configured (Strict-Transport-Security, "
			    "X-Content-Type-Options, X-Frame-Options, "
			    "X-XSS-Protection, Content-Security-Policy)",
			    scalar(k));
		if ((r = expect(p, v, YAML_SCALAR_NODE, scalar(k))) < 0)
			return r;
		if (strchr(scalar(v), '\r') || strchr(scalar(v), '\n'))
			return perr(p, v, "header %s: a value cannot span lines",
			    *a);
		if (strcmp(*a, "X-Content-Type-Options") == 0 &&
		    strcasecmp(scalar(v), "nosniff") != 0)
			return perr(p, v, "X-Content-Type-Options must be "
			    "nosniff");
		if (strcmp(*a, "X-Frame-Options") == 0 &&
		    strcasecmp(scalar(v), "deny") != 0 &&
		    strcasecmp(scalar(v), "sameorigin") != 0)
			return perr(p, v, "X-Frame-Options must be deny or "
			    "sameorigin");
		if ((h->name = strdup(*a)) == NULL ||
		    (h->value = strdup(scalar(v))) == NULL) {
			free(h->name);
			return -ENOMEM;
		}
		w->nr_headers++;
	}
	return 0;
}

static int
parse_users(struct wparse *p, yaml_node_t *n)
{
	struct webcfg *w = p->w;
	yaml_node_pair_t *pair;
	int r;

	if ((r = expect(p, n, YAML_MAPPING_NODE, "basic_auth_users")) < 0 ||
	    (r = check_keys(p, n, NULL, "basic_auth_users")) < 0)
		return r;
	w->users = calloc((size_t)(n->data.mapping.pairs.top -
	    n->data.mapping.pairs.start) + 1, sizeof(*w->users));
	if (w->users == NULL)
		return -ENOMEM;
	for (pair = n->data.mapping.pairs.start;
	    pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->y.doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->y.doc, pair->value);
		struct webcfg_user *u = &w->users[w->nr_users];
		const char *h;

		if ((r = expect(p, v, YAML_SCALAR_NODE, "a password hash")) < 0)
			return r;
		h = scalar(v);
		if (strchr(scalar(k), ':'))
			return perr(p, k, "user name \"%s\" contains ':', which "
			    "basic auth cannot carry", scalar(k));
		if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' ||
		    (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') ||
		    h[3] != '$' || h[6] != '$')
			return perr(p, v, "user \"%s\": the password must be a "
			    "bcrypt hash ($2y$..., 60 characters; "
			    "htpasswd -nbBC 10 USER PASSWORD makes one)",
			    scalar(k));
		if ((u->name = strdup(scalar(k))) == NULL ||
		    (u->hash = strdup(h)) == NULL) {
			free(u->name);
			return -ENOMEM;
		}
		w->nr_users++;
	}
	return 0;
}

static int
parse_web_root(struct wparse *p, yaml_node_t *root)
{
	static const char *const keys[] = { "tls_server_config",
	    "http_server_config", "basic_auth_users", NULL };
	static const char *const http_keys[] = { "http2", "headers", NULL };
	yaml_node_t *n, *h;
	int r;

	if (root->type == YAML_SCALAR_NODE && scalar(root)[0] == '\0')
		return 0;	/* an empty file: no TLS, no auth */
	if ((r = expect(p, root, YAML_MAPPING_NODE, "the web config")) < 0 ||
	    (r = check_keys(p, root, keys, "the web config")) < 0)
		return r;
	if ((n = lookup(p, root, "tls_server_config")) != NULL &&
	    (r = webcfg_parse_tls(p, n)) < 0)
		return r;
	if (!p->w->tls && n && (lookup(p, n, "client_ca_file") ||
	    lookup(p, n, "client_auth_type")))
		return perr(p, n, "client certificates need TLS: set "
		    "cert_file and key_file");
	if ((n = lookup(p, root, "http_server_config")) != NULL) {
		if ((r = expect(p, n, YAML_MAPPING_NODE,
		    "http_server_config")) < 0 ||
		    (r = check_keys(p, n, http_keys,
		    "http_server_config")) < 0)
			return r;
		/* http2: accepted and ignored: this server speaks HTTP/1.1. */
		if ((h = lookup(p, n, "headers")) != NULL &&
		    (r = parse_headers(p, h)) < 0)
			return r;
	}
	if ((n = lookup(p, root, "basic_auth_users")) != NULL &&
	    (r = parse_users(p, n)) < 0)
		return r;
	return 0;
}

/* The document's root: a web config; an empty one asks for nothing. */
static int
parse_web_doc(void *arg, yaml_node_t *root)
{
	return root ? parse_web_root(arg, root) : 0;
}

int
webcfg_parse(const char *source, const char *dir, const char *text,
    size_t len, struct webcfg **out, char *err, size_t errlen)
{
	yaml_document_t doc;
	struct wparse p = { .y = { source, &doc, err, errlen }, .dir = dir };
	int r;

	if ((p.w = calloc(1, sizeof(*p.w))) == NULL ||
	    (p.w->source = strdup(source)) == NULL) {
		free(p.w);
		snprintf(err, errlen, "%s: out of memory", source);
		return -ENOMEM;
	}
	r = yamldoc_parse(&p.y, text, len, parse_web_doc, &p);
	if (r < 0) {
		webcfg_free(p.w);
		return r;
	}
	*out = p.w;
	return 0;
}

int
webcfg_load(const char *path, struct webcfg **out, char *err, size_t errlen)
{
	char *buf, *dir, *slash;
	size_t len;
	int r;

	if ((r = yamldoc_read_file(path, YAMLDOC_MAX_WEBCONFIG, &buf, &len, err,
	    errlen)) < 0)
		return r;
	if ((dir = strdup(path)) == NULL) {
		free(buf);
		return -ENOMEM;
	}
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	r = webcfg_parse(path, slash ? dir : NULL, buf, len, out, err, errlen);
	free(dir);
	free(buf);
	return r;
}

void
webcfg_free(struct webcfg *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->nr_users; i++) {
		free(w->users[i].name);
		if (w->users[i].hash)
			explicit_bzero(w->users[i].hash,
			    strlen(w->users[i].hash));
		free(w->users[i].hash);
	}
	free(w->users);
	for (i = 0; i < w->nr_headers; i++) {
		free(w->headers[i].name);
		free(w->headers[i].value);
	}
	free(w->headers);
	if (w->key_pem)
		explicit_bzero(w->key_pem, strlen(w->key_pem));
	free(w->key_pem);
	free(w->cert_pem);
	free(w->client_ca_pem);
	free(w->priorities);
	free(w->source);
	free(w);
}

int
webcfg_check_password(const struct webcfg *w, const char *user,
    const char *password)
{
	struct crypt_data *cd;
	const struct webcfg_user *u = NULL;
	const char *h;
	size_t i;
	int ok = 0;

	if (w->nr_users == 0)
		return 0;
	/* Look at every name, so the search takes the same time. */
	for (i = 0; i < w->nr_users; i++)
		if (strcmp(w->users[i].name, user) == 0)
			u = &w->users[i];
	if ((cd = calloc(1, sizeof(*cd))) == NULL)
		return 0;
	h = crypt_r(password, u ? u->hash : w->users[0].hash, cd);
	if (u && h && h[0] != '*' && strlen(h) == strlen(u->hash)) {
		/* Constant time: no early exit on the first difference. */
		unsigned char diff = 0;

		for (i = 0; u->hash[i]; i++)
			diff |= (unsigned char)(h[i] ^ u->hash[i]);
		ok = diff == 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}
