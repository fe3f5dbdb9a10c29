/*
 * procstat.c - process_* from procfs (see procstat.h), as the Prometheus
 * client libraries' process collector has them.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/expo/procstat.h"

/*
 * Seconds since the epoch at boot: "btime" in <procfs>/stat.  Read once:
 * it does not change, and the kernel formats all of /proc/stat (every
 * CPU's times, every interrupt count) for each read.
 */
static int
boot_time(struct procstat *ps, double *out)
{
	char path[4096], line[256];
	unsigned long long bt;
	FILE *f;
	int fd, r = -ENOENT;

	if ((*out = ps->boot_s) != 0)
		return 0;

	/* O_NONBLOCK: --path.procfs names a tree of files that must not
	 * block a render worker, whatever is put in their place. */
	snprintf(path, sizeof(path), "%s/stat", ps->procfs);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -errno;
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return -errno;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %llu", &bt) == 1) {
			*out = ps->boot_s = (double)bt;
			r = 0;
			break;
		}
	fclose(f);
	return r;
}

/* Entries in <procfs>/self/fd, less ".", ".." and the one counting. */
static int
count_fds(const char *procfs, double *out)
{
	char path[4096], buf[16384];
	long n, i;
	size_t count = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/self/fd", procfs);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n;) {
			unsigned short reclen;
			const char *name = buf + i + 19;

			memcpy(&reclen, buf + i + 16, sizeof(reclen));
			if (name[0] != '.')
				count++;
			i += reclen;
		}
	close(fd);
	if (n < 0)
		return -errno;
	*out = (double)(count ? count - 1 : 0);
	return 0;
}

int
procstat_read(struct procstat *ps, struct expo_live *l)
{
	const char *procfs = ps->procfs;
	char path[4096], buf[2048], *p;
	unsigned long long utime, stime, start, vsize;
	long long rss, threads;
	double boot = 0, fds = 0;
	struct rlimit rl;
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	ssize_t n;
	int fd, r;

	l->have_process = 0;
	snprintf(path, sizeof(path), "%s/self/stat", procfs);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? r : -EIO;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: parse after the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -EIO;
	/* Fields 3.. after comm: state is 3, utime 14, stime 15,
	 * num_threads 20, starttime 22, vsize 23, rss 24. */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
	    "%llu %llu %*d %*d %*d %*d %lld %*d %llu %llu %lld",
	    &utime, &stime, &threads, &start, &vsize, &rss) != 6)
		return -EIO;
	if ((r = boot_time(ps, &boot)) < 0 ||
	    (r = count_fds(procfs, &fds)) < 0)
		return r;
	if (tick <= 0)
		tick = 100;
	l->cpu_seconds = (double)(utime + stime) / (double)tick;
	l->threads = (double)threads;
	l->start_time_s = boot + (double)start / (double)tick;
	l->virtual_bytes = (double)vsize;
	l->resident_bytes = (double)rss * (double)page;
	l->open_fds = fds;
	l->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur : -1;
	l->virtual_max_bytes = getrlimit(RLIMIT_AS, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur :
	    18446744073709551615.0;
	l->have_process = 1;
	return 0;
}
