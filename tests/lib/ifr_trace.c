/*
 * ifr_trace.c - generated traces for the interference analysis's tests
 * (ifr_trace.h).
 */
#include "autoconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/ifr_trace.h"
#include "tests/lib/xorshift.h"

/* ---- generated traces ------------------------------------------------ */

uint64_t ifr_rng = XORSHIFT_SEED;

/* Uniform in [0, 1), the same every run. */
double
uniform(void)
{
	return xorshift_uniform(&ifr_rng);
}

static const char *const events[2] = { "cycles", "instructions" };
static const char *const app_name[1] = { "app" };
static const unsigned char counted[2] = { 1, 1 };

/* One interval of n's cgroups as a snapshot (interval n->interval_s,
 * 1 s when 0). */
struct snapshot *
node_step(struct node *n)
{
	struct snapshot *s = snapshot_new();
	double iv = n->interval_s > 0 ? n->interval_s : 1;
	size_t i;

	n->seq++;
	n->began_ns += (uint64_t)llround(iv * 1e9);
	s->seq = n->seq;
	s->interval_s = iv;
	s->began_ns = n->began_ns;	/* an interval apart */
	s->rows = snapshot_alloc(s, n->nr * sizeof(*s->rows));
	for (i = 0; i < n->nr; i++) {
		struct snap_row *r = &s->rows[s->nr_rows++];
		double *v = snapshot_alloc(s, 2 * sizeof(double));
		double ins = round(1e9 * n->cpu[i] * iv);

		n->ins[i] += ins;
		n->cyc[i] += round(ins * n->cpi[i]);
		n->en[i] += n->cpu[i] * iv;
		memset(r, 0, sizeof(*r));
		r->cgroup = n->path[i];
		r->cpu = -1;
		r->group = "ipc";
		r->nr_events = 2;
		r->events = (const char **)events;
		r->counted = counted;
		v[0] = n->cyc[i];
		v[1] = n->ins[i];
		r->values = v;
		r->enabled_s = r->running_s = n->en[i];
		if (n->app[i] != NULL) {
			r->nr_labels = 1;
			r->label_names = (const char **)app_name;
			r->label_values = &n->app[i];
		}
	}
	return s;
}

struct interference_config
cfg_small(void)
{
	struct interference_config c;

	interference_config_defaults(&c);
	c.enabled = 1;
	c.group = "ipc";
	c.cycles = "cycles";
	c.instructions = "instructions";
	/* A 60 s window at interval 1 s: a sample every interval. */
	c.window_ns = 60ULL * 1000000000ULL;
	c.victim_window_ns = 30ULL * 1000000000ULL;
	return c;
}

struct interference *
analysis(const struct interference_config *c)
{
	struct interference *ifr = NULL;

	if (interference_new(c, &ifr) != 0) {
		fprintf(stderr, "interference_new: out of memory\n");
		exit(1);
	}
	return ifr;
}

/* Feed one interval. */
void
feed(struct interference *ifr, struct node *n)
{
	struct snapshot *s = node_step(n);

	interference_feed(ifr, s);
	snapshot_unref(s);
}

const struct interference_cgroup *
analysed(const struct interference_result *r, const char *path)
{
	size_t i;

	for (i = 0; r && i < r->nr_cgroups; i++)
		if (strcmp(r->cgroups[i].row->cgroup, path) == 0)
			return &r->cgroups[i];
	return NULL;
}

int
victims(const struct interference_result *r)
{
	size_t i;
	int n = 0;

	for (i = 0; r && i < r->nr_cgroups; i++)
		n += r->cgroups[i].victim;
	return n;
}

/* The suspect of victim path at rank, or NULL. */
const struct interference_suspect *
suspect(const struct interference_result *r, const char *victim,
    unsigned rank)
{
	size_t i;

	for (i = 0; r && i < r->nr_suspects; i++)
		if (strcmp(r->cgroups[r->suspects[i].victim].row->cgroup,
		    victim) == 0 && r->suspects[i].rank == rank)
			return &r->suspects[i];
	return NULL;
}

int
named(const struct interference_result *r, const char *path)
{
	size_t i;

	for (i = 0; r && i < r->nr_suspects; i++)
		if (strcmp(r->suspects[i].row->cgroup, path) == 0)
			return 1;
	return 0;
}

/* CPI around base with a 3% spread. */
double
noisy(double base)
{
	return base * (1 + 0.03 * (uniform() * 2 - 1) * 1.7);
}

struct node *
pair_node(void)
{
	static char names[200][24];
	struct node *n = calloc(1, sizeof(*n));
	size_t i;

	if (n == NULL)
		abort();
	n->nr = 202;
	n->path[0] = "/v";
	n->path[1] = "/a";
	for (i = 0; i < 200; i++) {
		snprintf(names[i], sizeof(names[i]), "/n%zu", i);
		n->path[i + 2] = names[i];
	}
	return n;
}
