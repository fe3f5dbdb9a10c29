/*
 * mix.c - retires a known number of user-space instructions at a low,
 * steady rate: most of its time the CPU is in the kernel, on its behalf.
 *
 *   mix ROUNDS ITERATIONS BYTES
 *
 * Each round runs spin's 2-instruction loop ITERATIONS times, then reads
 * BYTES from /dev/zero, which the kernel spends its time clearing.  The
 * rounds are one asm block, so every user instruction in them is known:
 * per round 2 x ITERATIONS + 8 (the loop counter's mov; read's four
 * register movs and its svc; the round's decrement and branch), printed
 * as user_instructions=.  Whether the svc counts in EL0 or EL1 moves that
 * by 1 a round (1e-4 at 5000 iterations); start-up adds a few ten
 * thousand.  A round takes tens of microseconds, so at the scale perf
 * multiplexes groups (milliseconds) the rate of user instructions per
 * nanosecond on the CPU is steady: the tests/vm/ guest uses it for a
 * phase at a low rate, where spin is one at the highest.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	unsigned long long rounds, iter, len;
	char *buf;
	int fd;

	if (argc != 4 || (rounds = strtoull(argv[1], NULL, 0)) == 0 ||
	    (iter = strtoull(argv[2], NULL, 0)) == 0 ||
	    (len = strtoull(argv[3], NULL, 0)) == 0) {
		fprintf(stderr, "usage: mix ROUNDS ITERATIONS BYTES\n");
		return 2;
	}
	if ((buf = malloc(len)) == NULL ||
	    (fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)) < 0) {
		perror("mix");
		return 1;
	}
#if defined(__aarch64__)
	{
		unsigned long long r = rounds;
		long f = fd;

		__asm__ volatile(
		    "1:	mov x9, %[iter]\n"
		    "2:	subs x9, x9, #1\n"
		    "	b.ne 2b\n"
		    "	mov x0, %[fd]\n"
		    "	mov x1, %[buf]\n"
		    "	mov x2, %[len]\n"
		    "	mov x8, #63\n"		/* __NR_read */
		    "	svc #0\n"
		    "	subs %[r], %[r], #1\n"
		    "	b.ne 1b\n"
		    : [r] "+r"(r)
		    : [iter] "r"(iter), [fd] "r"(f), [buf] "r"(buf),
		      [len] "r"(len)
		    : "x0", "x1", "x2", "x8", "x9", "cc", "memory");
	}
#else
	fprintf(stderr, "mix: no asm loop for this architecture\n");
	return 77;
#endif
	printf("user_instructions=%llu\n", rounds * (2 * iter + 8));
	return 0;
}
