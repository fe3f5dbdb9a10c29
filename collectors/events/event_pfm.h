/*
 * event_pfm.h - the libpfm4 backend of the event parser (event_pfm.c with
 * libpfm4, event_pfm_none.c without); free of <linux/perf_event.h>, which
 * libpfm4's own headers would declare again.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_PFM_H
#define PMU_EVENT_PFM_H

#include <stddef.h>

/* What libpfm4 encodes: the perf_event_attr fields the parser uses. */
struct event_pfm_attr {
	unsigned type;
	unsigned long long config, config1, config2;
	unsigned exclude_user, exclude_kernel, exclude_hv;
	unsigned exclude_host, exclude_guest, pinned;
};

/*
 * Encode s: 0; -ENOENT when libpfm4 does not know s (or is absent);
 * -EINVAL with libpfm4's reason in err.
 */
int event_pfm_encode(const char *s, struct event_pfm_attr *out, char *err,
    size_t errlen);

/* Call fn with one line per libpfm4 PMU present; returns how many. */
int event_pfm_list(void (*fn)(const char *line, void *arg), void *arg);

/* Is libpfm4 built in and initialised? */
int event_pfm_available(void);

/* libpfm4's version ("4.13"), or NULL when built without it. */
const char *event_pfm_version(void);

#endif
