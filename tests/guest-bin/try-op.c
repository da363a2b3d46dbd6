// SPDX-License-Identifier: GPL-2.0-only
/*
 * try-op: do one file-system operation and print its outcome, "ok" or the
 * errno's name (EINVAL, ERANGE, ...), so that guest tests can assert the
 * exact error of a configfs write or mkdir.
 *
 *   try-op write FILE DATA        one write(2) of DATA; \n in DATA is a
 *                                 newline, \\ a backslash
 *   try-op write-repeat FILE N C  one write(2) of N bytes C
 *   try-op mkdir DIR | rmdir DIR
 *
 * Exits 0 once the operation was tried, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	int err;
	const char *name;
} names[] = {
	{ EINVAL, "EINVAL" }, { ERANGE, "ERANGE" }, { EPERM, "EPERM" },
	{ EACCES, "EACCES" }, { ENODEV, "ENODEV" }, { ENOENT, "ENOENT" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EBUSY, "EBUSY" }, { EIO, "EIO" },
	{ EEXIST, "EEXIST" }, { ENOTEMPTY, "ENOTEMPTY" }, { EFAULT, "EFAULT" },
	{ ENOMEM, "ENOMEM" }, { EUSERS, "EUSERS" },
};

static int outcome(int ret)
{
	size_t i;

	if (ret >= 0) {
		puts("ok");
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].err == errno) {
			puts(names[i].name);
			return 0;
		}
	}
	printf("errno%d\n", errno);
	return 0;
}

static size_t unescape(char *s)
{
	char *d = s;
	const char *p;

	for (p = s; *p; p++) {
		if (p[0] == '\\' && p[1] == 'n') {
			*d++ = '\n';
			p++;
		} else if (p[0] == '\\' && p[1] == '\\') {
			*d++ = '\\';
			p++;
		} else {
			*d++ = *p;
		}
	}
	return d - s;
}

static int try_write(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int saved;

	if (fd < 0)
		return outcome(-1);
	n = write(fd, data, len);
	saved = errno;
	close(fd);
	errno = saved;
	return outcome(n < 0 ? -1 : 0);
}

static int usage(void)
{
	fprintf(stderr, "usage: try-op write FILE DATA | write-repeat FILE N C | "
		"mkdir DIR | rmdir DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return try_write(argv[2], argv[3], unescape(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "write-repeat")) {
		long n = strtol(argv[3], NULL, 10);
		char *buf;
		int ret;

		if (n <= 0 || n > 1 << 20 || strlen(argv[4]) != 1)
			return usage();
		buf = malloc(n);
		if (!buf)
			return 1;
		memset(buf, argv[4][0], n);
		ret = try_write(argv[2], buf, n);
		free(buf);
		return ret;
	}
	if (argc == 3 && !strcmp(argv[1], "mkdir"))
		return outcome(mkdir(argv[2], 0755));
	if (argc == 3 && !strcmp(argv[1], "rmdir"))
		return outcome(rmdir(argv[2]));
	return usage();
}
