/*
 * ifr_trace.h - generated traces for the interference analysis's tests:
 * a node of cgroups whose CPU use and CPI the test sets each interval,
 * turned into the snapshots the collector would publish (cumulative
 * cycles, instructions and enabled time per cgroup row, interval 1 s),
 * and look-ups in a result.  tests/unit/interference_test.c (the whole path)
 * and tests/unit/interference_rules_test.c (each rule at its edge) share it.
 */
#ifndef PMU_TEST_IFR_TRACE_H
#define PMU_TEST_IFR_TRACE_H

#include <stdint.h>

#include "analysis/interference.h"

#define MAXCG 3100

/* A node of cgroups: cumulative counts, one snapshot per interval. */
struct node {
	size_t nr;
	const char *path[MAXCG];
	double cyc[MAXCG], ins[MAXCG], en[MAXCG];
	double cpu[MAXCG], cpi[MAXCG];	/* this interval's */
	uint64_t seq;
	double interval_s;		/* 0: 1 s */
	uint64_t began_ns;		/* the last snapshot's */
	const char *app[MAXCG];		/* a label app=<it> on the row;
					   NULL: no label */
};

/* The generator's state: a test may seed it. */
extern uint64_t ifr_rng;

/* Uniform in [0, 1), the same every run. */
double uniform(void);
/* One interval of n's cgroups as a snapshot (interval n->interval_s,
 * 1 s when 0; cpu[] is CPU-s/s over it). */
struct snapshot *node_step(struct node *n);
/* The defaults at a 60 s window and 30 s victim window: a sample every
 * interval. */
struct interference_config cfg_small(void);
struct interference *analysis(const struct interference_config *c);
/* Feed one interval. */
void feed(struct interference *ifr, struct node *n);
const struct interference_cgroup *analysed(
    const struct interference_result *r, const char *path);
int victims(const struct interference_result *r);
/* The suspect of victim path at rank, or NULL. */
const struct interference_suspect *suspect(
    const struct interference_result *r, const char *victim, unsigned rank);
int named(const struct interference_result *r, const char *path);
/* CPI around base with a 3% spread. */
double noisy(double base);
/* A node of /v, /a and 200 busy neighbours /n0 ... /n199 (freed by the
 * caller). */
struct node *pair_node(void);

#endif
