// SPDX-License-Identifier: GPL-2.0-only
/*
 * park-stress: park and unpark a disk CYCLES times through its hdprotect
 * configfs item while a writer and a reader run against it with O_DIRECT,
 * then check that no write was lost and no block read back corrupted.
 *
 *   park-stress DEVICE ITEM_DIR CYCLES
 *
 * Each block carries its number, a generation and a pattern made from
 * both. The writer rewrites the first half of the blocks; the reader reads
 * the second half, written once before the parks start (so that it never
 * reads a block while it is being written), and each must hold
 * generation 1. At the end each block of the first half must hold the
 * last generation whose write succeeded. Prints one line of figures and exits
 * 0 if there were no I/O errors, no corrupt and no lost block, else 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define NBLOCKS 128
#define MAGIC 0x68647073u /* "hdps" */

struct header {
	uint32_t magic;
	uint32_t block;
	uint64_t gen;
};

static const char *device;
static atomic_int stop;
static atomic_ulong writes, reads, io_errors, corrupt;
static _Atomic uint64_t done_gen[NBLOCKS];

static void fill(unsigned char *buf, uint32_t block, uint64_t gen)
{
	struct header h = { MAGIC, block, gen };
	size_t i;

	memcpy(buf, &h, sizeof(h));
	for (i = sizeof(h); i < BLOCK; i++)
		buf[i] = (unsigned char)(block * 31 + gen * 7 + i);
}

/* 0: all zeros; 1: consistent; -1: corrupt. */
static int verify(const unsigned char *buf, uint32_t block, uint64_t *gen)
{
	static const unsigned char zero[BLOCK];
	unsigned char want[BLOCK];
	struct header h;

	if (!memcmp(buf, zero, BLOCK))
		return 0;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != MAGIC || h.block != block)
		return -1;
	fill(want, block, h.gen);
	if (memcmp(buf, want, BLOCK))
		return -1;
	*gen = h.gen;
	return 1;
}

static int open_direct(int flags)
{
	int fd = open(device, flags | O_DIRECT);

	if (fd < 0) {
		fprintf(stderr, "park-stress: %s: %s\n", device, strerror(errno));
		exit(1);
	}
	return fd;
}

static void *writer(void *arg)
{
	int fd = open_direct(O_RDWR);
	unsigned char *buf;
	uint64_t gen = 0;

	(void)arg;
	if (posix_memalign((void **)&buf, BLOCK, BLOCK))
		exit(1);
	while (!atomic_load(&stop)) {
		uint32_t b = gen % (NBLOCKS / 2);

		gen++;
		fill(buf, b, gen);
		if (pwrite(fd, buf, BLOCK, (off_t)b * BLOCK) == BLOCK) {
			atomic_store(&done_gen[b], gen);
			atomic_fetch_add(&writes, 1);
		} else {
			atomic_fetch_add(&io_errors, 1);
		}
	}
	free(buf);
	close(fd);
	return NULL;
}

static void *reader(void *arg)
{
	int fd = open_direct(O_RDONLY);
	unsigned char *buf;
	unsigned int seed = 1;
	uint64_t gen;

	(void)arg;
	if (posix_memalign((void **)&buf, BLOCK, BLOCK))
		exit(1);
	while (!atomic_load(&stop)) {
		uint32_t b = NBLOCKS / 2 + rand_r(&seed) % (NBLOCKS / 2);

		if (pread(fd, buf, BLOCK, (off_t)b * BLOCK) != BLOCK)
			atomic_fetch_add(&io_errors, 1);
		else if (verify(buf, b, &gen) != 1 || gen != 1)
			atomic_fetch_add(&corrupt, 1);
		atomic_fetch_add(&reads, 1);
	}
	free(buf);
	close(fd);
	return NULL;
}

static int write_attr(const char *dir, const char *attr, const char *val)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long cycles, c, park_errors = 0, lost = 0;
	unsigned char *buf;
	pthread_t w, r;
	uint32_t b;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: park-stress DEVICE ITEM_DIR CYCLES\n");
		return 2;
	}
	device = argv[1];
	cycles = strtoul(argv[3], NULL, 10);
	fd = open_direct(O_RDWR);
	if (posix_memalign((void **)&buf, BLOCK, BLOCK))
		return 1;
	for (b = NBLOCKS / 2; b < NBLOCKS; b++) {
		fill(buf, b, 1);
		if (pwrite(fd, buf, BLOCK, (off_t)b * BLOCK) != BLOCK)
			atomic_fetch_add(&io_errors, 1);
		atomic_store(&done_gen[b], 1);
	}
	close(fd);
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	for (c = 0; c < cycles; c++) {
		struct timespec ts = { 0, (5 + c % 20) * 1000000L };

		if (write_attr(argv[2], "park", "1"))
			park_errors++;
		nanosleep(&ts, NULL);
		if (write_attr(argv[2], "park", "0"))
			park_errors++;
		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, 1);
	pthread_join(w, NULL);
	pthread_join(r, NULL);

	fd = open_direct(O_RDONLY);
	for (b = 0; b < NBLOCKS; b++) {
		uint64_t gen = 0;
		int v;

		if (pread(fd, buf, BLOCK, (off_t)b * BLOCK) != BLOCK) {
			atomic_fetch_add(&io_errors, 1);
			continue;
		}
		v = verify(buf, b, &gen);
		if (v < 0)
			atomic_fetch_add(&corrupt, 1);
		else if (gen != atomic_load(&done_gen[b]))
			lost++;
	}
	free(buf);
	close(fd);
	printf("cycles=%lu park_errors=%lu writes=%lu reads=%lu io_errors=%lu corrupt=%lu lost=%lu\n",
	       cycles, park_errors, atomic_load(&writes), atomic_load(&reads),
	       atomic_load(&io_errors), atomic_load(&corrupt), lost);
	return park_errors || atomic_load(&io_errors) || atomic_load(&corrupt) ||
	       lost || !atomic_load(&writes) ? 1 : 0;
}
