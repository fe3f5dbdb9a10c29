/*
 * faults.c - a workload with a known count: touches N fresh pages, so it
 * takes N minor page faults (plus the few of its own start-up), and
 * reports what getrusage saw and the CPU time it used.
 *
 *   faults PAGES [SPIN_MS]
 *
 * With SPIN_MS it also burns that much CPU, for task-clock checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	long pages, page = sysconf(_SC_PAGESIZE), i;
	struct rusage ru;
	volatile char *p;
	double spin = 0, t0;

	if (argc < 2) {
		fprintf(stderr, "usage: faults PAGES [SPIN_MS]\n");
		return 2;
	}
	pages = atol(argv[1]);
	if (argc > 2)
		spin = atof(argv[2]) / 1000.0;
	p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* No transparent huge pages: one fault per page. */
	madvise((void *)p, (size_t)(pages * page), MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * page] = 1;
	/* Give the pages back now, so that their teardown is in the CPU time
	 * measured below and not in an exit nobody measures. */
	munmap((void *)p, (size_t)(pages * page));
	t0 = cpu_seconds();
	while (cpu_seconds() - t0 < spin)
		;
	getrusage(RUSAGE_SELF, &ru);
	printf("minflt=%ld majflt=%ld cpu=%.9f\n", ru.ru_minflt, ru.ru_majflt,
	    cpu_seconds());
	fflush(stdout);
	/* No exit handlers: nothing may fault after getrusage (ASan's leak
	 * check would, in a sanitizer build). */
	_exit(0);
}
