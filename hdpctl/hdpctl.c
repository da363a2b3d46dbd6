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

#include "bus.h"
#include "busclient.h"
#include "conf.h"
#include "format.h"
#include "guard.h"

#define EXIT_USAGE	2

#ifndef HDPCTL_VERSION
#define HDPCTL_VERSION	"unknown"
#endif

/* What a length in seconds (S) may be, for usage errors. */
#define SECONDS_RULE	"not a number of seconds, 0.001 or more (at most 3 decimals)"

enum opt_id {
	OPT_JSON,
	OPT_PRETTY,
	OPT_ENABLE,
	OPT_DISABLE,
	OPT_TIMEOUT,
	OPT_METHOD,
	OPT_MAX_HOLD,
	OPT_FOR,
	OPT_COUNT,
	OPT_TIMESTAMP,
	OPT_CONFIG,
	OPT_CHECK,
	OPT_VERBOSE,
	NR_OPTS
};

#define OPT(id)		(1u << (id))

struct opt_desc {
	const char *name;
	char short_name;	/* -x, or 0 */
	bool has_value;
};

static const struct opt_desc opt_descs[NR_OPTS] = {
	[OPT_JSON]	= { "json",	'j', false },
	[OPT_PRETTY]	= { "pretty",	'p', false },
	[OPT_ENABLE]	= { "enable",	0, false },
	[OPT_DISABLE]	= { "disable",	0, false },
	[OPT_TIMEOUT]	= { "timeout",	0, true },
	[OPT_METHOD]	= { "method",	0, true },
	[OPT_MAX_HOLD]	= { "max-hold",	0, true },
	[OPT_FOR]	= { "for",	0, true },
	[OPT_COUNT]	= { "count",	0, true },
	[OPT_TIMESTAMP]	= { "timestamp", 't', false },
	[OPT_CONFIG]	= { "config",	'c', true },
	[OPT_CHECK]	= { "check",	0, false },
	[OPT_VERBOSE]	= { "verbose",	'v', false },
};

/* The options that make output JSON: --json, and --pretty (indented). */
#define OPTS_JSON	(OPT(OPT_JSON) | OPT(OPT_PRETTY))

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
	enum hdp_park_method method;	/* --method */
	unsigned int max_hold_ms;	/* --max-hold */
	unsigned int for_ms;		/* --for */
	unsigned long long count;	/* --count */
	const char *config;		/* --config */
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

/*
 * What helps after an error, into @buf, or "" if nothing does: the
 * hdpctl command for a disk @disk (NULL: a request of every disk) that
 * the command @cmd failed on.
 */
static void hint(char *buf, size_t len, const char *cmd, const char *disk,
		 int err)
{
	buf[0] = '\0';
	switch (err) {
	case -ENOENT:
		if (disk)
			snprintf(buf, len, "hdpctl add %s", disk);
		break;
	case -EPERM:
		if (geteuid())
			snprintf(buf, len, "run it as root");
		else if (!strcmp(cmd, "park"))
			snprintf(buf, len, "hdpctl enable %s", disk ? disk : "DISK");
		break;
	case -ENODEV:
		if (!disk && !strcmp(cmd, "park"))
			snprintf(buf, len, "hdpctl enable DISK");
		break;
	case -EBUSY:
		/* the cool-down: its status says how long it has left */
		if (!strcmp(cmd, "park"))
			snprintf(buf, len, "hdpctl status%s%s", disk ? " " : "",
				 disk ? disk : "");
		break;
	}
}

/*
 * A failed request: the kernel's own words first, when it gave any, as
 * iproute2's "Error: ..."; then the disk (or, with no disk, the command),
 * what the error means, and what helps.
 */
static void report(const struct invocation *inv, const char *what, int err)
{
	const char *kmsg = hdp_kernel_message(inv->ctx);
	const char *disk = strcmp(what, inv->cmd->name) ? what : NULL;
	char h[64];

	hint(h, sizeof(h), inv->cmd->name, disk, err);
	if (kmsg)
		fprintf(stderr, "Error: %s.\n", kmsg);
	fprintf(stderr, "hdpctl: %s: %s", what, hdp_strerror(err));
	if (h[0])
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
	case OPT_MAX_HOLD:
	case OPT_FOR:
		if (hdpctl_parse_seconds(val, id == OPT_FOR ? &inv->for_ms :
					 id == OPT_MAX_HOLD ? &inv->max_hold_ms :
					 &inv->timeout_ms))
			return usage_error(cmd, "--%s '%s': " SECONDS_RULE,
					   name, val);
		return 0;
	case OPT_COUNT:
		if (hdpctl_parse_count(val, &inv->count))
			return usage_error(cmd, "--%s '%s': not a positive whole number",
					   name, val);
		return 0;
	case OPT_CONFIG:
		inv->config = val;
		return 0;
	case OPT_METHOD:
		if (hdp_method_from_name(val, &inv->method))
			return usage_error(cmd, "--%s '%s': not auto, unload or standby",
					   name, val);
		return 0;
	default:
		return 0;
	}
}

/*
 * One "-x" of a command that takes the option whose short name is x; the
 * value of one that takes a value is the next argument, then consumed.
 */
static int parse_short(struct invocation *inv, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	int id;

	for (id = 0; id < NR_OPTS; id++) {
		if (opt_descs[id].short_name && arg[1] == opt_descs[id].short_name &&
		    !arg[2] && (inv->cmd->opts & OPT(id))) {
			if (!opt_descs[id].has_value) {
				inv->given |= OPT(id);
				return 0;
			}
			if (*i + 1 >= argc)
				return usage_error(inv->cmd, "%s needs a value", arg);
			return set_option(inv, id, argv[++*i]);
		}
	}
	return usage_error(inv->cmd, "unknown option '%s'", arg);
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
			err = parse_short(inv, argc, argv, &i);
			if (err)
				return err;
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

/*
 * A command's JSON document: one array of the objects it prints, one
 * object per line ("[]" if none), or indented with --pretty. The objects
 * are gathered in memory, so that an error cannot cut the document.
 */
struct doc {
	FILE *f;		/* the objects, each "{...}\n"; NULL: text */
	char *buf;
	size_t len;
	bool pretty;
};

/* Where a command prints: stdout for text, the document for JSON. */
static FILE *doc_open(struct doc *doc, const struct invocation *inv)
{
	memset(doc, 0, sizeof(*doc));
	if (!(inv->given & OPTS_JSON))
		return stdout;
	doc->pretty = inv->given & OPT(OPT_PRETTY);
	doc->f = open_memstream(&doc->buf, &doc->len);
	if (!doc->f) {
		perror("hdpctl: out of memory");
		exit(EXIT_FAILURE);
	}
	return doc->f;
}

/* The objects of @doc as one array: "{..}\n{..}\n" is "[{..},\n{..}]". */
static void doc_write(struct doc *doc, FILE *out)
{
	char *line = doc->len ? doc->buf : NULL, *nl;

	fputc('[', out);
	while (line && *line) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		fputs(line, out);
		line = nl ? nl + 1 : NULL;
		if (line && *line)
			fputs(",\n", out);
	}
	fputs("]\n", out);
}

/* Print @doc's array on stdout, indented with --pretty, and free it. */
static void doc_print(struct doc *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!doc->f)
		return;
	fclose(doc->f);
	f = doc->pretty ? open_memstream(&text, &len) : stdout;
	if (!f) {
		perror("hdpctl: out of memory");
		exit(EXIT_FAILURE);
	}
	doc_write(doc, f);
	if (doc->pretty) {
		fclose(f);
		hdpctl_json_pretty(stdout, text);
		free(text);
	}
	free(doc->buf);
}

static int status_all(struct invocation *inv)
{
	struct hdp_disk **disks;
	struct doc doc;
	FILE *out;
	size_t i;
	int err;

	err = hdp_list(inv->ctx, &disks, NULL);
	if (err) {
		report(inv, inv->cmd->name, err);
		return EXIT_FAILURE;
	}
	out = doc_open(&doc, inv);
	for (i = 0; disks[i]; i++)
		hdpctl_print_disk(out, disks[i], doc.f);
	hdp_disks_free(disks);
	doc_print(&doc);
	/* The guard's line, when one is on the bus (not in JSON). */
	if (!doc.f)
		guard_print_state(stdout);
	return EXIT_SUCCESS;
}

static int cmd_status(struct invocation *inv)
{
	int i, err, rc = EXIT_SUCCESS;
	struct hdp_disk *d;
	struct doc doc;
	FILE *out;

	if (!inv->argc)
		return status_all(inv);
	out = doc_open(&doc, inv);
	for (i = 0; i < inv->argc; i++) {
		err = hdp_status(inv->ctx, inv->argv[i], &d);
		if (err) {
			report(inv, inv->argv[i], err);
			rc = EXIT_FAILURE;
			continue;
		}
		hdpctl_print_disk(out, d, doc.f);
		hdp_disk_free(d);
	}
	doc_print(&doc);
	return rc;
}

/*
 * The settings the options ask for (--enable, --disable, --timeout,
 * --method, --max-hold).
 */
static struct hdp_settings asked_settings(const struct invocation *inv)
{
	struct hdp_settings s = { .size = sizeof(s) };

	if (inv->given & (OPT(OPT_ENABLE) | OPT(OPT_DISABLE))) {
		s.set |= HDP_SET_ENABLED;
		s.enabled = inv->given & OPT(OPT_ENABLE);
	}
	if (inv->given & OPT(OPT_TIMEOUT)) {
		s.set |= HDP_SET_TIMEOUT;
		s.timeout_ms = inv->timeout_ms;
	}
	if (inv->given & OPT(OPT_METHOD)) {
		s.set |= HDP_SET_METHOD;
		s.method = inv->method;
	}
	if (inv->given & OPT(OPT_MAX_HOLD)) {
		s.set |= HDP_SET_MAX_HOLD;
		s.max_hold_ms = inv->max_hold_ms;
	}
	return s;
}

/*
 * A disk already under protection: fine if it has the settings asked
 * for (a boot script may add it twice), else an error naming each one
 * that differs. Return: the exit status.
 */
static int add_again(struct invocation *inv, const char *disk,
		     const struct hdp_settings *s)
{
	struct hdp_disk *d;
	int err, conflicts = 0;

	err = hdp_status(inv->ctx, disk, &d);
	if (err) {
		report(inv, disk, err);
		return EXIT_FAILURE;
	}
	/*
	 * The item of a disk that went away keeps its name: a disk that came
	 * back under it (a driver bound again) is not protected until the
	 * old item goes.
	 */
	if (d->state == HDP_DISK_GONE) {
		fprintf(stderr, "hdpctl: %s: the item of a disk that went away is still there: remove it (hdpctl remove %s), then add the disk again\n",
			disk, disk);
		hdp_disk_free(d);
		return EXIT_FAILURE;
	}
	if ((s->set & HDP_SET_ENABLED) && d->enabled != s->enabled) {
		fprintf(stderr, "hdpctl: %s: already under protection, but %s\n",
			disk, d->enabled ? "enabled" : "disabled");
		conflicts++;
	}
	if ((s->set & HDP_SET_TIMEOUT) && d->timeout_ms != s->timeout_ms) {
		fprintf(stderr, "hdpctl: %s: already under protection, with a timeout of %u ms, not %u ms\n",
			disk, d->timeout_ms, s->timeout_ms);
		conflicts++;
	}
	if ((s->set & HDP_SET_METHOD) && d->method != s->method) {
		fprintf(stderr, "hdpctl: %s: already under protection, with the method %s, not %s\n",
			disk, hdp_method_name(d->method), hdp_method_name(s->method));
		conflicts++;
	}
	hdp_disk_free(d);
	if (conflicts)
		fprintf(stderr, "hdpctl: %s: change the settings with hdpctl set, or remove it first\n",
			disk);
	return conflicts ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * The settings go in one request after the add, which the kernel applies
 * all or none, enabling last. No rollback if they fail: the disk stays
 * under protection, disabled, and the error names it; "hdpctl remove"
 * undoes the add.
 */
static int cmd_add(struct invocation *inv)
{
	struct hdp_settings s = asked_settings(inv);
	const char *disk = inv->argv[0];
	int err;

	err = hdp_add(inv->ctx, disk);
	if (err == -EEXIST)
		return add_again(inv, disk, &s);
	if (!err && s.set)
		err = hdp_set(inv->ctx, disk, &s);
	if (err) {
		report(inv, disk, err);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The result of a request on one disk, as an exit status. */
static int done(struct invocation *inv, const char *disk, int err)
{
	if (!err)
		return EXIT_SUCCESS;
	report(inv, disk, err);
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

/*
 * "set DISK KEY VALUE" and the options "--enable", "--disable",
 * "--timeout S", "--method M", "--max-hold S", in any mix: one request,
 * which the kernel applies all or none.
 */
static int cmd_set(struct invocation *inv)
{
	const char *disk = inv->argv[0], *key, *val;
	struct hdp_settings s;

	if (inv->argc == 2)
		return usage_error(inv->cmd, "setting '%s' without a value", inv->argv[1]);
	if ((inv->given & OPT(OPT_ENABLE)) && (inv->given & OPT(OPT_DISABLE)))
		return usage_error(inv->cmd, "--enable and --disable together");
	if (inv->argc == 3) {
		key = inv->argv[1];
		val = inv->argv[2];
		if (!strcmp(key, "timeout")) {
			if (inv->given & OPT(OPT_TIMEOUT))
				return usage_error(inv->cmd, "timeout given twice");
			if (set_option(inv, OPT_TIMEOUT, val))
				return EXIT_USAGE;
		} else if (!strcmp(key, "method")) {
			if (inv->given & OPT(OPT_METHOD))
				return usage_error(inv->cmd, "method given twice");
			if (set_option(inv, OPT_METHOD, val))
				return EXIT_USAGE;
		} else if (!strcmp(key, "max-hold")) {
			if (inv->given & OPT(OPT_MAX_HOLD))
				return usage_error(inv->cmd, "max-hold given twice");
			if (set_option(inv, OPT_MAX_HOLD, val))
				return EXIT_USAGE;
		} else {
			return usage_error(inv->cmd,
					   "unknown setting '%s' (timeout, method or max-hold)",
					   key);
		}
	}
	s = asked_settings(inv);
	if (!s.set)
		return usage_error(inv->cmd, "nothing to set");
	return done(inv, disk, hdp_set(inv->ctx, disk, &s));
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
	struct doc doc;
	FILE *f;
	size_t i;
	int err, rc = EXIT_SUCCESS;

	err = hdp_park_disks(inv->ctx, (const char *const *)inv->argv,
			     (size_t)inv->argc, inv->for_ms, &out, NULL);
	if (err) {
		report(inv, inv->argc == 1 ? inv->argv[0] : inv->cmd->name,
		       err);
		return EXIT_FAILURE;
	}
	f = doc_open(&doc, inv);
	for (i = 0; out[i]; i++) {
		hdpctl_print_outcome(f, out[i], doc.f);
		/* I/O is held, but the heads may be over the platters */
		if (out[i]->result)
			rc = EXIT_FAILURE;
	}
	hdp_outcomes_free(out);
	doc_print(&doc);
	return rc;
}

/*
 * The administrator's unpark: every requester's hold ends (the guard's,
 * hdapsd's through unload_heads, another hdpctl's park), not only this
 * process's, which has none.
 */
static int cmd_unpark(struct invocation *inv)
{
	int i, rc = EXIT_SUCCESS;

	if (!inv->argc)
		return done(inv, inv->cmd->name, hdp_unpark_all(inv->ctx, NULL));
	for (i = 0; i < inv->argc; i++) {
		if (done(inv, inv->argv[i], hdp_unpark_all(inv->ctx, inv->argv[i])))
			rc = EXIT_FAILURE;
	}
	return rc;
}

struct monitor {
	bool json;
	bool pretty;			/* --pretty: indented JSON */
	bool timestamp;			/* -t: the time of each event */
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
	char stamp[64], *text = NULL, *joined = NULL;
	const char *obj;
	size_t len = 0;
	FILE *f;

	if (mon->timestamp)
		hdpctl_timestamp(stamp, sizeof(stamp), ev->time_ns);
	if (!mon->json) {
		if (mon->timestamp)
			printf("%s ", stamp);
		hdpctl_print_event_text(stdout, ev);
	} else if (!mon->timestamp && !mon->pretty) {
		hdpctl_print_event_json(stdout, ev);
	} else {
		/* The object, with the time of the change first, maybe indented. */
		f = open_memstream(&text, &len);
		if (!f) {
			mon->failed = mon->stop = true;
			return 1;
		}
		hdpctl_print_event_json(f, ev);
		fclose(f);
		obj = text;
		if (mon->timestamp &&
		    asprintf(&joined, "{\"timestamp\":\"%s\",\"time_ns\":%llu,%s", stamp,
			     (unsigned long long)ev->time_ns, text + 1) > 0)
			obj = joined;
		if (mon->pretty)
			hdpctl_json_pretty(stdout, obj);
		else
			fputs(obj, stdout);
		free(joined);
		free(text);
	}
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
			report(inv, inv->cmd->name, -EBADF);
			return EXIT_FAILURE;
		}
		if (!pfd[0].revents && !pending)
			continue;
		ret = hdp_monitor_dispatch(inv->ctx, on_event, mon);
		if (ret < 0) {
			report(inv, inv->cmd->name, ret);
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
		.json = inv->given & OPTS_JSON,
		.pretty = inv->given & OPT(OPT_PRETTY),
		.timestamp = inv->given & OPT(OPT_TIMESTAMP),
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
		report(inv, inv->cmd->name, fd);
		close(sfd);
		return EXIT_FAILURE;
	}
	rc = monitor_loop(inv, &mon, fd, sfd);
	hdp_monitor_close(inv->ctx);
	close(sfd);
	return rc;
}

static int cmd_guard(struct invocation *inv)
{
	struct guard_opts opts = {
		.config = inv->config ? inv->config : GUARD_CONF_PATH,
		.check = inv->given & OPT(OPT_CHECK),
		.verbose = inv->given & OPT(OPT_VERBOSE),
	};

	fflush(stdout);
	return guard_main(&opts);
}

/*
 * A pause's length: N seconds, or N followed by s, m or h; within the
 * guard's limits (1 s to BUS_PAUSE_MAX_S). Return: seconds, or 0.
 */
static unsigned int parse_pause(const char *arg)
{
	unsigned long v;
	char *end;

	if (*arg < '0' || *arg > '9')
		return 0;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || v > BUS_PAUSE_MAX_S)
		return 0;
	if (*end == 'm' && !end[1])
		v *= 60;
	else if (*end == 'h' && !end[1])
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return 0;
	return v <= BUS_PAUSE_MAX_S ? (unsigned int)v : 0;
}

static int guard_cmd(const char *method, unsigned int seconds, const char *what)
{
	char err[512];
	int r;

	r = guard_call(method, seconds, NULL, err, sizeof(err));
	if (r) {
		fprintf(stderr, "hdpctl: %s\n", err);
		return EXIT_FAILURE;
	}
	if (what)
		printf("%s\n", what);
	return EXIT_SUCCESS;
}

static int cmd_pause(struct invocation *inv)
{
	unsigned int s = 600;
	char what[96];

	if (inv->argc) {
		s = parse_pause(inv->argv[0]);
		if (!s)
			return usage_error(inv->cmd,
					   "'%s': not a length of 1 s to 1 h (N seconds, or Ns, Nm, Nh)",
					   inv->argv[0]);
	}
	snprintf(what, sizeof(what), "paused for %u s at most: no park until then (hdpctl resume ends it)",
		 s);
	return guard_cmd("Pause", s, what);
}

static int cmd_resume(struct invocation *inv)
{
	(void)inv;
	return guard_cmd("Resume", 0, NULL);
}

static int cmd_help(struct invocation *inv);

static const struct cmd cmds[] = {
	{
		.name = "status", .args = "[DISK...] [-j|--json] [-p|--pretty]",
		.opts = OPTS_JSON, .min_args = 0, .max_args = -1,
		.handler = cmd_status,
		.help = "Show the protection state of disks.\n"
			"Without DISK, every disk under protection; one line per disk.\n"
			"  -j, --json    one JSON array, one disk's object per line\n"
			"  -p, --pretty  the same, indented\n",
	},
	{
		.name = "add", .args = "DISK [--timeout S] [--method M] [--enable]",
		.opts = OPT(OPT_TIMEOUT) | OPT(OPT_METHOD) | OPT(OPT_ENABLE),
		.min_args = 1, .max_args = 1,
		.handler = cmd_add,
		.help = "Put a disk under protection.\n"
			"DISK is a name from /sys/block. It starts disabled, with the default\n"
			"timeout (5 s) and method (auto). A disk already under protection with\n"
			"the settings asked for is no error (for boot scripts); one with other\n"
			"settings is.\n"
			"  --timeout S  the length of a park that names none\n"
			"  --method M   auto, unload or standby\n"
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
		.name = "set",
		.args = "DISK [--enable|--disable] [--timeout S] [--method M] [--max-hold S]"
			" | DISK timeout S | DISK method M | DISK max-hold S",
		.opts = OPT(OPT_ENABLE) | OPT(OPT_DISABLE) | OPT(OPT_TIMEOUT) | OPT(OPT_METHOD) |
			OPT(OPT_MAX_HOLD),
		.min_args = 1, .max_args = 3,
		.handler = cmd_set,
		.help = "Change settings of a disk under protection, in one request: all or none.\n"
			"  --enable, --disable  allow parks, or not (a parked disk unparks)\n"
			"  --timeout S, timeout S  the length of a park that names none\n"
			"  --method M, method M    auto: unload if the device can, else standby;\n"
			"                          unload: unload the heads, keep spinning;\n"
			"                          standby: spin down\n"
			"  --max-hold S, max-hold S\n"
			"                          the longest a park lasts, however often it is\n"
			"                          renewed (the kernel allows 1 to 120 s); then\n"
			"                          parks are refused for a cool-down\n",
	},
	{
		.name = "park", .args = "[DISK...] [--for S] [-j|--json] [-p|--pretty]",
		.opts = OPT(OPT_FOR) | OPTS_JSON,
		.min_args = 0, .max_args = -1,
		.handler = cmd_park,
		.help = "Park disks: unload the heads (or spin down) and hold their I/O.\n"
			"The DISKs, or without DISK every enabled disk, park at once. A parked\n"
			"disk's park is renewed: it ends S from now. Waits up to 10 s for the\n"
			"devices' answers, then prints one line per disk parked; exits 1 if a\n"
			"device did not confirm, or had not answered.\n"
			"  --for S       the length of the park (default: each disk's timeout)\n"
			"  -j, --json    one JSON array, one disk's object per line\n"
			"  -p, --pretty  the same, indented\n",
	},
	{
		.name = "unpark", .args = "[DISK...]",
		.min_args = 0, .max_args = -1,
		.handler = cmd_unpark,
		.help = "Unpark disks now: their held I/O runs.\n"
			"Without DISK, every parked disk. Ends every requester's hold of the\n"
			"park, the guard's and hdapsd's included.\n",
	},
	{
		.name = "monitor", .args = "[-j|--json] [-p|--pretty] [-t|--timestamp] [--count N]",
		.opts = OPTS_JSON | OPT(OPT_TIMESTAMP) | OPT(OPT_COUNT),
		.min_args = 0, .max_args = 0,
		.handler = cmd_monitor,
		.help = "Print the kernel's protection events as they happen.\n"
			"One line per event, until interrupted.\n"
			"  -j, --json       one JSON object per line\n"
			"  -p, --pretty     one JSON object per event, indented\n"
			"  -t, --timestamp  the time of each event first (its \"timestamp\"\n"
			"                   and \"time_ns\" in JSON)\n"
			"  --count N        stop after N events (losses included)\n",
	},
	{
		.name = "guard", .args = "[-c|--config FILE] [--check] [-v|--verbose]",
		.opts = OPT(OPT_CONFIG) | OPT(OPT_CHECK) | OPT(OPT_VERBOSE),
		.min_args = 0, .max_args = 0,
		.handler = cmd_guard,
		.help = "Guard the disks: park every protected disk when the machine falls.\n"
			"The daemon: reads the accelerometers, and parks every enabled disk at\n"
			"once on a free fall or a shock, until the motion has been over for the\n"
			"timeout. At the start it adds and enables the disks of its\n"
			"configuration; it logs to stderr (the journal under systemd). Exits 0\n"
			"at once, saying why, on a machine without accelerometer or disk to\n"
			"protect. SIGTERM stops it, SIGHUP reads the configuration again.\n"
			"  -c, --config FILE  the configuration (default " GUARD_CONF_PATH ")\n"
			"  --check            print the sources and disks it would use, and exit\n"
			"  -v, --verbose      log each renewal of a park and each device's answer\n",
	},
	{
		.name = "pause", .args = "[DURATION]",
		.min_args = 0, .max_args = 1,
		.handler = cmd_pause,
		.help = "Pause the guard: no park for DURATION (default 10 minutes).\n"
			"DURATION: N seconds, or Ns, Nm, Nh; 1 s to 1 h. The pause ends by\n"
			"itself; a pause in force is never made shorter. Asks the guard over\n"
			"the system bus; polkit allows it to root and to the user of the active\n"
			"local session (action org.hdprotect.guard.pause).\n",
	},
	{
		.name = "resume", .args = "",
		.min_args = 0, .max_args = 0,
		.handler = cmd_resume,
		.help = "End the guard's pause: it parks again on a fall.\n"
			"The same polkit action as pause.\n",
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

	fputs("Usage: hdpctl [-j|--json] [-p|--pretty] COMMAND [ARGUMENT...] [OPTION...]\n"
	      "       hdpctl -V|--version\n"
	      "Control and watch hard-disk active protection (hdprotect).\n\n"
	      "Commands:\n", stdout);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		fputs("  ", stdout);
		print_synopsis(&cmds[i]);
		printf("\n\t%.*s\n", (int)strcspn(cmds[i].help, "\n"),
		       cmds[i].help);
	}
	fputs("\nOptions go anywhere after the command; -j and -p also before it, for\n"
	      "the commands that print JSON. '--opt=value' and '--opt value' are the\n"
	      "same. S is seconds, from 0.001 (the kernel allows up to 30; for\n"
	      "max-hold, 1 to 120), with up to 3 decimals (5, 0.5, 2.25). Exit\n"
	      "status: 0 success, 1 failure, 2 usage error. 'hdpctl COMMAND --help'\n"
	      "tells more.\n", stdout);
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

/*
 * The options before the command: -j/--json and -p/--pretty for the
 * commands that print JSON (as "ip -j"), -V/--version, -h/--help.
 * Return: the index of the command in argv, or -1 once handled (*rc).
 */
static int global_options(int argc, char **argv, unsigned int *given, int *rc)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			*given |= OPT(OPT_JSON);
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty")) {
			*given |= OPT(OPT_PRETTY);
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("hdpctl %s (libhdp, ABI LIBHDP_1)\n", HDPCTL_VERSION);
			*rc = close_stdout(EXIT_SUCCESS);
			return -1;
		} else if (is_help(argv[i])) {
			print_usage();
			*rc = close_stdout(EXIT_SUCCESS);
			return -1;
		} else {
			*rc = usage_error(NULL, "unknown option '%s'", argv[i]);
			return -1;
		}
	}
	if (i == argc) {
		*rc = usage_error(NULL, "missing command");
		return -1;
	}
	return i;
}

int main(int argc, char **argv)
{
	struct invocation inv = { 0 };
	unsigned int global = 0;
	int err, rc = 0, c;

	c = global_options(argc, argv, &global, &rc);
	if (c < 0)
		return rc;
	inv.cmd = find_cmd(argv[c]);
	if (!inv.cmd)
		return usage_error(NULL, "unknown command '%s'", argv[c]);
	if (wants_help(argc - c - 1, argv + c + 1)) {
		print_cmd_help(inv.cmd);
		return close_stdout(EXIT_SUCCESS);
	}
	rc = parse_args(&inv, argc - c - 1, argv + c + 1);
	if (rc)
		return rc;
	/* -j and -p before the command, for a command that prints JSON */
	inv.given |= global & inv.cmd->opts;

	err = hdp_new(&inv.ctx);
	if (err) {
		fprintf(stderr, "hdpctl: %s\n", hdp_strerror(err));
		return EXIT_FAILURE;
	}
	rc = inv.cmd->handler(&inv);
	hdp_free(inv.ctx);
	return close_stdout(rc);
}
