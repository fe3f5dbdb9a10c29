/* nameidx_test.c - the name-to-number index: lookups before and after it
 * grows, duplicates refused, and an index emptied and used again. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "util/nameidx.h"

#define N 20000

int
main(void)
{
	static char names[N][16];
	struct nameidx x = { 0 };
	char other[16];
	size_t i, v, added = 0, found = 0, right = 0;

	/* Empty: nothing is found, and freeing it is fine. */
	CHECK(nameidx_find(&x, "a", &v) == 0);
	nameidx_free(&x);
	nameidx_free(NULL);

	CHECK(nameidx_add(&x, "ipc", 7) == 0);
	CHECK(nameidx_find(&x, "ipc", &v) == 1 && v == 7);
	CHECK(nameidx_find(&x, "ipc", NULL) == 1);
	CHECK(nameidx_find(&x, "ip", &v) == 0);
	CHECK(nameidx_find(&x, "ipcc", &v) == 0);
	CHECK(nameidx_find(&x, "", &v) == 0);
	/* A duplicate is refused and the first keeps its value. */
	CHECK(nameidx_add(&x, "ipc", 8) == -EEXIST);
	CHECK(nameidx_find(&x, "ipc", &v) == 1 && v == 7);
	CHECK(x.nr == 1);
	/* The empty name is a name like any other. */
	CHECK(nameidx_add(&x, "", 9) == 0);
	CHECK(nameidx_find(&x, "", &v) == 1 && v == 9);
	nameidx_free(&x);
	CHECK(x.slot == NULL && x.nr == 0);
	CHECK(nameidx_find(&x, "ipc", &v) == 0);

	/* Many names, through every doubling of the table: each is found
	 * with its own value, by content (another buffer, same text). */
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "g%zu", i);
		added += nameidx_add(&x, names[i], i) == 0;
	}
	CHECK(added == N && x.nr == N);
	CHECK(2 * x.nr <= x.mask + 1);
	for (i = 0; i < N; i++) {
		snprintf(other, sizeof(other), "g%zu", i);
		if (nameidx_find(&x, other, &v)) {
			found++;
			right += v == i;
		}
	}
	CHECK(found == N && right == N);
	for (i = 0, v = 0; i < N; i += 97)
		v += nameidx_add(&x, names[i], 0) == -EEXIST;
	CHECK(v == (N + 96) / 97 && x.nr == N);
	CHECK(nameidx_find(&x, "g20000", &v) == 0);
	CHECK(nameidx_find(&x, "g-1", &v) == 0);
	nameidx_free(&x);
	return CHECK_DONE();
}
