/*
 * event_pfm_none.c - no libpfm4: no libpfm4 names (event_pfm.h).
 * Design: docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <errno.h>

#include "collectors/events/event_pfm.h"

int
event_pfm_available(void)
{
	return 0;
}

const char *
event_pfm_version(void)
{
	return NULL;
}

int
event_pfm_encode(const char *s, struct event_pfm_attr *attr, char *err,
    size_t errlen)
{
	(void)s;
	(void)attr;
	(void)err;
	(void)errlen;
	return -ENOENT;
}

int
event_pfm_list(void (*fn)(const char *line, void *arg), void *arg)
{
	(void)fn;
	(void)arg;
	return 0;
}
