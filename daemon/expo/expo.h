/*
 * expo.h - a snapshot as Prometheus text format 0.0.4 or OpenMetrics 1.0,
 * in two parts: a body cached per snapshot and variant, and a tail of the
 * series that change between scrapes (docs/architecture.md, "daemon/, by
 * folder").
 */
#ifndef PMU_EXPO_H
#define PMU_EXPO_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/collector/snapshot.h"
#include "collectors/events/cpuinfo.h"
#include "daemon/expo/expo_buf.h"

enum expo_format { EXPO_TEXT, EXPO_OPENMETRICS };

#define EXPO_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define EXPO_CT_OPENMETRICS \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

struct interference;
struct interference_result;

/* What the body shows besides the snapshot. */
struct expo_opts {
	int exporter_metrics;		/* pmu_exporter_* and process_* */
	const char *mhd_version;	/* build_info labels */
	const char *pfm_version;	/* "none" when libpfm4 is not linked */
	const struct cpuinfo *cpu;	/* pmu_exporter_cpu_info; NULL: none */
	/* The interference analysis whose latest result the body shows
	 * (analysis/interference.h); NULL: none. */
	struct interference *interference;
};

#define EXPO_NR_REFUSALS 7

/* The per-scrape series of the tail. */
struct expo_live {
	uint64_t scrapes[2][2];		/* [format][gzip] */
	uint64_t rejected;		/* 503 beyond --web.max-requests */
	/* Requests refused before they were let in, or connections closed
	 * (http.c): address_busy, pipelined, body, deadline, write_deadline,
	 * reclaimed, idle. */
	uint64_t refused[EXPO_NR_REFUSALS];
	int have_auth;			/* basic auth: auth_failures below */
	uint64_t auth_failures[3];	/* password, user, throttled */
	int have_process;		/* the process_* set below is valid */
	double cpu_seconds;
	double open_fds, max_fds;
	double resident_bytes, virtual_bytes, virtual_max_bytes;
	double start_time_s;
	double threads;
};

/*
 * Render s as text 0.0.4 with every self-metric of the body, and build
 * labels from this build; returns a malloc'ed, NUL-terminated buffer and
 * its length (without the NUL), or NULL on ENOMEM.
 */
char *expo_render(const struct snapshot *s, size_t *len);

/* The same with a format and options: the body of a response. */
char *expo_render_body(const struct snapshot *s, enum expo_format f,
    const struct expo_opts *o, size_t *len);

/*
 * The tail: the live series (when o->exporter_metrics) and
 * "# EOF" in OpenMetrics.  0, or -ENOMEM with b freed.
 */
int expo_render_tail(struct expo_buf *b, enum expo_format f,
    const struct expo_opts *o, const struct expo_live *l);

#endif
