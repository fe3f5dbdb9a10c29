/*
 * load.h - the config loaded (load.c): the file, or the embedded default
 * this machine can count, and what it says once about either.
 */
#ifndef PMU_LOAD_H
#define PMU_LOAD_H

#include "analysis/interference.h"
#include "collectors/events/event.h"
#include "config/config.h"
#include "daemon/flags.h"

/*
 * Load into *cfg and *ic; prev and prev_ic are what runs (NULL at
 * start).  0, or -1 with the error logged.
 */
int load_config(const struct options *opt, const struct event_ctx *ectx,
    struct plan **cfg, const struct plan *prev,
    struct interference_config *ic, const struct interference_config *prev_ic);

#endif
