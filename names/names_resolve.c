/*
 * names_resolve.c - the resolver's lookups: what each runtime reader says of a
 * container id, whether its record places it in the cgroup, when to ask again,
 * bounded per round.
 * Design: docs/containers.md, "Container names"; docs/architecture.md,
 * "names/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "names/names_int.h"
#include "names/names_resolve.h"
#include "util/clock.h"

/* Empty a cache entry's names, freeing those it owns (names.c's cache
 * and this file's lookups both empty entries). */
void
names_resolve_clear(struct centry *e)
{
	size_t k;

	for (k = 0; k < NAMES_NR; k++) {
		if (e->owned)
			free(e->v[k]);
		e->v[k] = NULL;
	}
	e->owned = 0;
}

#define ROUND_LOOKUPS 64
#define SLOW_NS 500000000ULL		/* one lookup this long: slow */
#define PROBE_NS 10000000000ULL		/* runtimes probed at most every 10 s */
#define RETRY_MIN_NS 2000000000ULL
#define RETRY_MAX_NS 300000000000ULL
#define REFRESH_NS 10000000000ULL	/* a name's record checked this often */
#define REFRESH_CHECKS 256		/* at most so many a round */
#define REFRESH_PAUSE_NS 100000000ULL	/* between rounds of checks */

/* Does f (a reader's answer) place the container at cgroup? */
static int
found_placed(const struct names_found *f, const char *cgroup)
{
	size_t k;

	for (k = 0; k < NAMES_CGPATHS; k++)
		if (f->cgpath[k][0] && names_cgroup_match(f->cgpath[k],
		    cgroup))
			return 1;
	return 0;
}

/* Each reader's runtime: here or not, said once per change. */
static void
probe_all(struct names *n)
{
	char where[512];
	size_t i;
	int r;

	for (i = 0; i < NREADERS; i++) {
		struct reader *rd = &n->rd[i];

		where[0] = '\0';
		r = rd->ops->probe(rd->data, where, sizeof(where));
		if (r == rd->state)
			continue;
		if (r == 0)
			LOG(n, LOG_INFO, "container names: reading %s state "
			    "in %s", rd->ops->name, where);
		else if (r == -ENOENT)
			LOG(n, LOG_INFO, "container names: no "
			    "%s state here (%s absent)%s", rd->ops->name,
			    where, rd->state == 1 ? "" : ": its containers "
			    "keep only their ids");
		else
			LOG(n, LOG_WARNING, "container names: %s state "
			    "unreadable: %s: %s; its containers keep only "
			    "their ids",
			    rd->ops->name, where, strerror(-r));
		rd->state = r;
		snprintf(rd->where, sizeof(rd->where), "%s", where);
	}
}

/* Every reader present, in order, until one knows id: 1; or 0, with
 * *err the first reader's error and f->err its words (the readers after
 * it start from a clean f). */
static int
lookup_id(struct names *n, const char *id, struct names_found *f,
    int *err, int probed)
{
	char why[sizeof(f->err)] = "";
	uint64_t t0, dt;
	size_t i;
	int r;

	*err = 0;
	for (i = 0; i < NREADERS; i++) {
		struct reader *rd = &n->rd[i];

		if (probed && rd->state != 0)
			continue;
		memset(f, 0, sizeof(*f));
		t0 = mono_ns();
		r = rd->ops->find(rd->data, id, f);
		dt = mono_ns() - t0;
		if (probed && (dt >= SLOW_NS) != rd->slow) {
			rd->slow = dt >= SLOW_NS;
			if (rd->slow)
				LOG(n, LOG_WARNING, "container names: "
				    "reading %s state is slow (%.1fs for one "
				    "container); names may come late",
				    rd->ops->name, (double)dt / 1e9);
			else
				LOG(n, LOG_INFO, "container names: "
				    "reading %s state is fast again",
				    rd->ops->name);
		}
		if (r == 0) {
			*err = 0;	/* another runtime's trouble */
			return 1;
		}
		if (r != -ENOENT && *err == 0) {
			*err = r;
			if (f->err[0])
				snprintf(why, sizeof(why), "%s", f->err);
			else
				snprintf(why, sizeof(why), "%s state: %s",
				    rd->ops->name, strerror(-r));
		}
	}
	memcpy(f->err, why, sizeof(why));
	return 0;
}

int
names_lookup(struct names *n, const char *id, const char *cgroup,
    struct names_found *f)
{
	int err;

	if (!names_id_valid(id))
		return 0;
	return lookup_id(n, id, f, &err, 0) && found_placed(f, cgroup);
}

/* Has the record e's names came from changed since (or gone)? */
static int
record_changed(struct names *n, const struct centry *e)
{
	struct stat st;

	if (e->src == NULL)
		return 0;		/* nothing to watch */
	return rt_stat(&n->root, e->src, &st) < 0 ||
	    !rt_stamp_same(&e->stamp, &st);
}

/* Do f's names differ from e's? */
static int
names_differ(const struct centry *e, const struct names_found *f)
{
	size_t k;

	if (e->sandbox != (f->sandbox && !e->delegated))
		return 1;
	for (k = 0; k < NAMES_NR; k++)
		if (strcmp(e->v[k] ? e->v[k] : "", f->v[k]) != 0)
			return 1;
	return 0;
}

/* Make *next_ns at most t. */
static void
due_by(uint64_t *next_ns, uint64_t t)
{
	if (t < *next_ns)
		*next_ns = t;
}

/*
 * Say that e's cgroup carries the id of a container its runtime places
 * elsewhere.  Anyone who can make a cgroup can name it after a real
 * container (the ids are in /proc/<pid>/cgroup), and make it again and
 * again: at warn at most MISPLACED_WARNS a minute, the rest at debug and
 * counted in one line when the next minute's first is said.
 */
#define MISPLACED_WARNS 3
#define MISPLACED_WINDOW_NS (60 * 1000000000ULL)

static void
say_misplaced(struct names *n, const struct centry *e,
    const struct names_found *f, uint64_t now)
{
	const char *where = f->cgpath[0][0] ? f->cgpath[0] :
	    "no cgroup in its record";
	int prio = LOG_WARNING;

	if (n->misplaced_window_ns == 0 ||
	    now - n->misplaced_window_ns >= MISPLACED_WINDOW_NS) {
		if (n->misplaced_quiet)
			LOG(n, LOG_WARNING, "container names: %u more "
			    "cgroups carried the id of a container placed "
			    "elsewhere in the last minute: not named (each at "
			    "debug)",
			    n->misplaced_quiet);
		n->misplaced_window_ns = now;
		n->misplaced_warned = n->misplaced_quiet = 0;
	}
	if (n->misplaced_warned < MISPLACED_WARNS)
		n->misplaced_warned++;
	else {
		n->misplaced_quiet++;
		prio = LOG_DEBUG;
	}
	LOG(n, prio, "container names: cgroup %s carries the id of "
	    "container %.12s, which its runtime places elsewhere (%s): not "
	    "named", e->cgroup, e->id, where);
}

/* Look e up now, and keep what its runtime's record says: 1 if its
 * names changed.  *now: the clock after the lookup. */
static int
resolve_one(struct names *n, struct centry *e, uint64_t *now,
    uint64_t *next_ns)
{
	struct names_found *f = &n->found;
	uint64_t backoff;
	int changed = 0, hit, err, misplaced;
	size_t k;

	if (!n->probed || *now - n->probed_ns >= PROBE_NS) {
		probe_all(n);
		n->probed = 1;
		n->probed_ns = *now;
	}
	if (!e->looked)
		e->delegated = names_delegated(n->cgroot, e->cgroup);
	hit = lookup_id(n, e->id, f, &err, 1);
	*now = mono_ns();
	if (err && !e->logged) {
		e->logged = 1;
		LOG(n, LOG_WARNING, "container names: %s; container %.12s "
		    "keeps only its id", f->err, e->id);
	}
	/* The id is in the cgroup's name, which anyone may choose; the
	 * runtime's record says where the container is. */
	misplaced = hit && !found_placed(f, e->cgroup);
	if (misplaced) {
		hit = 0;
		if (!e->misplaced_logged++)
			say_misplaced(n, e, f, *now);
	}
	if (!hit && e->found && !misplaced) {
		/* Its record is gone or unreadable now: the names stay
		 * (the container is going, or being rewritten) and the
		 * record is checked again later. */
		due_by(next_ns, e->check_ns);
		return 0;
	}
	if (!hit && e->found) {
		/* Its record places it elsewhere now: unnamed. */
		names_resolve_clear(e);
		e->found = e->sandbox = 0;
		changed = 1;
	}
	if (!hit) {
		backoff = RETRY_MIN_NS << (e->tries < 8 ? e->tries : 8);
		e->retry_ns = *now + (backoff < RETRY_MAX_NS ? backoff :
		    RETRY_MAX_NS);
		e->tries++;
		due_by(next_ns, e->retry_ns);
		changed |= !e->looked;
		e->looked = 1;
		return changed;
	}
	free(e->src);
	e->src = f->src[0] ? strdup(f->src) : NULL;
	e->stamp = f->stamp;
	e->check_ns = *now + REFRESH_NS;
	due_by(next_ns, e->check_ns);
	if (e->found && !names_differ(e, f))
		return 0;	/* rewritten, same names */
	names_resolve_clear(e);
	e->owned = 1;
	for (k = 0; k < NAMES_NR; k++)
		if (f->v[k][0] && (e->v[k] = strdup(f->v[k])) == NULL)
			break;	/* ENOMEM: fewer labels */
	/* Never hidden in a subtree a user was delegated. */
	e->sandbox = f->sandbox && !e->delegated;
	e->looked = e->found = 1;
	return 1;
}

/* Look up what is due, within the round's budget.  1 if the map
 * changes; *next_ns: when the next retry or check is due (0: at
 * once). */
int
names_resolve_due(struct names *n, uint64_t *next_ns)
{
	uint64_t t0 = mono_ns(), now = t0;
	size_t i, done = 0, checks = 0;
	int changed = 0;

	*next_ns = UINT64_MAX;
	for (i = 0; i < n->nr_cache; i++) {
		struct centry *e = &n->cache[i];

		if (e->looked && !e->found && e->retry_ns > now) {
			due_by(next_ns, e->retry_ns);
			continue;
		}
		if (e->found && e->check_ns > now) {
			due_by(next_ns, e->check_ns);
			continue;
		}
		if (done >= ROUND_LOOKUPS || now - t0 >= ROUND_NS) {
			*next_ns = 0;
			break;
		}
		if (e->found) {
			/* Due for a check: the record's stat(), bounded. */
			if (checks >= REFRESH_CHECKS) {
				due_by(next_ns, now + REFRESH_PAUSE_NS);
				continue;
			}
			checks++;
			e->check_ns = now + REFRESH_NS;
			if (!record_changed(n, e)) {
				due_by(next_ns, e->check_ns);
				continue;
			}
		}
		done++;
		changed |= resolve_one(n, e, &now, next_ns);
	}
	return changed;
}
