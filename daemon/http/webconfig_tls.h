/*
 * webconfig_tls.h - the web config's tls_server_config part
 * (webconfig_tls.c), and the parse's state it shares with webconfig.c,
 * which calls it; it calls nothing in webconfig.c.
 */
#ifndef PMU_WEBCONFIG_TLS_H
#define PMU_WEBCONFIG_TLS_H

#include <yaml.h>

#include "config/yamldoc.h"
#include "daemon/http/webcfg.h"

struct wparse {
	struct yamldoc y;		/* source, document, error buffer */
	const char *dir;
	struct webcfg *w;
};

/* tls_server_config n into p->w: the files read and loaded, client auth,
 * versions and GnuTLS's priority string.  0, or -errno with the node
 * named in the error. */
int webcfg_parse_tls(struct wparse *p, yaml_node_t *n);

/* "TLS12" -> 0x0303; -1 if unknown. */
int webcfg_tls_version(const char *name);

#endif
