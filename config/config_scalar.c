/*
 * config_scalar.c - the scalars every part of the schema reads the same way (a
 * YAML boolean, a whole number in a range), below the parts.
 * Design: docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>
#include <yaml.h>

#include "config/config_int.h"
#include "util/text.h"

int
config_bool(const char *s, int *out)
{
	static const char *yes[] = { "true", "yes", "on", NULL };
	static const char *no[] = { "false", "no", "off", NULL };
	const char **w;

	for (w = yes; *w; w++)
		if (strcasecmp(s, *w) == 0)
			return *out = 1, 0;
	for (w = no; *w; w++)
		if (strcasecmp(s, *w) == 0)
			return *out = 0, 0;
	return -EINVAL;
}

/* A whole number from lo to hi in scalar n, named key.  0 or -EINVAL. */
int
config_whole_number(struct parse *p, yaml_node_t *n, const char *key, long lo,
    long hi, long *v)
{
	char *end;
	int r;

	if ((r = expect(p, n, YAML_SCALAR_NODE, key)) < 0)
		return r;
	errno = 0;
	*v = strtol(scalar(n), &end, 10);
	if (!text_is_whole(scalar(n), 1) || errno || *end || *v < lo ||
	    *v > hi)
		return perr(p, n, "%s must be a whole number from %ld to %ld, "
		    "not \"%s\"", key, lo, hi, scalar(n));
	return 0;
}
