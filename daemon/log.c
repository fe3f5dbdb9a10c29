/*
 * log.c - logfmt/json lines on stderr (see log.h).  One write() per line,
 * so lines from the collector and main threads never interleave.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"

static int log_max = LOG_INFO;
static enum log_format log_fmt = LOG_FORMAT_LOGFMT;

int
log_parse_level(const char *s)
{
	if (strcmp(s, "debug") == 0)
		return LOG_DEBUG;
	if (strcmp(s, "info") == 0)
		return LOG_INFO;
	if (strcmp(s, "warn") == 0 || strcmp(s, "warning") == 0)
		return LOG_WARNING;
	if (strcmp(s, "error") == 0)
		return LOG_ERR;
	return -1;
}

void
log_init(int max_prio, enum log_format fmt)
{
	log_max = max_prio;
	log_fmt = fmt;
}

static const char *
level_name(int prio)
{
	if (prio <= LOG_ERR)
		return "error";
	if (prio == LOG_WARNING || prio == LOG_NOTICE)
		return "warn";
	if (prio == LOG_INFO)
		return "info";
	return "debug";
}

void
log_msg(int prio, const char *fmt, ...)
{
	char msg[2048], line[4608], ts[40];
	struct timespec now;
	struct tm tm;
	va_list ap;
	size_t o = 0, i;

	if (prio > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	o = (size_t)snprintf(line, sizeof(line),
	    log_fmt == LOG_FORMAT_JSON ?
	    "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"msg\":\"" :
	    "ts=%s.%03ldZ level=%s msg=\"", ts, now.tv_nsec / 1000000L,
	    level_name(prio));
	for (i = 0; msg[i] && o < sizeof(line) - 8; i++) {
		unsigned char ch = (unsigned char)msg[i];

		if (ch == '"' || ch == '\\') {
			line[o++] = '\\';
			line[o++] = (char)ch;
		} else if (ch == '\n') {
			line[o++] = '\\';
			line[o++] = 'n';
		} else if (ch < 0x20) {
			line[o++] = ' ';
		} else
			line[o++] = (char)ch;
	}
	o += (size_t)snprintf(line + o, sizeof(line) - o, "%s\n",
	    log_fmt == LOG_FORMAT_JSON ? "\"}" : "\"");
	if (write(STDERR_FILENO, line, o) < 0)
		return;
}
