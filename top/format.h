/*
 * format.h - top's text: the order of the rows (sort and filter), each row as
 * one line of an exact width, the header, a row's detail, the batch and JSON
 * outputs, and fmt_fit, which every name passes through.
 * Design: docs/top.md, "Hostile names".
 */
#ifndef PMU_TOP_FORMAT_H
#define PMU_TOP_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "top/model.h"

enum top_sort { SORT_DROP, SORT_CPU, SORT_NAME };

/* The width of a line of rows at 80 columns and more. */
#define FMT_MIN_WIDTH 80
#define FMT_BATCH_WIDTH 160

/* The rows of s that match filter (a case-blind substring of the name
 * or cgroup path; NULL or "" for all) in the order asked: their indexes
 * into idx (room for s->nr), how many. */
size_t fmt_order(const struct top_snap *s, enum top_sort sort,
    const char *filter, size_t *idx);

/* src as exactly width columns of safe text into dst (cap bytes;
 * 4 * width + 1 is always enough): the bytes written. */
size_t fmt_fit(char *dst, size_t cap, const char *src, int width);

/* The column header and one row, each exactly width columns. */
void fmt_colhead(char *dst, size_t cap, int width);
void fmt_row(char *dst, size_t cap, const struct top_row *r, int width);

/* The header's three lines (unfitted: the caller fits them). */
void fmt_head(const struct top_snap *s, const char *url, char l[3][512]);

/* A row's detail, a line at a time (unfitted). */
void fmt_detail(const struct top_row *r, void (*line)(const char *, void *),
    void *ctx);

const char *fmt_sort_name(enum top_sort sort);

/* One page of batch output: the header, the column header, the rows. */
void fmt_batch(FILE *f, const struct top_snap *s, const char *url,
    enum top_sort sort, const char *filter);

/* The snapshot as one JSON object and a newline. 0 or -ENOMEM. */
int fmt_json(FILE *f, const struct top_snap *s, const char *url);

#endif
