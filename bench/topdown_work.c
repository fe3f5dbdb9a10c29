/*
 * topdown_work.c - two workloads whose top-down class is known, for
 * bench/topdown_check.sh.
 *
 *   topdown_work chase MIB SECONDS   pointer chase over MIB MiB: each load
 *                                    depends on the last and misses every
 *                                    cache, so slots go to the backend
 *                                    (memory bound)
 *   topdown_work compute SECONDS     independent integer multiply-adds in
 *                                    registers: mostly retiring
 *
 * The chase's cycle is one random permutation (Sattolo's algorithm) of
 * cache-line-sized cells, so no prefetcher can guess the next address.
 * Prints the iterations done, so that the loops are not optimised away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lib/xorshift.h"
#include "util/clock.h"

struct cell {
	struct cell *next;
	char pad[64 - sizeof(struct cell *)];
};

static int
chase(size_t mib, double seconds)
{
	size_t n = mib * 1024 * 1024 / sizeof(struct cell), i, j, *perm;
	struct cell *c, *p;
	uint64_t seed = 0x9e3779b97f4a7c15ULL, iter = 0;
	double end;

	if (n < 2 || (c = malloc(n * sizeof(*c))) == NULL ||
	    (perm = malloc(n * sizeof(*perm))) == NULL) {
		perror("topdown_work");
		return 1;
	}
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {	/* Sattolo: one cycle of all */
		j = (size_t)(xorshift64(&seed) % i);
		size_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		c[perm[i]].next = &c[perm[(i + 1) % n]];
	free(perm);
	end = clock_s(CLOCK_MONOTONIC) + seconds;
	for (p = c; clock_s(CLOCK_MONOTONIC) < end;) {
		for (i = 0; i < 100000; i++)
			p = p->next;
		iter += 100000;
	}
	printf("chase iterations=%llu end=%p\n", (unsigned long long)iter,
	    (void *)p);
	free(c);
	return 0;
}

static int
compute(double seconds)
{
	uint64_t a = 1, b = 2, c = 3, d = 4, iter = 0;
	double end = clock_s(CLOCK_MONOTONIC) + seconds;
	int i;

	while (clock_s(CLOCK_MONOTONIC) < end) {
		for (i = 0; i < 1000000; i++) {
			a = a * 6364136223846793005ULL + 1;
			b = b * 6364136223846793005ULL + 3;
			c = c * 6364136223846793005ULL + 5;
			d = d * 6364136223846793005ULL + 7;
		}
		iter += 1000000;
	}
	printf("compute iterations=%llu sum=%llu\n", (unsigned long long)iter,
	    (unsigned long long)(a ^ b ^ c ^ d));
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "chase") == 0)
		return chase(strtoul(argv[2], NULL, 0), atof(argv[3]));
	if (argc == 3 && strcmp(argv[1], "compute") == 0)
		return compute(atof(argv[2]));
	fprintf(stderr, "usage: topdown_work chase MIB SECONDS | "
	    "topdown_work compute SECONDS\n");
	return 2;
}
