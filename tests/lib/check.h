/*
 * check.h - the few assertions the unit tests need.  Each failed check
 * prints file:line and what differed; the test exits 1 if any failed.
 */
#ifndef PMU_CHECK_H
#define PMU_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

/* How many times needle occurs in hay, overlapping ones counted. */
static inline size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return n;
}

#define CHECK(cond) do {						\
	check_count++;							\
	if (!(cond)) {							\
		check_failures++;					\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n",		\
		    __FILE__, __LINE__, #cond);				\
	}								\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	check_count++;							\
	if (g_ == NULL || strcmp(g_, w_) != 0) {			\
		check_failures++;					\
		fprintf(stderr, "%s:%d: got \"%s\"\n%*swant \"%s\"\n",	\
		    __FILE__, __LINE__, g_ ? g_ : "(null)",		\
		    (int)strlen(__FILE__) + 8, "", w_);			\
	}								\
} while (0)

#define CHECK_CONTAINS(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	check_count++;							\
	if (g_ == NULL || strstr(g_, w_) == NULL) {			\
		check_failures++;					\
		fprintf(stderr, "%s:%d: \"%s\"\n  does not contain "	\
		    "\"%s\"\n", __FILE__, __LINE__, g_ ? g_ : "(null)",	\
		    w_);						\
	}								\
} while (0)

#define CHECK_DONE() (fprintf(stderr, "%d checks, %d failed\n",	\
	check_count, check_failures), check_failures ? 1 : 0)

#endif
