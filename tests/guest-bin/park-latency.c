// SPDX-License-Identifier: GPL-2.0-only
/*
 * park-latency: park and unpark one disk N times, and print the
 * CLOCK_MONOTONIC time in nanoseconds just before each park request, one
 * per line, so that a benchmark can pair it with the moment the command
 * was issued to the device (ftrace, trace_clock mono).
 *
 *   park-latency ATTR PARK UNPARK N [GAP_MS]
 *	write PARK then UNPARK to the file ATTR (configfs park,
 *	unload_heads)
 *   park-latency --netlink DISK MS N [GAP_MS]
 *	send an hdprotect PARK of DISK for MS milliseconds (without
 *	NLM_F_ACK, as the UAPI header advises; its reply ends it), then an
 *	UNPARK, over one socket opened beforehand
 *
 * A failed park (a device refusing it: EIO) is counted, not fatal; the
 * count goes to standard error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/hdprotect.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

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

static void stamp(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

static void pause_ms(long ms)
{
	struct timespec gap = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&gap, NULL);
}

/* Send one request of CMD about DISK (MS: the park's length, 0: none). */
static int request(struct nl_sock *sk, int family, int cmd, const char *disk,
		   unsigned int ms)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 cmd == HDPROTECT_CMD_PARK ? 0 : NLM_F_ACK, cmd,
			 HDPROTECT_GENL_VERSION) ||
	    nla_put_string(msg, HDPROTECT_A_DISK, disk) < 0 ||
	    (ms && nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, ms) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return err;
	/* The reply (PARK) or the ACK; an error comes as an error. */
	err = nl_recvmsgs_default(sk);
	return err < 0 ? err : 0;
}

static int netlink_mode(int argc, char **argv)
{
	long n, i, ms, gap_ms, failed = 0;
	struct nl_sock *sk;
	int family;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: park-latency --netlink DISK MS N [GAP_MS]\n");
		return 2;
	}
	ms = strtol(argv[3], NULL, 10);
	n = strtol(argv[4], NULL, 10);
	gap_ms = argc == 6 ? strtol(argv[5], NULL, 10) : 20;
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0) {
		fprintf(stderr, "park-latency: cannot open a netlink socket\n");
		return 1;
	}
	family = genl_ctrl_resolve(sk, HDPROTECT_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "park-latency: no hdprotect family\n");
		return 1;
	}
	nl_socket_disable_auto_ack(sk);
	for (i = 0; i < n; i++) {
		stamp();
		if (request(sk, family, HDPROTECT_CMD_PARK, argv[2], ms))
			failed++;
		pause_ms(gap_ms);
		request(sk, family, HDPROTECT_CMD_UNPARK, argv[2], 0);
		pause_ms(gap_ms);
	}
	nl_socket_free(sk);
	fprintf(stderr, "park-latency: %ld of %ld park requests failed\n", failed, n);
	return 0;
}

int main(int argc, char **argv)
{
	long n, i, gap_ms, failed = 0;

	if (argc > 1 && !strcmp(argv[1], "--netlink"))
		return netlink_mode(argc, argv);
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: park-latency ATTR PARK UNPARK N [GAP_MS]\n"
			"       park-latency --netlink DISK MS N [GAP_MS]\n");
		return 2;
	}
	n = strtol(argv[4], NULL, 10);
	gap_ms = argc == 6 ? strtol(argv[5], NULL, 10) : 20;
	for (i = 0; i < n; i++) {
		stamp();
		if (put(argv[1], argv[2]))
			failed++;
		pause_ms(gap_ms);
		put(argv[1], argv[3]);
		pause_ms(gap_ms);
	}
	fprintf(stderr, "park-latency: %ld of %ld park writes failed\n", failed, n);
	return 0;
}
