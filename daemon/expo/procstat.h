/*
 * procstat.h - the standard process_* self-metrics, read from procfs at
 * scrape time, with no allocation beyond a directory stream
 * (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_PROCSTAT_H
#define PMU_PROCSTAT_H

#include "daemon/expo/expo.h"

/* Where to read, and what a read keeps for the next: the boot time, which
 * does not change.  Zeroed, then procfs set; read from any thread. */
struct procstat {
	const char *procfs;		/* "/proc" */
	_Atomic double boot_s;		/* 0 until read */
};

/*
 * Fill the process_* fields of l from <procfs>/self/{stat,fd} and
 * <procfs>/stat.  Returns 0 and sets l->have_process, or -errno (l's
 * process fields then untouched, have_process 0).
 */
int procstat_read(struct procstat *ps, struct expo_live *l);

#endif
