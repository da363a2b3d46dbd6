// SPDX-License-Identifier: GPL-2.0-only
/*
 * park-latency: write PARK then UNPARK to ATTR, N times, and print the
 * CLOCK_MONOTONIC time in nanoseconds just before each PARK write, one
 * per line, so that a benchmark can pair it with the moment the command
 * was issued to the device (ftrace, trace_clock mono).
 *
 *   park-latency ATTR PARK UNPARK N [GAP_MS]
 *
 * A failed write (a device refusing the park: EIO) is counted, not fatal;
 * the count goes to standard error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0) {
		fprintf(stderr, "park-latency: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	long n, i, gap_ms, failed = 0;
	struct timespec ts;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: park-latency ATTR PARK UNPARK N [GAP_MS]\n");
		return 2;
	}
	n = strtol(argv[4], NULL, 10);
	gap_ms = argc == 6 ? strtol(argv[5], NULL, 10) : 20;
	for (i = 0; i < n; i++) {
		struct timespec gap = { 0, gap_ms * 1000000L };

		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		if (put(argv[1], argv[2]))
			failed++;
		nanosleep(&gap, NULL);
		put(argv[1], argv[3]);
		nanosleep(&gap, NULL);
	}
	fprintf(stderr, "park-latency: %ld of %ld park writes failed\n", failed, n);
	return 0;
}
