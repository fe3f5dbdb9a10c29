/*
 * hotplug.h - a change of the online CPUs (hotplug.c): the file whose
 * one pread per collection tells whether the map every pass plans from
 * (struct online, online.h) changed.  Collector thread only.
 */
#ifndef PMU_COLLECTOR_HOTPLUG_H
#define PMU_COLLECTOR_HOTPLUG_H

struct online;
struct targetset;

/* hotplug_open: the file kept open.  hotplug_changed: 1 when the online
 * CPUs changed since the last call (the instances on CPUs gone read one
 * last time), else 0. */
void hotplug_open(struct online *on, const char *sysfs);
int hotplug_changed(struct online *on, const struct targetset *set);

#endif
