/*
 * jsonfile.c - bounded reads of runtime state files (see jsonfile.h).
 * The whole file is read with one fstat-sized buffer and parsed in one
 * go: state files are rewritten by rename, so a file opened is complete,
 * and a partial read would be a parse error anyway.  Files are opened
 * under the root (util/inroot.h): no link leads out of it, and nothing
 * but a regular file is opened, so none can block the resolver.
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
