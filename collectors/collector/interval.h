/*
 * interval.h - the collector's one read loop (interval.c), which a
 * collection reads every open instance with and a CPU change (hotplug.c)
 * reads the instances on CPUs gone offline with, one last time.
 */
#ifndef PMU_INTERVAL_H
#define PMU_INTERVAL_H

struct collector;
struct target;
struct tgroup;
struct inst;

typedef void (*interval_read_fn)(struct collector *c, struct target *t,
    struct tgroup *tg, struct inst *in, const void *arg);

/*
 * What each source kind gathers for its sources first (source.h), then
 * fn(c, t, tg, in, arg) for every instance of every opened target, in
 * the targets' order.
 */
void interval_read_each(struct collector *c, interval_read_fn fn,
    const void *arg);

#endif
