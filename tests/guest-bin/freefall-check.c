// SPDX-License-Identifier: GPL-2.0-only
/*
 * freefall-check: the semantics of /dev/freefall as lis3lv02d gives them,
 * on hdp_freefall (tests/modules), whose falls a write to its debugfs
 * file raises.
 *
 *   freefall-check semantics DEV FALL DRIVER
 *       DEV: /dev/freefall, which nobody else may have open; FALL: the
 *       debugfs file that raises falls; DRIVER: the platform driver's
 *       directory (its unbind and bind files). Prints one line per
 *       behaviour, "pass NAME" or "fail NAME: why", and leaves the device
 *       as it found it (unbound and bound again at the end).
 *   freefall-check open DEV
 *       opens DEV without blocking and closes it: prints "ok" or the
 *       errno's name (EBUSY, ENOENT, ...)
 *
 * Exits 0 once every behaviour was tried, 1 if one failed, 2 on a usage
 * error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool failed;

static void __attribute__((format(printf, 3, 4)))
expect(const char *name, bool good, const char *fmt, ...)
{
	va_list ap;

	if (good) {
		printf("pass %s\n", name);
		return;
	}
	printf("fail %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed = true;
}

/* Write @text to @path in one write(2): 0 or -errno. */
static int put(const char *path, const char *text)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In a child, after @ms: write @text to @path. Returns the child's pid. */
static pid_t later(int ms, const char *path, const char *text)
{
	pid_t pid = fork();

	if (pid == 0) {
		usleep(ms * 1000);
		_exit(put(path, text) ? 1 : 0);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int poll_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) < 0 ? -errno : p.revents;
}

/*
 * One read of sizeof(unsigned long) bytes, as hdpctl guard reads:
 * returns read(2)'s result or -errno; the byte read in *@v.
 */
static long rd(int fd, unsigned int *v)
{
	unsigned char buf[sizeof(unsigned long)];
	ssize_t n;

	memset(buf, 0xaa, sizeof(buf));
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	*v = buf[0];
	return n;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int semantics(const char *dev, const char *fall, const char *driver)
{
	char unbind[4096], bind[4096];
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value.tv_usec = 300000 };
	struct timespec ts = { .tv_sec = 2 };
	unsigned int v = 0;
	sigset_t io;
	double t0;
	long n;
	int fd, fd2, flags, ret;
	pid_t pid;

	snprintf(unbind, sizeof(unbind), "%s/unbind", driver);
	snprintf(bind, sizeof(bind), "%s/bind", driver);

	/* Falls count only while the device is open. */
	ret = put(fall, "1");
	expect("fall-file-accepts-a-count", !ret, "writing 1 to %s: %s", fall, strerror(-ret));
	fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		expect("device-opens", false, "%s: %s", dev, strerror(errno));
		return 1;
	}
	n = rd(fd, &v);
	expect("nonblocking-read-without-fall-gives-eagain", n == -EAGAIN,
	       "read gave %ld (%s; the fall before the open counted?)", n,
	       n < 0 ? strerror(-n) : "data");
	ret = poll_in(fd, 0);
	expect("poll-without-fall-not-readable", ret == 0, "poll gave revents %#x", ret);
	fd2 = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	expect("second-open-gives-ebusy", fd2 < 0 && errno == EBUSY, "open gave %d (%s)",
	       fd2, fd2 < 0 ? strerror(errno) : "opened");
	if (fd2 >= 0)
		close(fd2);
	ret = put(fall, "0");
	expect("fall-file-refuses-zero", ret == -EINVAL, "writing 0 gave %s",
	       ret ? strerror(-ret) : "success");

	/* A fall: readable; one byte, the count; then nothing again. */
	put(fall, "3");
	ret = poll_in(fd, 1000);
	expect("fall-makes-it-readable", ret == POLLIN,
	       "poll gave revents %#x", ret);
	n = rd(fd, &v);
	expect("read-gives-one-byte-the-count", n == 1 && v == 3, "read gave %ld, value %u",
	       n, v);
	ret = poll_in(fd, 0);
	n = rd(fd, &v);
	expect("read-resets-the-count", ret == 0 && n == -EAGAIN,
	       "then poll gave %#x, read %ld", ret, n);
	put(fall, "200");
	put(fall, "100");
	n = rd(fd, &v);
	expect("count-saturates-at-255", n == 1 && v == 255, "read gave %ld, value %u", n, v);
	n = read(fd, &v, 0);
	expect("empty-read-gives-einval", n < 0 && errno == EINVAL, "read of 0 bytes gave %ld",
	       n);

	/* SIGIO to the owner at each fall. */
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	sigprocmask(SIG_BLOCK, &io, NULL);
	flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETOWN, getpid());
	fcntl(fd, F_SETFL, flags | O_ASYNC);
	put(fall, "1");
	ret = sigtimedwait(&io, NULL, &ts);
	expect("fall-sends-sigio", ret == SIGIO, "sigtimedwait gave %d (%s)", ret,
	       ret < 0 ? strerror(errno) : "another signal");
	rd(fd, &v);

	/*
	 * A blocking read waits for a fall, or a signal. Each blocking read
	 * is cut short by an alarm after 3 s: a device that never wakes it
	 * fails the check rather than hang it.
	 */
	sigaction(SIGALRM, &sa, NULL);
	fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	pid = later(300, fall, "2");
	t0 = now_s();
	alarm(3);
	n = rd(fd, &v);
	alarm(0);
	t0 = now_s() - t0;
	expect("blocking-read-waits-for-a-fall", n == 1 && v == 2 && t0 > 0.2,
	       "read gave %ld, value %u, after %.3f s", n, v, t0);
	reap(pid);
	setitimer(ITIMER_REAL, &it, NULL);
	n = rd(fd, &v);
	expect("blocking-read-interrupted-by-a-signal", n == -EINTR, "read gave %ld", n);

	/* Opening again starts from zero. */
	put(fall, "1");
	close(fd);
	fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	n = fd < 0 ? -errno : rd(fd, &v);
	expect("open-starts-from-zero", n == -EAGAIN, "read after reopening gave %ld", n);

	/* The device goes away under a blocked reader. */
	if (fd >= 0) {
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
		pid = later(300, unbind, "hdp_freefall");
		alarm(3);
		n = rd(fd, &v);
		alarm(0);
		ret = reap(pid);
		expect("device-removed-blocked-read-gives-enodev", n == -ENODEV && !ret,
		       "unbind %s, read gave %ld", ret ? "failed" : "done", n);
		ret = poll_in(fd, 0);
		expect("device-removed-poll-gives-hup-and-err",
		       (ret & (POLLHUP | POLLERR)) == (POLLHUP | POLLERR) && !(ret & POLLIN),
		       "poll gave revents %#x", ret);
		n = rd(fd, &v);
		expect("device-removed-read-gives-enodev", n == -ENODEV, "read gave %ld", n);
		expect("device-removed-node-gone", access(dev, F_OK) && errno == ENOENT,
		       "%s still exists", dev);
		close(fd);
	}
	ret = put(bind, "hdp_freefall");
	expect("device-bound-again", !ret && !access(dev, F_OK), "bind: %s",
	       ret ? strerror(-ret) : "no device node");
	return failed;
}

static int try_open(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		puts("ok");
	} else {
		puts(errno == EBUSY ? "EBUSY" : errno == ENOENT ? "ENOENT" :
		     errno == ENODEV ? "ENODEV" : strerror(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "semantics"))
		return semantics(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "open"))
		return try_open(argv[2]);
	fprintf(stderr, "usage: freefall-check semantics DEV FALL DRIVER | open DEV\n");
	return 2;
}
