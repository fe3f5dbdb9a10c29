/*
 * mountinfo.c - reading mountinfo (mountinfo.h).
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mountinfo.h"
#include "util/text.h"

/* Undo mountinfo's \ooo escapes (space, tab, newline, backslash) in
 * place. */
static void
mountinfo_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

int
mountinfo_each(const char *path,
    int (*fn)(const struct mountinfo_entry *m, void *arg), void *arg)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int stop = 0;

	/* Only a regular file, opened without waiting: a FIFO planted at
	 * <procfs>/self/mountinfo would hold start-up before it listens. */
	if ((f = text_open_regular(path)) == NULL)
		return -errno;
	while (!stop && getline(&line, &cap, f) > 0) {
		struct mountinfo_entry m = { NULL, NULL, NULL };
		char *save = NULL, *tok, *sep;
		int field;

		/* The optional fields end at " - "; the mount point is the
		 * fifth field before it. */
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save), field = 0; tok;
		    tok = strtok_r(NULL, " ", &save), field++)
			if (field == 4)
				m.mountpoint = tok;
		save = NULL;
		m.fstype = strtok_r(sep + 3, " \n", &save);
		(void)strtok_r(NULL, " \n", &save);	/* source */
		m.superopts = strtok_r(NULL, " \n", &save);
		if (m.mountpoint == NULL || m.fstype == NULL)
			continue;
		mountinfo_unescape((char *)m.mountpoint);
		stop = fn(&m, arg);
	}
	free(line);
	fclose(f);
	return 0;
}
