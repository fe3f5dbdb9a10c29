/*
 * statefile_test.c - the daemon's own state file (util/statefile.c):
 * what it writes reads back whole; and every file that is not certainly
 * its own, whole, of its version, is refused with its own error and
 * never blocks: a truncated, a corrupt, a foreign-version, an oversized
 * file, a link, a FIFO, another user's, one writable by others, and a
 * directory others can write, where nothing is written.  The ownership
 * cases need root (chown) and are skipped without it.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/check.h"
#include "util/statefile.h"

#define MAGIC "PMUTEST1"

static char dir[] = "/tmp/statefile_test.XXXXXX";
static char path[256];

static int
read_back(size_t max, void **out, size_t *len)
{
	return statefile_read(path, MAGIC, 3, max, out, len);
}

/* The file's byte at off XORed with x (a corruption), or cut at off. */
static void
damage(off_t off, int x, int cut)
{
	int fd = open(path, O_RDWR);
	unsigned char b;

	CHECK(fd >= 0);
	if (cut)
		CHECK(ftruncate(fd, off) == 0);
	else {
		CHECK(pread(fd, &b, 1, off) == 1);
		b ^= (unsigned char)x;
		CHECK(pwrite(fd, &b, 1, off) == 1);
	}
	close(fd);
}

static void
write_good(void)
{
	char payload[1000];
	size_t i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (char)(i * 7);
	CHECK(statefile_write(path, MAGIC, 3, payload, sizeof(payload)) == 0);
}

static void
test_round_trip(void)
{
	void *buf = NULL;
	size_t len = 0, i;
	struct stat st;

	write_good();
	CHECK(read_back(1 << 20, &buf, &len) == 0);
	CHECK(len == 1000);
	for (i = 0; buf && i < len; i++)
		if (((char *)buf)[i] != (char)(i * 7))
			break;
	CHECK(buf && i == len);
	free(buf);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	/* An empty payload is a payload. */
	CHECK(statefile_write(path, MAGIC, 3, "", 0) == 0);
	CHECK(read_back(10, &buf, &len) == 0 && len == 0);
	free(buf);
	/* Nothing left beside it. */
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "test $(ls %s | wc -l) = 1", dir);
		CHECK(system(cmd) == 0);
	}
}

static void
test_refused(void)
{
	void *buf = NULL;
	size_t len;
	char other[300];

	CHECK(read_back(1 << 20, &buf, &len) == 0 || 1);
	free(buf);
	unlink(path);
	CHECK(read_back(1 << 20, &buf, &len) == -ENOENT);
	write_good();
	damage(20 + 500, 0x40, 0);		/* a bit flipped */
	CHECK(read_back(1 << 20, &buf, &len) == -EBADMSG);
	write_good();
	damage(20 + 999, 0, 1);			/* the last byte cut */
	CHECK(read_back(1 << 20, &buf, &len) == -EBADMSG);
	write_good();
	damage(10, 0, 1);			/* into the header */
	CHECK(read_back(1 << 20, &buf, &len) == -EBADMSG);
	write_good();
	damage(8, 1, 0);			/* version 3 -> 2 */
	CHECK(read_back(1 << 20, &buf, &len) == -EPROTO);
	write_good();
	CHECK(statefile_read(path, "PMUOTHER", 3, 1 << 20, &buf, &len) ==
	    -EPROTO);
	CHECK(read_back(999, &buf, &len) == -EFBIG);
	/* A link to a good file is no state file. */
	snprintf(other, sizeof(other), "%s/other", dir);
	CHECK(rename(path, other) == 0);
	CHECK(symlink(other, path) == 0);
	CHECK(read_back(1 << 20, &buf, &len) == -ELOOP);
	unlink(path);
	unlink(other);
	/* A FIFO with no writer: refused at once, not waited on. */
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(read_back(1 << 20, &buf, &len) == -EINVAL);
	unlink(path);
	/* Writable by others: refused. */
	write_good();
	CHECK(chmod(path, 0622) == 0);
	CHECK(read_back(1 << 20, &buf, &len) == -EPERM);
	unlink(path);
}

/* Root only: another user's file, and a directory others can write. */
static int
test_owners(void)
{
	void *buf = NULL;
	size_t len;

	if (geteuid() != 0)
		return 0;
	write_good();
	CHECK(chown(path, 65534, 65534) == 0);
	CHECK(read_back(1 << 20, &buf, &len) == -EPERM);
	unlink(path);
	CHECK(chmod(dir, 0777) == 0);
	CHECK(statefile_write(path, MAGIC, 3, "x", 1) == -EPERM);
	CHECK(access(path, F_OK) < 0);
	CHECK(chmod(dir, 0700) == 0);
	return 1;
}

int
main(void)
{
	int owners;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/state", dir);
	test_round_trip();
	test_refused();
	owners = test_owners();
	unlink(path);
	CHECK(rmdir(dir) == 0);
	printf("%d checks, %d failed%s\n", check_count, check_failures,
	    owners ? "" : " (the owners' cases need root: not run)");
	return check_failures ? 1 : 0;
}
