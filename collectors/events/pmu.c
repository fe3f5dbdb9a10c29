/*
 * pmu.c - reading PMU descriptions from sysfs (pmu.h), once, at start, into
 * sorted arrays.
 * Design: docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collectors/events/pmu.h"
#include "util/text.h"

#define DEVICES "/bus/event_source/devices"

uint64_t
pmu_format_pack(uint64_t mask, uint64_t value)
{
	uint64_t out = 0;
	int bit;

	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (value & 1)
			out |= 1ULL << bit;
		value >>= 1;
	}
	return out;
}

int
pmu_format_fits(uint64_t mask, uint64_t value)
{
	int width = __builtin_popcountll(mask);

	return width >= 64 || value < (1ULL << width);
}

int
pmu_parse_format(const char *text, enum pmu_field *field, uint64_t *mask)
{
	static const struct { const char *name; enum pmu_field field; } f[] = {
		{ "config:", PMU_CONFIG },
		{ "config1:", PMU_CONFIG1 },
		{ "config2:", PMU_CONFIG2 },
	};
	const char *p = NULL;
	uint64_t m = 0;
	unsigned long lo, hi, b;
	char *end;
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strncmp(text, f[i].name, strlen(f[i].name)) == 0) {
			p = text + strlen(f[i].name);
			break;
		}
	if (p == NULL)
		return -EINVAL;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		for (b = lo; b <= hi; b++)
			m |= 1ULL << b;
		if (*p == '\0')
			break;
		if (*p++ != ',')
			return -EINVAL;
	}
	*field = f[i].field;
	*mask = m;
	return 0;
}

static int
cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct pmu_alias *)a)->name,
	    ((const struct pmu_alias *)b)->name);
}

static int
cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pmu *)a)->name,
	    ((const struct pmu *)b)->name);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory, sorted; an absent directory is empty. */
static int
list_dir(const char *path, char ***out, size_t *nr)
{
	DIR *d;
	struct dirent *de;
	char **v = NULL, **tmp;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nr = 0;
	if ((d = opendir(path)) == NULL)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if ((tmp = realloc(v, cap * sizeof(*v))) == NULL)
				goto nomem;
			v = tmp;
		}
		if ((v[n] = strdup(de->d_name)) == NULL)
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*nr = n;
	return 0;
nomem:
	closedir(d);
	while (n > 0)
		free(v[--n]);
	free(v);
	return -ENOMEM;
}

static void
free_names(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

static void
pmu_fini(struct pmu *p)
{
	size_t i;

	for (i = 0; i < p->nr_formats; i++)
		free(p->formats[i].name);
	free(p->formats);
	for (i = 0; i < p->nr_aliases; i++) {
		free(p->aliases[i].name);
		free(p->aliases[i].terms);
		free(p->aliases[i].unit);
	}
	free(p->aliases);
	free(p->caps_pmu_name);
	cpumap_free(&p->cpus);
	free(p->name);
	memset(p, 0, sizeof(*p));
}

/* Build a path; -ENAMETOOLONG rather than a truncated name. */
static int __attribute__((format(printf, 3, 4)))
mkpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int
read_formats(const char *dir, struct pmu *p)
{
	char path[4096], text[256], **names;
	size_t n, i;
	int r;

	if (mkpath(path, sizeof(path), "%s/format", dir) < 0)
		return 0;
	if ((r = list_dir(path, &names, &n)) < 0)
		return r;
	if (n && (p->formats = calloc(n, sizeof(*p->formats))) == NULL) {
		free_names(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct pmu_format *f = &p->formats[p->nr_formats];

		/* A format this parser cannot use (config3) is left out. */
		if (mkpath(path, sizeof(path), "%s/format/%s", dir,
		    names[i]) < 0 || text_read_small(path, text, sizeof(text)) < 0 ||
		    pmu_parse_format(text, &f->field, &f->mask) < 0)
			continue;
		f->name = names[i];
		names[i] = NULL;
		p->nr_formats++;
	}
	free_names(names, n);
	return 0;
}

static int
read_aliases(const char *dir, struct pmu *p)
{
	char path[4096], text[4096], **names;
	size_t n, i;
	int r = 0;

	if (mkpath(path, sizeof(path), "%s/events", dir) < 0)
		return 0;
	if ((r = list_dir(path, &names, &n)) < 0)
		return r;
	if (n && (p->aliases = calloc(n, sizeof(*p->aliases))) == NULL) {
		free_names(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct pmu_alias *a = &p->aliases[p->nr_aliases];

		if (strchr(names[i], '.'))	/* .scale, .unit, .snapshot... */
			continue;
		if (mkpath(path, sizeof(path), "%s/events/%s", dir,
		    names[i]) < 0 || text_read_small(path, text, sizeof(text)) < 0)
			continue;
		if ((a->terms = strdup(text)) == NULL) {
			r = -ENOMEM;
			break;
		}
		a->name = names[i];
		names[i] = NULL;
		a->scale = 1.0;
		p->nr_aliases++;
		if (mkpath(path, sizeof(path), "%s/events/%s.scale", dir,
		    a->name) == 0 && text_read_small(path, text, sizeof(text)) == 0) {
			char *end;
			double v = strtod(text, &end);

			if (end != text && *end == '\0' && v > 0)
				a->scale = v;
		}
		if (mkpath(path, sizeof(path), "%s/events/%s.unit", dir,
		    a->name) == 0 &&
		    text_read_small(path, text, sizeof(text)) == 0 && text[0] &&
		    (a->unit = strdup(text)) == NULL) {
			r = -ENOMEM;
			break;
		}
	}
	free_names(names, n);
	if (p->nr_aliases)
		qsort(p->aliases, p->nr_aliases, sizeof(*p->aliases),
		    cmp_alias);
	return r;
}

/* One PMU directory.  -EINVAL when it is not a usable PMU. */
static int
read_pmu(const char *devices, const char *name, struct pmu *p)
{
	char dir[4096], path[4200], text[4096];
	unsigned long type;
	char *end;
	int r;

	memset(p, 0, sizeof(*p));
	if (mkpath(dir, sizeof(dir), "%s/%s", devices, name) < 0 ||
	    mkpath(path, sizeof(path), "%s/type", dir) < 0)
		return -EINVAL;
	if ((r = text_read_small(path, text, sizeof(text))) < 0)
		return r == -ENOMEM ? r : -EINVAL;
	errno = 0;
	type = strtoul(text, &end, 10);
	if (errno || end == text || *end || type > 0xffffffffUL)
		return -EINVAL;
	if ((p->name = strdup(name)) == NULL)
		return -ENOMEM;
	p->type = (unsigned)type;
	if (mkpath(path, sizeof(path), "%s/cpus", dir) == 0 &&
	    text_read_small(path, text, sizeof(text)) == 0)
		p->cpus_from = PMU_CPUS_FILE;
	else if (mkpath(path, sizeof(path), "%s/cpumask", dir) == 0 &&
	    text_read_small(path, text, sizeof(text)) == 0)
		p->cpus_from = PMU_CPUMASK_FILE;
	if (p->cpus_from != PMU_CPUS_ALL &&
	    (r = cpumap_parse(text, &p->cpus, NULL)) < 0)
		goto fail;
	p->core = strcmp(name, "cpu") == 0 || p->cpus_from == PMU_CPUS_FILE;
	if ((r = read_formats(dir, p)) < 0 || (r = read_aliases(dir, p)) < 0)
		goto fail;
	if (mkpath(path, sizeof(path), "%s/caps/pmu_name", dir) == 0 &&
	    text_read_small(path, text, sizeof(text)) == 0 && text[0] &&
	    (p->caps_pmu_name = strdup(text)) == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	if (mkpath(path, sizeof(path), "%s/caps/slots", dir) == 0 &&
	    text_read_small(path, text, sizeof(text)) == 0) {
		unsigned long v = strtoul(text, &end, 0);

		if (end != text && *end == '\0' && v < 1024)
			p->caps_slots = (unsigned)v;
	}
	return 0;
fail:
	pmu_fini(p);
	return r == -ENOMEM ? r : -EINVAL;
}

int
pmu_scan(const char *sysfs, struct pmu_list *out, char *err, size_t errlen)
{
	char devices[4096], **names;
	struct pmu_list l = { 0, NULL };
	size_t n, i;
	int r, skipped = 0;

	if (errlen)
		err[0] = '\0';
	if (mkpath(devices, sizeof(devices), "%s" DEVICES, sysfs) < 0)
		return -ENAMETOOLONG;
	if ((r = list_dir(devices, &names, &n)) < 0)
		return r;
	if (n == 0) {
		snprintf(err, errlen, "%s: no PMUs (is sysfs mounted there?)",
		    devices);
		free(names);
		return -ENOENT;
	}
	if ((l.pmu = calloc(n, sizeof(*l.pmu))) == NULL) {
		free_names(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		r = read_pmu(devices, names[i], &l.pmu[l.nr]);
		if (r == -ENOMEM) {
			free_names(names, n);
			pmu_list_free(&l);
			return r;
		}
		if (r < 0) {
			if (!skipped++)
				snprintf(err, errlen, "%s/%s: not a usable PMU "
				    "(type, cpus or cpumask unreadable); left out",
				    devices, names[i]);
			continue;
		}
		l.nr++;
	}
	free_names(names, n);
	qsort(l.pmu, l.nr, sizeof(*l.pmu), cmp_pmu);
	*out = l;
	return 0;
}

const struct pmu *
pmu_find(const struct pmu_list *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->nr; i++)
		if (strcmp(l->pmu[i].name, name) == 0)
			return &l->pmu[i];
	return NULL;
}

const struct pmu *
pmu_find_type(const struct pmu_list *l, unsigned type)
{
	size_t i;

	for (i = 0; l && i < l->nr; i++)
		if (l->pmu[i].type == type)
			return &l->pmu[i];
	return NULL;
}

const struct pmu_format *
pmu_find_format(const struct pmu *p, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < p->nr_formats; i++)
		if (strlen(p->formats[i].name) == len &&
		    strncmp(p->formats[i].name, name, len) == 0)
			return &p->formats[i];
	return NULL;
}

const struct pmu_alias *
pmu_find_alias(const struct pmu *p, const char *name, size_t len)
{
	size_t i;

	/* sysfs alias names are matched without regard to case, as perf does. */
	for (i = 0; i < p->nr_aliases; i++)
		if (strlen(p->aliases[i].name) == len &&
		    strncasecmp(p->aliases[i].name, name, len) == 0)
			return &p->aliases[i];
	return NULL;
}

size_t
pmu_core_count(const struct pmu_list *l)
{
	size_t i, n = 0;

	for (i = 0; l && i < l->nr; i++)
		n += l->pmu[i].core;
	return n;
}

int
pmu_is_uncore(const struct pmu *p)
{
	return !p->core && p->cpus_from == PMU_CPUMASK_FILE;
}

int
pmu_is_software(const struct pmu *p)
{
	/* msr: the x86 driver registers it in the software context. */
	static const char *const sw[] = {
		"software", "tracepoint", "breakpoint", "kprobe", "uprobe",
		"msr", NULL
	};
	const char *const *s;

	for (s = sw; *s; s++)
		if (strcmp(p->name, *s) == 0)
			return 1;
	return 0;
}

void
pmu_list_free(struct pmu_list *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nr; i++)
		pmu_fini(&l->pmu[i]);
	free(l->pmu);
	l->pmu = NULL;
	l->nr = 0;
}
