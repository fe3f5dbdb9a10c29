/*
 * jsonfile.h - one runtime state file read and parsed with json-c, with bounds
 * on its size, nesting and values, a list handed over one entry at a time
 * (jsonfile_read_array); and the accessors the readers need.
 * Design: docs/architecture.md, "names/".
 */
#ifndef PMU_JSONFILE_H
#define PMU_JSONFILE_H

#include <stddef.h>
#include <sys/stat.h>

#include <json-c/json.h>

/* What the readers allow: an OCI config.json is a few kB. */
#define JSONFILE_SMALL (1u << 20)
/* containers/storage's containers.json lists every container. */
#define JSONFILE_LARGE (64u << 20)
/*
 * The most values (objects, arrays, strings, numbers...) one tree may
 * hold, bounding its memory (~26 MB of empty objects at most).  A real
 * OCI config.json with a seccomp profile holds about 2,000.
 */
#define JSONFILE_VALUES 32768u
/* The most bytes one entry of a list may take (containers.json's are
 * about 450), and the most entries. */
#define JSONFILE_ENTRY (64u << 10)
#define JSONFILE_ENTRIES 65536u

/*
 * Parse the file at path under rootfd (resolved as if rootfd were "/",
 * util/inroot.h; at most max bytes) into *out (json_object_put it).  0;
 * -ENOENT and the other open/read errors; -EINVAL when it is not a
 * regular file (refused before it is opened for reading); -EFBIG above
 * max; -EBADMSG when it is not one JSON value; -E2BIG when it holds more
 * than JSONFILE_VALUES values.  st (may be NULL) gets the file's
 * status, for callers that cache by mtime.
 */
int jsonfile_read(int rootfd, const char *path, size_t max,
    struct json_object **out, struct stat *st);

/*
 * Read the file at path under rootfd (at most max bytes), which holds
 * one JSON array, entry by entry: each is parsed, handed to
 * each(entry, arg), and freed before the next is parsed, so what the
 * read holds at once is a 64 kB buffer and one entry's tree, whatever
 * the file's size.  each returns 0, or -errno to stop the read with
 * that error.  0; the errors of jsonfile_read (-EBADMSG at the first
 * byte that is not JSON: the entries before it were handed over);
 * -EPROTO when the file holds something else than an array; -E2BIG
 * when an entry is larger than JSONFILE_ENTRY or there are more than
 * JSONFILE_ENTRIES.
 */
int jsonfile_read_array(int rootfd, const char *path, size_t max,
    int (*each)(struct json_object *entry, void *arg), void *arg,
    struct stat *st);

/* The values in buf[0..len) (JSON text) at most: 1 + the commas and
 * openings outside strings. */
size_t jsonfile_values(const char *buf, size_t len);

/* The string at key in object o, or NULL (absent, not a string, ""). */
const char *jsonfile_str(struct json_object *o, const char *key);

/* The object at key, or NULL when absent or not an object. */
struct json_object *jsonfile_obj(struct json_object *o, const char *key);

#endif
