/*
 * webconfig_int.h - what the two files of the web config's parser share
 * (webconfig.c: the file, its headers and users, the password check;
 * webconfig_tls.c: tls_server_config): the parse's state and the one
 * call from the first into the second.  webconfig_tls.c calls nothing in
 * webconfig.c.  Included by those two files only.
 */
#ifndef PMU_WEBCONFIG_INT_H
#define PMU_WEBCONFIG_INT_H

#include <yaml.h>

#include "config/yamldoc.h"
#include "daemon/webconfig.h"

struct wparse {
	struct yamldoc y;		/* source, document, error buffer */
	const char *dir;
	struct webcfg *w;
};

/* tls_server_config n into p->w: the files read and loaded, client auth,
 * versions and GnuTLS's priority string.  0, or -errno with the node
 * named in the error. */
int webcfg_parse_tls(struct wparse *p, yaml_node_t *n);

#endif
