/*
 * yamldoc_short.h - the YAML helpers (yamldoc.h) under the short names the
 * parsers call them by, for the parsers' .c files only.
 * Design: docs/architecture.md, "config/".
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
