/*
 * format.c - top's text (format.h): the table's one layout at every width from
 * 80 columns, the header, the detail, batch and JSON.
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <wchar.h>
#include <json-c/json.h>

#include "top/format.h"
#include "util/utf8.h"

/* The fixed columns' widths, with their separators:
 * " CPU  " 6, " IPC" 5, " dIPC" 6, four " TD" 16, " V" 2, " " 1, " STR" 5. */
#define FIXED 41

static const char *const sort_names[] = {
	[SORT_DROP] = "IPC drop", [SORT_CPU] = "CPU", [SORT_NAME] = "name",
};

const char *
fmt_sort_name(enum top_sort sort)
{
	return sort_names[sort];
}

/* The code point of a valid character of n bytes at s. */
static unsigned
decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = s[0] & lead[n];
	size_t i;

	for (i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* How many columns the character takes, -1 for one shown as '?'. */
static int
columns(unsigned cp)
{
	int w;

	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return -1;
	if (cp < 0x7f)
		return 1;
	if (MB_CUR_MAX == 1)
		return -1;	/* not a UTF-8 terminal */
	w = wcwidth((wchar_t)cp);
	return w < 0 ? -1 : w;
}

/* The character at s: its bytes in *n, its columns (-1: shown as '?'). */
static int
char_at(const char *s, size_t *n)
{
	int valid;

	*n = utf8_char(s, &valid);
	return valid ? columns(decode((const unsigned char *)s, *n)) : -1;
}

static int
text_columns(const char *s)
{
	int used = 0, w;
	size_t n;

	for (; *s; s += n)
		used += (w = char_at(s, &n)) < 0 ? 1 : w;
	return used;
}

size_t
fmt_fit(char *dst, size_t cap, const char *src, int width)
{
	int used = 0, w, room = width;
	size_t o = 0, n;

	if (text_columns(src) > width)
		room = width - 1;	/* the last column for the cut mark */
	for (; *src; src += n) {
		w = char_at(src, &n);
		if (used + (w < 0 ? 1 : w) > room || o + n + 2 > cap)
			break;
		if (w < 0)
			dst[o++] = '?';
		else if (w > 0)
			memcpy(dst + o, src, n), o += n;
		used += w < 0 ? 1 : w;
	}
	if (*src && used < width && o + 2 <= cap)
		dst[o++] = '~', used++;
	while (used < width && o + 2 <= cap)
		dst[o++] = ' ', used++;
	dst[o] = '\0';
	return o;
}

static void
widths(int width, int *name, int *sus)
{
	int rest = (width < FMT_MIN_WIDTH ? FMT_MIN_WIDTH : width) - FIXED;

	*name = rest * 11 / 20;
	*sus = rest - *name;
}

void
fmt_colhead(char *dst, size_t cap, int width)
{
	char name[64], sus[64];
	int nw, sw;

	widths(width, &nw, &sw);
	fmt_fit(name, sizeof(name), "NAME", nw);
	fmt_fit(sus, sizeof(sus), "SUSPECT", sw);
	snprintf(dst, cap, "%s   CPU  IPC  dIPC RET  FE  BS  BE V %s  STR",
	    name, sus);
}

/* v as w columns with prec decimals (pct: signed, with '%'), or "-";
 * "+" when it does not fit. */
static void
num(char *dst, size_t cap, int ok, double v, int w, int prec, int pct)
{
	if (!ok || !isfinite(v))
		snprintf(dst, cap, "%*s", w, "-");
	else if (pct)
		snprintf(dst, cap, "%+*.*f%%", w - 1, prec, v);
	else
		snprintf(dst, cap, "%*.*f", w, prec, v);
	if (strlen(dst) > (size_t)w)
		snprintf(dst, cap, "%*s", w, "+");
}

void
fmt_row(char *dst, size_t cap, const struct top_row *r, int width)
{
	char name[1024], sus[1024], cpu[16], ipc[16], chg[16], td[TD_N][16];
	char str[16];
	const struct top_suspect *s = r->nr_sus ? &r->sus[0] : NULL;
	int nw, sw, i;

	widths(width, &nw, &sw);
	fmt_fit(name, sizeof(name), r->name, nw);
	fmt_fit(sus, sizeof(sus), s ? s->name : "", sw);
	num(cpu, sizeof(cpu), r->rated, r->cpu, 5, r->cpu >= 100 ? 0 : 2, 0);
	num(ipc, sizeof(ipc), r->ipc_ok, r->ipc, 4, 2, 0);
	num(chg, sizeof(chg), r->change_ok, r->change * 100, 5, 0, 1);
	for (i = 0; i < TD_N; i++)
		num(td[i], sizeof(td[i]), r->td_ok, r->td_share[i] * 100, 3, 0, 0);
	num(str, sizeof(str), s != NULL, s ? s->strength : 0, 4, 2, 0);
	snprintf(dst, cap, "%s %s %s %s %s %s %s %s %c %s %s", name, cpu, ipc,
	    chg, td[TD_RETIRING], td[TD_FE_BOUND], td[TD_BAD_SPEC],
	    td[TD_BE_BOUND], r->victim > 0 ? 'V' : r->victim == 0 ? '.' : '-',
	    sus, str);
}

static int
cmp_name(const struct top_row *a, const struct top_row *b)
{
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->cgroup, b->cgroup);
}

/* qsort has no context: the rows of the page being sorted. */
static const struct top_row *sorting;
static enum top_sort sorting_by;

static int
cmp_idx(const void *x, const void *y)
{
	const struct top_row *a = &sorting[*(const size_t *)x];
	const struct top_row *b = &sorting[*(const size_t *)y];

	if (sorting_by == SORT_DROP && a->change_ok != b->change_ok)
		return b->change_ok - a->change_ok;
	if (sorting_by == SORT_DROP && a->change != b->change)
		return a->change < b->change ? -1 : 1;
	if (sorting_by == SORT_CPU && a->cpu != b->cpu)
		return a->cpu > b->cpu ? -1 : 1;
	return cmp_name(a, b);
}

size_t
fmt_order(const struct top_snap *s, enum top_sort sort, const char *filter,
    size_t *idx)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		if (!filter || !*filter || strcasestr(s->rows[i].name, filter) ||
		    strcasestr(s->rows[i].cgroup, filter))
			idx[n++] = i;
	sorting = s->rows;
	sorting_by = sort;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_idx);
	return n;
}

/* What is wrong with the collection, or "ok". */
static void
health(const struct top_head *h, int derived, char *dst, size_t cap)
{
	double age = h->last_ts > 0 ? (double)time(NULL) - h->last_ts : 0;
	size_t o = 0;

	dst[0] = '\0';
#define SAY(...) (o += (size_t)snprintf(dst + o, o < cap ? cap - o : 0, __VA_ARGS__))
	if (derived && h->seen && h->new_collections <= 0)
		SAY("%sno new collection", o ? ", " : "");
	if (h->interval > 0 && age > 3 * h->interval + 1)
		SAY("%slast collection %.0f s ago", o ? ", " : "", age);
	if (h->seen && h->reload_ok == 0)
		SAY("%slast reload FAILED", o ? ", " : "");
	if (h->open_errors > 0)
		SAY("%s%.0f open errors", o ? ", " : "", h->open_errors);
	if (h->skipped > 0)
		SAY("%s%.0f cgroups skipped", o ? ", " : "", h->skipped);
#undef SAY
	if (!o)
		snprintf(dst, cap, "ok");
}

void
fmt_head(const struct top_snap *s, const char *url, char l[3][512])
{
	const struct top_head *h = &s->h;
	char cov[32], hl[256], when[16];
	time_t now = time(NULL);
	size_t i, victims = 0;

	for (i = 0; i < s->nr; i++)
		victims += s->rows[i].victim > 0;
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	snprintf(l[0], sizeof(l[0]), "pmu_exporter top  %s  %s  %zu cgroups, "
	    "%zu victims", when, url, s->nr, victims);
	if (h->coverage_ok)
		snprintf(cov, sizeof(cov), "%.1f%%", h->coverage * 100);
	else
		snprintf(cov, sizeof(cov), "-");
	snprintf(l[1], sizeof(l[1]), "node: coverage %s (running/enabled)  "
	    "mode %s, %s counters  cgroups %.0f counted of %.0f  "
	    "interference %s", cov, h->bpf_active > 0 ? "bpf" : "perf",
	    h->hw ? "hardware" : "software", h->counted, h->matched,
	    h->interference > 0 ? "on" : "off");
	health(h, s->derived, hl, sizeof(hl));
	snprintf(l[2], sizeof(l[2]), "collection: %s  every %gs, last took "
	    "%.1f ms, %.0f collections (+%.0f)", hl, h->interval,
	    h->duration * 1e3, h->collections,
	    s->derived ? h->new_collections : 0);
}

void
fmt_detail(const struct top_row *r, void (*line)(const char *, void *),
    void *ctx)
{
	char b[1536];
	size_t i;

	snprintf(b, sizeof(b), "%s", r->name);
	line(b, ctx);
	snprintf(b, sizeof(b), "cgroup %s", r->cgroup);
	line(b, ctx);
	snprintf(b, sizeof(b), "victim: %s", r->victim > 0 ? "YES" :
	    r->victim == 0 ? "no" : "not judged");
	line(b, ctx);
	if (r->change_ok) {
		snprintf(b, sizeof(b), "IPC %.3f, %+.1f%% against its IPC over "
		    "the last %.0f s", r->ipc, r->change * 100, r->change_span);
		line(b, ctx);
	}
	line("events (per second, summed over CPUs):", ctx);
	for (i = 0; i < r->nr_ev; i++) {
		const struct top_event *e = &r->ev[i];
		char rate[32];

		if (e->rated)
			snprintf(rate, sizeof(rate), "%14.6g", e->rate);
		else
			snprintf(rate, sizeof(rate), "%14s", "-");
		snprintf(b, sizeof(b), "  %-12s %-28s %s%s%s", e->group,
		    e->enabled ? "(enabled, CPU-s/s)" : e->event, rate,
		    e->pmu ? "  pmu=" : "", e->pmu ? e->pmu : "");
		line(b, ctx);
	}
	snprintf(b, sizeof(b), "suspects: %zu", r->nr_sus);
	line(b, ctx);
	for (i = 0; i < r->nr_sus; i++) {
		snprintf(b, sizeof(b), "  #%d %.2f %s (%s)", r->sus[i].rank,
		    r->sus[i].strength, r->sus[i].name, r->sus[i].cgroup);
		line(b, ctx);
	}
}

static void
rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

void
fmt_batch(FILE *f, const struct top_snap *s, const char *url,
    enum top_sort sort, const char *filter)
{
	char l[3][512], fit[4 * 512 + 1], row[8 * FMT_BATCH_WIDTH];
	size_t *idx = malloc((s->nr + 1) * sizeof(*idx)), n, i;

	fmt_head(s, url, l);
	for (i = 0; i < 3; i++) {
		fmt_fit(fit, sizeof(fit), l[i], (int)strlen(l[i]));
		fprintf(f, "%s\n", fit);
	}
	fmt_colhead(row, sizeof(row), FMT_BATCH_WIDTH);
	rstrip(row);
	fprintf(f, "\n%s\n", row);
	if (!idx) {
		fprintf(f, "(out of memory)\n");
		return;
	}
	n = fmt_order(s, sort, filter, idx);
	for (i = 0; i < n; i++) {
		fmt_row(row, sizeof(row), &s->rows[idx[i]], FMT_BATCH_WIDTH);
		rstrip(row);
		fprintf(f, "%s\n", row);
	}
	fprintf(f, "\n");
	fflush(f);
	free(idx);
}

/* A string for JSON: valid UTF-8 (json-c escapes the rest). */
static struct json_object *
jstr(const char *s)
{
	size_t cap = strlen(s) * 3 + 1;
	char *v = malloc(cap);
	struct json_object *o;

	if (!v)
		return NULL;
	utf8_copy(v, cap, s);
	o = json_object_new_string(v);
	free(v);
	return o;
}

static struct json_object *
jnum(int ok, double v)
{
	return ok && isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *
json_row(const struct top_row *r)
{
	static const char *const td[TD_N] = { "retiring", "bad_speculation",
	    "frontend_bound", "backend_bound" };
	struct json_object *o = json_object_new_object(), *a, *x, *t = NULL;
	size_t i;

	json_object_object_add(o, "cgroup", jstr(r->cgroup));
	json_object_object_add(o, "name", jstr(r->name));
	json_object_object_add(o, "cpu", jnum(r->rated, r->cpu));
	json_object_object_add(o, "ipc", jnum(r->ipc_ok, r->ipc));
	json_object_object_add(o, "ipc_change", jnum(r->change_ok, r->change));
	json_object_object_add(o, "ipc_change_seconds",
	    jnum(r->change_ok, r->change_span));
	if (r->td_ok && (t = json_object_new_object()))
		for (i = 0; i < TD_N; i++)
			json_object_object_add(t, td[i],
			    json_object_new_double(r->td_share[i]));
	json_object_object_add(o, "topdown", t);
	json_object_object_add(o, "victim", r->victim < 0 ? NULL :
	    json_object_new_boolean(r->victim > 0));
	a = json_object_new_array();
	for (i = 0; i < r->nr_sus; i++) {
		x = json_object_new_object();
		json_object_object_add(x, "rank", json_object_new_int(r->sus[i].rank));
		json_object_object_add(x, "name", jstr(r->sus[i].name));
		json_object_object_add(x, "cgroup", jstr(r->sus[i].cgroup));
		json_object_object_add(x, "strength",
		    json_object_new_double(r->sus[i].strength));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "suspects", a);
	a = json_object_new_array();
	for (i = 0; i < r->nr_ev; i++) {
		const struct top_event *e = &r->ev[i];

		x = json_object_new_object();
		json_object_object_add(x, "group", jstr(e->group));
		json_object_object_add(x, "event", e->enabled ?
		    json_object_new_string("enabled_seconds") : jstr(e->event));
		if (e->pmu)
			json_object_object_add(x, "pmu", jstr(e->pmu));
		json_object_object_add(x, "per_second", jnum(e->rated, e->rate));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "events", a);
	return o;
}

int
fmt_json(FILE *f, const struct top_snap *s, const char *url)
{
	struct json_object *o = json_object_new_object(), *h, *a;
	size_t *idx = malloc((s->nr + 1) * sizeof(*idx)), n, i;
	char hl[256];

	if (!o || !idx || !(h = json_object_new_object()) ||
	    !(a = json_object_new_array())) {
		json_object_put(o);
		free(idx);
		return -ENOMEM;
	}
	health(&s->h, s->derived, hl, sizeof(hl));
	json_object_object_add(o, "url", jstr(url));
	json_object_object_add(o, "time", json_object_new_int64(time(NULL)));
	json_object_object_add(h, "coverage", jnum(s->h.coverage_ok, s->h.coverage));
	json_object_object_add(h, "mode", json_object_new_string(
	    s->h.bpf_active > 0 ? "bpf" : "perf"));
	json_object_object_add(h, "hardware", json_object_new_boolean(s->h.hw));
	json_object_object_add(h, "cgroups_counted", json_object_new_double(s->h.counted));
	json_object_object_add(h, "interference", json_object_new_boolean(
	    s->h.interference > 0));
	json_object_object_add(h, "collection_health", json_object_new_string(hl));
	json_object_object_add(h, "collections", json_object_new_double(s->h.collections));
	json_object_object_add(o, "node", h);
	n = fmt_order(s, SORT_NAME, NULL, idx);
	for (i = 0; i < n; i++)
		json_object_array_add(a, json_row(&s->rows[idx[i]]));
	json_object_object_add(o, "cgroups", a);
	fprintf(f, "%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	free(idx);
	return 0;
}
