/*
 * hotplug.h - the online CPUs as the collector sees them (hotplug.c):
 * the map every pass plans from, and the file whose one pread per
 * collection tells whether it changed.  Collector thread only.
 */
#ifndef PMU_COLLECTOR_HOTPLUG_H
#define PMU_COLLECTOR_HOTPLUG_H

#include "collectors/perf/cpumap.h"

struct collector;

/* The online CPUs, and the file that tells when they change. */
struct online {
	struct cpumap map;
	int fd;				/* <sysfs>/devices/system/cpu/online */
	char text[256];
};

/* hotplug_open: the file kept open.  hotplug_changed: 1 when the online
 * CPUs changed since the last call (the instances on CPUs gone read one
 * last time), else 0. */
void hotplug_open(struct collector *c);
int hotplug_changed(struct collector *c);

#endif
