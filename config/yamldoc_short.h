/*
 * yamldoc_short.h - the YAML helpers (yamldoc.h) under the short names
 * the parsers call them by: perr, scalar, expect, check_keys, lookup, for
 * a parser p whose struct holds its struct yamldoc as member y.  Included
 * by the parsers' .c files only (config.c, daemon/webconfig.c and
 * webconfig_tls.c): the names are too short for a header every includer
 * sees.
 */
#ifndef PMU_YAMLDOC_SHORT_H
#define PMU_YAMLDOC_SHORT_H

#include "config/yamldoc.h"

#define perr(p, ...) yamldoc_err(&(p)->y, __VA_ARGS__)
#define scalar(n) yamldoc_scalar(n)
#define expect(p, n, t, what) yamldoc_expect(&(p)->y, (n), (t), (what))
#define check_keys(p, map, allowed, where) \
	yamldoc_check_keys(&(p)->y, (map), (allowed), (where))
#define lookup(p, map, key) yamldoc_get(&(p)->y, (map), (key))

#endif
