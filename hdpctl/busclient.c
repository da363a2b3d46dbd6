// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl pause|resume, and the guard line of hdpctl status: calls to the
 * guard's interface (hdpctl/org.hdprotect.Guard1.xml) over the system bus.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "bus.h"
#include "busclient.h"

#define PKTTYAGENT	"/usr/bin/pkttyagent"
/* How long a call may wait for the caller to answer the agent. */
#define AGENT_USEC	(120 * 1000000ull)

/*
 * A polkit agent on the terminal for this process, as systemctl starts
 * one: pkttyagent, which tells it is ready by closing the notify fd.
 * Not for root (the guard asks no question), nor without a terminal.
 * Return: its pid, or 0.
 */
static pid_t start_agent(void)
{
	char fd_s[16], pid_s[16], c;
	int fds[2];
	pid_t pid;

	if (!geteuid() || !isatty(STDIN_FILENO) || access(PKTTYAGENT, X_OK) ||
	    pipe2(fds, O_CLOEXEC))
		return 0;
	snprintf(fd_s, sizeof(fd_s), "%d", fds[1]);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
	pid = fork();
	if (pid == 0) {
		fcntl(fds[1], F_SETFD, 0);
		execl(PKTTYAGENT, PKTTYAGENT, "--notify-fd", fd_s, "--fallback", "--process",
		      pid_s, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	return pid > 0 ? pid : 0;
}

static void stop_agent(pid_t pid)
{
	if (!pid)
		return;
	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static bool not_there(const sd_bus_error *e)
{
	return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
				      SD_BUS_ERROR_UNKNOWN_OBJECT);
}

int guard_call(const char *method, unsigned int seconds, const char *level,
	       char *err, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *call = NULL, *reply = NULL;
	sd_bus *bus = NULL;
	pid_t agent;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0) {
		snprintf(err, len, "no system bus (%s): is dbus running?", strerror(-r));
		return -ESRCH;
	}
	/* polkit may ask for a password: on the terminal, if there is one. */
	agent = start_agent();
	r = sd_bus_message_new_method_call(bus, &call, BUS_NAME, BUS_PATH, BUS_IFACE, method);
	if (r >= 0)
		r = sd_bus_message_set_allow_interactive_authorization(call, agent != 0);
	if (r >= 0 && !strcmp(method, "Pause"))
		r = sd_bus_message_append(call, "u", seconds);
	else if (r >= 0 && !strcmp(method, "SetSensitivity"))
		r = sd_bus_message_append(call, "s", level);
	if (r >= 0)
		r = sd_bus_call(bus, call, agent ? AGENT_USEC : 0, &e, &reply);
	stop_agent(agent);
	sd_bus_message_unref(call);
	if (r < 0) {
		if (not_there(&e)) {
			snprintf(err, len,
				 "the guard is not running (no %s on the system bus): start it with 'systemctl start hdprotect-guard'",
				 BUS_NAME);
			r = -ESRCH;
		} else if (sd_bus_error_has_names(&e, SD_BUS_ERROR_ACCESS_DENIED,
						  SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED)) {
			snprintf(err, len, "%s", e.message ? e.message : "refused");
			r = -EACCES;
		} else {
			snprintf(err, len, "%s", e.message ? e.message : strerror(-r));
		}
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return r < 0 ? r : 0;
}

static int get_string(sd_bus *bus, const char *prop, char *buf, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *s = NULL;
	int r;

	r = sd_bus_get_property_string(bus, BUS_NAME, BUS_PATH, BUS_IFACE, prop, &e, &s);
	if (r < 0 && not_there(&e))
		r = -ESRCH;
	sd_bus_error_free(&e);
	if (r >= 0)
		snprintf(buf, len, "%s", s);
	free(s);
	return r;
}

int guard_print_state(FILE *out)
{
	char state[32], reason[256], when[64] = "";
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint64_t until = 0;
	sd_bus *bus = NULL;
	struct tm tm;
	time_t t;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0)
		return -ESRCH;
	r = get_string(bus, "State", state, sizeof(state));
	if (r >= 0)
		r = get_string(bus, "StateReason", reason, sizeof(reason));
	if (r >= 0 && !strcmp(state, "paused")) {
		r = sd_bus_get_property_trivial(bus, BUS_NAME, BUS_PATH, BUS_IFACE, "PausedUntil",
						&e, 't', &until);
		t = (time_t)(until / 1000000);
		if (r >= 0 && until && localtime_r(&t, &tm))
			strftime(when, sizeof(when), " until %H:%M:%S", &tm);
	}
	sd_bus_error_free(&e);
	sd_bus_flush_close_unref(bus);
	if (r < 0)
		return r;
	fprintf(out, "guard: %s%s (%s)\n", state, when, reason);
	return 0;
}
