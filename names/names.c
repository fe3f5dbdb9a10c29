/*
 * names.c - the resolver (names.h): its thread, its cache, and the map it
 * publishes.
 * Design: docs/containers.md, "Container names"; docs/architecture.md,
 * "names/".
 */
#include "autoconf.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names/names.h"
#include "names/names_int.h"
#include "util/clock.h"

#define MAX_IDS 65536			/* the most ids kept */
#define STOP_S 2			/* names_free waits this long */

const char *const names_label_name[NAMES_NR] = {
	[NAMES_NAMESPACE] = "namespace",
	[NAMES_POD] = "pod",
	[NAMES_CONTAINER] = "container",
	[NAMES_IMAGE] = "image",
	[NAMES_POD_UID] = "pod_uid",
};

static const struct rt_ops *const readers[] = {
	&rt_containerd_ops, &rt_storage_ops, &rt_docker_ops,
};
_Static_assert(NREADERS == sizeof(readers) / sizeof(readers[0]),
    "names_int.h counts the readers");

/* ---- the map ------------------------------------------------------ */

static int
pair_cmp(const char *ida, const char *cga, const char *idb, const char *cgb)
{
	int r = strcmp(ida, idb);

	return r ? r : strcmp(cga, cgb);
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct namemap_entry *x = a, *y = b;

	return pair_cmp(x->id, x->cgroup, y->id, y->cgroup);
}

const struct namemap_entry *
namemap_find(const struct namemap *m, const char *id, const char *cgroup)
{
	struct namemap_entry key = { .id = id, .cgroup = cgroup };

	if (m == NULL || m->nr == 0 || cgroup == NULL)
		return NULL;
	return bsearch(&key, m->e, m->nr, sizeof(*m->e), entry_cmp);
}

void
namemap_unref(struct namemap *m)
{
	if (m != NULL)
		publish_unref(&m->ref);
}

/* The last reference's destructor: a map is one block. */
static void
namemap_free(struct publish_ref *r)
{
	free(publish_of(r, struct namemap, ref));
}

/* One block: the header, the entries, then their strings. */
static struct namemap *
namemap_build(const struct centry *c, size_t nr)
{
	struct namemap *m;
	size_t i, k, n = 0, bytes = 0;
	char *p;

	for (i = 0; i < nr; i++) {
		if (!c[i].looked)
			continue;
		n++;
		bytes += strlen(c[i].id) + strlen(c[i].cgroup) + 2;
		for (k = 0; k < NAMES_NR; k++)
			bytes += c[i].v[k] ? strlen(c[i].v[k]) + 1 : 0;
	}
	m = malloc(sizeof(*m) + n * sizeof(*m->e) + bytes);
	if (m == NULL)
		return NULL;
	publish_ref_init(&m->ref, namemap_free);
	m->nr = 0;
	m->e = (struct namemap_entry *)(m + 1);
	p = (char *)(m->e + n);
	for (i = 0; i < nr; i++) {
		struct namemap_entry *e;

		if (!c[i].looked)
			continue;
		e = &m->e[m->nr++];
		e->id = p;
		p = stpcpy(p, c[i].id) + 1;
		e->cgroup = p;
		p = stpcpy(p, c[i].cgroup) + 1;
		e->found = c[i].found;
		e->sandbox = c[i].sandbox;
		for (k = 0; k < NAMES_NR; k++) {
			e->v[k] = NULL;
			if (c[i].v[k]) {
				e->v[k] = p;
				p = stpcpy(p, c[i].v[k]) + 1;
			}
		}
	}
	return m;
}

struct namemap *
names_map(struct names *n)
{
	struct publish_ref *r = publish_get(&n->map);

	return r ? publish_of(r, struct namemap, ref) : NULL;
}

/* ---- the cache ---------------------------------------------------- */

/*
 * The cache's names, once in the map m just built from it, point into m
 * (whose reference the slot n->map keeps): each name is held once,
 * not once in the cache and once in the map.  m's entries are the
 * looked-up cache entries, in the same order.
 */
static void
cache_share(struct names *n, const struct namemap *m)
{
	size_t i, j = 0, k;

	for (i = 0; i < n->nr_cache; i++) {
		struct centry *e = &n->cache[i];

		if (!e->looked)
			continue;
		for (k = 0; k < NAMES_NR; k++) {
			if (e->owned)
				free(e->v[k]);
			e->v[k] = (char *)m->e[j].v[k];
		}
		e->owned = 0;
		j++;
	}
}

static int
want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return pair_cmp(x->id, x->cgroup, y->id, y->cgroup);
}

static void
want_free(struct want *w, size_t nr)
{
	size_t i;

	for (i = 0; w && i < nr; i++) {
		free(w[i].id);
		free(w[i].cgroup);
	}
	free(w);
}

static void
centry_free(struct centry *e)
{
	names_resolve_clear(e);
	free(e->src);
	free(e->id);
	free(e->cgroup);
}

/*
 * Make the cache hold exactly the pairs in want (sorted here; the
 * strings are taken over and want freed).  1 if an entry went, 0, or
 * -ENOMEM: the cache unchanged, want left to the caller, whole.
 */
static int
cache_merge(struct names *n, struct want *want, size_t nr)
{
	struct centry *next;
	size_t i, j = 0, k = 0, gone = 0;

	qsort(want, nr, sizeof(*want), want_cmp);
	if ((next = calloc(nr + 1, sizeof(*next))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct want *w = &want[i];

		if (k > 0 && pair_cmp(next[k - 1].id, next[k - 1].cgroup,
		    w->id, w->cgroup) == 0) {
			free(w->id);
			free(w->cgroup);
			continue;
		}
		while (j < n->nr_cache && pair_cmp(n->cache[j].id,
		    n->cache[j].cgroup, w->id, w->cgroup) < 0) {
			centry_free(&n->cache[j++]);
			gone++;
		}
		if (j < n->nr_cache && pair_cmp(n->cache[j].id,
		    n->cache[j].cgroup, w->id, w->cgroup) == 0) {
			next[k++] = n->cache[j++];
			free(w->id);
			free(w->cgroup);
		} else
			next[k++] = (struct centry){ .id = w->id,
			    .cgroup = w->cgroup };
	}
	for (; j < n->nr_cache; j++) {
		centry_free(&n->cache[j]);
		gone++;
	}
	free(want);
	free(n->cache);
	n->cache = next;
	n->nr_cache = k;
	return gone > 0;
}

/* ---- the thread --------------------------------------------------- */

/* With n->lock held: wait until asked to stop, given a new set, or due
 * (next_ns).  Woken by names_want; at the latest once a minute. */
static void
names_wait(struct names *n, uint64_t *next_ns)
{
	struct timespec until;
	uint64_t now;

	while (!n->stop && !n->have_want && *next_ns > mono_ns()) {
		now = mono_ns();
		if (*next_ns - now > 60000000000ULL)
			*next_ns = now + 60000000000ULL;
		until.tv_sec = (time_t)(*next_ns / 1000000000ULL);
		until.tv_nsec = (long)(*next_ns % 1000000000ULL);
		pthread_cond_timedwait(&n->wake, &n->lock, &until);
	}
}

static void *
names_main(void *arg)
{
	struct names *n = arg;
	uint64_t next_ns = UINT64_MAX;
	struct namemap *m;
	struct want *want, *held = NULL;
	size_t nr, nr_held = 0;
	char cgroot[4096], held_root[4096];
	int changed, have, r;

	for (;;) {
		pthread_mutex_lock(&n->lock);
		names_wait(n, &next_ns);
		if (n->stop) {
			pthread_mutex_unlock(&n->lock);
			break;
		}
		want = n->want;
		nr = n->nr_want;
		have = n->have_want;
		memcpy(cgroot, n->want_cgroot, sizeof(cgroot));
		n->want = NULL;
		n->nr_want = 0;
		n->have_want = 0;
		pthread_mutex_unlock(&n->lock);

		/* A set that could not be merged is merged now, unless a
		 * newer one came. */
		if (held && have)
			want_free(held, nr_held);
		else if (held) {
			want = held;
			nr = nr_held;
			memcpy(cgroot, held_root, sizeof(cgroot));
			have = 1;
		}
		held = NULL;
		changed = 0;
		if (have) {
			if (nr > MAX_IDS) {
				if (!n->logged_cap++)
					LOG(n, LOG_WARNING, "container "
					    "names: %zu containers; names are "
					    "kept for %d of them", nr, MAX_IDS);
				while (nr > MAX_IDS) {
					nr--;
					free(want[nr].id);
					free(want[nr].cgroup);
				}
			}
			if ((r = cache_merge(n, want, nr)) == -ENOMEM) {
				/* Kept, not lost: the collector told it
				 * once and will not again. */
				held = want;
				nr_held = nr;
				memcpy(held_root, cgroot, sizeof(held_root));
			} else {
				memcpy(n->cgroot, cgroot, sizeof(n->cgroot));
				changed = r > 0;
			}
		}
		changed |= names_resolve_due(n, &next_ns);
		if (changed && (m = namemap_build(n->cache, n->nr_cache))) {
			cache_share(n, m);
			publish_swap(&n->map, &m->ref);
		} else if (changed)
			next_ns = 0;	/* ENOMEM: build it again soon */
		if (held && next_ns > mono_ns() + ROUND_NS)
			next_ns = mono_ns() + ROUND_NS;
	}
	want_free(held, nr_held);
	return NULL;
}

/* ---- public ------------------------------------------------------- */

int
names_new(const struct names_opts *o, struct names **out)
{
	pthread_condattr_t ca;
	struct namemap *m;
	struct names *n;
	size_t i;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return -ENOMEM;
	n->o = *o;
	snprintf(n->rootfs, sizeof(n->rootfs), "%s", o->rootfs ? o->rootfs :
	    "/");
	n->o.rootfs = n->rootfs;
	rt_root_init(&n->root, n->rootfs);
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		free(n);
		return -ENOMEM;
	}
	publish_ref_init(&m->ref, namemap_free);
	publish_slot_init(&n->map, &m->ref);
	pthread_mutex_init(&n->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->wake, &ca);
	pthread_condattr_destroy(&ca);
	for (i = 0; i < NREADERS; i++) {
		n->rd[i].ops = readers[i];
		n->rd[i].state = 1;
		if (readers[i]->open(n->rootfs, &n->rd[i].data) < 0) {
			names_free(n);
			return -ENOMEM;
		}
	}
	*out = n;
	return 0;
}

int
names_start(struct names *n)
{
	int r;

	if ((r = pthread_create(&n->thread, NULL, names_main, n)) != 0)
		return -r;
	n->started = 1;
	return 0;
}

void
names_free(struct names *n)
{
	size_t i;

	if (n == NULL)
		return;
	if (n->started) {
		struct timespec until;

		pthread_mutex_lock(&n->lock);
		n->stop = 1;
		pthread_cond_signal(&n->wake);
		pthread_mutex_unlock(&n->lock);
		/*
		 * A lookup may hang in the kernel (a hung network file
		 * system): shutdown does not wait for it.  The thread is
		 * left with everything it uses, which the exiting process
		 * takes with it.
		 */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += STOP_S;
		if (pthread_timedjoin_np(n->thread, NULL, &until) != 0) {
			LOG(n, LOG_WARNING, "container names: a lookup did "
			    "not end within %ds; not waiting for it", STOP_S);
			pthread_detach(n->thread);
			return;
		}
	}
	for (i = 0; i < NREADERS; i++)
		if (n->rd[i].ops && n->rd[i].data)
			n->rd[i].ops->close(n->rd[i].data);
	for (i = 0; i < n->nr_cache; i++)
		centry_free(&n->cache[i]);
	free(n->cache);
	rt_root_fini(&n->root);
	want_free(n->want, n->nr_want);
	publish_slot_fini(&n->map);
	pthread_cond_destroy(&n->wake);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

int
names_want(struct names *n, const char *cgroot, const char *const *ids,
    const char *const *cgroups, size_t nr)
{
	struct want *set, *old;
	size_t i, k = 0, nold;

	if ((set = calloc(nr + 1, sizeof(*set))) == NULL)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!names_id_valid(ids[i]) || cgroups[i] == NULL)
			continue;
		set[k].id = strdup(ids[i]);
		set[k].cgroup = strdup(cgroups[i]);
		k++;
		if (set[k - 1].id == NULL || set[k - 1].cgroup == NULL) {
			want_free(set, k);
			return -ENOMEM;
		}
	}
	pthread_mutex_lock(&n->lock);
	old = n->want;
	nold = n->nr_want;
	n->want = set;
	n->nr_want = k;
	n->have_want = 1;
	snprintf(n->want_cgroot, sizeof(n->want_cgroot), "%s",
	    cgroot ? cgroot : "");
	pthread_cond_signal(&n->wake);
	pthread_mutex_unlock(&n->lock);
	want_free(old, nold);
	return 0;
}
