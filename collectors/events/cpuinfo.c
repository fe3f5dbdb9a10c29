/*
 * cpuinfo.c - the CPU's identity per core PMU (cpuinfo.h): one bounded pass
 * over <procfs>/cpuinfo, a regular file opened without links or blocking.
 * Design: docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events/cpuinfo.h"
#include "util/text.h"

/* What one processor block said. */
struct block {
	long cpu;		/* "processor"; -1 before it is seen */
	struct cpuinfo_core id;
};

static void
copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/* Take "key<tabs>: value" into b when key is one the identity uses. */
static void
take(struct block *b, char *line)
{
	char *colon, *v, *end, *k;
	long n;

	if ((colon = strchr(line, ':')) == NULL)
		return;
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	v[strcspn(v, "\n")] = '\0';
	k = colon;
	while (k > line && (k[-1] == ' ' || k[-1] == '\t'))
		k--;
	*k = '\0';
	if (strcmp(line, "processor") == 0) {
		n = strtol(v, &end, 10);
		if (end != v && *end == '\0' && n >= 0)
			b->cpu = n;
	} else if (strcmp(line, "vendor_id") == 0 ||
	    strcmp(line, "CPU implementer") == 0)
		copy(b->id.vendor, sizeof(b->id.vendor), v);
	else if (strcmp(line, "cpu family") == 0 ||
	    strcmp(line, "CPU architecture") == 0)
		copy(b->id.cpu_family, sizeof(b->id.cpu_family), v);
	else if (strcmp(line, "model") == 0 || strcmp(line, "CPU part") == 0)
		copy(b->id.model, sizeof(b->id.model), v);
	else if (strcmp(line, "model name") == 0)
		copy(b->id.model_name, sizeof(b->id.model_name), v);
}

/* A finished block: the entries whose first CPU it is get its identity. */
static void
finish(struct block *b, const long *want, struct cpuinfo *out,
    int *filled)
{
	size_t i;

	if (b->cpu >= 0 && (b->id.vendor[0] || b->id.model[0]))
		for (i = 0; i < out->nr; i++) {
			if (filled[i] || (want[i] >= 0 && want[i] != b->cpu))
				continue;
			copy(b->id.pmu, sizeof(b->id.pmu), out->core[i].pmu);
			out->core[i] = b->id;
			filled[i] = 1;
		}
	memset(b, 0, sizeof(*b));
	b->cpu = -1;
}

void
cpuinfo_read(const char *procfs, const struct pmu_list *pmus,
    struct cpuinfo *out)
{
	char path[4096], line[512];
	long want[CPUINFO_MAX_CORES];
	int filled[CPUINFO_MAX_CORES] = { 0 }, piece = 0;
	struct block b;
	size_t i, n = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	for (i = 0; pmus && i < pmus->nr && n < CPUINFO_MAX_CORES; i++) {
		const struct pmu *p = &pmus->pmu[i];

		if (!p->core)
			continue;
		copy(out->core[n].pmu, sizeof(out->core[n].pmu), p->name);
		/* A PMU on every CPU: the first processor block will do. */
		want[n++] = p->cpus.nr > 0 ? p->cpus.cpu[0] : -1;
	}
	if (n == 0)
		want[n++] = -1;		/* no core PMU: the model alone */
	out->nr = n;
	snprintf(path, sizeof(path), "%s/cpuinfo", procfs);
	if ((f = text_open_regular(path)) == NULL) {
		out->nr = 0;
		return;
	}
	memset(&b, 0, sizeof(b));
	b.cpu = -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		int whole = strchr(line, '\n') != NULL;

		if (!piece) {
			if (line[0] == '\n')
				finish(&b, want, out, filled);
			else
				take(&b, line);
		}
		piece = !whole;
	}
	finish(&b, want, out, filled);
	fclose(f);
	/* Entries no block filled are left out, keeping the order. */
	for (i = n = 0; i < out->nr; i++)
		if (filled[i])
			out->core[n++] = out->core[i];
	out->nr = n;
}
