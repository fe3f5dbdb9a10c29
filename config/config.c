/*
 * config.c - YAML to a validated plan (config.h): the document and its top
 * level, calling the parts of the schema (config_int.h) in the order of the
 * file.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config.h"
#include "config/config_int.h"
#include "util/text.h"

static int
duration_key(struct parse *p, yaml_node_t *n, const char *key, uint64_t *ns,
    uint64_t min)
{
	int r;

	if ((r = expect(p, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	if (text_parse_duration(scalar(n), ns) < 0)
		return perr(p, n, "%s: invalid duration \"%s\" "
		    "(expected a number with ms, s, m or h, e.g. \"1s\")",
		    key, scalar(n));
	if (*ns < min || *ns > 3600ULL * 1000000000ULL)
		return perr(p, n, "%s: %s is out of range (%llums to 1h)",
		    key, scalar(n), (unsigned long long)(min / 1000000));
	return 0;
}

/* max_fds and delegated_max_cgroups. */
static int
root_limits(struct parse *p, yaml_node_t *root)
{
	struct plan *cfg = p->cfg;
	yaml_node_t *n;
	int r;

	if ((n = lookup(p, root, "max_fds")) != NULL) {
		char *end;
		unsigned long long v;

		if ((r = expect(p, n, YAML_SCALAR_NODE, "max_fds")) < 0)
			return r;
		errno = 0;
		v = strtoull(scalar(n), &end, 10);
		if (!text_is_whole(scalar(n), 0) || errno || v < 1)
			return perr(p, n, "max_fds must be a positive whole "
			    "number, not \"%s\"", scalar(n));
		cfg->max_fds = v;
	}
	cfg->delegated_max = PLAN_DEFAULT_DELEGATED_MAX;
	if ((n = lookup(p, root, "delegated_max_cgroups")) != NULL) {
		long v;

		if ((r = config_whole_number(p, n, "delegated_max_cgroups", 0,
		    1000000, &v)) < 0)
			return r;
		cfg->delegated_max = (size_t)v;
	}
	return 0;
}

static int
parse_root(struct parse *p, yaml_node_t *root)
{
	static const char *const keys[] = {
		"interval", "groups", "cpus", "cgroups",
		"cgroup_rescan_interval", "max_fds", "delegated_max_cgroups",
		"modes", "interference", NULL
	};
	struct plan *cfg = p->cfg;
	yaml_node_t *n;
	int r;

	if ((r = expect(p, root, YAML_MAPPING_NODE, "the config")) < 0)
		return r;
	if ((r = config_check_keys(p, root, keys, 0, "the config")) < 0)
		return r;
	cfg->interval_ns = 1000000000ULL;
	cfg->rescan_ns = 60000000000ULL;
	if ((n = lookup(p, root, "interval")) != NULL &&
	    (r = duration_key(p, n, "interval", &cfg->interval_ns,
	    10000000ULL)) < 0)
		return r;
	if ((n = lookup(p, root, "cgroup_rescan_interval")) != NULL &&
	    (r = duration_key(p, n, "cgroup_rescan_interval", &cfg->rescan_ns,
	    100000000ULL)) < 0)
		return r;
	if ((r = root_limits(p, root)) < 0 ||
	    (r = config_modes(p, root)) < 0 ||
	    (r = config_groups(p, root)) < 0)
		return r;
	return config_targets(p, root);
}

/* The document's root: a config.  An empty one is an error of its own. */
static int
parse_doc(void *arg, yaml_node_t *root)
{
	struct parse *p = arg;

	if (root == NULL) {
		/* Distinct, so a file of comments can mean "the default". */
		snprintf(p->y.err, p->y.errlen, "%s:1:1: the config is empty",
		    p->y.source);
		return -ENODATA;
	}
	return parse_root(p, root);
}

int
config_parse(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out, char *err,
    size_t errlen)
{
	return config_parse_all(events, source, text, len, out, NULL, err,
	    errlen);
}

int
config_parse_all(const struct event_ctx *events, const char *source,
    const char *text, size_t len, struct plan **out,
    struct interference_config *ifr, char *err, size_t errlen)
{
	yaml_document_t doc;
	struct parse p = { .y = { source, &doc, err, errlen },
	    .events = events };
	size_t i;
	int r;

	if ((p.cfg = calloc(1, sizeof(*p.cfg))) == NULL)
		return -ENOMEM;
	if ((p.cfg->source = strdup(source)) == NULL) {
		free(p.cfg);
		return -ENOMEM;
	}
	r = yamldoc_parse(&p.y, text, len, parse_doc, &p);
	nameidx_free(&p.group_idx);
	for (i = 0; i < PLAN_KINDS_MAX; i++)
		free(p.in_kind[i]);
	if (r < 0) {
		interference_config_fini(&p.ifr);
		plan_free(p.cfg);
		return r;
	}
	if (ifr)
		*ifr = p.ifr;
	else
		interference_config_fini(&p.ifr);
	*out = p.cfg;
	return 0;
}

int
config_load(const struct event_ctx *events, const char *path,
    struct plan **out, char *err, size_t errlen)
{
	return config_load_all(events, path, out, NULL, err, errlen);
}

int
config_load_all(const struct event_ctx *events, const char *path,
    struct plan **out, struct interference_config *ifr, char *err,
    size_t errlen)
{
	char *buf;
	size_t len;
	int r;

	if ((r = yamldoc_read_file(path, YAMLDOC_MAX_CONFIG, &buf, &len, err,
	    errlen)) < 0)
		return r;
	r = config_parse_all(events, path, buf, len, out, ifr, err, errlen);
	free(buf);
	return r;
}
