/*
 * scratch.h - files the unit tests make under their scratch directory:
 * a fake sysfs's CPU list, a fake procfs's status, a cpuinfo.  One
 * helper, so that every test writes them the same way and a failure to
 * is a failed check, not a crash.
 */
#ifndef PMU_SCRATCH_H
#define PMU_SCRATCH_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/lib/check.h"

/* Writes text to dir/rel, making the folders on its way. */
static inline void
scratch_put(const char *dir, const char *rel, const char *text)
{
	char path[4200], *q;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (q = path + strlen(dir) + 1; (q = strchr(q, '/')) != NULL; q++) {
		*q = '\0';
		(void)mkdir(path, 0755);
		*q = '/';
	}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

#endif
