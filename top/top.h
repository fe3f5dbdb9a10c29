/*
 * top.h - pmu_exporter top's options, shared by its main (top/main.c) and its
 * screen (top/screen.c).
 * Design: docs/top.md, "How it is built".
 */
#ifndef PMU_TOP_TOP_H
#define PMU_TOP_TOP_H

#include "top/fetch.h"
#include "top/format.h"
#include "top/poll.h"

#define TOP_DEFAULT_URL "http://localhost:10101/metrics"

struct top_opts {
	struct fetch_opts fetch;
	double interval;	/* seconds between refreshes */
	int batch, json;
	long iterations;	/* batch: pages to print, 0: no end */
	enum top_sort sort;
	const char *filter;
};

/* The interactive screen until q: the exit status, or -1 when this
 * terminal cannot be drawn on (its terminfo entry is missing). */
int screen_run(struct poller *p, const struct top_opts *o);

#endif
