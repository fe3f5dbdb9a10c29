/*
 * webconfig.h - the --web.config.file, the exporter-toolkit's web config
 * (TLS, basic auth, response headers), parsed and validated before the
 * server starts (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_WEBCONFIG_H
#define PMU_WEBCONFIG_H

#include <stddef.h>

#include "daemon/http/webcfg.h"

/*
 * Parse YAML text; dir is where relative file names start (NULL: the
 * working directory).  Returns 0 and sets *out, or -EINVAL / -ENOMEM /
 * -errno of a file it names, with "source:line:col: message" in err.
 */
int webcfg_parse(const char *source, const char *dir, const char *text,
    size_t len, struct webcfg **out, char *err, size_t errlen);

/* Read and parse a file.  0, or -errno with the reason in err. */
int webcfg_load(const char *path, struct webcfg **out, char *err,
    size_t errlen);

void webcfg_free(struct webcfg *w);

/*
 * Does password match user's bcrypt hash?  1 yes, 0 no.  An unknown user
 * costs the same bcrypt as a known one (the first user's hash is
 * computed and the result ignored), so timing does not tell which users
 * exist.  Slow by design: callers cache successes.
 */
int webcfg_check_password(const struct webcfg *w, const char *user,
    const char *password);

#endif
