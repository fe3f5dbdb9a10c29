/*
 * inroot_test.c - opening under a root (util/inroot.c, included for its
 * fallback): links resolve inside the root with openat2 and are refused
 * without it; a FIFO, a device or a directory is refused as a file
 * without being opened; magic links are not followed.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/inroot.c"
#include "tests/lib/check.h"

static char dir[] = "/tmp/inroot_test.XXXXXX";

static void
put(const char *rel, const char *text)
{
	char path[4200];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	CHECK((fp = fopen(path, "w")) != NULL);
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void
sh(const char *cmd, const char *arg)
{
	char line[8600];

	snprintf(line, sizeof(line), "cd %s && %s", arg, cmd);
	CHECK(system(line) == 0);
}

/* The first bytes of the file at path under root, or the -errno. */
static const char *
first(int root, const char *path, int walk)
{
	static char buf[64];
	struct stat st;
	ssize_t n;
	int fd;

	if (walk)
		fd = inroot_walk(root, path, O_RDONLY | O_NONBLOCK);
	else
		fd = inroot_open_file(root, path, &st);
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "%s", strerror(-fd));
		return buf;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

int
main(void)
{
	char path[4200];
	struct stat st;
	int root, slash, fd;

	CHECK(mkdtemp(dir) != NULL);
	/* <dir>/root is the root; <dir>/outside is not in it. */
	sh("mkdir -p root/a/b outside/b root/data/docker", dir);
	put("root/a/b/f", "inside");
	put("outside/b/f", "outside");
	put("root/data/docker/f", "data");
	snprintf(path, sizeof(path), "%s/outside", dir);
	CHECK(symlink(path, strcat(strcpy(path, dir), "/root/out")) == 0);
	snprintf(path, sizeof(path), "%s/root/abs", dir);
	CHECK(symlink("/data/docker", path) == 0);
	snprintf(path, sizeof(path), "%s/root/up", dir);
	CHECK(symlink("../../outside", path) == 0);
	snprintf(path, sizeof(path), "%s/root/a/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	/* A device nobody drives: opening it would fail with ENXIO; not
	 * being opened, it is refused as what it is. */
	snprintf(path, sizeof(path), "%s/root/a/dev", dir);
	CHECK(mknod(path, S_IFCHR | 0600, makedev(240, 99)) == 0);
	snprintf(path, sizeof(path), "%s/root", dir);
	CHECK((root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0);
	CHECK((slash = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0);

	/* openat2: the absolute link resolves in the root, the link to a
	 * directory outside does not lead there, nor does "..". */
	CHECK_STR(first(root, "/a/b/f", 0), "inside");
	CHECK_STR(first(root, "a//b/./f", 0), "inside");
	CHECK_STR(first(root, "/abs/f", 0), "data");
	CHECK_STR(first(root, "/out/b/f", 0), strerror(ENOENT));
	CHECK_STR(first(root, "/up/b/f", 0), strerror(ENOENT));
	CHECK_STR(first(root, "/a/../../../outside/b/f", 0),
	    strerror(ENOENT));
	/* Not regular files: refused, never opened (nor blocked on). */
	CHECK_STR(first(root, "/a/fifo", 0), strerror(EINVAL));
	CHECK_STR(first(root, "/a/dev", 0), strerror(EINVAL));
	CHECK_STR(first(root, "/a", 0), strerror(EINVAL));
	CHECK_STR(first(slash, "/dev/zero", 0), strerror(EINVAL));
	CHECK(inroot_open_file(root, "/a/b/f", &st) >= 0 && st.st_size == 6);
	/* Magic links: /proc/self/root would be the exporter's "/". */
	snprintf(path, sizeof(path), "/proc/self/root%s/root/a/b/f", dir);
	CHECK_STR(first(slash, path, 0), strerror(ELOOP));
	/* Directories, as the readers list them. */
	CHECK((fd = inroot_open(root, "/abs", O_RDONLY | O_DIRECTORY)) >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(inroot_open(root, "/out", O_RDONLY | O_DIRECTORY) == -ENOENT);

	/* The fallback (kernels before 5.6): no link followed at all. */
	CHECK_STR(first(root, "/a/b/f", 1), "inside");
	CHECK_STR(first(root, "a//b/./f", 1), "inside");
	CHECK_STR(first(root, "/out/b/f", 1), strerror(ENOTDIR));
	CHECK_STR(first(root, "/abs/f", 1), strerror(ENOTDIR));
	CHECK_STR(first(root, "/a/../../outside/b/f", 1), strerror(EXDEV));
	CHECK(inroot_walk(root, "/out", O_RDONLY | O_DIRECTORY) < 0);
	CHECK((fd = inroot_walk(root, "/", O_PATH)) >= 0);
	if (fd >= 0)
		close(fd);
	/* And inroot_open_file over it: a link is no regular file. */
	no_openat2 = 1;
	CHECK_STR(first(root, "/a/b/f", 0), "inside");
	CHECK_STR(first(root, "/abs", 0), strerror(EINVAL));
	CHECK_STR(first(root, "/a/fifo", 0), strerror(EINVAL));
	CHECK_STR(first(root, "/out/b/f", 0), strerror(ENOTDIR));
	no_openat2 = 0;

	close(root);
	close(slash);
	sh("rm -rf root outside", dir);
	CHECK(rmdir(dir) == 0);
	return CHECK_DONE();
}
