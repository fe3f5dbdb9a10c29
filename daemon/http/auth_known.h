/*
 * auth_known.h - the client addresses whose credentials passed lately, the
 * last KNOWN_MAX, kept across restarts in --web.auth-state-file, so that a
 * scraper's first check after one goes first (docs/architecture.md,
 * "daemon/, by folder").
 */
#ifndef PMU_AUTH_KNOWN_H
#define PMU_AUTH_KNOWN_H

#include "util/logfields.h"

#define KNOWN_MAX 16

struct known;

/* An empty set, kept in memory only.  0 or -ENOMEM. */
int known_new(struct known **out);

/*
 * Read the set from path, and write it there whenever an address is
 * added.  0; -ENOENT (no file yet); or statefile_read()'s error (a link,
 * another user's file, corrupt...), the set then empty.  Either way it
 * is written there from then on.  -ENOMEM.
 */
int known_keep(struct known *k, const char *path, log_fields_fn log);

/* Is key in the set? */
int known_has(struct known *k, const unsigned char key[16]);

/* Add key (the oldest goes past KNOWN_MAX) and write the file: 1 when
 * it was not in the set, else 0.  A failed write is reported through
 * known_keep()'s log, once until a write succeeds. */
int known_add(struct known *k, const unsigned char key[16]);

/* Accepts NULL. */
void known_free(struct known *k);

#endif
