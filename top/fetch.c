/*
 * fetch.c - the page over libcurl (fetch.h): one easy handle and one body
 * buffer kept across refreshes, bounded, no redirects, http(s) only.
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>

#include "top/fetch.h"

struct fetch {
	CURL *curl;
	struct curl_slist *headers;
	char *buf;
	size_t len, cap;
	int over;
	char user[256], pass[512];
	char cerr[CURL_ERROR_SIZE];
};

static size_t
on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct fetch *f = ctx;
	size_t add = size * n, cap;
	char *p;

	if (add > FETCH_MAX_BYTES - f->len) {
		f->over = 1;
		return 0;
	}
	if (f->len + add + 1 > f->cap) {
		cap = f->cap ? f->cap : 65536;
		while (cap < f->len + add + 1)
			cap *= 2;
		if (!(p = realloc(f->buf, cap)))
			return 0;
		f->buf = p;
		f->cap = cap;
	}
	memcpy(f->buf + f->len, data, add);
	f->len += add;
	return add;
}

/* USER:PASSWORD from the first line of path: a regular file, read
 * without following it to a FIFO. */
static int
read_auth(struct fetch *f, const char *path, char *err, size_t errlen)
{
	char line[800], *colon, *nl;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) :
		    "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[n > 0 ? n : 0] = '\0';
	if ((nl = strpbrk(line, "\r\n")))
		*nl = '\0';
	colon = strchr(line, ':');
	if (n <= 0 || !colon || colon == line ||
	    (size_t)(colon - line) >= sizeof(f->user) ||
	    strlen(colon + 1) >= sizeof(f->pass)) {
		snprintf(err, errlen, "%s: the first line is not USER:PASSWORD",
		    path);
		explicit_bzero(line, sizeof(line));
		return -1;
	}
	*colon = '\0';
	strcpy(f->user, line);
	strcpy(f->pass, colon + 1);
	explicit_bzero(line, sizeof(line));
	return 0;
}

static int
set_tls(struct fetch *f, const struct fetch_opts *o)
{
	CURLcode r = CURLE_OK;

	if (o->ca_file)
		r = curl_easy_setopt(f->curl, CURLOPT_CAINFO, o->ca_file);
	if (!r && o->cert_file)
		r = curl_easy_setopt(f->curl, CURLOPT_SSLCERT, o->cert_file);
	if (!r && o->key_file)
		r = curl_easy_setopt(f->curl, CURLOPT_SSLKEY, o->key_file);
	if (!r && f->user[0])
		r = curl_easy_setopt(f->curl, CURLOPT_USERNAME, f->user);
	if (!r && f->user[0])
		r = curl_easy_setopt(f->curl, CURLOPT_PASSWORD, f->pass);
	return r == CURLE_OK ? 0 : -1;
}

struct fetch *
fetch_new(const struct fetch_opts *o, char *err, size_t errlen)
{
	struct fetch *f = calloc(1, sizeof(*f));
	CURL *c;

	if (!f || (o->auth_file && read_auth(f, o->auth_file, err, errlen) < 0)) {
		if (!f)
			snprintf(err, errlen, "out of memory");
		fetch_free(f);
		return NULL;
	}
	f->headers = curl_slist_append(NULL,
	    "Accept: text/plain;version=0.0.4");
	if (!(c = f->curl = curl_easy_init()) || !f->headers ||
	    curl_easy_setopt(c, CURLOPT_URL, o->url) ||
	    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") ||
	    curl_easy_setopt(c, CURLOPT_HTTPHEADER, f->headers) ||
	    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "") ||
	    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) ||
	    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L) ||
	    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, o->timeout_ms) ||
	    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_ms) ||
	    curl_easy_setopt(c, CURLOPT_USERAGENT, "pmu_exporter-top/" VERSION) ||
	    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, f->cerr) ||
	    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body) ||
	    curl_easy_setopt(c, CURLOPT_WRITEDATA, f) || set_tls(f, o) < 0) {
		snprintf(err, errlen, "%s: libcurl refused the options", o->url);
		fetch_free(f);
		return NULL;
	}
	return f;
}

int
fetch_get(struct fetch *f, char **body, size_t *len, char *err, size_t errlen)
{
	CURLcode r;

	f->len = 0;
	f->over = 0;
	f->cerr[0] = '\0';
	r = curl_easy_perform(f->curl);
	if (r != CURLE_OK) {
		if (f->over)
			snprintf(err, errlen, "the page is over %u MiB",
			    FETCH_MAX_BYTES >> 20);
		else
			snprintf(err, errlen, "%s", f->cerr[0] ? f->cerr :
			    curl_easy_strerror(r));
		return -1;
	}
	/* on_body leaves room for the NUL; an empty page still needs one. */
	if (!f->buf && !(f->buf = malloc(f->cap = 1))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	f->buf[f->len] = '\0';
	*body = f->buf;
	*len = f->len;
	return 0;
}

void
fetch_free(struct fetch *f)
{
	if (!f)
		return;
	if (f->curl)
		curl_easy_cleanup(f->curl);
	curl_slist_free_all(f->headers);
	free(f->buf);
	explicit_bzero(f->pass, sizeof(f->pass));
	free(f);
}
