/*
 * cgnews.h - what one pass of the target set (targetset.c) says of the
 * cgroups it began counting and those gone, one line per subtree
 * (cgnews.c, whose header says why).  Collector thread only.
 */
#ifndef PMU_COLLECTOR_CGNEWS_H
#define PMU_COLLECTOR_CGNEWS_H

#include <stddef.h>

struct report;
struct target;

/*
 * The cgroups a pass began counting (came) and those gone, said one info
 * line per subtree at cgnews_say (each by name at debug), which frees n
 * too.  cgnews_add: 0, or -ENOMEM with the change said at once instead.
 */
struct cgnews_sub;
struct cgnews {
	struct cgnews_sub *v;
	size_t nr;
};
int cgnews_add(const struct report *rp, struct cgnews *n,
    const struct target *t, int came);
void cgnews_say(const struct report *rp, struct cgnews *n);
void cgnews_free(struct cgnews *n);

#endif
