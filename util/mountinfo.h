/*
 * mountinfo.h - the one reader of /proc/PID/mountinfo, which finding cgroupfs
 * (collectors/cgroup) and tracefs (collectors/events) both ask.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_MOUNTINFO_H
#define PMU_MOUNTINFO_H

/* One mount: "id parent maj:min root MOUNTPOINT opts ... - FSTYPE source
 * SUPEROPTS".  The mount point is unescaped; superopts may be NULL. */
struct mountinfo_entry {
	const char *mountpoint;
	const char *fstype;
	const char *superopts;
};

/*
 * Call fn for each mount listed in the file at path, in order, until fn
 * returns non-zero.  The entry's strings live until fn returns.  0, or
 * -errno when the file cannot be opened.
 */
int mountinfo_each(const char *path,
    int (*fn)(const struct mountinfo_entry *m, void *arg), void *arg);

#endif
