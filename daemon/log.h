/*
 * log.h - the process's logger: journald with structured fields, logfmt or
 * json on stderr.  Code below daemon/ does not log: it reports through a
 * hook that lands here (docs/architecture.md, "daemon/, by folder").
 */
#ifndef PMU_LOG_H
#define PMU_LOG_H

#include <syslog.h>

#include "util/logfields.h"

enum log_format { LOG_FORMAT_LOGFMT, LOG_FORMAT_JSON, LOG_FORMAT_JOURNAL };

/* Parse "debug|info|warn|error"; -1 if unknown. */
int log_parse_level(const char *s);

/* Is stderr the journal's stream (JOURNAL_STREAM=dev:ino matches)? */
int log_stderr_is_journal(void);

void log_init(int max_prio, enum log_format fmt);

/* A message with structured fields; f may be NULL. */
void log_fields(int prio, const struct log_fields *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void log_msg(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
