/*
 * procstat.h - the standard process_* self-metrics, read from procfs.
 *
 * Read at scrape time (they describe the moment of the scrape, not the
 * collection), from the procfs the daemon was told to use, with no
 * allocation beyond a directory stream.
 */
#ifndef PMU_PROCSTAT_H
#define PMU_PROCSTAT_H

#include "daemon/expo/expo.h"

/*
 * Fill the process_* fields of l from <procfs>/self/{stat,fd} and
 * <procfs>/stat.  Returns 0 and sets l->have_process, or -errno (l's
 * process fields then untouched, have_process 0).
 */
int procstat_read(const char *procfs, struct expo_live *l);

#endif
