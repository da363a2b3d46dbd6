// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl guard on the system bus (bus.h): sd-bus, in a thread of its own.
 *
 * Why sd-bus and a thread: the guard is a small C daemon at a real-time
 * priority with its memory locked; sd-bus (libsystemd0, on every Debian
 * system the guard's unit runs on) adds no main loop of its own and no
 * GLib. The thread runs at SCHED_OTHER, so that a flood of calls costs
 * the guard's loop nothing, and it alone touches the connection.
 *
 * Locking: @mu (priority-inheriting) protects @next, @changed, @stop and
 * the queue of commands @cmds; each side holds it for a memcpy, and the
 * wake-ups are eventfds (a pipe's lock would not inherit the guard's
 * priority). @log_mu protects @log: a thread that outlives bus_stop()
 * logs nothing more. Everything else of struct bus is the bus thread's.
 * Nothing here calls a method and waits: the callers' credentials and
 * polkit's answer come asynchronously, and a method that needs them is
 * answered when they come.
 *
 * What a caller can cost: MAX_PENDING calls wait at once, MAX_PER_UID of
 * them per sender and per uid, and MAX_PENDING - RESERVED for polkit in
 * all, so that one user (an agent that never answers, a stream of calls)
 * cannot lock out the others, root included: the slots left turn over in
 * one round trip to the bus daemon. Refusals are logged once per
 * REFUSAL_LOG_MS with the count of those not logged; at most MAX_EVENTS
 * messages are handled between two looks at the guard's state; signals
 * are not queued while the bus daemon reads nothing, and sent once it
 * reads again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "bus.h"

/* Calls waiting for their credentials or for polkit, at most. */
#define MAX_PENDING	16
#define MAX_PER_UID	2
#define RESERVED	4
#define MAX_COMMANDS	16
#define MAX_EVENTS	64
/* Not more PropertiesChanged queued than that for a bus that stopped. */
#define MAX_QUEUED	64
#define REFUSAL_LOG_MS	10000
/* How long a caller may take to answer polkit's agent. */
#define INTERACTIVE_USEC	(120 * 1000000ull)
/* Connect again this often while there is no bus. */
#define RECONNECT_MS	5000

struct pending {
	struct bus *b;
	sd_bus_message *call;	/* the caller's: answered at the end */
	sd_bus_slot *slot;	/* the call in flight for it */
	const char *action;	/* the polkit action */
	bool asking;		/* polkit was asked (@cancel) */
	char cancel[32];	/* its cancellation id */
	struct bus_command cmd;
};

struct bus {
	pthread_t thread;
	pthread_mutex_t mu;
	struct bus_state next;	/* @mu: the guard's last */
	bool changed, stop;	/* @mu */
	struct bus_command cmds[MAX_COMMANDS];	/* @mu: for the guard */
	unsigned int ncmds;	/* @mu */
	int evfd;		/* @changed or @stop: wakes the thread */
	int cmd_evfd;		/* @cmds: wakes the guard */
	pthread_mutex_t log_mu;
	bus_log_fn log;		/* @log_mu; NULL once bus_stop() gave up */
	void *log_data;
	/* the thread's */
	sd_bus *sd;
	bool named;			/* owns BUS_NAME */
	bool drop;			/* to disconnect, after sd_bus_process() */
	int last_err;			/* said last, not to repeat it */
	struct bus_state cur;		/* what the properties show */
	bool have_state;
	struct pending pending[MAX_PENDING];
	unsigned int asked;		/* polkit calls made: cancellation ids */
	uint64_t refusal_ms;		/* a refusal logged last */
	unsigned int refusals;		/* refusals not logged since */
	unsigned int unsent;		/* properties changed, not told yet (bits) */
};

static const char *const level_names[] = {
	[DETECT_LOW] = "low", [DETECT_MEDIUM] = "medium", [DETECT_HIGH] = "high",
};

const char *bus_state_name(enum bus_guard_state state)
{
	switch (state) {
	case BUS_GUARDING:
		return "guarding";
	case BUS_PARKED:
		return "parked";
	case BUS_PAUSED:
		return "paused";
	default:
		return "not-protecting";
	}
}

static void __attribute__((format(printf, 3, 4)))
blog(struct bus *b, int prio, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&b->log_mu);
	if (b->log)
		b->log(b->log_data, prio, msg);
	pthread_mutex_unlock(&b->log_mu);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A device's name is the kernel's bytes (a uinput device names itself):
 * a D-Bus string must be UTF-8, so anything but printable ASCII is '?'.
 */
static void ascii(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

/* ---- properties ---- */

static int get_state(sd_bus *sd, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *data, sd_bus_error *err)
{
	const struct bus *b = data;

	(void)sd, (void)path, (void)iface, (void)err;
	if (!strcmp(prop, "State"))
		return sd_bus_message_append(reply, "s", bus_state_name(b->cur.state));
	if (!strcmp(prop, "StateReason"))
		return sd_bus_message_append(reply, "s", b->cur.reason);
	if (!strcmp(prop, "PausedUntil"))
		return sd_bus_message_append(reply, "t", b->cur.paused_until_us);
	if (!strcmp(prop, "PausedBy"))
		return sd_bus_message_append(reply, "s", b->cur.paused_by);
	if (!strcmp(prop, "Sensitivity"))
		return sd_bus_message_append(reply, "s", level_names[b->cur.level]);
	if (!strcmp(prop, "ParkCount"))
		return sd_bus_message_append(reply, "u", b->cur.parks);
	if (!strcmp(prop, "MaxPause"))
		return sd_bus_message_append(reply, "u", (uint32_t)BUS_PAUSE_MAX_S);
	return -ENOENT;
}

static int get_sensors(sd_bus *sd, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *data, sd_bus_error *err)
{
	const struct bus *b = data;
	size_t i;
	int r;

	(void)sd, (void)path, (void)iface, (void)prop, (void)err;
	r = sd_bus_message_open_container(reply, 'a', "(sss)");
	for (i = 0; r >= 0 && i < b->cur.nsensors; i++)
		r = sd_bus_message_append(reply, "(sss)", b->cur.sensors[i].path,
					  b->cur.sensors[i].name, b->cur.sensors[i].state);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int get_disks(sd_bus *sd, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *data, sd_bus_error *err)
{
	const struct bus *b = data;
	size_t i;
	int r;

	(void)sd, (void)path, (void)iface, (void)prop, (void)err;
	r = sd_bus_message_open_container(reply, 'a', "(ss)");
	for (i = 0; r >= 0 && i < b->cur.ndisks; i++)
		r = sd_bus_message_append(reply, "(ss)", b->cur.disks[i].name,
					  b->cur.disks[i].parked ? "parked" : "active");
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* LastPark: a{sv} with Time, Cause, Sensor, Disks (as), LatencyMs; {} before one. */
static int get_last(sd_bus *sd, const char *path, const char *iface, const char *prop,
		    sd_bus_message *reply, void *data, sd_bus_error *err)
{
	const struct bus *b = data;
	char disks[sizeof(b->cur.last_disks)], *p, *save = NULL;
	int r;

	(void)sd, (void)path, (void)iface, (void)prop, (void)err;
	r = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (r < 0 || !b->cur.last_us)
		return r < 0 ? r : sd_bus_message_close_container(reply);
	r = sd_bus_message_append(reply, "{sv}{sv}{sv}{sv}",
				  "Time", "t", b->cur.last_us,
				  "Cause", "s", b->cur.last_cause,
				  "Sensor", "s", b->cur.last_sensor,
				  "LatencyMs", "d", b->cur.last_latency_ms);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'e', "sv");
	if (r >= 0)
		r = sd_bus_message_append(reply, "s", "Disks");
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'v', "as");
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "s");
	snprintf(disks, sizeof(disks), "%s", b->cur.last_disks);
	for (p = strtok_r(disks, " ", &save); r >= 0 && p; p = strtok_r(NULL, " ", &save))
		r = sd_bus_message_append(reply, "s", p);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* ---- methods: authorised, then handed to the guard ---- */

static void pending_free(struct pending *p)
{
	/* A check still in polkit (an agent's question): withdrawn. */
	if (p->slot && p->asking && p->b && p->b->sd)
		sd_bus_call_method_async(p->b->sd, NULL, "org.freedesktop.PolicyKit1",
					 "/org/freedesktop/PolicyKit1/Authority",
					 "org.freedesktop.PolicyKit1.Authority",
					 "CancelCheckAuthorization", NULL, NULL, "s", p->cancel);
	p->asking = false;
	p->slot = sd_bus_slot_unref(p->slot);
	p->call = sd_bus_message_unref(p->call);
	p->b = NULL;
}

static const char *what(const struct pending *p)
{
	switch (p->cmd.type) {
	case BUS_CMD_PAUSE:
		return "pause disk protection";
	case BUS_CMD_RESUME:
		return "resume disk protection";
	default:
		return "change the guard's sensitivity";
	}
}

/* A refusal, in the log: one per REFUSAL_LOG_MS, the others counted. */
static void log_refusal(struct bus *b, const char *what, const char *sender, long long uid,
			const char *why)
{
	uint64_t now = mono_ms();

	if (b->refusal_ms && now - b->refusal_ms < REFUSAL_LOG_MS) {
		b->refusals++;
		return;
	}
	if (b->refusals)
		blog(b, LOG_INFO, "refused to %s for %s (uid %lld): %s (and %u other calls refused in the last %u s)",
		     what, sender, uid, why, b->refusals, REFUSAL_LOG_MS / 1000);
	else
		blog(b, LOG_INFO, "refused to %s for %s (uid %lld): %s", what, sender, uid, why);
	b->refusal_ms = now;
	b->refusals = 0;
}

/* The end of a call: @err NULL, done; else refused with @name and @err. */
static void finish(struct pending *p, const char *name, const char *err)
{
	struct bus *b = p->b;
	uint64_t one = 1;
	bool queued = false;

	if (!err) {
		pthread_mutex_lock(&b->mu);
		if (b->ncmds < MAX_COMMANDS) {
			b->cmds[b->ncmds++] = p->cmd;
			queued = true;
		}
		pthread_mutex_unlock(&b->mu);
		if (queued && write(b->cmd_evfd, &one, sizeof(one)) < 0)
			(void)0;	/* EAGAIN: the guard has a wake-up already */
		if (!queued) {
			name = SD_BUS_ERROR_LIMITS_EXCEEDED;
			err = "the guard has too many commands waiting: try again";
		}
	}
	if (err) {
		/* Said, but not a flood of lines: the guard's own come first. */
		log_refusal(b, what(p), p->cmd.sender, (long long)p->cmd.uid, err);
		sd_bus_reply_method_errorf(p->call, name, "cannot %s: %s", what(p), err);
	} else {
		sd_bus_reply_method_return(p->call, "");
	}
	pending_free(p);
}

static int on_polkit(sd_bus_message *reply, void *data, sd_bus_error *unused)
{
	struct pending *p = data;
	const sd_bus_error *e;
	int yes = 0, challenge = 0, r;
	char msg[256];

	(void)unused;
	/* The connection went: nothing to answer on, nothing to say. */
	if (!sd_bus_is_open(sd_bus_message_get_bus(reply))) {
		pending_free(p);
		return 0;
	}
	e = sd_bus_message_get_error(reply);
	/* Answered: nothing to withdraw, unless the wait ran out. */
	p->asking = e && sd_bus_error_has_names(e, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT);
	if (e) {
		if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					   SD_BUS_ERROR_NAME_HAS_NO_OWNER))
			snprintf(msg, sizeof(msg), "polkit is not running: only root can, until it runs");
		else
			snprintf(msg, sizeof(msg), "polkit could not check it (%s)",
				 e && e->message ? e->message : "no reason given");
		ascii(msg);	/* (cut anywhere, and polkit's words: ASCII) */
		finish(p, SD_BUS_ERROR_ACCESS_DENIED, msg);
		return 0;
	}
	r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
	if (r >= 0)
		r = sd_bus_message_read(reply, "bb", &yes, &challenge);
	if (r < 0) {
		finish(p, SD_BUS_ERROR_ACCESS_DENIED, "polkit's answer could not be read");
		return 0;
	}
	if (yes) {
		finish(p, NULL, NULL);
		return 0;
	}
	snprintf(msg, sizeof(msg), "not authorised (polkit action %s)%s", p->action,
		 !challenge ? "" :
		 sd_bus_message_get_allow_interactive_authorization(p->call) ?
		 ": the password was not given" :
		 ": it needs an administrator's password, and the call allowed no question (run it as root, or from the desktop)");
	finish(p, challenge && !sd_bus_message_get_allow_interactive_authorization(p->call) ?
	       SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED : SD_BUS_ERROR_ACCESS_DENIED, msg);
	return 0;
}

/* The caller's uid and pid: root is authorised; anyone else asks polkit. */
static int on_creds(sd_bus_message *reply, void *data, sd_bus_error *unused)
{
	struct pending *p = data;
	struct bus *b = p->b;
	sd_bus_message *q = NULL;
	const char *key;
	uint32_t flags, v;
	size_t i, n, all;
	int r;

	(void)unused;
	if (!sd_bus_is_open(sd_bus_message_get_bus(reply))) {
		pending_free(p);
		return 0;
	}
	p->slot = sd_bus_slot_unref(p->slot);
	if (sd_bus_message_is_method_error(reply, NULL)) {
		finish(p, SD_BUS_ERROR_ACCESS_DENIED, "the bus would not say who the caller is");
		return 0;
	}
	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r > 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		r = sd_bus_message_read(reply, "s", &key);
		if (r >= 0 && (!strcmp(key, "UnixUserID") || !strcmp(key, "ProcessID"))) {
			r = sd_bus_message_read(reply, "v", "u", &v);
			if (r >= 0 && key[0] == 'U')
				p->cmd.uid = v;
			else if (r >= 0)
				p->cmd.pid = v;
		} else if (r >= 0) {
			r = sd_bus_message_skip(reply, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
		if (r >= 0)
			r = 1;
	}
	if (r < 0 || p->cmd.uid < 0) {
		finish(p, SD_BUS_ERROR_ACCESS_DENIED, "the bus would not say who the caller is");
		return 0;
	}
	if (p->cmd.uid == 0) {
		finish(p, NULL, NULL);
		return 0;
	}
	for (i = 0, n = 0, all = 0; i < MAX_PENDING; i++) {
		n += b->pending[i].b && b->pending[i].asking && b->pending[i].cmd.uid == p->cmd.uid;
		all += b->pending[i].b && b->pending[i].asking;
	}
	if (all >= MAX_PENDING - RESERVED) {
		finish(p, SD_BUS_ERROR_LIMITS_EXCEEDED, "too many calls wait for polkit: try again");
		return 0;
	}
	if (n >= MAX_PER_UID) {
		finish(p, SD_BUS_ERROR_LIMITS_EXCEEDED,
		       "this user's calls already wait for polkit: answer them first");
		return 0;
	}
	snprintf(p->cancel, sizeof(p->cancel), "hdprotect-%u", ++b->asked);
	flags = sd_bus_message_get_allow_interactive_authorization(p->call) ? 1 : 0;
	r = sd_bus_message_new_method_call(b->sd, &q, "org.freedesktop.PolicyKit1",
					   "/org/freedesktop/PolicyKit1/Authority",
					   "org.freedesktop.PolicyKit1.Authority",
					   "CheckAuthorization");
	if (r >= 0)
		r = sd_bus_message_append(q, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
					  p->cmd.sender, p->action, 0, flags, p->cancel);
	if (r >= 0)
		r = sd_bus_call_async(b->sd, &p->slot, q, on_polkit, p,
				      flags ? INTERACTIVE_USEC : 0);
	sd_bus_message_unref(q);
	p->asking = r >= 0;
	if (r < 0)
		finish(p, SD_BUS_ERROR_ACCESS_DENIED, "polkit could not be asked");
	return 0;
}

/* A method call: its command, to be authorised (on_creds(), on_polkit()). */
static int authorise(struct bus *b, sd_bus_message *m, const struct bus_command *cmd,
		     const char *action, sd_bus_error *err)
{
	struct pending *p = NULL;
	const char *sender = sd_bus_message_get_sender(m);
	size_t i, n;
	int r;

	if (!sender)
		return sd_bus_error_set(err, SD_BUS_ERROR_ACCESS_DENIED, "a call with no sender");
	for (i = 0, n = 0; i < MAX_PENDING; i++) {
		if (!b->pending[i].b)
			p = p ? p : &b->pending[i];
		else
			n += !strcmp(b->pending[i].cmd.sender, sender);
	}
	if (!p || n >= MAX_PER_UID) {
		log_refusal(b, "take a call", sender, -1LL, "too many calls wait");
		return sd_bus_error_set(err, SD_BUS_ERROR_LIMITS_EXCEEDED, n >= MAX_PER_UID ?
					"this connection's calls already wait for authorisation: answer them first" :
					"too many calls wait for authorisation: try again");
	}
	p->cmd = *cmd;
	p->cmd.uid = p->cmd.pid = -1;
	snprintf(p->cmd.sender, sizeof(p->cmd.sender), "%s", sender);
	p->action = action;
	r = sd_bus_call_method_async(b->sd, &p->slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				     "org.freedesktop.DBus", "GetConnectionCredentials",
				     on_creds, p, "s", sender);
	if (r < 0)
		return r;
	p->b = b;
	p->call = sd_bus_message_ref(m);
	return 1;
}

static int method_pause(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct bus_command cmd = { .type = BUS_CMD_PAUSE };
	int r;

	r = sd_bus_message_read(m, "u", &cmd.seconds);
	if (r < 0)
		return r;
	if (cmd.seconds < 1 || cmd.seconds > BUS_PAUSE_MAX_S)
		return sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS,
					 "a pause is 1 to %u seconds, not %u: the guard ends each by itself",
					 BUS_PAUSE_MAX_S, cmd.seconds);
	return authorise(data, m, &cmd, BUS_ACTION_PAUSE, err);
}

static int method_resume(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct bus_command cmd = { .type = BUS_CMD_RESUME };

	return authorise(data, m, &cmd, BUS_ACTION_PAUSE, err);
}

static int method_sensitivity(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct bus_command cmd = { .type = BUS_CMD_SENSITIVITY };
	const char *level;
	size_t i;
	int r;

	r = sd_bus_message_read(m, "s", &level);
	if (r < 0)
		return r;
	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcmp(level, level_names[i]))
			break;
	if (i == sizeof(level_names) / sizeof(level_names[0])) {
		char shown[33];

		snprintf(shown, sizeof(shown), "%s", level);
		ascii(shown);	/* (cut anywhere: no half of a character) */
		return sd_bus_error_setf(err, SD_BUS_ERROR_INVALID_ARGS,
					 "no sensitivity \"%s\": low, medium or high", shown);
	}
	cmd.level = (enum detect_level)i;
	return authorise(data, m, &cmd, BUS_ACTION_SENSITIVITY, err);
}

#define PROP(name, sig, get) \
	SD_BUS_PROPERTY(name, sig, get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

static const sd_bus_vtable vtable[] = {
	SD_BUS_VTABLE_START(0),
	PROP("State", "s", get_state),
	PROP("StateReason", "s", get_state),
	PROP("PausedUntil", "t", get_state),
	PROP("PausedBy", "s", get_state),
	PROP("Sensitivity", "s", get_state),
	PROP("Sensors", "a(sss)", get_sensors),
	PROP("Disks", "a(ss)", get_disks),
	PROP("ParkCount", "u", get_state),
	PROP("LastPark", "a{sv}", get_last),
	SD_BUS_PROPERTY("MaxPause", "u", get_state, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_METHOD_WITH_NAMES("Pause", "u", SD_BUS_PARAM(seconds), "", SD_BUS_PARAM(),
				 method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Resume", "", "", method_resume, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("SetSensitivity", "s", SD_BUS_PARAM(level), "", SD_BUS_PARAM(),
				 method_sensitivity, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

/* ---- the connection ---- */

static void disconnect(struct bus *b)
{
	size_t i;

	for (i = 0; i < MAX_PENDING; i++)
		if (b->pending[i].b)
			pending_free(&b->pending[i]);
	b->sd = sd_bus_close_unref(b->sd);
	b->named = b->drop = false;
	b->unsent = 0;		/* (a client reads them all from the new name) */
}

static int on_name(sd_bus_message *reply, void *data, sd_bus_error *unused)
{
	struct bus *b = data;
	const sd_bus_error *e;
	const char *why = "another guard owns it";
	uint32_t ret = 0;

	(void)unused;
	if (!sd_bus_is_open(sd_bus_message_get_bus(reply)))
		return 0;	/* the connection went: said by the loop */
	if (sd_bus_message_is_method_error(reply, NULL)) {
		e = sd_bus_message_get_error(reply);
		why = e && e->message ? e->message : "refused";
	} else if (sd_bus_message_read(reply, "u", &ret) >= 0 &&
		   (ret == 1 || ret == 4)) {	/* the primary owner, or already */
		b->named = true;
		b->last_err = 0;
		blog(b, LOG_INFO, "on the system bus as %s", BUS_NAME);
		return 0;
	}
	if (b->last_err != -EEXIST)
		blog(b, LOG_WARNING,
		     "cannot own %s on the system bus (%s): is another guard running, or is its bus policy file (/usr/share/dbus-1/system.d/%s.conf) missing? Trying again every %u s",
		     BUS_NAME, why, BUS_NAME, RECONNECT_MS / 1000);
	b->last_err = -EEXIST;
	b->drop = true;
	return 0;
}

static int try_connect(struct bus *b)
{
	int r;

	r = sd_bus_open_system(&b->sd);
	if (r >= 0)
		r = sd_bus_add_object_vtable(b->sd, NULL, BUS_PATH, BUS_IFACE, vtable, b);
	if (r >= 0)
		r = sd_bus_request_name_async(b->sd, NULL, BUS_NAME, 0, on_name, b);
	if (r < 0) {
		if (r != b->last_err)
			blog(b, LOG_INFO, "no system bus (%s): no D-Bus interface until there is one",
			     strerror(-r));
		b->last_err = r;
		disconnect(b);
	}
	return r;
}

static const char *const prop_names[] = {
	"State", "StateReason", "PausedUntil", "PausedBy", "Sensitivity", "Sensors", "Disks",
	"ParkCount", "LastPark",
};

/*
 * The properties changed and not told yet (b->unsent), in one
 * PropertiesChanged: not while the bus daemon reads nothing (its queue
 * would grow in the guard's locked memory), but once it reads again.
 */
static void tell_changes(struct bus *b)
{
	const char *names[sizeof(prop_names) / sizeof(prop_names[0]) + 1];
	uint64_t queued;
	size_t i, n = 0;

	if (!b->unsent || !b->named || sd_bus_get_n_queued_write(b->sd, &queued) < 0 ||
	    queued >= MAX_QUEUED)
		return;
	for (i = 0; i < sizeof(prop_names) / sizeof(prop_names[0]); i++)
		if (b->unsent & (1u << i))
			names[n++] = prop_names[i];
	names[n] = NULL;
	if (sd_bus_emit_properties_changed_strv(b->sd, BUS_PATH, BUS_IFACE, (char **)names) >= 0)
		b->unsent = 0;
}

/* What changed since the last state: to be told (prop_names' order). */
static void note_changes(struct bus *b, const struct bus_state *old)
{
	const struct bus_state *s = &b->cur;
	unsigned int bits = 0;

#define DIFF(field) memcmp(&old->field, &s->field, sizeof(s->field))
	bits |= (unsigned int)!!DIFF(state) << 0;
	bits |= (unsigned int)!!strcmp(old->reason, s->reason) << 1;
	bits |= (unsigned int)!!DIFF(paused_until_us) << 2;
	bits |= (unsigned int)!!strcmp(old->paused_by, s->paused_by) << 3;
	bits |= (unsigned int)!!DIFF(level) << 4;
	bits |= (unsigned int)(DIFF(nsensors) ||
			       memcmp(old->sensors, s->sensors, s->nsensors * sizeof(s->sensors[0]))) << 5;
	bits |= (unsigned int)(DIFF(ndisks) ||
			       memcmp(old->disks, s->disks, s->ndisks * sizeof(s->disks[0]))) << 6;
	bits |= (unsigned int)!!DIFF(parks) << 7;
	bits |= (unsigned int)!!DIFF(last_us) << 8;
#undef DIFF
	b->unsent |= bits;
}

/* The guard's new state, if any: shown from now on, and told. */
static void take_state(struct bus *b)
{
	struct bus_state old = b->cur;
	bool changed;
	size_t i;

	pthread_mutex_lock(&b->mu);
	changed = b->changed;
	if (changed)
		b->cur = b->next;
	b->changed = false;
	pthread_mutex_unlock(&b->mu);
	if (!changed)
		return;
	for (i = 0; i < b->cur.nsensors; i++) {
		ascii(b->cur.sensors[i].path);
		ascii(b->cur.sensors[i].name);
	}
	ascii(b->cur.reason);
	ascii(b->cur.paused_by);
	for (i = 0; i < b->cur.ndisks; i++)
		ascii(b->cur.disks[i].name);
	ascii(b->cur.last_sensor);
	ascii(b->cur.last_cause);
	ascii(b->cur.last_disks);
	if (b->have_state)
		note_changes(b, &old);
	b->have_state = true;
}

static bool stopping(struct bus *b)
{
	bool stop;

	pthread_mutex_lock(&b->mu);
	stop = b->stop;
	pthread_mutex_unlock(&b->mu);
	return stop;
}

static void *bus_thread(void *arg)
{
	struct bus *b = arg;
	uint64_t retry_at = 0, tmo, val, now;
	struct pollfd pfd[2];
	int timeout, r, n = 0;

	while (!stopping(b)) {
		now = mono_ms();
		if (!b->sd && now >= retry_at) {
			retry_at = now + RECONNECT_MS;
			try_connect(b);
		}
		timeout = b->sd ? (n == MAX_EVENTS ? 0 : -1) : (int)(retry_at - now);
		pfd[0] = (struct pollfd){ .fd = b->evfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = -1 };
		if (b->sd) {
			pfd[1].fd = sd_bus_get_fd(b->sd);
			r = sd_bus_get_events(b->sd);
			pfd[1].events = (short)(r > 0 ? r : POLLIN);
			/* (the sooner: a full pass looks again at once) */
			if (timeout && sd_bus_get_timeout(b->sd, &tmo) > 0 && tmo != UINT64_MAX) {
				struct timespec ts;
				uint64_t us;

				clock_gettime(CLOCK_MONOTONIC, &ts);
				us = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
				timeout = tmo <= us ? 0 : (int)((tmo - us + 999) / 1000);
			}
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN) {
			if (read(b->evfd, &val, sizeof(val)) < 0)
				(void)0;
			take_state(b);
		}
		if (b->sd)
			tell_changes(b);
		for (n = 0; b->sd && n < MAX_EVENTS; n++) {
			r = sd_bus_process(b->sd, NULL);
			if (r == 0)
				break;
			if (r < 0 && b->named)
				blog(b, LOG_WARNING, "lost the system bus (%s): connecting again",
				     strerror(-r));
			if (r < 0 || b->drop) {
				disconnect(b);
				retry_at = mono_ms() + RECONNECT_MS;
				if (r < 0)
					b->last_err = r;
			}
		}
	}
	disconnect(b);
	return NULL;
}

/* ---- the guard's side ---- */

int bus_start(struct bus **busp, bus_log_fn log, void *data)
{
	struct sched_param sp = { .sched_priority = 0 };
	pthread_mutexattr_t ma;
	pthread_attr_t attr;
	sigset_t all, was;
	struct bus *b;
	int ret;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->log = log;
	b->log_data = data;
	b->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	b->cmd_evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (b->evfd < 0 || b->cmd_evfd < 0) {
		ret = -errno;
		goto fail;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	ret = -pthread_mutex_init(&b->mu, &ma);
	if (!ret) {
		ret = -pthread_mutex_init(&b->log_mu, &ma);
		if (ret)
			pthread_mutex_destroy(&b->mu);
	}
	pthread_mutexattr_destroy(&ma);
	if (ret)
		goto fail;
	/* An ordinary thread: the guard's real-time priority is not its. */
	ret = -pthread_attr_init(&attr);
	if (ret)
		goto fail_mu;
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	ret = -pthread_create(&b->thread, &attr, bus_thread, b);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	pthread_attr_destroy(&attr);
	if (ret)
		goto fail_mu;
	*busp = b;
	return 0;
fail_mu:
	pthread_mutex_destroy(&b->log_mu);
	pthread_mutex_destroy(&b->mu);
fail:
	if (b->evfd >= 0)
		close(b->evfd);
	if (b->cmd_evfd >= 0)
		close(b->cmd_evfd);
	free(b);
	return ret;
}

int bus_command_fd(const struct bus *bus)
{
	return bus->cmd_evfd;
}

int bus_command(struct bus *bus, struct bus_command *cmd)
{
	uint64_t n;
	int got = 0;

	/* The wake-up first: a command queued after it wakes the guard again. */
	if (read(bus->cmd_evfd, &n, sizeof(n)) < 0)
		(void)0;	/* EAGAIN: none since the last */
	pthread_mutex_lock(&bus->mu);
	if (bus->ncmds) {
		*cmd = bus->cmds[0];
		memmove(bus->cmds, bus->cmds + 1, --bus->ncmds * sizeof(bus->cmds[0]));
		got = 1;
	}
	pthread_mutex_unlock(&bus->mu);
	return got;
}

void bus_publish(struct bus *bus, const struct bus_state *state)
{
	uint64_t one = 1;

	pthread_mutex_lock(&bus->mu);
	bus->next = *state;
	bus->changed = true;
	pthread_mutex_unlock(&bus->mu);
	if (write(bus->evfd, &one, sizeof(one)) < 0)
		(void)0;	/* EAGAIN: the thread has a wake-up already */
}

int bus_stop(struct bus *bus)
{
	uint64_t one = 1;
	struct timespec ts;

	if (!bus)
		return 0;
	pthread_mutex_lock(&bus->mu);
	bus->stop = true;
	pthread_mutex_unlock(&bus->mu);
	if (write(bus->evfd, &one, sizeof(one)) < 0)
		(void)0;
	/*
	 * A thread stuck in the bus library does not keep the guard: it
	 * logs nothing more (the log goes away), and the process exits
	 * with it.
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 1;
	if (pthread_clockjoin_np(bus->thread, NULL, CLOCK_MONOTONIC, &ts)) {
		pthread_mutex_lock(&bus->log_mu);
		bus->log = NULL;
		pthread_mutex_unlock(&bus->log_mu);
		return -ETIMEDOUT;
	}
	pthread_mutex_destroy(&bus->log_mu);
	pthread_mutex_destroy(&bus->mu);
	close(bus->evfd);
	close(bus->cmd_evfd);
	free(bus);
	return 0;
}
