/*
 * interference_state_test.c - the analysis's baselines across a restart
 * (analysis/state.c) on generated traces (tests/lib/ifr_trace.h):
 *
 * - kept: an analysis that learnt 60 samples writes its file; a new one
 *   that reads it judges at once, so a rise from its second sample makes
 *   a victim within the victim rule's samples, where a fresh analysis
 *   judges nothing for its first 30;
 * - matched by path, or by workload when the path changed (a container
 *   made again: a new id in its path, the same labels), never by a
 *   workload another cgroup took, nor when nothing matches;
 * - refused with one line and a fresh start: a field out of range
 *   (each one), an entry count that disagrees with the length, another
 *   sample length (not used), a file others can write (statefile.c);
 * - written every 5 minutes of snapshot time, not at every sample.
 */
#include "autoconf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/check.h"
#include "tests/lib/ifr_trace.h"
#include "util/statefile.h"

static char dir[] = "/tmp/ifr_state_test.XXXXXX";
static char path[64];
static char lines[8][512];
static int nlines;

static void
logged(int prio, const char *fmt, ...)
{
	va_list ap;

	(void)prio;
	va_start(ap, fmt);
	if (nlines < 8)
		vsnprintf(lines[nlines++], sizeof(lines[0]), fmt, ap);
	va_end(ap);
}

/* Did a line logged since the last learn_and_save or refusal contain
 * s? */
static int
said(const char *s)
{
	int i, found = 0;

	for (i = 0; i < nlines; i++)
		found |= strstr(lines[i], s) != NULL;
	return found;
}

/* Four steady cgroups /a (app=web) ... /d, CPI 1.0 with 3% noise; /a's
 * up by `rise` from sample `from`. */
static struct node *
node4(const char *a_path)
{
	static const char *const names[4] = { NULL, "/b", "/c", "/d" };
	struct node *n = calloc(1, sizeof(*n));
	size_t i;

	if (n == NULL)
		abort();
	n->nr = 4;
	for (i = 0; i < 4; i++)
		n->path[i] = i ? names[i] : a_path;
	n->app[0] = "web";
	return n;
}

static void
step4(struct node *n, int t, int from, double rise)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		n->cpu[i] = 1.0;
		n->cpi[i] = noisy(1.0) * (i == 0 && t >= from ? 1 + rise : 1);
	}
}

/* An analysis with the state file, having learnt `samples` steady ones
 * on node4(a_path), written and freed. */
static void
learn_and_save(const char *a_path, int samples)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = node4(a_path);
	int t;

	unlink(path);
	nlines = 0;
	CHECK(interference_state_file(ifr, path, logged) == 0);
	CHECK(said("none yet"));
	nlines = 0;
	for (t = 0; t < samples; t++) {
		step4(n, t, 1 << 30, 0);
		feed(ifr, n);
	}
	CHECK(interference_state_save(ifr) == 0);
	interference_free(ifr);
	free(n);
}

/* A new analysis reading the file (or none), /a (at a_path) up 30% from
 * its second sample: the first sample /a is a victim, or -1. */
static int
first_victim(const char *a_path, int with_file, double interval_s)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = node4(a_path);
	struct interference_result *r;
	int t, first = -1;

	n->interval_s = interval_s;
	if (with_file)
		CHECK(interference_state_file(ifr, path, logged) == 0);
	for (t = 0; t < 40 && first < 0; t++) {
		step4(n, t, 1, 0.3);
		feed(ifr, n);
		r = interference_result(ifr);
		if (analysed(r, a_path) && analysed(r, a_path)->victim)
			first = t;
		interference_result_unref(r);
	}
	interference_free(ifr);
	free(n);
	return first;
}

static void
test_kept(void)
{
	int fresh, kept;

	learn_and_save("/a", 60);
	fresh = first_victim("/a", 0, 1);
	kept = first_victim("/a", 1, 1);
	printf("a rise from the second sample: a victim at sample %d afresh, "
	    "%d with the file\n", fresh, kept);
	CHECK(fresh < 0 || fresh >= 30);
	CHECK(kept >= 1 && kept <= 6);
	CHECK(said("4 baselines read"));
	CHECK(said("4 of its 4 baselines taken"));
}

static void
test_matched(void)
{
	int other;

	/* Made again: another path, the same workload (app=web). */
	learn_and_save("/docker-aaaa.scope", 60);
	CHECK(first_victim("/docker-bbbb.scope", 1, 1) <= 6);
	CHECK(said("4 of its 4 baselines taken"));
	/* Its labels changed too: nothing of it matches (the others do). */
	learn_and_save("/x", 60);
	{
		struct interference_config c = cfg_small();
		struct interference *ifr = analysis(&c);
		struct node *n = node4("/y");
		int t;

		n->app[0] = "db";
		CHECK(interference_state_file(ifr, path, logged) == 0);
		for (t = 0; t < 3; t++) {
			step4(n, t, 1 << 30, 0);
			feed(ifr, n);
		}
		interference_free(ifr);
		free(n);
		CHECK(said("3 of its 4 baselines taken"));
	}
	/* Another sample length: not used, one line. */
	learn_and_save("/a", 60);
	nlines = 0;
	other = first_victim("/a", 1, 2);
	CHECK(other < 0 || other >= 15);
	CHECK(said("are of 1 s samples, these are 2 s: not used"));
}

/* The file's payload, read back as the analysis wrote it. */
static unsigned char *
payload(size_t *len)
{
	void *p = NULL;

	CHECK(statefile_read(path, "PMUIFRST", 1, 1 << 24, &p, len) == 0);
	return p;
}

static void
put_double(unsigned char *p, double d)
{
	uint64_t v;
	int i;

	memcpy(&v, &d, sizeof(v));
	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The saved file with one field of entry 0 set to bad: refused, said,
 * and nothing restored. */
static void
refused_with(size_t off, double bad, const char *word)
{
	unsigned char *p;
	size_t len;
	struct interference_config c = cfg_small();
	struct interference *ifr;
	char want[128];

	learn_and_save("/a", 60);
	p = payload(&len);
	put_double(p + 16 + off, bad);
	CHECK(statefile_write(path, "PMUIFRST", 1, p, len) == 0);
	free(p);
	ifr = analysis(&c);
	nlines = 0;
	CHECK(interference_state_file(ifr, path, logged) == 0);
	snprintf(want, sizeof(want), "entry 0: %s out of range", word);
	if (!said(want)) {
		printf("not said: %s; said: %s\n", want, nlines ? lines[0] :
		    "nothing");
		CHECK(0);
	}
	interference_free(ifr);
	CHECK(!said("baselines taken"));
}

static void
test_refused(void)
{
	unsigned char *p;
	size_t len;
	struct interference_config c = cfg_small();
	struct interference *ifr;

	refused_with(16, NAN, "mean");
	refused_with(16, -1, "mean");
	refused_with(24, -1, "variance");
	refused_with(32, 1e300, "autocovariance");
	refused_with(48, -1, "sensitivity");
	refused_with(0, 0, "key");
	/* The entry count against the length. */
	learn_and_save("/a", 60);
	p = payload(&len);
	p[8] = 5;
	CHECK(statefile_write(path, "PMUIFRST", 1, p, len) == 0);
	ifr = analysis(&c);
	nlines = 0;
	CHECK(interference_state_file(ifr, path, logged) == 0);
	CHECK(said("the entry count is wrong"));
	interference_free(ifr);
	/* Samples learnt under the baseline's minimum. */
	p[8] = 4;
	p[16 + 56] = 3;
	CHECK(statefile_write(path, "PMUIFRST", 1, p, len) == 0);
	free(p);
	ifr = analysis(&c);
	nlines = 0;
	CHECK(interference_state_file(ifr, path, logged) == 0);
	CHECK(said("entry 0: samples learnt out of range"));
	interference_free(ifr);
	/* Writable by others: the envelope refuses it. */
	learn_and_save("/a", 60);
	CHECK(chmod(path, 0666) == 0);
	ifr = analysis(&c);
	nlines = 0;
	CHECK(interference_state_file(ifr, path, logged) == 0);
	CHECK(said("refused"));
	interference_free(ifr);
	CHECK(chmod(path, 0600) == 0);
}

/* Written every 300 s of snapshots: the first sample closes with the
 * second snapshot (t = 1), the file comes 300 s of snapshots after it
 * (t = 301), not before. */
static void
test_periodic(void)
{
	struct interference_config c = cfg_small();
	struct interference *ifr = analysis(&c);
	struct node *n = node4("/a");
	struct stat st;
	int t;

	unlink(path);
	CHECK(interference_state_file(ifr, path, logged) == 0);
	for (t = 0; t < 400 && stat(path, &st) < 0; t++) {
		step4(n, t, 1 << 30, 0);
		feed(ifr, n);
	}
	printf("the file written after snapshot t = %d\n", t - 1);
	fflush(stdout);
	CHECK(t - 1 == 301);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	interference_free(ifr);
	free(n);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 99;
	snprintf(path, sizeof(path), "%s/analysis.state", dir);
	test_kept();
	test_matched();
	test_refused();
	test_periodic();
	unlink(path);
	rmdir(dir);
	return CHECK_DONE();
}
