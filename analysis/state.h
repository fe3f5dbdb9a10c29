/*
 * state.h - the analysis's state file (state.c): its baselines kept
 * across restarts.
 * Design: docs/interference.md, "After a restart".
 */
#ifndef PMU_INTERFERENCE_STATE_H
#define PMU_INTERFERENCE_STATE_H

struct interference;

/*
 * The file the analysis keeps its baselines in across restarts
 * (--analysis.state-file; docs/interference.md, "After a restart"): read
 * now, its baselines given to the cgroups met in the next hour of
 * samples that have its path or its workload; written every 5 minutes of
 * snapshots and when the thread stops.  log says how each went (one
 * line; a refused file is one line and a fresh start).  Before
 * interference_start, once.  path NULL: nothing kept (the default).
 * 0, or -ENOMEM.
 */
int interference_state_file(struct interference *ifr, const char *path,
    void (*log)(int prio, const char *fmt, ...));
/* Write it now: the owning thread's (a test feeding the analysis
 * itself).  0 or -errno (logged). */
int interference_state_save(struct interference *ifr);

#endif
