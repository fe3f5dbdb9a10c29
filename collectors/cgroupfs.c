/*
 * cgroupfs.c - finding the perf cgroup hierarchy and expanding patterns.
 *
 * Expansion walks the tree one path level at a time with readdir and
 * fnmatch rather than glob(3): cgroup trees only need directories, d_type
 * tells us that without a stat per entry, and a vanished directory in the
 * middle of a walk is simply skipped.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/cgroupfs.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void
unescape(char *s)
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

static int
has_opt(const char *opts, const char *want)
{
	size_t n = strlen(want);
	const char *p = opts;

	while ((p = strstr(p, want)) != NULL) {
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

int
cgroupfs_find(const char *mountinfo, char *root, size_t len, int *v2)
{
	FILE *f;
	char *line = NULL, v2root[4096] = "", v1root[4096] = "";
	size_t cap = 0;

	if ((f = fopen(mountinfo, "re")) == NULL)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *fields[12], *save = NULL, *tok, *sep;
		int nf = 0;

		/* "... - fstype source superopts" */
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok && nf < 10;
		    tok = strtok_r(NULL, " ", &save))
			fields[nf++] = tok;
		if (nf < 5)
			continue;
		save = NULL;
		fields[10] = strtok_r(sep + 3, " \n", &save);
		(void)strtok_r(NULL, " \n", &save);
		fields[11] = strtok_r(NULL, " \n", &save);
		if (fields[10] == NULL)
			continue;
		unescape(fields[4]);
		if (strcmp(fields[10], "cgroup2") == 0 && v2root[0] == '\0')
			snprintf(v2root, sizeof(v2root), "%s", fields[4]);
		else if (strcmp(fields[10], "cgroup") == 0 && fields[11] &&
		    has_opt(fields[11], "perf_event") && v1root[0] == '\0')
			snprintf(v1root, sizeof(v1root), "%s", fields[4]);
	}
	free(line);
	fclose(f);
	/* A v1 perf_event mount owns the controller; v2 cannot use it then. */
	if (v1root[0]) {
		snprintf(root, len, "%s", v1root);
		*v2 = 0;
		return 0;
	}
	if (v2root[0]) {
		snprintf(root, len, "%s", v2root);
		*v2 = 1;
		return 0;
	}
	return -ENOENT;
}

static int
list_add(struct cgroup_list *l, size_t *cap, const char *path)
{
	char **tmp, *dup;

	if (l->nr == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		if ((tmp = realloc(l->path, *cap * sizeof(*tmp))) == NULL)
			return -ENOMEM;
		l->path = tmp;
	}
	if ((dup = strdup(path)) == NULL)
		return -ENOMEM;
	l->path[l->nr++] = dup;
	return 0;
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* rel: the expanded prefix ("" or "/a/b"); rest: what is left to match. */
static int
walk(const char *root, const char *rel, const char *rest,
    struct cgroup_list *out, size_t *cap)
{
	char comp[4096], next[8192], full[8192];
	const char *slash;
	size_t n;
	DIR *d;
	struct dirent *de;
	int r = 0;

	while (*rest == '/')
		rest++;
	if (*rest == '\0') {
		snprintf(full, sizeof(full), "%s%s", root, rel);
		if (!is_dir(full))
			return 0;
		return list_add(out, cap, rel[0] ? rel : "/");
	}
	slash = strchr(rest, '/');
	n = slash ? (size_t)(slash - rest) : strlen(rest);
	if (n >= sizeof(comp))
		return -ENAMETOOLONG;
	memcpy(comp, rest, n);
	comp[n] = '\0';
	rest += n;
	if (strpbrk(comp, "*?[") == NULL) {
		snprintf(next, sizeof(next), "%s/%s", rel, comp);
		return walk(root, next, rest, out, cap);
	}
	snprintf(full, sizeof(full), "%s%s", root, rel);
	if ((d = opendir(full)) == NULL)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (fnmatch(comp, de->d_name, FNM_PERIOD) != 0)
			continue;
		snprintf(next, sizeof(next), "%s/%s", rel, de->d_name);
		if ((r = walk(root, next, rest, out, cap)) < 0)
			break;
	}
	closedir(d);
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
cgroupfs_expand(const char *root, const char *pattern, struct cgroup_list *out)
{
	struct cgroup_list l = { 0, NULL };
	size_t cap = 0;
	int r;

	r = walk(root, "", pattern, &l, &cap);
	if (r < 0) {
		cgroup_list_free(&l);
		return r;
	}
	if (l.nr > 1)
		qsort(l.path, l.nr, sizeof(*l.path), cmp_str);
	*out = l;
	return 0;
}

void
cgroup_list_free(struct cgroup_list *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nr; i++)
		free(l->path[i]);
	free(l->path);
	l->path = NULL;
	l->nr = 0;
}
