/*
 * online.h - the online CPUs as the collector sees them (struct online):
 * the map every pass plans from (target.c), every snapshot's CPUs are
 * told against (snapbuild.c) and each kind is handed (source.c), and
 * the file hotplug.c reads once a collection to tell a change.  Only
 * collector.c (at its start and end) and hotplug.c write it.  It stands
 * apart from hotplug.h so that a file which reads the map needs nothing
 * of what a CPU change sets off.  Collector thread only.
 */
#ifndef PMU_COLLECTOR_ONLINE_H
#define PMU_COLLECTOR_ONLINE_H

#include "collectors/perf/cpumap.h"

/* The online CPUs, and the file that tells when they change. */
struct online {
	struct cpumap map;
	int fd;				/* <sysfs>/devices/system/cpu/online */
	char text[256];
};

#endif
