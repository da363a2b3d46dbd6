// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl's output formatting and number parsing (see format.h): the text
 * and JSON lines of status, park and monitor, as hdpctl(8) describes
 * them, and the lengths and counts of the options.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <hdp.h>

#include "format.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The methods a disk can support, auto aside, in the order printed. */
static const enum hdp_park_method park_methods[] = {
	HDP_PARK_UNLOAD,
	HDP_PARK_STANDBY,
};

/* Not isdigit(): no locale, and no sign extension of a char. */
bool hdpctl_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Seconds as a user types them: "3", "2.5", "0.001". Read by hand rather
 * than with strtod(), so that signs, spaces, hex, exponents and rounding
 * never slip through: the result is exact milliseconds, at least 1 (0
 * would mean "the disk's own timeout" to a park). The upper limit is the
 * kernel's to check and to say (30000 ms today).
 */
int hdpctl_parse_seconds(const char *s, unsigned int *ms)
{
	uint64_t v = 0;
	int decimals = -1;	/* -1 until the dot */

	if (!hdpctl_is_digit(*s))
		return -EINVAL;
	for (; *s; s++) {
		if (*s == '.' && decimals < 0) {
			decimals = 0;
			continue;
		}
		if (!hdpctl_is_digit(*s) || decimals == 3)
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (decimals >= 0)
			decimals++;
		/* v only grows when scaled to ms: stop before it overflows */
		if (v > UINT_MAX)
			return -ERANGE;
	}
	if (decimals == 0)
		return -EINVAL;
	for (decimals = decimals < 0 ? 0 : decimals; decimals < 3; decimals++)
		v *= 10;
	if (v < 1 || v > UINT_MAX)
		return -ERANGE;
	*ms = (unsigned int)v;
	return 0;
}

/* A positive decimal integer, nothing around it. */
int hdpctl_parse_count(const char *s, unsigned long long *n)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!hdpctl_is_digit(*s))
			return -EINVAL;
		if (v > (~0ULL - (*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (*s - '0');
	}
	if (!v)
		return -ERANGE;
	*n = v;
	return 0;
}

/* Print @s as a JSON string: quotes, backslashes, control bytes escaped. */
void hdpctl_json_string(FILE *f, const char *s)
{
	unsigned char c;

	putc('"', f);
	for (; (c = *s); s++) {
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

/* A JSON boolean's literal. */
static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

/* The device supports method @m (a bit of struct hdp_disk's methods). */
static bool supports(unsigned int methods, enum hdp_park_method m)
{
	return methods & (1u << m);
}

/* The methods a device supports besides auto: "(unload standby)". */
static void print_methods_text(FILE *f, unsigned int methods)
{
	const char *sep = "";
	size_t i;

	putc('(', f);
	for (i = 0; i < ARRAY_SIZE(park_methods); i++) {
		if (supports(methods, park_methods[i])) {
			fprintf(f, "%s%s", sep,
				hdp_method_name(park_methods[i]));
			sep = " ";
		}
	}
	if (!*sep)
		fputs("cannot park", f);
	putc(')', f);
}

/* "auto" is offered whenever the device can park at all. */
static void print_methods_json(FILE *f, unsigned int methods)
{
	size_t i;

	putc('[', f);
	if (methods) {
		hdpctl_json_string(f, hdp_method_name(HDP_PARK_AUTO));
		for (i = 0; i < ARRAY_SIZE(park_methods); i++) {
			if (!supports(methods, park_methods[i]))
				continue;
			putc(',', f);
			hdpctl_json_string(f, hdp_method_name(park_methods[i]));
		}
	}
	putc(']', f);
}

/* Nanoseconds as milliseconds, for "%.1f ms". */
static double ns_to_ms(uint64_t ns)
{
	return ns / 1e6;
}

/* A disk's state as one line of text; a gone disk is its name only. */
static void print_disk_text(FILE *f, const struct hdp_disk *d)
{
	fprintf(f, "%s: %s", d->name, hdp_state_name(d->state));
	if (d->state == HDP_DISK_GONE) {
		putc('\n', f);
		return;
	}
	if (d->state == HDP_DISK_PARKED)
		fprintf(f, " %u ms left, %u hold%s", d->remaining_ms, d->holds,
			d->holds == 1 ? "" : "s");
	if (d->cooldown_ms)
		fprintf(f, ", cool-down %u ms left", d->cooldown_ms);
	fprintf(f, ", %s, timeout %u ms, max hold %u ms, method %s ",
		d->enabled ? "enabled" : "disabled", d->timeout_ms,
		d->max_hold_ms, hdp_method_name(d->method));
	print_methods_text(f, d->methods);
	fprintf(f, ", parks %" PRIu64 ", failures %" PRIu64, d->parks,
		d->failures);
	if (d->parks)
		fprintf(f, ", last park %.1f ms", ns_to_ms(d->last_park_ns));
	if (d->last_result)
		fprintf(f, ", last park not confirmed: %s",
			hdp_strerror(d->last_result));
	putc('\n', f);
}

/*
 * The keys of a disk's state, "disk" to "cooldown_ms", without braces:
 * status prints them as an object, monitor after the event's own keys.
 */
static void print_disk_json_keys(FILE *f, const struct hdp_disk *d)
{
	fputs("\"disk\":", f);
	hdpctl_json_string(f, d->name);
	fprintf(f, ",\"devt\":\"%u:%u\",\"state\":", major(d->devt),
		minor(d->devt));
	hdpctl_json_string(f, hdp_state_name(d->state));
	fprintf(f, ",\"enabled\":%s,\"timeout_ms\":%u,\"method\":",
		json_bool(d->enabled), d->timeout_ms);
	hdpctl_json_string(f, hdp_method_name(d->method));
	fputs(",\"methods\":", f);
	print_methods_json(f, d->methods);
	fprintf(f, ",\"remaining_ms\":%u,\"last_method\":", d->remaining_ms);
	hdpctl_json_string(f, hdp_method_name(d->last_method));
	fprintf(f, ",\"last_result\":%d,\"parks\":%" PRIu64 ",\"failures\":%" PRIu64
		",\"last_park_ns\":%" PRIu64 ",\"request_ns\":%" PRIu64
		",\"complete_ns\":%" PRIu64 ",\"deadline_ns\":%" PRIu64
		",\"max_hold_ms\":%u,\"holds\":%u,\"cooldown_ms\":%u",
		d->last_result, d->parks, d->failures, d->last_park_ns,
		d->request_ns, d->complete_ns, d->deadline_ns, d->max_hold_ms,
		d->holds, d->cooldown_ms);
}

/* The requester an event names: "netlink port 4021", "configfs"... */
static void print_holder_text(FILE *f, const struct hdp_monitor_event *ev)
{
	fputs(hdp_holder_name(ev->holder), f);
	if (ev->holder == HDP_HOLDER_NETLINK)
		fprintf(f, " port %u", ev->holder_portid);
}

/* A disk's state as one line: text, or one JSON object. */
void hdpctl_print_disk(FILE *f, const struct hdp_disk *d, bool json)
{
	if (!json) {
		print_disk_text(f, d);
		return;
	}
	putc('{', f);
	print_disk_json_keys(f, d);
	fputs("}\n", f);
}

/* A disk's park as one line; the device's answer time only if confirmed. */
void hdpctl_print_outcome(FILE *f, const struct hdp_outcome *o, bool json)
{
	uint64_t answer_ns = 0;

	if (json) {
		fputs("{\"disk\":", f);
		hdpctl_json_string(f, o->name);
		fprintf(f, ",\"devt\":\"%u:%u\",\"result\":%d,\"method\":",
			major(o->devt), minor(o->devt), o->result);
		hdpctl_json_string(f, hdp_method_name(o->method));
		fprintf(f, ",\"park_ms\":%u,\"deadline_ns\":%" PRIu64
			",\"request_ns\":%" PRIu64 ",\"complete_ns\":%" PRIu64 "}\n",
			o->park_ms, o->deadline_ns, o->request_ns,
			o->complete_ns);
		return;
	}
	if (o->result) {
		fprintf(f, "%s: I/O held for %u ms, but the device did not confirm the park: %s\n",
			o->name, o->park_ms, hdp_strerror(o->result));
		return;
	}
	if (o->complete_ns > o->request_ns)
		answer_ns = o->complete_ns - o->request_ns;
	fprintf(f, "%s: parked for %u ms (%s), device answered in %.1f ms\n",
		o->name, o->park_ms, hdp_method_name(o->method),
		ns_to_ms(answer_ns));
}

/* An event as one line of text: "[seq N] DISK: EVENT (CAUSE)..." */
void hdpctl_print_event_text(FILE *f, const struct hdp_monitor_event *ev)
{
	const struct hdp_disk *d = ev->disk;

	if (ev->type == HDP_EV_LOSS) {
		if (ev->lost)
			fprintf(f, "events lost: %" PRIu64, ev->lost);
		else
			fputs("events lost (socket overrun)", f);
		fputs("; list the disks again: hdpctl status\n", f);
		return;
	}
	if (ev->type == HDP_EV_KERNEL_GONE) {
		fputs("hdprotect is gone (its module is not loaded): no disk is "
		      "protected; waiting for it\n", f);
		return;
	}
	if (ev->type == HDP_EV_KERNEL_BACK) {
		fputs("hdprotect is back; list the disks again: hdpctl status\n", f);
		return;
	}
	fprintf(f, "[seq %" PRIu64 "] %s: %s (%s)", ev->seq, d->name,
		hdp_event_name(ev->type), hdp_cause_name(ev->cause));
	switch (ev->type) {
	case HDP_EV_PARKED:
		fprintf(f, ", %s, %u ms", hdp_method_name(d->last_method),
			ev->park_ms);
		if (ev->holder != HDP_HOLDER_NONE) {
			fputs(", by ", f);
			print_holder_text(f, ev);
		}
		if (ev->renewed)
			fputs(", renewed", f);
		if (ev->result)
			fprintf(f, ", not confirmed: %s",
				hdp_strerror(ev->result));
		break;
	case HDP_EV_UNPARKED:
		if (d->cooldown_ms)
			fprintf(f, ", cool-down %u ms", d->cooldown_ms);
		break;
	case HDP_EV_CHANGED:
		/* A hold ended while others hold the disk parked. */
		if (ev->holder != HDP_HOLDER_NONE) {
			fputs(": hold of ", f);
			print_holder_text(f, ev);
			fprintf(f, " ended, %u hold%s left", d->holds,
				d->holds == 1 ? "" : "s");
			break;
		}
		fprintf(f, ": %s, timeout %u ms, max hold %u ms, method %s",
			d->enabled ? "enabled" : "disabled", d->timeout_ms,
			d->max_hold_ms, hdp_method_name(d->method));
		break;
	default:
		break;
	}
	putc('\n', f);
}

/* The loss object has a shape of its own: it is about no disk. */
void hdpctl_print_event_json(FILE *f, const struct hdp_monitor_event *ev)
{
	if (ev->type == HDP_EV_LOSS) {
		fprintf(f, "{\"event\":\"loss\",\"seq\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n",
			ev->seq, ev->lost);
		return;
	}
	if (ev->type == HDP_EV_KERNEL_GONE || ev->type == HDP_EV_KERNEL_BACK) {
		fprintf(f, "{\"event\":\"%s\"}\n", hdp_event_name(ev->type));
		return;
	}
	fputs("{\"event\":", f);
	hdpctl_json_string(f, hdp_event_name(ev->type));
	fprintf(f, ",\"seq\":%" PRIu64 ",\"cause\":", ev->seq);
	hdpctl_json_string(f, hdp_cause_name(ev->cause));
	fprintf(f, ",\"result\":%d", ev->result);
	if (ev->type == HDP_EV_PARKED)
		fprintf(f, ",\"park_ms\":%u,\"renewed\":%s", ev->park_ms,
			json_bool(ev->renewed));
	if (ev->holder != HDP_HOLDER_NONE) {
		fputs(",\"holder\":", f);
		hdpctl_json_string(f, hdp_holder_name(ev->holder));
		if (ev->holder == HDP_HOLDER_NETLINK)
			fprintf(f, ",\"holder_portid\":%u", ev->holder_portid);
	}
	putc(',', f);
	print_disk_json_keys(f, ev->disk);
	fputs("}\n", f);
}

static void indent(FILE *f, int depth)
{
	putc('\n', f);
	while (depth-- > 0)
		fputs("  ", f);
}

void hdpctl_json_pretty(FILE *f, const char *json)
{
	bool in_string = false, escaped = false;
	int depth = 0;
	const char *p;

	for (p = json; *p; p++) {
		if (in_string) {
			putc(*p, f);
			if (escaped)
				escaped = false;
			else if (*p == '\\')
				escaped = true;
			else if (*p == '"')
				in_string = false;
			continue;
		}
		switch (*p) {
		case '"':
			in_string = true;
			putc(*p, f);
			break;
		case '{':
		case '[':
			putc(*p, f);
			if (p[1] == (*p == '{' ? '}' : ']')) {
				putc(*++p, f);
				break;
			}
			indent(f, ++depth);
			break;
		case '}':
		case ']':
			indent(f, --depth);
			putc(*p, f);
			break;
		case ',':
			putc(',', f);
			indent(f, depth);
			break;
		case ':':
			fputs(": ", f);
			break;
		case ' ':
		case '\n':
		case '\t':
		case '\r':
			break;
		default:
			putc(*p, f);
		}
	}
	putc('\n', f);
}

void hdpctl_timestamp(char *buf, size_t len, uint64_t mono_ns)
{
	struct timespec mono, real;
	int64_t ns;
	time_t sec;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	ns = (int64_t)real.tv_sec * 1000000000 + real.tv_nsec;
	if (mono_ns)
		ns -= (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec - (int64_t)mono_ns;
	sec = (time_t)(ns / 1000000000);
	localtime_r(&sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(buf + n, len - n, ".%06ld", (long)(ns % 1000000000) / 1000);
	if (n < len)
		strftime(buf + n, len - n, "%z", &tm);
}
