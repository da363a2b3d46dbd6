// SPDX-License-Identifier: GPL-2.0-only
/*
 * rt-exec: run a command as a real-time (SCHED_FIFO) task pinned to one
 * CPU, so that a guest test can keep the normal threads of that CPU (an
 * error handler pinned there) from running until the command is done.
 *
 *   rt-exec CPU PRIO COMMAND [ARG...]
 *
 * Exits 2 on a usage error, 1 if the CPU or the priority cannot be set,
 * otherwise runs COMMAND in place (127 if it cannot be run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	cpu_set_t set;
	char *end;
	long cpu, prio;

	if (argc < 4) {
		fprintf(stderr, "usage: rt-exec CPU PRIO COMMAND [ARG...]\n");
		return 2;
	}
	cpu = strtol(argv[1], &end, 10);
	if (*end || cpu < 0 || cpu >= CPU_SETSIZE)
		return 2;
	prio = strtol(argv[2], &end, 10);
	if (*end || prio < 1 || prio > 99)
		return 2;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "rt-exec: CPU %ld: %s\n", cpu, strerror(errno));
		return 1;
	}
	sp.sched_priority = (int)prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		fprintf(stderr, "rt-exec: SCHED_FIFO %ld: %s\n", prio, strerror(errno));
		return 1;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "rt-exec: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
