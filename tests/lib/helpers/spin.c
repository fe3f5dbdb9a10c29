/*
 * spin.c - retires a known number of user-space instructions.
 *
 *   spin ITERATIONS
 *
 * The loop is two instructions per iteration (decrement, branch), written
 * in asm so no compiler changes it; it prints the count it retired, which
 * dwarfs the few hundred thousand of process start-up when ITERATIONS is
 * in the billions.
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	unsigned long long n;

	if (argc != 2 || (n = strtoull(argv[1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: spin ITERATIONS\n");
		return 2;
	}
#if defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
#elif defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	fprintf(stderr, "spin: no asm loop for this architecture\n");
	return 77;
#endif
	printf("instructions=%llu\n", strtoull(argv[1], NULL, 0) * 2);
	return 0;
}
