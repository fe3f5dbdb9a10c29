/*
 * state.c - what of the analysis outlives the daemon: each ready baseline in
 * the state file (util/statefile.h), matched again by path or workload.
 * Design: docs/interference.md, "After a restart"; docs/architecture.md,
 * "analysis/".
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "analysis/interference_int.h"
#include "analysis/state.h"
#include "util/statefile.h"

#define MAGIC "PMUIFRST"
#define FORMAT 1
#define HEAD 16
#define ENTRY 64
/* The most entries written or read: 16 MB of them. */
#define MAX_ENTRIES (16u << 20) / ENTRY
/* Snapshot time between two writes. */
#define STATE_EVERY_S 300.0
/* Samples after the start during which cgroups are matched to the file:
 * an hour at the default window. */
#define MATCH_SAMPLES IFR_BASELINE

struct saved {
	uint64_t key, workload;
	double mean, var, acov, bxy, bxx;
	uint32_t bn;
	uint8_t used;
};

static void
say(const struct interference *ifr, int prio, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (ifr->state_log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ifr->state_log(prio, "%s", msg);
}

static void
put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t
get64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void
putd(unsigned char *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put64(p, v);
}

static double
getd(const unsigned char *p)
{
	uint64_t v = get64(p);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

/* ---- the workload ----------------------------------------------------- */

/* Does s end in a Kubernetes pod name's generated suffix: "-" and five
 * of the alphabet it is made from?  Its length without it, else len. */
static size_t
pod_owner_len(const char *s, size_t len)
{
	static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
	size_t i;

	if (len < 7 || s[len - 6] != '-')
		return len;
	for (i = len - 5; i < len; i++)
		if (strchr(alpha, s[i]) == NULL)
			return len;
	return len - 6;
}

uint64_t
state_workload(const struct snap_row *r)
{
	uint64_t h = IFR_HASH0;
	size_t i, n = 0;

	for (i = 0; i < r->nr_labels; i++) {
		const char *k = r->label_names[i], *v = r->label_values[i];
		size_t len = strlen(v);

		if (strcmp(k, "container_id") == 0 ||
		    strcmp(k, "pod_uid") == 0)
			continue;
		if (strcmp(k, "pod") == 0)
			len = pod_owner_len(v, len);
		h = ifr_hash(h, k, strlen(k) + 1);
		h = ifr_hash(h, v, len);
		h = ifr_hash(h, "", 1);
		n++;
	}
	return n == 0 ? 0 : h ? h : 1;
}

/* ---- writing ---------------------------------------------------------- */

int
interference_state_save(struct interference *ifr)
{
	unsigned char *p;
	size_t i, n = 0, len;
	int r;

	if (ifr->state_path == NULL || !(ifr->sample_s > 0))
		return 0;
	for (i = 0; i < ifr->nr; i++)
		n += ifr->cgs[i].bn >= INTERFERENCE_MIN_SAMPLES;
	if (n > MAX_ENTRIES)
		n = MAX_ENTRIES;
	len = HEAD + n * ENTRY;
	if ((p = calloc(1, len)) == NULL)
		return -ENOMEM;
	putd(p, ifr->sample_s);
	put64(p + 8, n);		/* the count, then a u32 of zero */
	for (i = 0, n = 0; i < ifr->nr && HEAD + n * ENTRY < len; i++) {
		const struct cg *c = &ifr->cgs[i];
		unsigned char *e = p + HEAD + n * ENTRY;

		if (c->bn < INTERFERENCE_MIN_SAMPLES)
			continue;
		put64(e, c->key);
		put64(e + 8, c->workload);
		putd(e + 16, c->mean);
		putd(e + 24, c->var);
		putd(e + 32, c->acov);
		putd(e + 40, c->beta_xy);
		putd(e + 48, c->beta_xx);
		put64(e + 56, c->bn);	/* the samples, then zero */
		n++;
	}
	r = statefile_write(ifr->state_path, MAGIC, FORMAT, p, len);
	free(p);
	/* Said when it starts failing, or fails otherwise, and when it
	 * works again: not every 5 minutes. */
	if (r < 0 && r != ifr->state_err)
		say(ifr, LOG_WARNING, "interference state file %s: not "
		    "written: %s", ifr->state_path, statefile_strerror(r));
	else if (r == 0 && ifr->state_err < 0)
		say(ifr, LOG_INFO, "interference state file %s: written "
		    "again", ifr->state_path);
	ifr->state_err = r;
	return r;
}

/* At most every STATE_EVERY_S of snapshot time (now_ns). */
void
state_tick(struct interference *ifr, uint64_t now_ns)
{
	if (ifr->state_path == NULL)
		return;
	if (ifr->state_saved_ns == 0)
		ifr->state_saved_ns = now_ns;
	if ((double)(now_ns - ifr->state_saved_ns) / 1e9 < STATE_EVERY_S)
		return;
	ifr->state_saved_ns = now_ns;
	interference_state_save(ifr);
}

/* ---- reading ---------------------------------------------------------- */

/* Entry i of payload p into *s; NULL, or the field that is out of
 * range. */
static const char *
entry_of(const unsigned char *e, struct saved *s)
{
	s->key = get64(e);
	s->workload = get64(e + 8);
	s->mean = getd(e + 16);
	s->var = getd(e + 24);
	s->acov = getd(e + 32);
	s->bxy = getd(e + 40);
	s->bxx = getd(e + 48);
	s->bn = (uint32_t)get64(e + 56);
	s->used = 0;
	if (s->key == 0)
		return "key";
	if (!isfinite(s->mean) || !(s->mean > 0) || s->mean > 1e6)
		return "mean";
	if (!isfinite(s->var) || s->var < 0 || s->var > s->mean * s->mean * 1e4)
		return "variance";
	if (!isfinite(s->acov) || fabs(s->acov) > s->var + 1e-300)
		return "autocovariance";
	if (!isfinite(s->bxy) || !isfinite(s->bxx) || s->bxx < 0 ||
	    fabs(s->bxy) > 1e6 || s->bxx > 1e6)
		return "sensitivity";
	if (s->bn < INTERFERENCE_MIN_SAMPLES || s->bn > IFR_BASELINE ||
	    get64(e + 56) >> 32 != 0)
		return "samples learnt";
	return NULL;
}

static int
cmp_key(const void *a, const void *b)
{
	const struct saved *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

int
interference_state_file(struct interference *ifr, const char *path,
    void (*log)(int prio, const char *fmt, ...))
{
	void *buf = NULL;
	const unsigned char *p;
	size_t len, n, i;
	double sample_s;
	const char *bad;
	struct saved *v;
	int r;

	ifr->state_log = log;
	free(ifr->state_path);
	ifr->state_path = NULL;
	if (path == NULL)
		return 0;
	if ((ifr->state_path = strdup(path)) == NULL)
		return -ENOMEM;
	r = statefile_read(path, MAGIC, FORMAT, HEAD + MAX_ENTRIES * ENTRY,
	    &buf, &len);
	if (r == -ENOENT) {
		say(ifr, LOG_INFO, "interference state file %s: none yet: "
		    "the baselines start afresh", path);
		return 0;
	}
	if (r < 0) {
		say(ifr, LOG_WARNING, "interference state file %s: refused "
		    "(%s): the baselines start afresh", path,
		    statefile_strerror(r));
		return 0;
	}
	p = buf;
	bad = NULL;
	n = 0;
	sample_s = len >= HEAD ? getd(p) : NAN;
	if (len < HEAD)
		bad = "its length";
	else if (!isfinite(sample_s) || sample_s <= 0 || sample_s > 86400)
		bad = "the sample length";
	else if ((n = (size_t)(get64(p + 8) & 0xffffffffu)) > MAX_ENTRIES ||
	    get64(p + 8) >> 32 != 0 || len != HEAD + n * ENTRY)
		bad = "the entry count";
	v = bad ? NULL : calloc(n + 1, sizeof(*v));
	if (!bad && v == NULL)
		bad = "memory";
	for (i = 0; !bad && i < n; i++)
		if ((bad = entry_of(p + HEAD + i * ENTRY, &v[i])) != NULL)
			say(ifr, LOG_WARNING, "interference state file %s: "
			    "entry %zu: %s out of range: the file is refused "
			    "and the baselines start afresh", path, i, bad);
	free(buf);
	if (bad) {
		if (i == 0 || strcmp(bad, "memory") == 0)
			say(ifr, LOG_WARNING, "interference state file %s: "
			    "%s is wrong: the file is refused and the "
			    "baselines start afresh", path, bad);
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_key);
	free(ifr->saved);
	ifr->saved = v;
	ifr->nr_saved = n;
	ifr->saved_sample_s = sample_s;
	say(ifr, LOG_INFO, "interference state file %s: %zu baselines read, "
	    "matched to cgroups by path or workload as they are met", path,
	    n);
	return 0;
}

/* The unused saved entry for c (key) or, else, for its workload. */
static struct saved *
saved_for(struct interference *ifr, uint64_t key, uint64_t workload)
{
	size_t lo = 0, hi = ifr->nr_saved, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ifr->saved[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ifr->nr_saved && ifr->saved[lo].key == key &&
	    !ifr->saved[lo].used)
		return &ifr->saved[lo];
	for (i = 0; workload && i < ifr->nr_saved; i++)
		if (ifr->saved[i].workload == workload && !ifr->saved[i].used)
			return &ifr->saved[i];
	return NULL;
}

void
state_forget(struct interference *ifr)
{
	if (ifr->saved != NULL)
		say(ifr, LOG_INFO, "interference state file %s: %zu of its "
		    "%zu baselines taken by the cgroups met", ifr->state_path,
		    ifr->restored, ifr->nr_saved);
	free(ifr->saved);
	ifr->saved = NULL;
	ifr->nr_saved = 0;
}

void
state_restore(struct interference *ifr, struct cg *c)
{
	struct saved *s;

	if (ifr->saved == NULL)
		return;
	if (ifr->sample >= MATCH_SAMPLES) {
		state_forget(ifr);
		return;
	}
	if (ifr->sample_s > 0 &&
	    fabs(ifr->sample_s - ifr->saved_sample_s) > 1e-6 *
	    ifr->saved_sample_s) {
		say(ifr, LOG_INFO, "interference state file %s: its "
		    "baselines are of %g s samples, these are %g s: not "
		    "used", ifr->state_path, ifr->saved_sample_s,
		    ifr->sample_s);
		state_forget(ifr);
		return;
	}
	if ((s = saved_for(ifr, c->key, c->workload)) == NULL)
		return;
	s->used = 1;
	c->mean = s->mean;
	c->var = s->var;
	c->acov = s->acov;
	c->beta_xy = s->bxy;
	c->beta_xx = s->bxx;
	c->bn = s->bn;
	c->prev = NAN;
	ifr->restored++;
}
