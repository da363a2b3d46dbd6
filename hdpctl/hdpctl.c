// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl: control and watch hard-disk active protection (hdprotect).
 *
 * Every command is one entry of the table cmds[]: its name, the
 * synopsis of its arguments, the options it takes, how many positional
 * arguments it wants, its handler and its help. main() finds the entry,
 * parses the options the entry allows and hands the rest to the handler;
 * nothing else knows about argv. All work goes through libhdp; what is
 * printed of disks, parks and events, and how numbers are read, is in
 * format.c.
 *
 * Exit status: 0 success, 1 a request failed (or a park the device did
 * not confirm), 2 a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <hdp.h>

#include "format.h"

#define EXIT_USAGE	2

/* What a length in seconds (S) may be, for usage errors. */
#define SECONDS_RULE	"not a number of seconds, 0.001 or more (at most 3 decimals)"

enum opt_id {
	OPT_JSON,
	OPT_ENABLE,
	OPT_TIMEOUT,
	OPT_FOR,
	OPT_COUNT,
	NR_OPTS
};

#define OPT(id)		(1u << (id))

struct opt_desc {
	const char *name;
	bool has_value;
};

static const struct opt_desc opt_descs[NR_OPTS] = {
	[OPT_JSON]	= { "json",	false },
	[OPT_ENABLE]	= { "enable",	false },
	[OPT_TIMEOUT]	= { "timeout",	true },
	[OPT_FOR]	= { "for",	true },
	[OPT_COUNT]	= { "count",	true },
};

/*
 * One run of a command: its positional arguments (argv, argc, options
 * taken out), the options given (a mask of OPT()) with their values, and
 * the library context.
 */
struct invocation {
	const struct cmd *cmd;
	char **argv;
	int argc;
	unsigned int given;
	unsigned int timeout_ms;	/* --timeout */
	unsigned int for_ms;		/* --for */
	unsigned long long count;	/* --count */
	struct hdp_ctx *ctx;
};

struct cmd {
	const char *name;
	const char *args;
	unsigned int opts;
	int min_args;
	int max_args;		/* -1: no limit */
	int (*handler)(struct invocation *inv);
	const char *help;	/* first line: the summary */
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * A usage error: the command, what is wrong, and where to read how it is
 * done right. @cmd is NULL when no command was recognised.
 */
static int __attribute__((format(printf, 2, 3)))
usage_error(const struct cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("hdpctl: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "\nTry 'hdpctl %s --help'.\n", cmd->name);
	else
		fputs("\nTry 'hdpctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* What hdpctl command helps after an error, or NULL. */
static const char *hint(int err)
{
	switch (err) {
	case -ENOENT:
		return "hdpctl add DISK";
	case -EPERM:
	case -ENODEV:
		return "hdpctl enable DISK";
	default:
		return NULL;
	}
}

/*
 * A failed request: the kernel's own words first, when it gave any, as
 * iproute2's "Error: ..."; then the disk (or, with no disk, the command),
 * what the error means, and the command that helps.
 */
static void report(struct hdp_ctx *ctx, const char *what, int err)
{
	const char *kmsg = hdp_kernel_message(ctx), *h = hint(err);

	if (kmsg)
		fprintf(stderr, "Error: %s.\n", kmsg);
	fprintf(stderr, "hdpctl: %s: %s", what, hdp_strerror(err));
	if (h)
		fprintf(stderr, " (%s)", h);
	fputc('\n', stderr);
}

static int set_option(struct invocation *inv, enum opt_id id, const char *val)
{
	const struct cmd *cmd = inv->cmd;
	const char *name = opt_descs[id].name;

	inv->given |= OPT(id);
	switch (id) {
	case OPT_TIMEOUT:
	case OPT_FOR:
		if (hdpctl_parse_seconds(val, id == OPT_FOR ? &inv->for_ms :
					       &inv->timeout_ms))
			return usage_error(cmd, "--%s '%s': " SECONDS_RULE,
					   name, val);
		return 0;
	case OPT_COUNT:
		if (hdpctl_parse_count(val, &inv->count))
			return usage_error(cmd, "--%s '%s': not a positive whole number",
					   name, val);
		return 0;
	default:
		return 0;
	}
}

/*
 * One "--name" or "--name=value" at argv[*i]; a value may also be the
 * next argument, which is then consumed.
 */
static int parse_option(struct invocation *inv, int argc, char **argv, int *i)
{
	const struct cmd *cmd = inv->cmd;
	const char *arg = argv[*i] + 2;
	const char *val = strchr(arg, '=');
	size_t len = val ? (size_t)(val - arg) : strlen(arg);
	int id;

	for (id = 0; id < NR_OPTS; id++) {
		if ((cmd->opts & OPT(id)) && strlen(opt_descs[id].name) == len &&
		    !strncmp(opt_descs[id].name, arg, len))
			break;
	}
	if (id == NR_OPTS)
		return usage_error(cmd, "unknown option '%.*s'", (int)len + 2,
				   argv[*i]);

	if (!opt_descs[id].has_value) {
		if (val)
			return usage_error(cmd, "--%s takes no value", opt_descs[id].name);
		inv->given |= OPT(id);
		return 0;
	}
	if (val)
		val++;
	else if (*i + 1 < argc)
		val = argv[++*i];
	else
		return usage_error(cmd, "--%s needs a value", opt_descs[id].name);
	return set_option(inv, id, val);
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/* --help anywhere before "--" asks for help, whatever else is there. */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		if (is_help(argv[i]))
			return true;
	}
	return false;
}

/*
 * Take the options out of a command's arguments, wherever they are, and
 * keep the positional ones, in order, at the front of argv. "--" ends
 * the options; a lone "-" and a negative number are positional, so that
 * "set sda timeout -1" is told what is wrong with the number.
 */
static int parse_args(struct invocation *inv, int argc, char **argv)
{
	const struct cmd *cmd = inv->cmd;
	bool options = true;
	int i, err, n = 0;

	for (i = 0; i < argc; i++) {
		if (options && !strcmp(argv[i], "--")) {
			options = false;
		} else if (options && !strncmp(argv[i], "--", 2)) {
			err = parse_option(inv, argc, argv, &i);
			if (err)
				return err;
		} else if (options && argv[i][0] == '-' && argv[i][1] &&
			   !hdpctl_is_digit(argv[i][1])) {
			return usage_error(cmd, "unknown option '%s'", argv[i]);
		} else {
			argv[n++] = argv[i];
		}
	}
	if (n < cmd->min_args)
		return usage_error(cmd, "missing argument");
	if (cmd->max_args >= 0 && n > cmd->max_args)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[cmd->max_args]);
	inv->argv = argv;
	inv->argc = n;
	return 0;
}

static int status_all(struct invocation *inv, bool json)
{
	struct hdp_disk **disks;
	size_t i;
	int err;

	err = hdp_list(inv->ctx, &disks, NULL);
	if (err) {
		report(inv->ctx, inv->cmd->name, err);
		return EXIT_FAILURE;
	}
	for (i = 0; disks[i]; i++)
		hdpctl_print_disk(stdout, disks[i], json);
	hdp_disks_free(disks);
	return EXIT_SUCCESS;
}

static int cmd_status(struct invocation *inv)
{
	bool json = inv->given & OPT(OPT_JSON);
	struct hdp_disk *d;
	int i, err, rc = EXIT_SUCCESS;

	if (!inv->argc)
		return status_all(inv, json);
	for (i = 0; i < inv->argc; i++) {
		err = hdp_status(inv->ctx, inv->argv[i], &d);
		if (err) {
			report(inv->ctx, inv->argv[i], err);
			rc = EXIT_FAILURE;
			continue;
		}
		hdpctl_print_disk(stdout, d, json);
		hdp_disk_free(d);
	}
	return rc;
}

/*
 * No rollback if a setting fails after the add: the disk stays under
 * protection, still disabled since enabling comes last, and the error
 * names it; "hdpctl remove" undoes the add.
 */
static int cmd_add(struct invocation *inv)
{
	const char *disk = inv->argv[0];
	int err;

	err = hdp_add(inv->ctx, disk);
	if (!err && (inv->given & OPT(OPT_TIMEOUT)))
		err = hdp_set_timeout(inv->ctx, disk, inv->timeout_ms);
	/* enable last: the first park already has the timeout asked for */
	if (!err && (inv->given & OPT(OPT_ENABLE)))
		err = hdp_set_enabled(inv->ctx, disk, true);
	if (err) {
		report(inv->ctx, disk, err);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The result of a request on one disk, as an exit status. */
static int done(struct invocation *inv, const char *disk, int err)
{
	if (!err)
		return EXIT_SUCCESS;
	report(inv->ctx, disk, err);
	return EXIT_FAILURE;
}

static int cmd_remove(struct invocation *inv)
{
	return done(inv, inv->argv[0], hdp_remove(inv->ctx, inv->argv[0]));
}

static int cmd_enable(struct invocation *inv)
{
	const char *disk = inv->argv[0];

	return done(inv, disk, hdp_set_enabled(inv->ctx, disk, true));
}

static int cmd_disable(struct invocation *inv)
{
	const char *disk = inv->argv[0];

	return done(inv, disk, hdp_set_enabled(inv->ctx, disk, false));
}

static int cmd_set(struct invocation *inv)
{
	const char *disk = inv->argv[0], *key = inv->argv[1];
	const char *val = inv->argv[2];
	enum hdp_park_method method;
	unsigned int ms;

	if (!strcmp(key, "timeout")) {
		if (hdpctl_parse_seconds(val, &ms))
			return usage_error(inv->cmd, "timeout '%s': " SECONDS_RULE,
					   val);
		return done(inv, disk, hdp_set_timeout(inv->ctx, disk, ms));
	}
	if (!strcmp(key, "method")) {
		if (hdp_method_from_name(val, &method))
			return usage_error(inv->cmd, "method '%s': not auto, unload or standby",
					   val);
		return done(inv, disk, hdp_set_method(inv->ctx, disk, method));
	}
	return usage_error(inv->cmd, "unknown setting '%s' (timeout or method)",
			   key);
}

/*
 * The DISKs, or without DISK every enabled disk, park at once, in one
 * request; the library waits for the devices' answers. A refusal names
 * the one disk asked for, else the command: the kernel's message then
 * names the disk at fault.
 */
static int cmd_park(struct invocation *inv)
{
	struct hdp_outcome **out;
	size_t i;
	int err, rc = EXIT_SUCCESS;

	err = hdp_park_disks(inv->ctx, (const char *const *)inv->argv,
			     (size_t)inv->argc, inv->for_ms, &out, NULL);
	if (err) {
		report(inv->ctx, inv->argc == 1 ? inv->argv[0] : inv->cmd->name,
		       err);
		return EXIT_FAILURE;
	}
	for (i = 0; out[i]; i++) {
		hdpctl_print_outcome(stdout, out[i],
				     inv->given & OPT(OPT_JSON));
		/* I/O is held, but the heads may be over the platters */
		if (out[i]->result)
			rc = EXIT_FAILURE;
	}
	hdp_outcomes_free(out);
	return rc;
}

static int cmd_unpark(struct invocation *inv)
{
	int i, rc = EXIT_SUCCESS;

	if (!inv->argc)
		return done(inv, inv->cmd->name, hdp_unpark(inv->ctx, NULL));
	for (i = 0; i < inv->argc; i++) {
		if (done(inv, inv->argv[i], hdp_unpark(inv->ctx, inv->argv[i])))
			rc = EXIT_FAILURE;
	}
	return rc;
}

struct monitor {
	bool json;
	unsigned long long count;	/* events to print, 0: no end */
	unsigned long long seen;
	bool stop;
	bool failed;			/* stdout broke */
};

/*
 * Each line is flushed at once: whoever reads a pipe wants the event
 * when it happens, not when a buffer fills.
 */
static int on_event(const struct hdp_monitor_event *ev, void *data)
{
	struct monitor *mon = data;

	if (mon->json)
		hdpctl_print_event_json(stdout, ev);
	else
		hdpctl_print_event_text(stdout, ev);
	if (fflush(stdout)) {
		mon->failed = true;
		mon->stop = true;
		return 1;
	}
	if (mon->count && ++mon->seen == mon->count) {
		mon->stop = true;
		return 1;
	}
	return 0;
}

/*
 * SIGINT and SIGTERM are blocked and read from a signalfd polled next to
 * the monitor: the loop ends between two events, cleanly, without a
 * handler or a global flag.
 */
static int open_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC);
}

static int monitor_loop(struct invocation *inv, struct monitor *mon,
			int fd, int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	bool pending;
	int ret;

	while (!mon->stop) {
		/* Events the last dispatch left, or "hdprotect is gone". */
		pending = hdp_monitor_pending(inv->ctx) > 0;
		if (poll(pfd, 2, pending ? 0 : -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("hdpctl: monitor: poll");
			return EXIT_FAILURE;
		}
		if (pfd[1].revents)
			return EXIT_SUCCESS;
		if (pfd[0].revents & POLLNVAL) {
			report(inv->ctx, inv->cmd->name, -EBADF);
			return EXIT_FAILURE;
		}
		if (!pfd[0].revents && !pending)
			continue;
		ret = hdp_monitor_dispatch(inv->ctx, on_event, mon);
		if (ret < 0) {
			report(inv->ctx, inv->cmd->name, ret);
			return EXIT_FAILURE;
		}
	}
	if (mon->failed) {
		perror("hdpctl: monitor: cannot write the output");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

static int cmd_monitor(struct invocation *inv)
{
	struct monitor mon = {
		.json = inv->given & OPT(OPT_JSON),
		.count = inv->given & OPT(OPT_COUNT) ? inv->count : 0,
	};
	int fd, sfd, rc;

	sfd = open_signals();
	if (sfd < 0) {
		perror("hdpctl: monitor: signalfd");
		return EXIT_FAILURE;
	}
	fd = hdp_monitor_open(inv->ctx);
	if (fd < 0) {
		report(inv->ctx, inv->cmd->name, fd);
		close(sfd);
		return EXIT_FAILURE;
	}
	rc = monitor_loop(inv, &mon, fd, sfd);
	hdp_monitor_close(inv->ctx);
	close(sfd);
	return rc;
}

static int cmd_help(struct invocation *inv);

static const struct cmd cmds[] = {
	{
		.name = "status", .args = "[DISK...] [--json]",
		.opts = OPT(OPT_JSON), .min_args = 0, .max_args = -1,
		.handler = cmd_status,
		.help = "Show the protection state of disks.\n"
			"Without DISK, every disk under protection; one line per disk.\n"
			"  --json    one JSON object per line\n",
	},
	{
		.name = "add", .args = "DISK [--timeout S] [--enable]",
		.opts = OPT(OPT_TIMEOUT) | OPT(OPT_ENABLE),
		.min_args = 1, .max_args = 1,
		.handler = cmd_add,
		.help = "Put a disk under protection.\n"
			"DISK is a name from /sys/block. It starts disabled, with the default\n"
			"timeout (5 s) and method (auto).\n"
			"  --timeout S  the length of a park that names none\n"
			"  --enable     enable protection too\n",
	},
	{
		.name = "remove", .args = "DISK",
		.min_args = 1, .max_args = 1,
		.handler = cmd_remove,
		.help = "Take a disk out of protection.\n"
			"A parked disk is unparked first.\n",
	},
	{
		.name = "enable", .args = "DISK",
		.min_args = 1, .max_args = 1,
		.handler = cmd_enable,
		.help = "Enable protection of a disk: allow it to be parked.\n",
	},
	{
		.name = "disable", .args = "DISK",
		.min_args = 1, .max_args = 1,
		.handler = cmd_disable,
		.help = "Disable protection of a disk.\n"
			"A parked disk is unparked now.\n",
	},
	{
		.name = "set", .args = "DISK timeout S | DISK method auto|unload|standby",
		.min_args = 3, .max_args = 3,
		.handler = cmd_set,
		.help = "Change a setting of a disk under protection.\n"
			"  timeout S  the length of a park that names none\n"
			"  method M   auto: unload if the device can, else standby;\n"
			"             unload: unload the heads, keep spinning;\n"
			"             standby: spin down\n",
	},
	{
		.name = "park", .args = "[DISK...] [--for S] [--json]",
		.opts = OPT(OPT_FOR) | OPT(OPT_JSON),
		.min_args = 0, .max_args = -1,
		.handler = cmd_park,
		.help = "Park disks: unload the heads (or spin down) and hold their I/O.\n"
			"The DISKs, or without DISK every enabled disk, park at once. A parked\n"
			"disk's park is renewed: it ends S from now. Waits up to 10 s for the\n"
			"devices' answers, then prints one line per disk parked; exits 1 if a\n"
			"device did not confirm, or had not answered.\n"
			"  --for S   the length of the park (default: each disk's timeout)\n"
			"  --json    one JSON object per line\n",
	},
	{
		.name = "unpark", .args = "[DISK...]",
		.min_args = 0, .max_args = -1,
		.handler = cmd_unpark,
		.help = "Unpark disks now: their held I/O runs.\n"
			"Without DISK, every parked disk.\n",
	},
	{
		.name = "monitor", .args = "[--json] [--count N]",
		.opts = OPT(OPT_JSON) | OPT(OPT_COUNT),
		.min_args = 0, .max_args = 0,
		.handler = cmd_monitor,
		.help = "Print the kernel's protection events as they happen.\n"
			"One line per event, until interrupted.\n"
			"  --json     one JSON object per line\n"
			"  --count N  stop after N events (losses included)\n",
	},
	{
		.name = "help", .args = "[COMMAND]",
		.min_args = 0, .max_args = 1,
		.handler = cmd_help,
		.help = "Show the commands, or the help of one.\n",
	},
};

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	}
	return NULL;
}

static void print_synopsis(const struct cmd *cmd)
{
	printf("hdpctl %s%s%s", cmd->name, *cmd->args ? " " : "", cmd->args);
}

static void print_cmd_help(const struct cmd *cmd)
{
	fputs("Usage: ", stdout);
	print_synopsis(cmd);
	printf("\n\n%s", cmd->help);
}

/* Every command with the first line of its help, as iw does it. */
static void print_usage(void)
{
	size_t i;

	fputs("Usage: hdpctl COMMAND [ARGUMENT...] [OPTION...]\n"
	      "Control and watch hard-disk active protection (hdprotect).\n\n"
	      "Commands:\n", stdout);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		fputs("  ", stdout);
		print_synopsis(&cmds[i]);
		printf("\n\t%.*s\n", (int)strcspn(cmds[i].help, "\n"),
		       cmds[i].help);
	}
	fputs("\nOptions go anywhere after the command; '--opt=value' and\n"
	      "'--opt value' are the same. S is seconds, from 0.001 (the kernel allows up to 30),\n"
	      "with up to 3 decimals (5, 0.5, 2.25). Exit status: 0 success,\n"
	      "1 failure, 2 usage error. 'hdpctl COMMAND --help' tells more.\n", stdout);
}

static int cmd_help(struct invocation *inv)
{
	const struct cmd *cmd;

	if (!inv->argc) {
		print_usage();
		return EXIT_SUCCESS;
	}
	cmd = find_cmd(inv->argv[0]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", inv->argv[0]);
	print_cmd_help(cmd);
	return EXIT_SUCCESS;
}

/* Output is buffered: a write that failed shows only here. */
static int close_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		perror("hdpctl: cannot write the output");
		return EXIT_FAILURE;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct invocation inv = { 0 };
	int err, rc;

	if (argc < 2)
		return usage_error(NULL, "missing command");
	if (is_help(argv[1])) {
		print_usage();
		return close_stdout(EXIT_SUCCESS);
	}
	inv.cmd = find_cmd(argv[1]);
	if (!inv.cmd) {
		if (argv[1][0] == '-')
			return usage_error(NULL, "unknown option '%s' (options go after the command)",
					   argv[1]);
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	}
	if (wants_help(argc - 2, argv + 2)) {
		print_cmd_help(inv.cmd);
		return close_stdout(EXIT_SUCCESS);
	}
	rc = parse_args(&inv, argc - 2, argv + 2);
	if (rc)
		return rc;

	err = hdp_new(&inv.ctx);
	if (err) {
		fprintf(stderr, "hdpctl: %s\n", hdp_strerror(err));
		return EXIT_FAILURE;
	}
	rc = inv.cmd->handler(&inv);
	hdp_free(inv.ctx);
	return close_stdout(rc);
}
