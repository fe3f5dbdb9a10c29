/*
 * node_work.c - the work of one container in bench/node_overhead.sh.
 *
 *   node_work stream   FILE SLOT CGROUP_DIR
 *   node_work compress FILE SLOT CGROUP_DIR
 *   node_work pingpong FILE SLOT CGROUP_A CGROUP_B
 *   node_work snap     FILE FIRST LAST > SNAP
 *   node_work rate     SNAP0 SNAP1 SECONDS
 *
 * Each worker moves itself into its cgroup (writing 0 to cgroup.procs)
 * and runs until it is killed, adding what it has done to its slot of
 * FILE, a shared mapping every worker of a run opens: bytes copied
 * (stream: two 16 MB buffers, larger than any cache here), bytes
 * compressed (compress: zlib level 1 over 64 KB chunks of a text-like
 * buffer), round trips (pingpong: a pipe ping-pong between a process in
 * CGROUP_A and its child in CGROUP_B, unpinned, with a histogram of the
 * round trips' wall times).  The bench reads the counters whenever it
 * likes (snap sums slots FIRST..LAST into one line), so that a window
 * of any length starts and ends without starting or stopping the work:
 * rate prints the throughput per second between two snaps and the 99th
 * percentile round trip in microseconds (0 where there is no histogram).
 * The workers stop when killed; the ping-pong's child when its parent
 * goes (its pipe closes, and PR_SET_PDEATHSIG).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define SLOTS 256
#define BUCKETS 512	/* log2 with 8 sub-buckets: every uint64 value */
#define STREAM_BYTES (16u << 20)
#define CHUNK (64u << 10)

struct slot {
	uint64_t count;
	uint64_t hist[BUCKETS];
};

static void
die(const char *what)
{
	fprintf(stderr, "node_work: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct slot *
slots_map(const char *file)
{
	size_t len = SLOTS * sizeof(struct slot);
	void *p;
	int fd;

	if ((fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		die(file);
	if (ftruncate(fd, (off_t)len) < 0)
		die("ftruncate");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	close(fd);
	return p;
}

static void
join_cgroup(const char *dir)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		die(path);
	if (write(fd, "0", 1) != 1)
		die(path);
	close(fd);
}

static unsigned
bucket_of(uint64_t v)
{
	int e;

	if (v < 16)
		return (unsigned)v;
	e = 63 - __builtin_clzll(v);
	return (unsigned)((e - 2) * 8) + (unsigned)((v >> (e - 3)) & 7);
}

/* The largest value bucket b holds. */
static double
bucket_top(unsigned b)
{
	unsigned e = b / 8 + 2, sub = b % 8;

	if (b < 16)
		return b;
	return (double)(9 + sub) * (double)(1ull << (e - 3)) - 1;
}

static void
add(struct slot *s, uint64_t n)
{
	__atomic_fetch_add(&s->count, n, __ATOMIC_RELAXED);
}

static void
run_stream(struct slot *s)
{
	char *a = malloc(STREAM_BYTES), *b = malloc(STREAM_BYTES);
	size_t off;

	if (a == NULL || b == NULL)
		die("malloc");
	memset(a, 1, STREAM_BYTES);
	memset(b, 2, STREAM_BYTES);
	for (;;) {
		for (off = 0; off < STREAM_BYTES; off += CHUNK * 4) {
			memcpy(b + off, a + off, CHUNK * 4);
			add(s, CHUNK * 4);
		}
		a[0]++;
	}
}

static void
run_compress(struct slot *s)
{
	static const char *words[] = { "counter ", "cgroup ", "switch ",
	    "event ", "scrape ", "series\n", "node ", "the " };
	unsigned char *in = malloc(CHUNK * 16);
	unsigned char out[CHUNK + 1024];
	unsigned seed = (unsigned)getpid();
	size_t i = 0, off = 0, w;
	uLongf olen;

	if (in == NULL)
		die("malloc");
	while (i < CHUNK * 16) {
		w = (size_t)rand_r(&seed) % 8;
		for (const char *c = words[w]; *c != '\0' && i < CHUNK * 16; c++)
			in[i++] = (unsigned char)*c;
	}
	for (;;) {
		olen = sizeof(out);
		if (compress2(out, &olen, in + off, CHUNK, 1) != Z_OK)
			die("compress2");
		add(s, CHUNK);
		off = (off + CHUNK) % (CHUNK * 16);
	}
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
xfer(int fd, char *c, int wr)
{
	ssize_t n;

	do
		n = wr ? write(fd, c, 1) : read(fd, c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static void
run_pingpong(struct slot *s, const char *cg_a, const char *cg_b)
{
	int ab[2], ba[2];
	uint64_t t0, t1;
	char c = 0;

	join_cgroup(cg_a);
	if (pipe(ab) < 0 || pipe(ba) < 0)
		die("pipe");
	switch (fork()) {
	case -1:
		die("fork");
		break;
	case 0:
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		join_cgroup(cg_b);
		close(ab[1]);
		close(ba[0]);
		while (xfer(ab[0], &c, 0) == 0 && xfer(ba[1], &c, 1) == 0)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	for (;;) {
		t0 = now_ns();
		if (xfer(ab[1], &c, 1) < 0 || xfer(ba[0], &c, 0) < 0)
			die("ping-pong");
		t1 = now_ns();
		__atomic_fetch_add(&s->hist[bucket_of(t1 - t0)], 1,
		    __ATOMIC_RELAXED);
		add(s, 1);
	}
}

/* One line: the count, then every bucket, summed over FIRST..LAST. */
static void
snap(const char *file, int first, int last)
{
	struct slot *s = slots_map(file), sum;
	int i, b;

	memset(&sum, 0, sizeof(sum));
	for (i = first; i <= last && i < SLOTS; i++) {
		sum.count += __atomic_load_n(&s[i].count, __ATOMIC_RELAXED);
		for (b = 0; b < BUCKETS; b++)
			sum.hist[b] += __atomic_load_n(&s[i].hist[b],
			    __ATOMIC_RELAXED);
	}
	printf("%llu", (unsigned long long)sum.count);
	for (b = 0; b < BUCKETS; b++)
		printf(" %llu", (unsigned long long)sum.hist[b]);
	printf("\n");
}

static int
snap_read(const char *file, uint64_t *v)
{
	FILE *f = fopen(file, "r");
	unsigned long long x;
	int i;

	if (f == NULL)
		die(file);
	for (i = 0; i <= BUCKETS; i++) {
		if (fscanf(f, "%llu", &x) != 1)
			break;
		v[i] = x;
	}
	fclose(f);
	return i == BUCKETS + 1 ? 0 : -1;
}

/* Per second between two snaps, and the 99th percentile in us. */
static void
rate(const char *f0, const char *f1, double secs)
{
	static uint64_t a[BUCKETS + 1], b[BUCKETS + 1];
	uint64_t n = 0, seen = 0;
	double p99 = 0;
	unsigned i;

	if (snap_read(f0, a) < 0 || snap_read(f1, b) < 0 || secs <= 0) {
		fprintf(stderr, "node_work: bad snaps or seconds\n");
		exit(1);
	}
	for (i = 1; i <= BUCKETS; i++)
		n += b[i] - a[i];
	for (i = 1; i <= BUCKETS && n > 0; i++) {
		seen += b[i] - a[i];
		if (seen * 100 >= n * 99) {
			p99 = bucket_top(i - 1) / 1000.0;
			break;
		}
	}
	printf("%.1f %.1f\n", (double)(b[0] - a[0]) / secs, p99);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int slot = argc > 3 ? atoi(argv[3]) : -1;

	if (strcmp(mode, "rate") == 0 && argc == 5) {
		rate(argv[2], argv[3], atof(argv[4]));
		return 0;
	}
	if (strcmp(mode, "snap") == 0 && argc == 5) {
		snap(argv[2], atoi(argv[3]), atoi(argv[4]));
		return 0;
	}
	if (slot < 0 || slot >= SLOTS || argc < 5)
		goto usage;
	if (strcmp(mode, "pingpong") == 0 && argc == 6)
		run_pingpong(&slots_map(argv[2])[slot], argv[4], argv[5]);
	if (strcmp(mode, "stream") == 0 && argc == 5) {
		join_cgroup(argv[4]);
		run_stream(&slots_map(argv[2])[slot]);
	}
	if (strcmp(mode, "compress") == 0 && argc == 5) {
		join_cgroup(argv[4]);
		run_compress(&slots_map(argv[2])[slot]);
	}
usage:
	fprintf(stderr, "usage: node_work stream|compress FILE SLOT CGROUP_DIR\n"
	    "       node_work pingpong FILE SLOT CGROUP_A CGROUP_B\n"
	    "       node_work snap FILE FIRST LAST\n"
	    "       node_work rate SNAP0 SNAP1 SECONDS\n");
	return 2;
}
