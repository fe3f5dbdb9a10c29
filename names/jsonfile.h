/*
 * jsonfile.h - one runtime state file read and parsed with json-c, with
 * bounds: a size limit (a file above it is refused, not read in part) and
 * a nesting limit, so a corrupt or hostile file costs bounded time and
 * memory.  Plus the few accessors the readers need.
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
 * Parse the file at path under rootfd (resolved as if rootfd were "/",
 * util/inroot.h; at most max bytes) into *out (json_object_put it).  0;
 * -ENOENT and the other open/read errors; -EINVAL when it is not a
 * regular file (refused before it is opened for reading); -EFBIG above
 * max; -EBADMSG when it is not one JSON value.  st (may be NULL) gets
 * the file's status, for callers that cache by mtime.
 */
int jsonfile_read(int rootfd, const char *path, size_t max,
    struct json_object **out, struct stat *st);

/* The string at key in object o, or NULL (absent, not a string, ""). */
const char *jsonfile_str(struct json_object *o, const char *key);

/* The object at key, or NULL when absent or not an object. */
struct json_object *jsonfile_obj(struct json_object *o, const char *key);

#endif
