/*
 * log.h - the daemon's logger, the one place messages are written.
 *
 * logfmt to stderr by default ("ts=... level=info msg=..."), json on
 * request.  Priorities are syslog's.  Library code below daemon/ does not
 * log; it returns errors, or reports through a hook that lands here.
 */
#ifndef PMU_LOG_H
#define PMU_LOG_H

#include <syslog.h>

enum log_format { LOG_FORMAT_LOGFMT, LOG_FORMAT_JSON };

/* Parse "debug|info|warn|error"; -1 if unknown. */
int log_parse_level(const char *s);

void log_init(int max_prio, enum log_format fmt);

void log_msg(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
