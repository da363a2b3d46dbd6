// SPDX-License-Identifier: GPL-2.0-only
/*
 * bus-unit: the guard's bus thread (hdpctl/bus.c) alone, for
 * tests/host/test-guard-bus: it publishes a guard's state (one disk,
 * one sensor whose name is not UTF-8), prints each command the thread
 * authorised ("cmd pause 5 uid 0"), and shows a pause in its state, as
 * the guard does. Lines on standard input change the state as a fall
 * would: "park" (a park of sda by a free fall on /dev/input/event3),
 * "unpark". Runs for SECONDS, then stops the thread.
 *   bus-unit SECONDS
 * (tests/host/test-guard-bus; tests/host/test-indicator-session, where
 * it stands for the guard.)
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"

static void log_line(void *data, int prio, const char *msg)
{
	(void)data;
	fprintf(stderr, "<%d>%s\n", prio, msg);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static const char *const types[] = { "", "pause", "resume", "sensitivity" };
	struct bus_state st = { .state = BUS_GUARDING, .level = DETECT_MEDIUM };
	struct bus_command c;
	struct bus *bus;
	bool input = true;
	long long end;

	if (argc != 2) {
		fprintf(stderr, "usage: bus-unit SECONDS\n");
		return 2;
	}
	end = now_ms() + atoi(argv[1]) * 1000LL;
	snprintf(st.reason, sizeof(st.reason), "protecting sda");
	st.ndisks = 1;
	snprintf(st.disks[0].name, sizeof(st.disks[0].name), "sda");
	st.nsensors = 1;
	snprintf(st.sensors[0].path, sizeof(st.sensors[0].path), "/dev/input/event3");
	snprintf(st.sensors[0].name, sizeof(st.sensors[0].name), "bad\xff\x01name");
	snprintf(st.sensors[0].state, sizeof(st.sensors[0].state), "reading");
	if (bus_start(&bus, log_line, NULL)) {
		fprintf(stderr, "bus-unit: no thread\n");
		return 1;
	}
	bus_publish(bus, &st);
	while (now_ms() < end) {
		struct pollfd p[2] = {
			{ .fd = bus_command_fd(bus), .events = POLLIN },
			{ .fd = input ? STDIN_FILENO : -1, .events = POLLIN },
		};
		char line[64];
		ssize_t n;

		poll(p, 2, 100);
		n = p[1].revents ? read(STDIN_FILENO, line, sizeof(line) - 1) : -1;
		if (n > 0) {
			line[n] = '\0';
			if (!strncmp(line, "park", 4)) {
				struct timespec ts;

				clock_gettime(CLOCK_REALTIME, &ts);
				st.state = BUS_PARKED;
				st.disks[0].parked = true;
				st.parks++;
				st.last_us = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
				snprintf(st.last_cause, sizeof(st.last_cause), "free fall");
				snprintf(st.last_sensor, sizeof(st.last_sensor), "/dev/input/event3");
				snprintf(st.last_disks, sizeof(st.last_disks), "sda");
				st.last_latency_ms = 12.5;
			} else if (!strncmp(line, "unpark", 6)) {
				st.state = BUS_GUARDING;
				st.disks[0].parked = false;
			}
			bus_publish(bus, &st);
		} else if (n == 0) {
			input = false;	/* (end of input: commands only) */
		}
		while (bus_command(bus, &c) > 0) {
			printf("cmd %s %u uid %lld\n", types[c.type], c.type == BUS_CMD_PAUSE ?
			       c.seconds : (unsigned int)c.level, (long long)c.uid);
			fflush(stdout);
			if (c.type == BUS_CMD_PAUSE) {
				st.state = BUS_PAUSED;
				snprintf(st.paused_by, sizeof(st.paused_by), "by uid %lld", (long long)c.uid);
			} else if (c.type == BUS_CMD_RESUME) {
				st.state = BUS_GUARDING;
				st.paused_by[0] = '\0';
			}
			bus_publish(bus, &st);
		}
	}
	return bus_stop(bus) ? 1 : 0;
}
