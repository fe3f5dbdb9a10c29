/*
 * screen.c - pmu_exporter top's screen, with ncurses: the header, a status
 * line, the table and one row's detail; its keys.
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <curses.h>

#include "top/top.h"

#define PAIR_VICTIM 1
#define PAIR_ERROR 2
#define FILTER_MAX 64

struct scr {
	struct poller *p;
	const struct top_opts *o;
	enum top_sort sort;
	char filter[FILTER_MAX + 1];
	char *sel_cg;		/* the selected row's cgroup, kept across pages */
	size_t sel, first, *idx, nidx;
	int frozen, detail, color, w, h;
	double next;
};

/* A line of safe text at row y, cut to the screen. */
static void
put(struct scr *s, int y, const char *text, attr_t a)
{
	char buf[4 * 1024 + 1];

	if (y >= s->h)
		return;
	fmt_fit(buf, sizeof(buf), text, s->w > 1024 ? 1024 : s->w);
	attron(a);
	mvaddstr(y, 0, buf);
	attroff(a);
}

static void
order(struct scr *s)
{
	const struct top_snap *snap = s->p->last;
	size_t i;

	free(s->idx);
	s->idx = NULL;
	s->nidx = 0;
	if (!snap || !(s->idx = malloc((snap->nr + 1) * sizeof(*s->idx))))
		return;
	s->nidx = fmt_order(snap, s->sort, s->filter, s->idx);
	for (i = 0; s->sel_cg && i < s->nidx; i++)
		if (!strcmp(snap->rows[s->idx[i]].cgroup, s->sel_cg))
			s->sel = i;
	if (s->sel >= s->nidx)
		s->sel = s->nidx ? s->nidx - 1 : 0;
}

static void
select_row(struct scr *s, size_t i)
{
	free(s->sel_cg);
	s->sel_cg = NULL;
	s->sel = i;
	if (i < s->nidx)
		s->sel_cg = strdup(s->p->last->rows[s->idx[i]].cgroup);
}

static void
status(struct scr *s, int y)
{
	char b[1024];

	if (s->p->failing) {
		snprintf(b, sizeof(b), "cannot reach %s: %s; retrying every %gs%s",
		    s->o->fetch.url, s->p->err, s->o->interval,
		    s->p->last ? ", the last page shown" : "");
		put(s, y, b, s->color ? COLOR_PAIR(PAIR_ERROR) | A_BOLD :
		    A_REVERSE);
		return;
	}
	snprintf(b, sizeof(b), "%ssort: %s%s%s  keys: i c n sort, / filter, "
	    "f freeze, Enter open, q quit", s->frozen ? "FROZEN (f goes on)  " :
	    "", fmt_sort_name(s->sort), *s->filter ? "  filter: " : "",
	    s->filter);
	put(s, y, b, s->frozen ? A_REVERSE : A_NORMAL);
}

struct detail_ctx {
	struct scr *s;
	int y;
};

static void
detail_line(const char *line, void *ctx)
{
	struct detail_ctx *d = ctx;

	put(d->s, d->y++, line, A_NORMAL);
}

static void
table(struct scr *s, int y)
{
	const struct top_snap *snap = s->p->last;
	char line[8 * 1024];
	int rows = s->h - y - 1, width = s->w < FMT_MIN_WIDTH ? FMT_MIN_WIDTH :
	    s->w > 1000 ? 1000 : s->w;
	size_t i;

	fmt_colhead(line, sizeof(line), width);
	put(s, y++, line, A_REVERSE);
	if (rows <= 0)
		return;
	if (s->sel < s->first)
		s->first = s->sel;
	if (s->sel >= s->first + (size_t)rows)
		s->first = s->sel - (size_t)rows + 1;
	for (i = s->first; i < s->nidx && y < s->h; i++) {
		const struct top_row *r = &snap->rows[s->idx[i]];
		attr_t a = r->victim > 0 ? (s->color ?
		    COLOR_PAIR(PAIR_VICTIM) : A_BOLD) : A_NORMAL;

		fmt_row(line, sizeof(line), r, width);
		put(s, y++, line, a | (i == s->sel ? A_REVERSE : A_NORMAL));
	}
}

static void
draw(struct scr *s)
{
	char l[3][512];
	struct detail_ctx d = { s, 5 };

	erase();
	getmaxyx(stdscr, s->h, s->w);
	if (s->p->last) {
		fmt_head(s->p->last, s->o->fetch.url, l);
		put(s, 0, l[0], A_BOLD);
		put(s, 1, l[1], A_NORMAL);
		put(s, 2, l[2], A_NORMAL);
	} else {
		put(s, 0, "pmu_exporter top: waiting for the first page", A_BOLD);
		put(s, 1, s->o->fetch.url, A_NORMAL);
	}
	status(s, 3);
	if (s->p->last && s->detail && s->sel < s->nidx) {
		put(s, 4, "Esc: back to the table", A_REVERSE);
		fmt_detail(&s->p->last->rows[s->idx[s->sel]], detail_line, &d);
	} else if (s->p->last) {
		table(s, 4);
	}
	refresh();
}

/* The filter typed on the status line: Enter keeps it, Esc leaves the
 * one before.  Bytes of any character but controls; Backspace takes
 * back a whole UTF-8 character. */
static void
prompt(struct scr *s)
{
	char text[FILTER_MAX + 1], line[FILTER_MAX + 16];
	size_t n;
	int c;

	snprintf(text, sizeof(text), "%s", s->filter);
	timeout(-1);
	for (;;) {
		snprintf(line, sizeof(line), "filter: %s_", text);
		move(3, 0);
		clrtoeol();
		put(s, 3, line, A_BOLD);
		refresh();
		c = getch();
		n = strlen(text);
		if (c == '\n' || c == '\r' || c == KEY_ENTER) {
			snprintf(s->filter, sizeof(s->filter), "%s", text);
			break;
		}
		if (c == 27)
			break;
		if (c == KEY_BACKSPACE || c == 127 || c == '\b') {
			while (n && ((unsigned char)text[n - 1] & 0xc0) == 0x80)
				n--;
			text[n ? n - 1 : 0] = '\0';
		} else if (c >= 0x20 && c <= 0xff && c != 127 && n < FILTER_MAX) {
			text[n] = (char)c;
			text[n + 1] = '\0';
		}
	}
	s->sel = 0;
	s->first = 0;
}

/* One key; 1 when it is q. */
static int
key(struct scr *s, int c)
{
	switch (c) {
	case 'q': case 'Q':
		return 1;
	case 'i': s->sort = SORT_DROP; break;
	case 'c': s->sort = SORT_CPU; break;
	case 'n': s->sort = SORT_NAME; break;
	case '/': prompt(s); break;
	case 'f': case ' ': s->frozen = !s->frozen; break;
	case KEY_UP: case 'k':
		if (s->sel)
			select_row(s, s->sel - 1);
		break;
	case KEY_DOWN: case 'j':
		if (s->sel + 1 < s->nidx)
			select_row(s, s->sel + 1);
		break;
	case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT:
		s->detail = s->nidx > 0;
		select_row(s, s->sel);
		break;
	case 27: case KEY_LEFT: case KEY_BACKSPACE: case 127:
		s->detail = 0;
		break;
	default:
		break;
	}
	order(s);
	return 0;
}

static void
colors(struct scr *s)
{
	const char *no = getenv("NO_COLOR");

	s->color = has_colors() && !(no && *no);
	if (!s->color)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_VICTIM, COLOR_RED, -1);
	init_pair(PAIR_ERROR, COLOR_WHITE, COLOR_RED);
}

int
screen_run(struct poller *p, const struct top_opts *o)
{
	struct scr s = { .p = p, .o = o, .sort = o->sort };
	SCREEN *scr;
	double now;
	int c;

	snprintf(s.filter, sizeof(s.filter), "%s", o->filter ? o->filter : "");
	/* newterm, not initscr: a terminal terminfo does not know (an
	 * image without that entry) is a return, not an exit. */
	if (!(scr = newterm(NULL, stdout, stdin)))
		return -1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	colors(&s);
	draw(&s);
	poller_refresh(p);
	order(&s);
	s.next = poller_now() + o->interval;
	for (;;) {
		draw(&s);
		now = poller_now();
		timeout(s.next > now ? (int)((s.next - now) * 1000) + 1 : 0);
		c = getch();
		if (c != ERR) {
			if (key(&s, c))
				break;
			continue;
		}
		if (poller_now() < s.next)
			continue;
		if (!s.frozen) {
			poller_refresh(p);
			order(&s);
		}
		s.next = poller_now() + o->interval;
	}
	endwin();
	delscreen(scr);
	free(s.idx);
	free(s.sel_cg);
	return 0;
}
