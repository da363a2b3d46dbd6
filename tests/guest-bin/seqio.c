// SPDX-License-Identifier: GPL-2.0-only
/*
 * seqio read|write DEV MIB: read or write the first MIB MiB of the block
 * device DEV sequentially with O_DIRECT, 1 MiB at a time, and print
 * "seqio read|write MIB MiB in S s: R MB/s" (MB = 10^6 bytes). Writes
 * write zeros. Exits 1 on an I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	(1 << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int wr, fd;
	long mib, i;
	double t0, t;
	void *buf;
	ssize_t r;

	if (argc != 4 || (strcmp(argv[1], "read") && strcmp(argv[1], "write"))) {
		fprintf(stderr, "usage: seqio read|write DEV MIB\n");
		return 2;
	}
	wr = !strcmp(argv[1], "write");
	mib = strtol(argv[3], NULL, 10);
	fd = open(argv[2], (wr ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0 || mib <= 0 || posix_memalign(&buf, 4096, CHUNK)) {
		fprintf(stderr, "seqio: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	memset(buf, 0, CHUNK);
	t0 = now_s();
	for (i = 0; i < mib; i++) {
		r = wr ? pwrite(fd, buf, CHUNK, (off_t)i * CHUNK) :
			 pread(fd, buf, CHUNK, (off_t)i * CHUNK);
		if (r != CHUNK) {
			fprintf(stderr, "seqio: %s at %ld MiB: %s\n", argv[2], i,
				r < 0 ? strerror(errno) : "short");
			return 1;
		}
	}
	t = now_s() - t0;
	printf("seqio %s %ld MiB in %.3f s: %.1f MB/s\n", argv[1], mib, t,
	       mib * (double)CHUNK / 1e6 / t);
	free(buf);
	close(fd);
	return 0;
}
