/*
 * cpumap.c - parsing and combining CPU lists (cpumap.h).
 * Design: docs/architecture.md, "collectors/perf/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/perf/cpumap.h"

#define CPUMAP_MAX_CPU 65535

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static long
parse_num(const char *s, size_t *i)
{
	long v = 0;

	if (!isdigit((unsigned char)s[*i]))
		return -1;
	while (isdigit((unsigned char)s[*i])) {
		v = v * 10 + (s[*i] - '0');
		if (v > CPUMAP_MAX_CPU)
			return -1;
		(*i)++;
	}
	return v;
}

int
cpumap_parse(const char *s, struct cpumap *out, size_t *errpos)
{
	size_t i = 0, nr = 0, cap = 0, j, k;
	int *cpu = NULL, *tmp;
	long lo, hi, c;

	while (s[i] == ' ')
		i++;
	for (;;) {
		size_t start = i;

		if ((lo = parse_num(s, &i)) < 0)
			goto bad;
		hi = lo;
		if (s[i] == '-') {
			i++;
			if ((hi = parse_num(s, &i)) < 0)
				goto bad;
			if (hi < lo) {
				i = start;
				goto bad;
			}
		}
		for (c = lo; c <= hi; c++) {
			if (nr == cap) {
				cap = cap ? cap * 2 : 16;
				tmp = realloc(cpu, cap * sizeof(*cpu));
				if (tmp == NULL) {
					free(cpu);
					return -ENOMEM;
				}
				cpu = tmp;
			}
			cpu[nr++] = (int)c;
		}
		while (s[i] == ' ')
			i++;
		if (s[i] == '\0' || s[i] == '\n')
			break;
		if (s[i] != ',')
			goto bad;
		i++;
		while (s[i] == ' ')
			i++;
	}
	qsort(cpu, nr, sizeof(*cpu), cmp_int);
	for (j = 0, k = 0; j < nr; j++)
		if (k == 0 || cpu[k - 1] != cpu[j])
			cpu[k++] = cpu[j];
	out->nr = k;
	out->cpu = cpu;
	return 0;
bad:
	free(cpu);
	if (errpos)
		*errpos = i;
	return -EINVAL;
}

int
cpumap_online(const char *sysfs, struct cpumap *out)
{
	char path[4096], buf[4096];
	ssize_t n;
	int fd, r;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return cpumap_parse(buf, out, NULL);
}

int
cpumap_has(const struct cpumap *m, int cpu)
{
	return m->nr && bsearch(&cpu, m->cpu, m->nr, sizeof(int), cmp_int) != NULL;
}

int
cpumap_merge(struct cpumap *dst, const struct cpumap *add,
    const struct cpumap *a, const struct cpumap *b)
{
	size_t i = 0, j = 0, n = 0;
	int *cpu, k = 0;

	if ((cpu = malloc((dst->nr + add->nr + 1) * sizeof(int))) == NULL)
		return -ENOMEM;
	for (;;) {
		while (j < add->nr && ((a && !cpumap_has(a, add->cpu[j])) ||
		    (b && !cpumap_has(b, add->cpu[j]))))
			j++;
		if (i == dst->nr && j == add->nr)
			break;
		if (j == add->nr || (i < dst->nr && dst->cpu[i] < add->cpu[j])) {
			cpu[n++] = dst->cpu[i++];
			continue;
		}
		if (i < dst->nr && dst->cpu[i] == add->cpu[j])
			i++;
		cpu[n++] = add->cpu[j++];
		k++;
	}
	free(dst->cpu);
	dst->cpu = cpu;
	dst->nr = n;
	return k;
}

char *
cpumap_format(const struct cpumap *m, char *buf, size_t len)
{
	size_t i = 0, off = 0, j;
	int w;

	if (len)
		buf[0] = '\0';
	while (i < m->nr && off < len) {
		j = i;
		while (j + 1 < m->nr && m->cpu[j + 1] == m->cpu[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + off, len - off, "%s%d",
			    off ? "," : "", m->cpu[i]);
		else
			w = snprintf(buf + off, len - off, "%s%d-%d",
			    off ? "," : "", m->cpu[i], m->cpu[j]);
		if (w < 0)
			break;
		off += (size_t)w;
		i = j + 1;
	}
	return buf;
}

void
cpumap_free(struct cpumap *m)
{
	if (m == NULL)
		return;
	free(m->cpu);
	m->cpu = NULL;
	m->nr = 0;
}
