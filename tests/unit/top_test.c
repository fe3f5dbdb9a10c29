/*
 * top_test.c - pmu_exporter top's pure parts, without a network or a
 * terminal: the text format reader (escapes, blanks, timestamps, special
 * values, and each malformed line refused with its line number, a NUL
 * byte and too many labels among them), fmt_fit on hostile names
 * (control bytes, invalid UTF-8, zero-width and wide characters, the cut
 * mark), and the model's rates (per-CPU series summed, IPC, a daemon
 * restarted: counts going back start the cgroup again).
 */
#include "autoconf.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/check.h"
#include "top/format.h"
#include "top/model.h"
#include "top/textfmt.h"

struct got {
	char names[8][64], labels[8][256];
	double values[8];
	int n;
};

static int
collect(const struct textfmt_sample *s, void *ctx)
{
	struct got *g = ctx;
	size_t i, o = 0;

	if (g->n == 8)
		return -E2BIG;
	snprintf(g->names[g->n], sizeof(g->names[0]), "%s", s->name);
	g->labels[g->n][0] = '\0';
	for (i = 0; i < s->nr_labels; i++)
		o += (size_t)snprintf(g->labels[g->n] + o, sizeof(g->labels[0]) - o,
		    "%s=%s;", s->labels[i].name, s->labels[i].value);
	g->values[g->n++] = s->value;
	return 0;
}

static int
parse(const char *text, struct got *g, char *err)
{
	char *buf = strdup(text);
	int r;

	memset(g, 0, sizeof(*g));
	err[0] = '\0';
	r = textfmt_parse(buf, strlen(text), collect, g, err, 128);
	free(buf);
	return r;
}

static void
test_reader(void)
{
	struct got g;
	char err[128], many[4096];
	size_t o, i;

	CHECK(parse("# HELP a b\n\na 1\n b{x=\"1\",} 2 1700000000000\n"
	    "c{ y = \"q\\\\ \\\" \\n\" , z=\"\"} NaN\nd +Inf\n", &g, err) == 0);
	CHECK(g.n == 4);
	CHECK_STR(g.names[1], "b");
	CHECK_STR(g.labels[1], "x=1;");
	CHECK(g.values[1] == 2);
	CHECK_STR(g.labels[2], "y=q\\ \" \n;z=;");
	CHECK(g.values[2] != g.values[2]);
	CHECK(g.values[3] > 1e308);
	CHECK(parse("a 1\nb{x=\"open} 1\n", &g, err) == -EINVAL);
	CHECK_STR(err, "line 2: a quoted label value expected");
	CHECK(parse("a{x=\"\\t\"} 1\n", &g, err) == -EINVAL);
	CHECK(parse("a{x=\"1\"}\n", &g, err) == -EINVAL);
	CHECK(parse("a one\n", &g, err) == -EINVAL);
	CHECK_STR(err, "line 1: a number expected");
	CHECK(parse("1a 1\n", &g, err) == -EINVAL);
	CHECK(parse("a{x=\"1\" y=\"2\"} 1\n", &g, err) == -EINVAL);
	memcpy(many, "a 1\nb\0 2\n", 9);
	CHECK(textfmt_parse(many, 9, collect, &g, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 2: a NUL byte");
	o = (size_t)snprintf(many, sizeof(many), "m{");
	for (i = 0; i <= TEXTFMT_MAX_LABELS; i++)
		o += (size_t)snprintf(many + o, sizeof(many) - o, "l%zu=\"v\",", i);
	snprintf(many + o, sizeof(many) - o, "} 1\n");
	CHECK(parse(many, &g, err) == -EINVAL);
	CHECK_STR(err, "line 1: too many labels");
}

static void
test_fit(void)
{
	char out[256];

	CHECK(fmt_fit(out, sizeof(out), "abc", 5) == 5);
	CHECK_STR(out, "abc  ");
	fmt_fit(out, sizeof(out), "a\033[2J\a\n\x7f\xc2\x9b" "b", 20);
	CHECK_STR(out, "a?[2J????b          ");
	fmt_fit(out, sizeof(out), "x\xff\xfey", 4);
	CHECK_STR(out, "x??y");
	fmt_fit(out, sizeof(out), "a\xe2\x80\xae" "b", 3);	/* RLO: zero width */
	CHECK_STR(out, "ab ");
	fmt_fit(out, sizeof(out), "\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2", 5);
	CHECK_STR(out, "\xe6\xbc\xa2\xe6\xbc\xa2~");	/* 2 + 2 + the mark */
	fmt_fit(out, sizeof(out), "\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2", 4);
	CHECK_STR(out, "\xe6\xbc\xa2~ ");
	fmt_fit(out, sizeof(out), "abcdef", 4);
	CHECK_STR(out, "abc~");
}

static struct top_snap *
page(double k, double ts)
{
	char text[1024];

	snprintf(text, sizeof(text),
	    "pmu_cgroup_events_total{cgroup=\"/a\",unit=\"a.service\",cpu=\"0\",group=\"ipc\",event=\"cycles\"} %g\n"
	    "pmu_cgroup_events_total{cgroup=\"/a\",unit=\"a.service\",cpu=\"1\",group=\"ipc\",event=\"cycles\"} %g\n"
	    "pmu_cgroup_events_total{cgroup=\"/a\",unit=\"a.service\",cpu=\"0\",group=\"ipc\",event=\"instructions\"} %g\n"
	    "pmu_cgroup_enabled_seconds_total{cgroup=\"/a\",unit=\"a.service\",cpu=\"0\",group=\"ipc\"} %g\n"
	    "pmu_exporter_last_collection_timestamp_seconds %g\n",
	    100 * k, 300 * k, 600 * k, 0.5 * k, ts);
	return top_snap_parse(text, strlen(text), 0, (char[64]){ 0 }, 64);
}

static void
test_model(void)
{
	struct top_snap *a = page(1, 1000), *b = page(3, 1002), *c = page(1, 1003);

	CHECK(a && b && c);
	if (!a || !b || !c)
		return;
	top_snap_derive(a, NULL);
	top_snap_derive(b, a);
	CHECK(b->nr == 1);
	CHECK_STR(b->rows[0].name, "a.service");
	CHECK(b->rows[0].rated && b->rows[0].ipc_ok);
	CHECK(b->rows[0].ipc == 1.5);		/* 1200 / 800 */
	CHECK(b->rows[0].cpu == 0.5);		/* 1 s over 2 s */
	top_snap_derive(c, b);			/* counts went back */
	CHECK(!c->rows[0].rated && !c->rows[0].ipc_ok && c->rows[0].nr_ck == 1);
	top_snap_free(a);
	top_snap_free(b);
	top_snap_free(c);
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	test_reader();
	test_fit();
	test_model();
	return CHECK_DONE();
}
