/*
 * log.c - journald, logfmt or json lines, one write() each (see log.h;
 * docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "daemon/log.h"
#include "util/utf8.h"

/* The longest message, before quoting and fields. */
#define MSG_MAX 2048

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

int
log_stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (e == NULL || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
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

/*
 * Append s quoted for logfmt/json (both escape " and \ the same way), as
 * valid UTF-8 (a field may be a cgroup's name or a runtime's string):
 * invalid subparts become U+FFFD, and a cut falls between characters.
 */
static size_t
put_quoted(char *line, size_t o, size_t cap, const char *s)
{
	size_t n;
	int valid;

	for (; *s; s += n) {
		unsigned char ch = (unsigned char)*s;

		n = utf8_char(s, &valid);
		if (o + (valid ? n : UTF8_REPLACEMENT_LEN) >= cap - 8)
			break;
		if (!valid) {
			memcpy(line + o, UTF8_REPLACEMENT, UTF8_REPLACEMENT_LEN);
			o += UTF8_REPLACEMENT_LEN;
		} else if (n > 1) {
			memcpy(line + o, s, n);
			o += n;
		} else if (ch == '"' || ch == '\\') {
			line[o++] = '\\';
			line[o++] = (char)ch;
		} else if (ch == '\n') {
			line[o++] = '\\';
			line[o++] = 'n';
		} else if (ch < 0x20)
			line[o++] = ' ';
		else
			line[o++] = (char)ch;
	}
	return o;
}

static size_t
put_field(char *line, size_t o, size_t cap, const char *key,
    const char *val)
{
	int json = log_fmt == LOG_FORMAT_JSON;

	if (o >= cap - 16)
		return o;
	o += (size_t)snprintf(line + o, cap - o, json ? ",\"%s\":\"" : " %s=\"",
	    key);
	o = put_quoted(line, o, cap, val);
	line[o++] = '"';
	return o;
}

static int
send_journal(int prio, const struct log_fields *f, const char *msg)
{
	/* MESSAGE= whole (journald takes long fields); the others are short. */
	char m[sizeof("MESSAGE=") + MSG_MAX], b[8][600], num[16];
	struct iovec iov[8];
	int n = 0;

/* KEY=value, the value made valid UTF-8 and cut between characters. */
#define JF(key, val) do {						\
	size_t k_ = sizeof(key) - 1;					\
	memcpy(b[n], key, k_);						\
	iov[n].iov_base = b[n];						\
	iov[n].iov_len = k_ + utf8_copy(b[n] + k_, sizeof(b[n]) - k_,	\
	    (val));							\
	n++;								\
} while (0)
	memcpy(m, "MESSAGE=", sizeof("MESSAGE=") - 1);
	iov[n].iov_base = m;
	iov[n++].iov_len = sizeof("MESSAGE=") - 1 + utf8_copy(m +
	    sizeof("MESSAGE=") - 1, sizeof(m) - sizeof("MESSAGE=") + 1, msg);
	snprintf(num, sizeof(num), "%d", prio);
	JF("PRIORITY=", num);
	JF("SYSLOG_IDENTIFIER=", "pmu_exporter");
	if (f && f->cgroup)
		JF("CGROUP=", f->cgroup);
	if (f && f->group)
		JF("GROUP=", f->group);
	if (f && f->event)
		JF("EVENT=", f->event);
	if (f && f->cpu >= 0) {
		snprintf(num, sizeof(num), "%d", f->cpu);
		JF("CPU=", num);
	}
	if (f && f->err > 0) {
		snprintf(num, sizeof(num), "%d", f->err);
		JF("ERRNO=", num);
	}
#undef JF
	return sd_journal_sendv(iov, n);
}

static void
log_v(int prio, const struct log_fields *f, const char *fmt, va_list ap)
{
	char msg[MSG_MAX], line[6144], ts[40], num[16];
	struct timespec now;
	struct tm tm;
	size_t o;

	if (prio > log_max)
		return;
	if (vsnprintf(msg, sizeof(msg), fmt, ap) >= (int)sizeof(msg))
		msg[utf8_whole(msg)] = '\0';	/* cut between characters */
	if (log_fmt == LOG_FORMAT_JOURNAL && send_journal(prio, f, msg) >= 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	o = (size_t)snprintf(line, sizeof(line),
	    log_fmt == LOG_FORMAT_JSON ?
	    "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"msg\":\"" :
	    "ts=%s.%03ldZ level=%s msg=\"", ts, now.tv_nsec / 1000000L,
	    level_name(prio));
	o = put_quoted(line, o, sizeof(line), msg);
	line[o++] = '"';
	if (f && f->cgroup)
		o = put_field(line, o, sizeof(line), "cgroup", f->cgroup);
	if (f && f->group)
		o = put_field(line, o, sizeof(line), "group", f->group);
	if (f && f->event)
		o = put_field(line, o, sizeof(line), "event", f->event);
	if (f && f->cpu >= 0) {
		snprintf(num, sizeof(num), "%d", f->cpu);
		o = put_field(line, o, sizeof(line), "cpu", num);
	}
	if (f && f->err > 0)
		o = put_field(line, o, sizeof(line), "err", strerror(f->err));
	o += (size_t)snprintf(line + o, sizeof(line) - o, "%s\n",
	    log_fmt == LOG_FORMAT_JSON ? "}" : "");
	if (write(STDERR_FILENO, line, o) < 0)
		return;
}

void
log_fields(int prio, const struct log_fields *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, f, fmt, ap);
	va_end(ap);
}

void
log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(prio, NULL, fmt, ap);
	va_end(ap);
}
