/*
 * notify_listen.c - a stand-in for systemd's notify socket.
 *
 *   notify_listen PATH SECONDS
 *
 * Binds an AF_UNIX datagram socket at PATH (abstract if PATH starts with
 * '@') and prints every datagram as one line, "MONOTONIC_MS FIELD|FIELD",
 * until SECONDS have passed, or until SIGTERM, after which it prints
 * what is still queued and exits: a test that has seen its program end
 * ends the listener then, with every datagram the program sent printed,
 * and waits for no clock.  Tests read the order and rate of READY=1,
 * RELOADING=1, WATCHDOG=1 and STOPPING=1 from it.
 */
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sa;
	char buf[4096];
	double end;
	socklen_t len;
	ssize_t n;
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: notify_listen PATH SECONDS\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strncpy(sa.sun_path, argv[1], sizeof(sa.sun_path) - 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(argv[1]));
	if (argv[1][0] == '@')
		sa.sun_path[0] = '\0';
	else
		unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) < 0) {
		perror("notify_listen");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	end = now_ms() + atof(argv[2]) * 1e3;
	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		/* After SIGTERM: what is queued, without waiting for more. */
		if (!stop && poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, stop ? MSG_DONTWAIT : 0);
		if (n < 0 && stop)
			break;
		if (n <= 0)
			continue;
		buf[n] = '\0';
		while (n > 0 && buf[n - 1] == '\n')
			buf[--n] = '\0';
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = '|';
		printf("%.0f %s\n", now_ms(), buf);
	}
	if (argv[1][0] != '@')
		unlink(argv[1]);
	return 0;
}
