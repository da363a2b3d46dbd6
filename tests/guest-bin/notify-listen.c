// SPDX-License-Identifier: GPL-2.0-only
/*
 * notify-listen: stand for systemd's notification socket, so that guest
 * tests can see what a Type=notify service tells it (READY=1, STATUS=,
 * WATCHDOG=1).
 *
 *   notify-listen PATH SECONDS
 *
 * Binds a datagram socket at PATH (removing what was there), prints
 * "ready" once it listens, then each line of each message it receives
 * as "MS LINE" (MS: milliseconds since it began listening), for SECONDS
 * or until SIGTERM. Exits 0, 1 on an error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096], *line, *save;
	double t0, end;
	struct pollfd pfd;
	ssize_t n;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify-listen PATH SECONDS\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("notify-listen");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	t0 = now_ms();
	end = t0 + atof(argv[2]) * 1000;
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (now_ms() < end) {
		if (poll(&pfd, 1, (int)(end - now_ms()) + 1) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			continue;
		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("%.0f %s\n", now_ms() - t0, line);
	}
	unlink(argv[1]);
	return 0;
}
