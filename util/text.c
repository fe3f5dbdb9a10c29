/*
 * text.c - small text helpers (text.h), and the one way to open a file under a
 * --path.* root that must be a regular file.
 * Design: docs/architecture.md, "util/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/text.h"

size_t
text_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, best;
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

/* Decimal digits from s; past them into *end. */
static size_t
digits(const char *s, const char **end)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	*end = s + n;
	return n;
}

int
text_is_whole(const char *s, int sign)
{
	const char *e;

	if (sign && *s == '-')
		s++;
	return digits(s, &e) > 0 && *e == '\0';
}

int
text_is_decimal(const char *s)
{
	const char *e;
	size_t n;

	if (*s == '-')
		s++;
	n = digits(s, &e);
	if (*e == '.')
		n += digits(e + 1, &e);
	if (n == 0)
		return 0;
	if (*e == 'e' || *e == 'E') {
		s = e + 1;
		if (*s == '-' || *s == '+')
			s++;
		if (digits(s, &e) == 0)
			return 0;
	}
	return *e == '\0';
}

int
text_parse_duration(const char *s, uint64_t *ns)
{
	const char *num;
	char *end;
	double v;
	uint64_t mult;

	/* Digits and a fraction, then the unit: what strtod reads must be
	 * no more (it would take "0x10" as 16, "1e3" as 1000). */
	if (digits(s, &num) == 0)
		return -EINVAL;
	if (*num == '.' && digits(num + 1, &num) == 0)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != num)
		return -EINVAL;
	if (strcmp(end, "ms") == 0)
		mult = 1000000ULL;
	else if (strcmp(end, "s") == 0)
		mult = 1000000000ULL;
	else if (strcmp(end, "m") == 0)
		mult = 60ULL * 1000000000ULL;
	else if (strcmp(end, "h") == 0)
		mult = 3600ULL * 1000000000ULL;
	else
		return -EINVAL;
	if (!(v * (double)mult < 1e18))
		return -EINVAL;
	*ns = (uint64_t)(v * (double)mult);
	return 0;
}

int
text_read_small(const char *path, char *buf, size_t len)
{
	FILE *f;
	size_t n;

	if ((f = fopen(path, "re")) == NULL)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n)
		return -EINVAL;		/* a NUL inside: not a text file */
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

FILE *
text_open_regular(const char *path)
{
	struct stat st;
	FILE *f;
	int fd, e;

	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a
	 * writer; a regular file reads the same with it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;		/* a FIFO with a writer, a device */
	else if ((f = fdopen(fd, "r")) != NULL)
		return f;
	else
		e = errno;
	close(fd);
	errno = e;
	return NULL;
}
