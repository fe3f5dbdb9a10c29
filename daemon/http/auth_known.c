/*
 * auth_known.c - the addresses whose credentials passed (see auth_known.h):
 * one lock for the set, a second ordering its writes, in util/statefile's
 * envelope (docs/architecture.md, "daemon/, by folder").
 */
#include "autoconf.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "daemon/http/auth_known.h"
#include "util/statefile.h"

#define MAGIC "pmuauthk"
#define FORMAT 1

struct known {
	pthread_mutex_t lock;		/* the set */
	unsigned char key[KNOWN_MAX][16];
	unsigned nr, next;		/* used; where the next one goes */
	char *path;			/* NULL: in memory only */
	pthread_mutex_t write_lock;	/* one write at a time, in order */
	uint64_t written;		/* the newest set written */
	uint64_t changes;		/* sets made, under lock */
	int said;			/* the last write's error, reported */
	log_fields_fn log;		/* where; NULL: nowhere */
};

int
known_new(struct known **out)
{
	struct known *k;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return -ENOMEM;
	pthread_mutex_init(&k->lock, NULL);
	pthread_mutex_init(&k->write_lock, NULL);
	*out = k;
	return 0;
}

int
known_keep(struct known *k, const char *path, log_fields_fn log)
{
	void *p = NULL;
	size_t len = 0, i;
	int r;

	k->log = log;
	if ((k->path = strdup(path)) == NULL)
		return -ENOMEM;
	r = statefile_read(path, MAGIC, FORMAT, sizeof(k->key), &p, &len);
	if (r == 0 && len % 16 != 0)
		r = -EBADMSG;
	if (r == 0) {
		pthread_mutex_lock(&k->lock);
		for (i = 0; i < len / 16; i++)
			memcpy(k->key[i], (unsigned char *)p + 16 * i, 16);
		k->nr = (unsigned)(len / 16);
		k->next = k->nr % KNOWN_MAX;
		pthread_mutex_unlock(&k->lock);
	}
	free(p);
	return r;
}

/* Lock held. */
static int
has(const struct known *k, const unsigned char key[16])
{
	unsigned i;

	for (i = 0; i < k->nr; i++)
		if (memcmp(k->key[i], key, 16) == 0)
			return 1;
	return 0;
}

int
known_has(struct known *k, const unsigned char key[16])
{
	int r;

	pthread_mutex_lock(&k->lock);
	r = has(k, key);
	pthread_mutex_unlock(&k->lock);
	return r;
}

int
known_add(struct known *k, const unsigned char key[16])
{
	unsigned char copy[KNOWN_MAX][16];
	uint64_t made;
	unsigned nr, i;
	int r;

	pthread_mutex_lock(&k->lock);
	if (has(k, key)) {
		pthread_mutex_unlock(&k->lock);
		return 0;
	}
	memcpy(k->key[k->next], key, 16);
	k->next = (k->next + 1) % KNOWN_MAX;
	if (k->nr < KNOWN_MAX)
		k->nr++;
	made = ++k->changes;
	nr = k->nr;
	/* Oldest first, as known_keep() reads them. */
	for (i = 0; i < nr; i++)
		memcpy(copy[i], k->key[nr < KNOWN_MAX ? i :
		    (k->next + i) % KNOWN_MAX], 16);
	pthread_mutex_unlock(&k->lock);
	if (k->path == NULL)
		return 1;
	pthread_mutex_lock(&k->write_lock);
	if (made > k->written) {	/* else a newer set is written */
		r = statefile_write(k->path, MAGIC, FORMAT, copy,
		    (size_t)nr * 16);
		if (r < 0 && r != k->said && k->log != NULL)
			k->log(LOG_WARNING, NULL,
			    "--web.auth-state-file %s not written: %s",
			    k->path, strerror(-r));
		k->said = r < 0 ? r : 0;
		k->written = made;
	}
	pthread_mutex_unlock(&k->write_lock);
	return 1;
}

void
known_free(struct known *k)
{
	if (k == NULL)
		return;
	explicit_bzero(k->key, sizeof(k->key));
	pthread_mutex_destroy(&k->lock);
	pthread_mutex_destroy(&k->write_lock);
	free(k->path);
	free(k);
}
