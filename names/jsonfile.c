/*
 * jsonfile.c - bounded reads of runtime state files (jsonfile.h): a small file
 * in one buffer, a list in 64 kB pieces one entry at a time, all opened under
 * the root.
 * Design: docs/architecture.md, "names/".
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/jsonfile.h"
#include "util/inroot.h"

/* Deeper than any runtime writes; json-c's own default is 32. */
#define JSONFILE_DEPTH 32
#define CHUNK (64u << 10)

size_t
jsonfile_values(const char *buf, size_t len)
{
	size_t i, n = 1;
	int in = 0;

	for (i = 0; i < len; i++) {
		if (in) {
			if (buf[i] == '\\')
				i++;
			else if (buf[i] == '"')
				in = 0;
			continue;
		}
		switch (buf[i]) {
		case '"':
			in = 1;
			break;
		case '{': case '[': case ',':
			n++;
			break;
		}
	}
	return n;
}

int
jsonfile_read(int rootfd, const char *path, size_t max,
    struct json_object **out, struct stat *stp)
{
	struct json_tokener *tok = NULL;
	struct json_object *o = NULL;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, r;

	/* A regular file or nothing: a FIFO or a device is not opened. */
	if ((fd = inroot_open_file(rootfd, path, &st)) < 0)
		return fd;
	if ((size_t)st.st_size > max) {
		r = -EFBIG;
		goto out;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	/* One byte more than fstat said: a file that grew is refused. */
	while (len <= (size_t)st.st_size) {
		n = read(fd, buf + len, (size_t)st.st_size + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > (size_t)st.st_size) {
		r = -EFBIG;
		goto out;
	}
	buf[len] = '\0';		/* for the trailing-space check */
	if (jsonfile_values(buf, len) > JSONFILE_VALUES) {
		r = -E2BIG;
		goto out;
	}
	if ((tok = json_tokener_new_ex(JSONFILE_DEPTH)) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	/* One value, then nothing but white space. */
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    strspn(buf + json_tokener_get_parse_end(tok), " \t\r\n") !=
	    len - json_tokener_get_parse_end(tok)) {
		json_object_put(o);
		r = -EBADMSG;
		goto out;
	}
	*out = o;
	if (stp)
		*stp = st;
	r = 0;
out:
	if (tok)
		json_tokener_free(tok);
	free(buf);
	close(fd);
	return r;
}

/* Where jsonfile_read_array is in the array's text. */
enum array_at { AT_OPEN, AT_FIRST, AT_ENTRY, AT_AFTER, AT_NEXT, AT_END };

/* An array being read entry by entry: one entry's tree at a time. */
struct array_reader {
	struct json_tokener *tok;
	enum array_at at;
	size_t entry;			/* bytes of the entry so far */
	size_t nr;			/* entries read */
	int (*each)(struct json_object *entry, void *arg);
	void *arg;
};

/* Step over one byte between entries at buf[*i]: 0, or -errno. */
static int
array_between(struct array_reader *a, const char *buf, size_t *i)
{
	char c = buf[(*i)++];

	if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
		return 0;
	if (a->at == AT_OPEN)
		return c == '[' ? (a->at = AT_FIRST, 0) : -EPROTO;
	if ((a->at == AT_FIRST || a->at == AT_AFTER) && c == ']')
		a->at = AT_END;
	else if (a->at == AT_AFTER && c == ',')
		a->at = AT_NEXT;
	else if (a->at == AT_FIRST || a->at == AT_NEXT) {
		a->at = AT_ENTRY;
		(*i)--;			/* the entry's first byte */
	} else
		return -EBADMSG;
	return 0;
}

/* Parse what buf[*i..n) holds of the current entry, and hand it to each
 * when it is whole: 0, or -errno. */
static int
array_entry(struct array_reader *a, const char *buf, size_t n, size_t *i)
{
	struct json_object *o;
	size_t take;
	int r;

	if (a->nr >= JSONFILE_ENTRIES)
		return -E2BIG;
	/* No more than one byte past the entry limit is ever parsed: so
	 * much tree at most. */
	take = n - *i;
	if (take > JSONFILE_ENTRY + 1 - a->entry)
		take = JSONFILE_ENTRY + 1 - a->entry;
	o = json_tokener_parse_ex(a->tok, buf + *i, (int)take);
	if (o == NULL &&
	    json_tokener_get_error(a->tok) == json_tokener_continue) {
		*i += take;
		return (a->entry += take) > JSONFILE_ENTRY ? -E2BIG : 0;
	}
	if (o == NULL ||
	    json_tokener_get_error(a->tok) != json_tokener_success) {
		json_object_put(o);
		return -EBADMSG;
	}
	*i += (size_t)json_tokener_get_parse_end(a->tok);
	json_tokener_reset(a->tok);
	a->entry = 0;
	a->nr++;
	a->at = AT_AFTER;
	r = a->each(o, a->arg);
	json_object_put(o);
	return r < 0 ? r : 0;
}

/* Read fd's n bytes chunk by chunk into a: 0 at the array's end, or
 * -errno. */
static int
array_read(struct array_reader *a, int fd, const struct stat *st, char *buf)
{
	size_t total = 0, i, n;
	ssize_t got;
	int r;

	for (;;) {
		if ((got = read(fd, buf, CHUNK)) < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return a->at == AT_END ? 0 : -EBADMSG;
		/* A file that grew is refused, as by jsonfile_read. */
		if ((total += (size_t)got) > (size_t)st->st_size)
			return -EFBIG;
		n = (size_t)got;
		for (i = 0; i < n; )
			if ((r = a->at == AT_ENTRY ? array_entry(a, buf, n, &i) :
			    array_between(a, buf, &i)) < 0)
				return r;
	}
}

int
jsonfile_read_array(int rootfd, const char *path, size_t max,
    int (*each)(struct json_object *entry, void *arg), void *arg,
    struct stat *stp)
{
	struct array_reader a = { .at = AT_OPEN, .each = each, .arg = arg };
	struct stat st;
	char *buf = NULL;
	int fd, r;

	if ((fd = inroot_open_file(rootfd, path, &st)) < 0)
		return fd;
	if ((size_t)st.st_size > max)
		r = -EFBIG;
	else if ((buf = malloc(CHUNK)) == NULL ||
	    (a.tok = json_tokener_new_ex(JSONFILE_DEPTH - 1)) == NULL)
		r = -ENOMEM;
	else
		r = array_read(&a, fd, &st, buf);
	if (r == 0 && stp)
		*stp = st;
	if (a.tok)
		json_tokener_free(a.tok);
	free(buf);
	close(fd);
	return r;
}

struct json_object *
jsonfile_obj(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

const char *
jsonfile_str(struct json_object *o, const char *key)
{
	struct json_object *v;
	const char *s;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return s && s[0] ? s : NULL;
}
