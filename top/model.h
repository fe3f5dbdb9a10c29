/*
 * model.h - what pmu_exporter top shows, made from one page of the daemon's
 * metrics: a row per counted cgroup and the node's header; then, against the
 * page before and top's own checkpoints, the rates.
 * Design: docs/top.md, "How it is built".
 */
#ifndef PMU_TOP_MODEL_H
#define PMU_TOP_MODEL_H

#include <stddef.h>

enum { TD_RETIRING, TD_BAD_SPEC, TD_FE_BOUND, TD_BE_BOUND, TD_N };

struct top_event {
	char *group, *event, *pmu;	/* pmu may be NULL */
	int enabled;			/* 1: the group's enabled seconds */
	double value, rate;
	int rated;
};

struct top_suspect {
	char *name, *cgroup;
	int rank;
	double strength;
};

#define TOP_CKPTS 31
#define TOP_CKPT_EVERY 120.0

struct top_ckpt {
	double t, cyc, ins;
};

struct top_row {
	char *cgroup, *name;
	struct top_event *ev;
	size_t nr_ev, cap_ev;
	struct top_suspect *sus;
	size_t nr_sus, cap_sus;
	int victim;			/* -1: not judged */
	double cyc, ins, td[TD_N];	/* sums the rates come from */
	int has_ipc, has_td;
	/* Against the page before. */
	int rated, ipc_ok, change_ok, td_ok;
	double cpu, ipc, change, change_span, td_share[TD_N];
	struct top_ckpt ck[TOP_CKPTS];
	size_t nr_ck;
};

struct top_head {
	double collections, interval, duration, last_ts, reload_ok;
	double interference, bpf_active, counted, matched, skipped;
	double open_errors, run, en, cg_run, cg_en;
	int hw, seen;			/* seen: the daemon's own metrics */
	/* Against the page before. */
	int coverage_ok;
	double coverage, new_collections;
};

struct top_tddef {
	char *group, *pmu, *definition;
};

struct top_snap {
	struct top_row *rows;
	size_t nr, cap;
	size_t *hash, hash_cap;		/* row index + 1, 0: empty */
	struct top_tddef *tdd;
	size_t nr_tdd, cap_tdd;
	struct top_head h;
	double t;	/* its counts' time: the daemon's last collection, else
			 * when it was fetched (monotonic s) */
	int derived;			/* rates against a page before */
};

/* A page (len bytes, text[len] writable) to a snapshot fetched at t;
 * NULL with err filled when it is not the text format or memory ran
 * out. */
struct top_snap *top_snap_parse(char *text, size_t len, double t,
    char *err, size_t errlen);

/* The rates of cur against prev (NULL: none yet), and the checkpoints
 * carried over.  A cgroup whose counts went back (a restarted daemon)
 * starts again. */
void top_snap_derive(struct top_snap *cur, const struct top_snap *prev);

void top_snap_free(struct top_snap *s);

#endif
