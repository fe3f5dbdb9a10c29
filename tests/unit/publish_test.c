/*
 * publish_test.c - the publish primitive (util/publish.h): references
 * counted and dropped where it says, a swapped-out object freed once its
 * last reader lets go, get_or_make keeping or making one, and threads
 * that meet: one swapping, others reading and racing get_or_make.
 *
 * An object's destructor does not free it: it poisons the payload with
 * plain stores and marks it dead, and the test frees everything at the
 * end.  A reader that reads a dead object's payload (a reference not
 * taken, or dropped too soon) sees the poison in any build; under
 * ThreadSanitizer (check.sh's tsan pass runs this test) the poisoning
 * store also races with that read, and with a read the destructor's
 * thread was not ordered after (a count decremented without release and
 * acquire).
 */
#include "autoconf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "util/publish.h"

#define WORDS 16
#define SWAPS 20000
#define READERS 3

struct obj {
	struct publish_ref ref;
	long seq;
	long w[WORDS];			/* seq in each, until freed */
	atomic_int dead;
};

/* Every object made, to free at the end. */
static pthread_mutex_t objs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct obj **objs;
static size_t objs_size;
static atomic_int nr_objs, nr_freed, twice;

static void
obj_free(struct publish_ref *r)
{
	struct obj *o = publish_of(r, struct obj, ref);
	int i;

	for (i = 0; i < WORDS; i++)
		o->w[i] = -1;
	if (atomic_exchange(&o->dead, 1))
		atomic_fetch_add(&twice, 1);
	atomic_fetch_add(&nr_freed, 1);
}

static struct obj *
obj_new(long seq)
{
	struct obj *o = calloc(1, sizeof(*o));
	int i;

	if (o == NULL)
		abort();
	publish_ref_init(&o->ref, obj_free);
	o->seq = seq;
	for (i = 0; i < WORDS; i++)
		o->w[i] = seq;
	pthread_mutex_lock(&objs_lock);
	if ((size_t)atomic_load(&nr_objs) == objs_size) {
		objs_size = objs_size ? 2 * objs_size : 1024;
		if ((objs = realloc(objs, objs_size * sizeof(*objs))) == NULL)
			abort();
	}
	objs[atomic_fetch_add(&nr_objs, 1)] = o;
	pthread_mutex_unlock(&objs_lock);
	return o;
}

/* 1 if o reads whole: every word its seq, not freed. */
static int
obj_whole(const struct obj *o)
{
	int i;

	for (i = 0; i < WORDS; i++)
		if (o->w[i] != o->seq)
			return 0;
	return !atomic_load(&o->dead);
}

static int
keep_seq(const struct publish_ref *cur, void *arg)
{
	return publish_of(cur, const struct obj, ref)->seq == *(long *)arg;
}

static struct publish_ref *
make_seq(void *arg)
{
	return &obj_new(*(long *)arg)->ref;
}

static struct publish_ref *
make_none(void *arg)
{
	(void)arg;
	return NULL;
}

static void
test_one_thread(void)
{
	struct publish_slot s;
	struct publish_ref *r, *r2;
	struct obj *a, *b;
	long seq;
	int freed = atomic_load(&nr_freed);

	publish_unref(NULL);
	publish_slot_init(&s, NULL);
	CHECK(publish_get(&s) == NULL);

	a = obj_new(1);
	publish_swap(&s, &a->ref);
	r = publish_get(&s);
	CHECK(r == &a->ref);
	/* Swapped out while a reader holds it: alive until it lets go. */
	b = obj_new(2);
	publish_swap(&s, &b->ref);
	CHECK(!atomic_load(&a->dead) && obj_whole(a));
	publish_unref(r);
	CHECK(atomic_load(&a->dead));
	CHECK(atomic_load(&nr_freed) == freed + 1);

	/* get_or_make: kept when it will do, made once when not. */
	seq = 2;
	r = publish_get_or_make(&s, keep_seq, make_seq, &seq);
	CHECK(r == &b->ref);
	publish_unref(r);
	CHECK(!atomic_load(&b->dead));
	seq = 3;
	r = publish_get_or_make(&s, keep_seq, make_seq, &seq);
	CHECK(r != NULL && publish_of(r, struct obj, ref)->seq == 3);
	CHECK(atomic_load(&b->dead));
	r2 = publish_get_or_make(&s, keep_seq, make_seq, &seq);
	CHECK(r2 == r);
	publish_unref(r2);
	/* make failing leaves the slot as it was. */
	seq = 4;
	CHECK(publish_get_or_make(&s, keep_seq, make_none, &seq) == NULL);
	r2 = publish_get(&s);
	CHECK(r2 == r);
	publish_unref(r2);
	publish_unref(r);
	CHECK(!atomic_load(&publish_of(r, struct obj, ref)->dead));

	/* fini drops the slot's reference; an empty slot is fine too. */
	publish_slot_fini(&s);
	CHECK(atomic_load(&publish_of(r, struct obj, ref)->dead));
	CHECK(atomic_load(&nr_freed) == freed + 3);
	publish_slot_init(&s, NULL);
	publish_slot_fini(&s);
}

static struct publish_slot shared, made;
static atomic_int started, stop, bad;

static void *
writer(void *arg)
{
	long i;

	(void)arg;
	while (atomic_load(&started) < READERS)
		;	/* the readers meet every swap */
	for (i = 1; i <= SWAPS; i++)
		publish_swap(&shared, &obj_new(i)->ref);
	atomic_store(&stop, 1);
	return NULL;
}

static void *
reader(void *arg)
{
	struct publish_ref *r, *m;
	long last = 0, seq;

	(void)arg;
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&stop)) {
		if ((r = publish_get(&shared)) == NULL)
			continue;
		const struct obj *o = publish_of(r, struct obj, ref);

		/* Whole, and never older than one seen before. */
		if (!obj_whole(o) || o->seq < last)
			atomic_fetch_add(&bad, 1);
		last = o->seq;
		/* What a scrape does: the made thing for what was read. */
		seq = o->seq;
		if ((m = publish_get_or_make(&made, keep_seq, make_seq,
		    &seq)) == NULL || !obj_whole(publish_of(m, struct obj,
		    ref)))
			atomic_fetch_add(&bad, 1);
		publish_unref(m);
		publish_unref(r);
	}
	return NULL;
}

static void
test_threads(void)
{
	pthread_t w, rd[READERS];
	int i, freed0 = atomic_load(&nr_freed), objs0 = atomic_load(&nr_objs);

	publish_slot_init(&shared, &obj_new(0)->ref);
	publish_slot_init(&made, NULL);
	for (i = 0; i < READERS; i++)
		CHECK(pthread_create(&rd[i], NULL, reader, NULL) == 0);
	CHECK(pthread_create(&w, NULL, writer, NULL) == 0);
	pthread_join(w, NULL);
	for (i = 0; i < READERS; i++)
		pthread_join(rd[i], NULL);
	CHECK(atomic_load(&bad) == 0);
	/* All but the two the slots hold are freed, none twice. */
	CHECK(atomic_load(&nr_freed) - freed0 ==
	    atomic_load(&nr_objs) - objs0 - 2 + (made.cur == NULL));
	publish_slot_fini(&shared);
	publish_slot_fini(&made);
	CHECK(atomic_load(&nr_freed) == atomic_load(&nr_objs));
	CHECK(atomic_load(&twice) == 0);
}

int
main(void)
{
	int i;

	test_one_thread();
	test_threads();
	for (i = 0; i < atomic_load(&nr_objs); i++)
		free(objs[i]);
	free(objs);
	return CHECK_DONE();
}
