/*
 * event_pfm.c - libpfm4 event names (event_pfm.h), built when configure finds
 * libpfm4; libpfm4 is loaded with dlopen() on first use.
 * Design: docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>

#include "collectors/events/event_pfm.h"

static int pfm_state;		/* 0 untried, 1 ready, -1 failed */

/* The libpfm4 calls we make, resolved from the loaded library. */
static struct {
	pfm_err_t (*initialize)(void);
	int (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	const char *(*strerror)(int);
} lib;

static int
pfm_ready(void)
{
	void *h;

	if (pfm_state != 0)
		return pfm_state > 0;
	pfm_state = -1;
	if ((h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL)) == NULL)
		return 0;
	*(void **)&lib.initialize = dlsym(h, "pfm_initialize");
	*(void **)&lib.get_os_event_encoding = dlsym(h,
	    "pfm_get_os_event_encoding");
	*(void **)&lib.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	*(void **)&lib.strerror = dlsym(h, "pfm_strerror");
	if (lib.initialize && lib.get_os_event_encoding && lib.get_pmu_info &&
	    lib.strerror && lib.initialize() == PFM_SUCCESS)
		pfm_state = 1;
	return pfm_state > 0;
}

int
event_pfm_available(void)
{
	return pfm_ready();
}

const char *
event_pfm_version(void)
{
	static char v[32];
	/* The header's version: asking the library would load it. */
	int n = LIBPFM_VERSION;

	if (n < 0)
		return NULL;
	snprintf(v, sizeof(v), "%d.%d", PFM_MAJ_VERSION(n), PFM_MIN_VERSION(n));
	return v;
}

int
event_pfm_encode(const char *s, struct event_pfm_attr *attr, char *err,
    size_t errlen)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	int r;

	if (!pfm_ready())
		return -ENOENT;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	r = lib.get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3,
	    PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_ERR_NOTFOUND)
		return -ENOENT;
	if (r != PFM_SUCCESS) {
		snprintf(err, errlen, "%s", lib.strerror(r));
		return -EINVAL;
	}
	attr->type = a.type;
	attr->config = a.config;
	attr->config1 = a.config1;
	attr->config2 = a.config2;
	attr->exclude_user = a.exclude_user;
	attr->exclude_kernel = a.exclude_kernel;
	attr->exclude_hv = a.exclude_hv;
	attr->exclude_host = a.exclude_host;
	attr->exclude_guest = a.exclude_guest;
	attr->pinned = a.pinned;
	return 0;
}

int
event_pfm_list(void (*fn)(const char *line, void *arg), void *arg)
{
	pfm_pmu_info_t info;
	char line[512];
	int pmu, n = 0;

	if (!pfm_ready())
		return 0;
	pfm_for_all_pmus(pmu) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lib.get_pmu_info(pmu, &info) != PFM_SUCCESS ||
		    !info.is_present)
			continue;
		snprintf(line, sizeof(line), "%s (%s): %d events", info.name,
		    info.desc, info.nevents);
		fn(line, arg);
		n++;
	}
	return n;
}
