// SPDX-License-Identifier: GPL-2.0-only
/*
 * exec-time N COMMAND [ARG...]: run COMMAND N times, one after another,
 * and print the time of each run from fork to exit (CLOCK_MONOTONIC):
 * "exec-time n=N p50=X us p99=Y us max=Z us". Its output goes to
 * /dev/null. Exits 1 if a run failed (then it prints that run's status).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int64_t *us, t0;
	int i, n, st, fd;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: exec-time N COMMAND [ARG...]\n");
		return 2;
	}
	us = calloc(n, sizeof(*us));
	if (!us)
		return 1;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		pid = fork();
		if (pid == 0) {
			fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 1);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0) {
			perror("exec-time");
			return 1;
		}
		us[i] = (now_ns() - t0) / 1000;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "exec-time: run %d of %s: status %#x\n", i + 1, argv[2], st);
			return 1;
		}
	}
	qsort(us, n, sizeof(*us), cmp);
	printf("exec-time n=%d p50=%lld us p99=%lld us max=%lld us\n", n,
	       (long long)us[n / 2], (long long)us[n * 99 / 100], (long long)us[n - 1]);
	free(us);
	return 0;
}
