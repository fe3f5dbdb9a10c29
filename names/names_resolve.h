/*
 * names_resolve.h - what the resolver's lookups (names_resolve.c) offer
 * outside names/: a lookup on the calling thread, for tests and the fuzzer.
 * Design: docs/architecture.md, "names/".
 */
#ifndef PMU_NAMES_RESOLVE_H
#define PMU_NAMES_RESOLVE_H

struct names;

/*
 * Look id up now, on the calling thread, through every reader: for the
 * tests and the fuzzer (the resolver's round looks ids up itself).  1
 * and *f filled when a runtime knows id and its record places it in
 * cgroup; 0 otherwise.  Whether cgroup is in a delegated subtree is not
 * looked at here (names_delegated).
 */
struct names_found;
int names_lookup(struct names *n, const char *id, const char *cgroup,
    struct names_found *f);

#endif
