/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl guard's face on the system bus: the name org.hdprotect.Guard1,
 * one object, one interface (hdpctl/org.hdprotect.Guard1.xml,
 * hdpctl-guard(8), D-BUS INTERFACE).
 *
 * The bus is a thread of its own, at an ordinary priority, and the only
 * thread that touches the connection. The guard's loop never waits for
 * it: it hands over a copy of its state (bus_publish(), a memcpy under a
 * priority-inheriting mutex the bus thread holds for a memcpy too), and
 * takes the callers' authorised commands from a queue under that mutex,
 * told by an eventfd (bus_command()). A slow, stalled or hostile client, a polkitd that
 * takes seconds, a dbus-daemon that stops reading: each waits in the bus
 * thread only.
 */
#ifndef HDPCTL_BUS_H
#define HDPCTL_BUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <hdp.h>

#include "conf.h"

#define BUS_NAME	"org.hdprotect.Guard1"
#define BUS_PATH	"/org/hdprotect/Guard1"
#define BUS_IFACE	"org.hdprotect.Guard1"
#define BUS_ACTION_PAUSE	"org.hdprotect.guard.pause"
#define BUS_ACTION_SENSITIVITY	"org.hdprotect.guard.set-sensitivity"

/* A pause asked for over the bus: 1 s to an hour (hdpctl-guard(8)). */
#define BUS_PAUSE_MAX_S		3600

enum bus_guard_state {
	BUS_NOT_PROTECTING,	/* no disk, no sensor that reads */
	BUS_GUARDING,
	BUS_PARKED,		/* the guard's park is in force */
	BUS_PAUSED,
};

/**
 * struct bus_state - what the interface's properties show
 * @state: the State property; @reason: StateReason
 * @paused_until_us: CLOCK_REALTIME, in µs, of the pause's end, or 0
 * @paused_by: who paused, as the log says it
 * @level: the sensitivity in force
 * @sensors: the sources open: path, name, and "reading", "set aside",
 *	"fault" or "silent"
 * @disks: the disks protected, and whether the kernel said they parked
 * @parks: parks since the guard started (a renewal is none)
 * @last_*: the last park: its CLOCK_REALTIME in µs (0: none yet), the
 *	detector's cause, the source, the disks, and the time from the
 *	sample that called for it to the kernel's park command
 */
struct bus_state {
	enum bus_guard_state state;
	char reason[160];
	uint64_t paused_until_us;
	char paused_by[64];
	enum detect_level level;
	size_t nsensors;
	struct bus_sensor {
		char path[128];
		char name[64];
		char state[16];
	} sensors[GUARD_MAX_SOURCES];
	size_t ndisks;
	struct bus_disk {
		char name[HDP_NAME_MAX + 1];
		bool parked;
	} disks[GUARD_MAX_DISKS];
	uint32_t parks;
	uint64_t last_us;
	char last_cause[32];
	char last_sensor[128];
	char last_disks[256];
	double last_latency_ms;
};

enum bus_cmd_type {
	BUS_CMD_PAUSE = 1,
	BUS_CMD_RESUME,
	BUS_CMD_SENSITIVITY,
};

/**
 * struct bus_command - a caller's command, authorised
 * @type: what to do
 * @seconds: BUS_CMD_PAUSE: how long, 1 to BUS_PAUSE_MAX_S
 * @level: BUS_CMD_SENSITIVITY: the new level
 * @uid: @pid: the caller's (for the log), -1 if the bus did not say
 * @sender: its unique bus name
 */
struct bus_command {
	enum bus_cmd_type type;
	uint32_t seconds;
	enum detect_level level;
	int64_t uid, pid;
	char sender[32];
};

/* Where the bus thread logs: the guard's glog(), safe from any thread. */
typedef void (*bus_log_fn)(void *data, int prio, const char *msg);

struct bus;

/**
 * bus_start() - start the bus thread
 * @busp: the new thread's handle
 * @log: @data: where it logs
 *
 * The thread connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS, or the
 * default socket), asks for BUS_NAME, and connects again every few
 * seconds while there is no bus, or the bus went away.
 *
 * Return: 0, or a negative errno (no thread).
 */
int bus_start(struct bus **busp, bus_log_fn log, void *data);

/* The eventfd that tells the guard of bus_command()s (epoll, EPOLLIN). */
int bus_command_fd(const struct bus *bus);

/**
 * bus_command() - the next command the bus thread has authorised
 * Return: 1 with @cmd, 0 when there is none; never waits. Call it until
 * it returns 0 each time bus_command_fd() is readable.
 */
int bus_command(struct bus *bus, struct bus_command *cmd);

/* The guard's state changed: copied, shown and told (PropertiesChanged). */
void bus_publish(struct bus *bus, const struct bus_state *state);

/*
 * Stop the thread and free (NULL: nothing to do). Return: 0, or
 * -ETIMEDOUT when the thread did not stop within a second: it is left,
 * and logs nothing more.
 */
int bus_stop(struct bus *bus);

const char *bus_state_name(enum bus_guard_state state);

#endif /* HDPCTL_BUS_H */
