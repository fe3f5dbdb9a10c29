/*
 * result.h - what one sample of the analysis publishes (result.c): the
 * judged cgroups, the victims and their suspects, immutable once out.
 * Design: docs/interference.md, "How".
 */
#ifndef PMU_INTERFERENCE_RESULT_H
#define PMU_INTERFERENCE_RESULT_H

#include <stddef.h>

#include "util/publish.h"

struct snap_row;
struct snapshot;

/* One analysed cgroup in a result. */
struct interference_cgroup {
	const struct snap_row *row;	/* its labels, in result->snap */
	int victim;
	double outliers;		/* samples whose CPI was an outlier */
	double victim_periods;		/* times it became a victim */
};

struct interference_suspect {
	size_t victim;			/* index in result->cgroups */
	const struct snap_row *row;	/* the suspect's labels */
	unsigned rank;			/* 1..k */
	double correlation;
};

/* What one sample found: immutable once published. */
struct interference_result {
	struct publish_ref ref;		/* util/publish.h */
	int enabled;
	struct snapshot *snap;		/* the rows' labels; a reference */
	size_t nr_cgroups;		/* judged: at or above the floor */
	size_t containing;		/* left out: a counted one below */
	struct interference_cgroup *cgroups;
	size_t nr_suspects;
	struct interference_suspect *suspects;	/* by victim, then rank */
};

void interference_result_unref(struct interference_result *r);

#endif
