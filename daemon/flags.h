/*
 * flags.h - the command line (flags.c): what main() is told, and the
 * defaults it starts from.
 */
#ifndef PMU_FLAGS_H
#define PMU_FLAGS_H

#include "daemon/http/http_opts.h"

struct options {
	const char *config_file;
	const char *listen;
	const char *telemetry_path;
	const char *sysfs;
	const char *procfs;
	const char *rootfs;
	const char *state_file;		/* the analysis's; NULL: none */
	int check_config;
	int systemd_socket;
	int list_events;
	const char *resolve_event;
	const char *web_config;
	struct http_opts web;		/* the limits and exporter metrics */
};

/* Every flag's default (docs/configuration.md's flag table says so). */
extern const struct options flags_default;

/*
 * Parse argv into opt (which holds the defaults) and set up the logger.
 * -1: run on; else the exit status: 0 after --help or --version, 1 after
 * a bad flag or value, said on stderr.
 */
int flags_parse(int argc, char **argv, struct options *opt);

#endif
