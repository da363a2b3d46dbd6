/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl's output formatting and number parsing: what the tool prints of
 * disks, park outcomes and events, as text or JSON (hdpctl(8), OUTPUT),
 * and how it reads the numbers a user types. Nothing here talks to the
 * kernel; every printer writes to the stream it is given, so that the
 * tests can print into memory (tests/host/hdpctl-format-unit.c).
 */
#ifndef HDPCTL_FORMAT_H
#define HDPCTL_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include <hdp.h>

/* hdpctl_is_digit() - @c is an ASCII decimal digit, whatever the locale. */
bool hdpctl_is_digit(char c);

/**
 * hdpctl_parse_seconds() - a length in seconds, as a user types it
 * @s: "3", "2.5", "0.001": digits, and at most 3 decimals after a dot
 * @ms: where to store it, in milliseconds, 1 or more (the kernel
 *	refuses more than its limit, 30000 ms today, and says so)
 *
 * Signs, spaces, hex, exponents, a dot without digits on both sides and
 * any rounding are refused; @ms is untouched then.
 * Return: 0; -EINVAL if @s is not such a number; -ERANGE if it is out of
 * range.
 */
int hdpctl_parse_seconds(const char *s, unsigned int *ms);

/**
 * hdpctl_parse_count() - a positive decimal integer, nothing around it
 * @s: the text
 * @n: where to store it (untouched on failure)
 *
 * Return: 0; -EINVAL if @s is not digits only; -ERANGE for 0 or a number
 * that does not fit.
 */
int hdpctl_parse_count(const char *s, unsigned long long *n);

/**
 * hdpctl_json_string() - print @s as a JSON string
 * @f: the stream
 * @s: the string
 *
 * Quotes, backslashes and control bytes (DEL included) are escaped; other
 * bytes are copied as they are.
 */
void hdpctl_json_string(FILE *f, const char *s);

/**
 * hdpctl_print_disk() - one line of "hdpctl status": a disk's state
 * @f: the stream
 * @d: the disk
 * @json: one JSON object rather than text
 */
void hdpctl_print_disk(FILE *f, const struct hdp_disk *d, bool json);

/**
 * hdpctl_print_outcome() - one line of "hdpctl park": a disk's park
 * @f: the stream
 * @o: the disk's outcome
 * @json: one JSON object rather than text
 */
void hdpctl_print_outcome(FILE *f, const struct hdp_outcome *o, bool json);

/**
 * hdpctl_print_event_text() - one line of "hdpctl monitor": an event
 * @f: the stream
 * @ev: the event, or a loss
 */
void hdpctl_print_event_text(FILE *f, const struct hdp_monitor_event *ev);

/**
 * hdpctl_print_event_json() - one line of "hdpctl monitor --json"
 * @f: the stream
 * @ev: the event, or a loss
 *
 * An event's own keys (with "holder", and "holder_portid" for a netlink
 * socket, when the event names one), then every key of a disk's status;
 * a loss has a shape of its own: it is about no disk.
 */
void hdpctl_print_event_json(FILE *f, const struct hdp_monitor_event *ev);

/**
 * hdpctl_json_pretty() - print the JSON text @json indented, for people
 * @f: where
 * @json: compact JSON, as the functions above print it
 *
 * Two spaces per level, one member or element per line, a space after
 * each colon; strings are copied as they are; an empty object or array
 * stays "{}" or "[]". Ends with a newline.
 */
void hdpctl_json_pretty(FILE *f, const char *json);

/**
 * hdpctl_timestamp() - a time as "YYYY-MM-DDTHH:MM:SS.uuuuuu+hhmm"
 * @buf: where, at least 40 bytes
 * @len: its size
 * @mono_ns: a CLOCK_MONOTONIC time (an event's), or 0 for now
 *
 * The wall-clock (local) time at which the monotonic clock read @mono_ns.
 */
void hdpctl_timestamp(char *buf, size_t len, uint64_t mono_ns);

#endif /* HDPCTL_FORMAT_H */
