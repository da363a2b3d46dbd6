// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of libhdp's decoders, names and error messages, on netlink
 * messages built in memory: well-formed ones, malformed ones, and ones
 * with the attributes or event types of a newer kernel; and of how a
 * park's outcomes take the devices' answers from events and states, and
 * the checks of a park's arguments before anything is sent; and of the
 * requests the library sends, to a socket of this process that stands
 * for the kernel (hdp_requests_raw()). Prints one TAP
 * line per test; exits 1 if any failed. Built and run, under
 * AddressSanitizer and UndefinedBehaviorSanitizer, by tests/host/test-libhdp.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <linux/hdprotect.h>

#include "hdp-internal.h"

#define FAMILY	0x20

static int failed;

static void result(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok - libhdp-%s\n", name);
		return;
	}
	failed = 1;
	printf("not ok - libhdp-%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A message of the family with command @cmd, for attributes to follow. */
static struct nl_msg *msg_new(int cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 1, 1, FAMILY, 0, 0, cmd, HDPROTECT_GENL_VERSION)) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return msg;
}

/* The attributes of one disk, as the kernel sends them, @name first. */
static void put_disk(struct nl_msg *msg, const char *name)
{
	nla_put_string(msg, HDPROTECT_A_DISK, name);
	nla_put_u32(msg, HDPROTECT_A_MAJOR, 8);
	nla_put_u32(msg, HDPROTECT_A_MINOR, 16);
	nla_put_u32(msg, HDPROTECT_A_STATE, HDPROTECT_STATE_PARKED);
	nla_put_u32(msg, HDPROTECT_A_ENABLED, 1);
	nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 5000);
	nla_put_u32(msg, HDPROTECT_A_METHOD, HDPROTECT_METHOD_AUTO);
	nla_put_u32(msg, HDPROTECT_A_METHODS, 7);
	nla_put_u32(msg, HDPROTECT_A_REMAINING_MS, 2940);
	nla_put_u32(msg, HDPROTECT_A_LAST_METHOD, HDPROTECT_METHOD_UNLOAD);
	nla_put_s32(msg, HDPROTECT_A_RESULT, -EIO);
	nla_put_u64(msg, HDPROTECT_A_PARKS, 3);
	nla_put_u64(msg, HDPROTECT_A_FAILURES, 1);
	nla_put_u64(msg, HDPROTECT_A_LAST_PARK_NS, 6300000);
	nla_put_u64(msg, HDPROTECT_A_REQUEST_NS, 1000);
	nla_put_u64(msg, HDPROTECT_A_COMPLETE_NS, 7301000);
	nla_put_u64(msg, HDPROTECT_A_DEADLINE_NS, 5000001000ULL);
	nla_put_u64(msg, HDPROTECT_A_COOKIE, 0x1234567890ULL);
	nla_put_u32(msg, HDPROTECT_A_MAX_HOLD_MS, 45000);
	nla_put_u32(msg, HDPROTECT_A_HOLDS, 2);
	nla_put_u32(msg, HDPROTECT_A_COOLDOWN_MS, 7300);
}

/* Every field of @d as put_disk() put it; "" or what differs. */
static const char *disk_mismatch(const struct hdp_disk *d, const char *name)
{
	if (strcmp(d->name, name))
		return "name";
	if (major(d->devt) != 8 || minor(d->devt) != 16)
		return "devt";
	if (d->state != HDP_DISK_PARKED || !d->enabled)
		return "state or enabled";
	if (d->timeout_ms != 5000 || d->method != HDP_PARK_AUTO || d->methods != 7)
		return "timeout, method or methods";
	if (d->remaining_ms != 2940 || d->last_method != HDP_PARK_UNLOAD)
		return "remaining or last method";
	if (d->last_result != -EIO || d->parks != 3 || d->failures != 1)
		return "result or counters";
	if (d->last_park_ns != 6300000 || d->request_ns != 1000 ||
	    d->complete_ns != 7301000 || d->deadline_ns != 5000001000ULL)
		return "times";
	if (d->cookie != 0x1234567890ULL)
		return "cookie";
	if (d->max_hold_ms != 45000 || d->holds != 2 || d->cooldown_ms != 7300)
		return "max hold, holds or cool-down";
	return "";
}

static void test_disk(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_GET);
	struct hdp_disk d;
	int err;

	put_disk(msg, "sdb");
	err = hdp_decode_disk(nlmsg_hdr(msg), &d);
	result(!err && !*disk_mismatch(&d, "sdb"), "decode-disk-every-field",
	       "err %d, wrong %s", err, err ? "-" : disk_mismatch(&d, "sdb"));
	nlmsg_free(msg);
}

/* Attributes of a newer kernel, top-level and nested, are skipped. */
static void test_disk_unknown_attrs(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_GET);
	struct nlattr *nest;
	struct hdp_disk d;
	int err;

	nla_put_u32(msg, HDPROTECT_A_MAX + 1, 77);
	put_disk(msg, "sdc");
	nla_put_string(msg, HDPROTECT_A_MAX + 9, "a newer kernel's string");
	nest = nla_nest_start(msg, HDPROTECT_A_MAX + 2);
	nla_put_u64(msg, 1, 5);
	nla_nest_end(msg, nest);
	err = hdp_decode_disk(nlmsg_hdr(msg), &d);
	result(!err && !*disk_mismatch(&d, "sdc"), "decode-disk-skips-unknown-attributes",
	       "err %d, wrong %s", err, err ? "-" : disk_mismatch(&d, "sdc"));
	nlmsg_free(msg);
}

/* Only the name is needed: a field the kernel left out reads 0. */
static void test_disk_minimal(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_GET);
	struct hdp_disk d;
	int err;

	nla_put_string(msg, HDPROTECT_A_DISK, "sdd");
	err = hdp_decode_disk(nlmsg_hdr(msg), &d);
	result(!err && !strcmp(d.name, "sdd") && d.state == HDP_DISK_IDLE &&
	       !d.parks && !d.deadline_ns && !d.cookie && !d.max_hold_ms &&
	       !d.holds && !d.cooldown_ms, "decode-disk-name-only",
	       "err %d name '%s'", err, d.name);
	nlmsg_free(msg);
}

/* Each malformed GET reply is refused with -EBADMSG. */
static void test_disk_malformed(void)
{
	static const char long_name[] = "0123456789012345678901234567890123456789";
	struct hdp_disk d;
	struct nl_msg *msg;
	unsigned int i;
	int err;

	for (i = 0; i < 6; i++) {
		const char *what = "";

		msg = msg_new(HDPROTECT_CMD_GET);
		switch (i) {
		case 0:
			what = "no-name";
			nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 5000);
			break;
		case 1:
			what = "name-not-terminated";
			nla_put(msg, HDPROTECT_A_DISK, 3, "sda");
			break;
		case 2:
			what = "name-too-long";
			nla_put_string(msg, HDPROTECT_A_DISK, long_name);
			break;
		case 3:
			what = "empty-name";
			nla_put_string(msg, HDPROTECT_A_DISK, "");
			break;
		case 4:
			what = "u32-attribute-as-u8";
			nla_put_string(msg, HDPROTECT_A_DISK, "sda");
			nla_put_u8(msg, HDPROTECT_A_MAJOR, 1);
			break;
		case 5:
			what = "truncated-before-the-name";
			nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 5000);
			nla_put_string(msg, HDPROTECT_A_DISK, "sda");
			nlmsg_hdr(msg)->nlmsg_len -= 6;
			break;
		}
		err = hdp_decode_disk(nlmsg_hdr(msg), &d);
		{
			char name[64];

			snprintf(name, sizeof(name), "decode-disk-refuses-%s", what);
			result(err == -EBADMSG, name, "got %d, want -EBADMSG", err);
		}
		nlmsg_free(msg);
	}
}

/* A message too short for the generic netlink header. */
static void test_short_header(void)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct hdp_disk d;
	int err;

	nlmsg_put(msg, 1, 1, FAMILY, 2, 0);
	err = hdp_decode_disk(nlmsg_hdr(msg), &d);
	result(err == -EBADMSG, "decode-disk-refuses-a-short-header", "got %d", err);
	nlmsg_free(msg);
}

/* An event of @type, number @seq and @reason about @name, park of 3 s. */
static struct nl_msg *event_msg(int type, uint64_t seq, int reason,
				const char *name)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_EVENT);

	nla_put_u32(msg, HDPROTECT_A_EVENT, type);
	nla_put_u64(msg, HDPROTECT_A_SEQ, seq);
	nla_put_u32(msg, HDPROTECT_A_REASON, reason);
	put_disk(msg, name);
	nla_put_u32(msg, HDPROTECT_A_PARK_MS, 3000);
	return msg;
}

static void test_event_parked(void)
{
	struct nl_msg *msg = event_msg(HDPROTECT_EVENT_PARKED, 41, HDPROTECT_REASON_UNLOAD_HEADS, "sde");
	struct hdp_event_buf eb;
	int err;

	nla_put_flag(msg, HDPROTECT_A_RENEWED);
	nla_put_u64(msg, HDPROTECT_A_EVENT_NS, 7302000);
	nla_put_u32(msg, HDPROTECT_A_MAX + 3, 1);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.time_ns == 7302000 && eb.ev.disk == &eb.disk,
	       "decode-event-time-and-disk", "err %d time %llu", err,
	       (unsigned long long)eb.ev.time_ns);
	result(!err && eb.ev.type == HDP_EV_PARKED && eb.ev.seq == 41 &&
	       eb.ev.cause == HDP_CAUSE_UNLOAD_HEADS && eb.ev.park_ms == 3000 &&
	       eb.ev.renewed && eb.ev.result == -EIO && !*disk_mismatch(eb.ev.disk, "sde"),
	       "decode-event-parked", "err %d type %d seq %llu cause %d park_ms %u renewed %d",
	       err, eb.ev.type, (unsigned long long)eb.ev.seq, eb.ev.cause, eb.ev.park_ms, eb.ev.renewed);
	nlmsg_free(msg);
}

/* Only PARKED carries a park's length; others leave it 0. */
static void test_event_unparked(void)
{
	struct nl_msg *msg = event_msg(HDPROTECT_EVENT_UNPARKED, 42, HDPROTECT_REASON_TIMEOUT, "sde");
	struct hdp_event_buf eb;
	int err;

	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.type == HDP_EV_UNPARKED && eb.ev.cause == HDP_CAUSE_TIMEOUT &&
	       !eb.ev.park_ms && !eb.ev.renewed, "decode-event-unparked",
	       "err %d type %d cause %d park_ms %u", err, eb.ev.type, eb.ev.cause, eb.ev.park_ms);
	nlmsg_free(msg);
}

/* The requester a PARKED event names: a netlink socket, with its port id. */
static void test_event_holder(void)
{
	struct nl_msg *msg = event_msg(HDPROTECT_EVENT_PARKED, 43, HDPROTECT_REASON_REQUEST, "sde");
	struct hdp_event_buf eb;
	int err;

	nla_put_u32(msg, HDPROTECT_A_HOLDER, HDPROTECT_HOLDER_NETLINK);
	nla_put_u32(msg, HDPROTECT_A_HOLDER_PORTID, 4021);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.holder == HDP_HOLDER_NETLINK && eb.ev.holder_portid == 4021 &&
	       !*disk_mismatch(eb.ev.disk, "sde"), "decode-event-holder-netlink-and-port",
	       "err %d holder %d port %u", err, eb.ev.holder, eb.ev.holder_portid);
	nlmsg_free(msg);

	/* a hold that ended while another holds on: CHANGED, configfs's */
	msg = event_msg(HDPROTECT_EVENT_CHANGED, 44, HDPROTECT_REASON_TIMEOUT, "sde");
	nla_put_u32(msg, HDPROTECT_A_HOLDER, HDPROTECT_HOLDER_CONFIGFS);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.type == HDP_EV_CHANGED && eb.ev.holder == HDP_HOLDER_CONFIGFS &&
	       !eb.ev.holder_portid && eb.ev.disk->holds == 2,
	       "decode-event-holder-configfs-in-changed", "err %d holder %d port %u holds %u",
	       err, eb.ev.holder, eb.ev.holder_portid, eb.ev.disk->holds);
	nlmsg_free(msg);

	msg = event_msg(HDPROTECT_EVENT_PARKED, 45, HDPROTECT_REASON_UNLOAD_HEADS, "sde");
	nla_put_u32(msg, HDPROTECT_A_HOLDER, HDPROTECT_HOLDER_UNLOAD_HEADS);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.holder == HDP_HOLDER_UNLOAD_HEADS && !eb.ev.holder_portid,
	       "decode-event-holder-unload-heads", "err %d holder %d", err, eb.ev.holder);
	nlmsg_free(msg);

	/* none named: NONE, although HDP_HOLDER_CONFIGFS is the kernel's 0 */
	msg = event_msg(HDPROTECT_EVENT_PARKED, 46, HDPROTECT_REASON_REQUEST, "sde");
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.holder == HDP_HOLDER_NONE && !eb.ev.holder_portid,
	       "decode-event-without-holder-is-none", "err %d holder %d", err, eb.ev.holder);
	nlmsg_free(msg);

	/* a holder of a newer kernel is none this library names */
	msg = event_msg(HDPROTECT_EVENT_PARKED, 47, HDPROTECT_REASON_REQUEST, "sde");
	nla_put_u32(msg, HDPROTECT_A_HOLDER, HDPROTECT_HOLDER_NETLINK + 1);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.holder != HDP_HOLDER_NONE && eb.ev.holder != HDP_HOLDER_CONFIGFS &&
	       eb.ev.holder != HDP_HOLDER_UNLOAD_HEADS && eb.ev.holder != HDP_HOLDER_NETLINK &&
	       !strcmp(hdp_holder_name(eb.ev.holder), "?"),
	       "decode-event-unknown-holder-is-no-known-one", "err %d holder %d", err, eb.ev.holder);
	nlmsg_free(msg);

	msg = event_msg(HDPROTECT_EVENT_PARKED, 48, HDPROTECT_REASON_REQUEST, "sde");
	nla_put_u8(msg, HDPROTECT_A_HOLDER, HDPROTECT_HOLDER_NETLINK);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(err == -EBADMSG, "decode-event-refuses-a-u8-holder", "got %d", err);
	nlmsg_free(msg);
}

/*
 * The kernel's reasons as causes, error (the driver parked again after
 * error handling) and cap included; a newer kernel's reason is no known
 * cause.
 */
static void test_event_causes(void)
{
	static const struct {
		unsigned int reason;
		enum hdp_cause cause;
		const char *name;
	} causes[] = {
		{ HDPROTECT_REASON_REQUEST, HDP_CAUSE_REQUEST, "request" },
		{ HDPROTECT_REASON_TIMEOUT, HDP_CAUSE_TIMEOUT, "timeout" },
		{ HDPROTECT_REASON_UNLOAD_HEADS, HDP_CAUSE_UNLOAD_HEADS, "unload_heads" },
		{ HDPROTECT_REASON_DISABLE, HDP_CAUSE_DISABLE, "disable" },
		{ HDPROTECT_REASON_REMOVAL, HDP_CAUSE_REMOVAL, "removal" },
		{ HDPROTECT_REASON_ERROR, HDP_CAUSE_ERROR, "error" },
		{ HDPROTECT_REASON_CAP, HDP_CAUSE_CAP, "cap" },
	};
	struct hdp_event_buf eb;
	struct nl_msg *msg;
	char name[64];
	size_t i;
	int err;

	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		msg = event_msg(HDPROTECT_EVENT_UNPARKED, 60 + i, causes[i].reason, "sde");
		err = hdp_decode_event(nlmsg_hdr(msg), &eb);
		snprintf(name, sizeof(name), "decode-event-cause-%s", causes[i].name);
		result(!err && eb.ev.cause == causes[i].cause &&
		       !strcmp(hdp_cause_name(eb.ev.cause), causes[i].name), name,
		       "err %d, reason %u gave cause %d '%s'", err, causes[i].reason,
		       eb.ev.cause, hdp_cause_name(eb.ev.cause));
		nlmsg_free(msg);
	}
	msg = event_msg(HDPROTECT_EVENT_UNPARKED, 70, HDPROTECT_REASON_CAP + 1, "sde");
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && eb.ev.cause != HDP_CAUSE_CAP && eb.ev.cause != HDP_CAUSE_ERROR &&
	       !strcmp(hdp_cause_name(eb.ev.cause), "?"), "decode-event-unknown-reason-is-no-known-cause",
	       "err %d cause %d '%s'", err, eb.ev.cause, hdp_cause_name(eb.ev.cause));
	nlmsg_free(msg);
}

/* An event type of a newer kernel: skipped, but its number counts. */
static void test_event_unknown_type(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_EVENT);
	struct hdp_event_buf eb;
	int err;

	nla_put_u32(msg, HDPROTECT_A_EVENT, HDPROTECT_EVENT_CHANGED + 4);
	nla_put_u64(msg, HDPROTECT_A_SEQ, 99);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(err == 1 && eb.ev.seq == 99, "decode-event-of-unknown-type-is-skipped-with-its-number",
	       "got %d seq %llu", err, (unsigned long long)eb.ev.seq);
	nlmsg_free(msg);
}

static void test_event_malformed(void)
{
	struct hdp_event_buf eb;
	struct nl_msg *msg;
	int err;

	msg = msg_new(HDPROTECT_CMD_EVENT);
	nla_put_u32(msg, HDPROTECT_A_EVENT, HDPROTECT_EVENT_PARKED);
	put_disk(msg, "sdf");
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(err == -EBADMSG, "decode-event-refuses-no-sequence-number", "got %d", err);
	nlmsg_free(msg);

	msg = msg_new(HDPROTECT_CMD_EVENT);
	nla_put_u32(msg, HDPROTECT_A_EVENT, HDPROTECT_EVENT_ADDED);
	nla_put_u64(msg, HDPROTECT_A_SEQ, 1);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(err == -EBADMSG, "decode-event-refuses-no-disk", "got %d", err);
	nlmsg_free(msg);

	msg = msg_new(HDPROTECT_CMD_EVENT);
	nla_put_u32(msg, HDPROTECT_A_EVENT, HDPROTECT_EVENT_ADDED);
	nla_put_u64(msg, HDPROTECT_A_SEQ, 1);
	nla_put_string(msg, HDPROTECT_A_DISK, "sdf");
	nla_put_u32(msg, HDPROTECT_A_SEQ, 2);
	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(err == -EBADMSG, "decode-event-refuses-a-u64-as-u32", "got %d", err);
	nlmsg_free(msg);
}

/* One disk's outcome, as the kernel sends it; @renewed adds the flag. */
static void put_outcome(struct nl_msg *msg, const char *name, int result,
			uint64_t cookie, bool renewed)
{
	struct nlattr *nest = nla_nest_start(msg, HDPROTECT_A_OUTCOME);

	nla_put_string(msg, HDPROTECT_A_DISK, name);
	nla_put_u32(msg, HDPROTECT_A_MAJOR, 8);
	nla_put_u32(msg, HDPROTECT_A_MINOR, 0);
	nla_put_s32(msg, HDPROTECT_A_RESULT, result);
	nla_put_u64(msg, HDPROTECT_A_COOKIE, cookie);
	if (renewed)
		nla_put_flag(msg, HDPROTECT_A_RENEWED);
	nla_put_u32(msg, HDPROTECT_A_LAST_METHOD, HDPROTECT_METHOD_STANDBY);
	nla_put_u32(msg, HDPROTECT_A_PARK_MS, 2500);
	nla_put_u64(msg, HDPROTECT_A_DEADLINE_NS, 9);
	nla_put_u64(msg, HDPROTECT_A_REQUEST_NS, 7);
	nla_put_u64(msg, HDPROTECT_A_COMPLETE_NS, 8);
	nla_put_u16(msg, HDPROTECT_A_MAX + 1, 3);
	nla_nest_end(msg, nest);
}

static void test_outcomes(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_PARK);
	struct hdp_outcome *o = NULL;
	size_t n = 0;
	int err;

	nla_put_u64(msg, HDPROTECT_A_COOKIE, 77);
	put_outcome(msg, "sda", 0, 77, false);
	nla_put_u32(msg, HDPROTECT_A_MAX + 4, 1);
	put_outcome(msg, "sdb", -EIO, 77, false);
	err = hdp_decode_outcomes(nlmsg_hdr(msg), &o, &n);
	result(!err && n == 2 && !strcmp(o[0].name, "sda") && !o[0].result &&
	       !strcmp(o[1].name, "sdb") && o[1].result == -EIO &&
	       o[1].method == HDP_PARK_STANDBY && o[1].park_ms == 2500 &&
	       o[1].deadline_ns == 9 && o[1].request_ns == 7 && o[1].complete_ns == 8 &&
	       major(o[0].devt) == 8, "decode-outcomes-two-disks-and-unknown-attributes",
	       "err %d n %zu", err, n);
	free(o);
	nlmsg_free(msg);

	/* In progress, and a renewal of a park that another request began. */
	msg = msg_new(HDPROTECT_CMD_PARK);
	nla_put_u64(msg, HDPROTECT_A_COOKIE, 78);
	put_outcome(msg, "sda", -EINPROGRESS, 78, false);
	put_outcome(msg, "sdb", -EINPROGRESS, 75, true);
	err = hdp_decode_outcomes(nlmsg_hdr(msg), &o, &n);
	result(!err && n == 2 && o[0].result == -EINPROGRESS && o[0].cookie == 78 &&
	       !o[0].renewed && o[1].result == -EINPROGRESS && o[1].cookie == 75 &&
	       o[1].renewed, "decode-outcomes-cookie-and-renewed",
	       "err %d n %zu cookies %llu %llu renewed %d %d", err, n,
	       n == 2 ? (unsigned long long)o[0].cookie : 0ULL,
	       n == 2 ? (unsigned long long)o[1].cookie : 0ULL,
	       n == 2 && o[0].renewed, n == 2 && o[1].renewed);
	free(o);
	nlmsg_free(msg);

	msg = msg_new(HDPROTECT_CMD_PARK);
	err = hdp_decode_outcomes(nlmsg_hdr(msg), &o, &n);
	result(!err && n == 0 && !o, "decode-outcomes-none", "err %d n %zu", err, n);
	nlmsg_free(msg);

	/* The second outcome lacks its name: nothing is handed over. */
	msg = msg_new(HDPROTECT_CMD_PARK);
	put_outcome(msg, "sda", 0, 1, false);
	{
		struct nlattr *nest = nla_nest_start(msg, HDPROTECT_A_OUTCOME);

		nla_put_s32(msg, HDPROTECT_A_RESULT, 0);
		nla_nest_end(msg, nest);
	}
	o = (struct hdp_outcome *)1;
	err = hdp_decode_outcomes(nlmsg_hdr(msg), &o, &n);
	result(err == -EBADMSG && !o && n == 0, "decode-outcomes-refuses-an-outcome-without-disk",
	       "got %d n %zu", err, n);
	nlmsg_free(msg);

	msg = msg_new(HDPROTECT_CMD_PARK);
	put_outcome(msg, "sda", 0, 1, false);
	nla_put_u32(msg, HDPROTECT_A_COOKIE, 1);
	err = hdp_decode_outcomes(nlmsg_hdr(msg), &o, &n);
	result(err == -EBADMSG && !o, "decode-outcomes-refuses-a-u32-cookie", "got %d", err);
	nlmsg_free(msg);
}

/* A park's outcome still waiting for its device, as the reply gives it. */
static struct hdp_outcome waiting(const char *name, uint64_t cookie)
{
	struct hdp_outcome o = {
		.result = -EINPROGRESS, .method = HDP_PARK_AUTO, .park_ms = 3000,
		.request_ns = 100, .complete_ns = 0, .cookie = cookie,
	};

	snprintf(o.name, sizeof(o.name), "%s", name);
	return o;
}

/* A PARKED event of @name's park @cookie, with the device's @result. */
static void answer(struct hdp_event_buf *eb, const char *name, uint64_t cookie,
		   int result)
{
	memset(eb, 0, sizeof(*eb));
	eb->ev.type = HDP_EV_PARKED;
	eb->ev.result = result;
	eb->ev.park_ms = 3000;
	eb->ev.disk = &eb->disk;
	snprintf(eb->disk.name, sizeof(eb->disk.name), "%s", name);
	eb->disk.cookie = cookie;
	eb->disk.last_result = result;
	eb->disk.last_method = HDP_PARK_UNLOAD;
	eb->disk.complete_ns = 6400;
}

static void test_answers(void)
{
	struct hdp_outcome o[2];
	struct hdp_event_buf eb;
	bool hit;

	o[0] = waiting("sda", 9);
	o[1] = waiting("sdb", 9);
	answer(&eb, "sdb", 9, 0);
	hit = hdp_event_answers(o, 2, &eb.ev);
	result(hit && !o[1].result && o[1].method == HDP_PARK_UNLOAD &&
	       o[1].complete_ns == 6400 && o[1].park_ms == 3000 && o[1].request_ns == 100 &&
	       o[0].result == -EINPROGRESS, "answer-event-fills-its-disks-outcome",
	       "hit %d result %d method %d complete %llu, sda %d", hit, o[1].result,
	       o[1].method, (unsigned long long)o[1].complete_ns, o[0].result);
	answer(&eb, "sdb", 9, -EIO);
	hit = hdp_event_answers(o, 2, &eb.ev);
	result(!hit && !o[1].result, "answer-event-does-not-change-a-final-outcome",
	       "hit %d result %d", hit, o[1].result);
	answer(&eb, "sda", 9, -ECANCELED);
	hit = hdp_event_answers(o, 2, &eb.ev);
	result(hit && o[0].result == -ECANCELED, "answer-event-cancelled-park-is-final",
	       "hit %d result %d", hit, o[0].result);

	o[0] = waiting("sda", 9);
	answer(&eb, "sda", 8, 0);
	result(!hdp_event_answers(o, 1, &eb.ev) && o[0].result == -EINPROGRESS,
	       "answer-event-of-another-park-is-ignored", "result %d", o[0].result);
	answer(&eb, "sdc", 9, 0);
	result(!hdp_event_answers(o, 1, &eb.ev) && o[0].result == -EINPROGRESS,
	       "answer-event-of-another-disk-is-ignored", "result %d", o[0].result);
	answer(&eb, "sda", 9, -EINPROGRESS);
	eb.ev.renewed = true;
	result(!hdp_event_answers(o, 1, &eb.ev) && o[0].result == -EINPROGRESS,
	       "answer-event-renewal-is-no-answer", "result %d", o[0].result);
	answer(&eb, "sda", 9, 0);
	eb.ev.renewed = true;
	result(!hdp_event_answers(o, 1, &eb.ev) && o[0].result == -EINPROGRESS,
	       "answer-event-renewal-with-a-result-is-no-answer", "result %d", o[0].result);
	answer(&eb, "sda", 9, 0);
	eb.ev.type = HDP_EV_UNPARKED;
	result(!hdp_event_answers(o, 1, &eb.ev) && o[0].result == -EINPROGRESS,
	       "answer-event-other-than-parked-is-ignored", "result %d", o[0].result);
	answer(&eb, "sda", 9, 0);
	result(!hdp_event_answers(o, 0, &eb.ev), "answer-event-with-no-outcome", "-");

	/* A renewal waits for the answer of the park it renewed. */
	o[0] = waiting("sda", 5);
	o[0].renewed = true;
	answer(&eb, "sda", 5, -EIO);
	result(hdp_event_answers(o, 1, &eb.ev) && o[0].result == -EIO,
	       "answer-event-answers-a-renewal-by-its-parks-cookie", "result %d", o[0].result);
}

/* Without events, a disk's state answers the outcome of its park. */
static void test_answers_from_state(void)
{
	struct hdp_outcome o = waiting("sda", 9);
	struct hdp_disk d = { .name = "sda", .cookie = 9, .last_result = -EINPROGRESS };

	result(!hdp_outcome_answer(&o, 1, &d) && o.result == -EINPROGRESS,
	       "answer-state-in-progress-is-no-answer", "result %d", o.result);
	d.cookie = 10;
	d.last_result = 0;
	result(!hdp_outcome_answer(&o, 1, &d) && o.result == -EINPROGRESS,
	       "answer-state-of-a-newer-park-is-no-answer", "result %d", o.result);
	d.cookie = 9;
	d.last_result = -EIO;
	d.last_method = HDP_PARK_STANDBY;
	d.complete_ns = 777;
	result(hdp_outcome_answer(&o, 1, &d) && o.result == -EIO &&
	       o.method == HDP_PARK_STANDBY && o.complete_ns == 777,
	       "answer-state-final-result-answers", "result %d method %d", o.result, o.method);
}

/* An event message built in memory, decoded, answers its outcome. */
static void test_answer_message(void)
{
	struct nl_msg *msg = event_msg(HDPROTECT_EVENT_PARKED, 50, HDPROTECT_REASON_REQUEST, "sde");
	struct hdp_outcome o = waiting("sde", 0x1234567890ULL);
	struct hdp_event_buf eb;
	int err;

	err = hdp_decode_event(nlmsg_hdr(msg), &eb);
	result(!err && hdp_event_answers(&o, 1, &eb.ev) && o.result == -EIO &&
	       o.method == HDP_PARK_UNLOAD && o.complete_ns == 7301000,
	       "answer-decoded-event-message", "err %d result %d", err, o.result);
	nlmsg_free(msg);
}

/*
 * hdp_set() honours the caller's size: too small or naming nothing is
 * -EINVAL, unknown members not 0 are -E2BIG, and a larger structure with
 * zeroes past what the library knows goes on to the kernel (which this
 * machine's lacks: -EPROTONOSUPPORT).
 */
static void test_set_settings(void)
{
	struct {
		struct hdp_settings s;
		uint64_t newer;
	} big = { .s = { .size = sizeof(big), .set = HDP_SET_TIMEOUT, .timeout_ms = 5 } };
	struct hdp_settings s = { .size = sizeof(s), .set = HDP_SET_ENABLED };
	struct hdp_ctx *ctx;
	int e1, e2, e3, e4, e5, e6;

	if (hdp_new(&ctx))
		return;
	s.size = offsetof(struct hdp_settings, method);
	e1 = hdp_set(ctx, "sda", &s);
	s.size = sizeof(s);
	s.set = 0;
	e2 = hdp_set(ctx, "sda", &s);
	s.set = 1u << 7;
	e3 = hdp_set(ctx, "sda", &s);
	big.newer = 1;
	e4 = hdp_set(ctx, "sda", &big.s);
	big.newer = 0;
	e5 = hdp_set(ctx, "sda", &big.s);
	e6 = hdp_set(ctx, "sda", NULL);
	result(e1 == -EINVAL && e2 == -EINVAL && e3 == -EINVAL && e4 == -E2BIG &&
	       (e5 == -EPROTONOSUPPORT || e5 == -ENOENT) && e6 == -EINVAL,
	       "set-honours-the-settings-size", "small %d, nothing %d, unknown bit %d, "
	       "newer member %d, newer zero %d, NULL %d", e1, e2, e3, e4, e5, e6);
	hdp_free(ctx);
}

/*
 * A socket of this process that stands for the kernel: a thread takes the
 * one request a context sends it and acknowledges it (NLMSG_ERROR 0), so
 * that the test sees what the library sent.
 */
struct fake_kernel {
	int fd;
	pthread_t thread;
	unsigned char req[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t len;		/* the request's length; -1: none came */
};

static void *fake_kernel_run(void *arg)
{
	struct fake_kernel *fk = arg;
	struct pollfd pfd = { .fd = fk->fd, .events = POLLIN };
	struct sockaddr_nl from;
	socklen_t alen = sizeof(from);
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	const struct nlmsghdr *req = (const struct nlmsghdr *)fk->req;

	fk->len = -1;
	if (poll(&pfd, 1, 5000) != 1)
		return NULL;
	fk->len = recvfrom(fk->fd, fk->req, sizeof(fk->req), 0, (struct sockaddr *)&from, &alen);
	if (fk->len < (ssize_t)NLMSG_HDRLEN)
		return NULL;
	memset(&ack, 0, sizeof(ack));
	ack.h.nlmsg_len = sizeof(ack);
	ack.h.nlmsg_type = NLMSG_ERROR;
	ack.h.nlmsg_flags = NLM_F_CAPPED;
	ack.h.nlmsg_seq = req->nlmsg_seq;
	ack.h.nlmsg_pid = from.nl_pid;
	ack.e.msg = *req;
	sendto(fk->fd, &ack, sizeof(ack), 0, (struct sockaddr *)&from, sizeof(from));
	return NULL;
}

/* A context whose requests go to a fake kernel; NULL if that cannot be. */
static struct hdp_ctx *fake_kernel_ctx(struct fake_kernel *fk, const char *name)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(addr);
	struct hdp_ctx *ctx = NULL;

	fk->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fk->fd < 0 || bind(fk->fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(fk->fd, (struct sockaddr *)&addr, &alen) || hdp_new(&ctx) ||
	    hdp_requests_raw(ctx, FAMILY, addr.nl_pid)) {
		result(0, name, "no netlink socket here");
		hdp_free(ctx);
		if (fk->fd >= 0)
			close(fk->fd);
		return NULL;
	}
	return ctx;
}

static void fake_kernel_start(struct fake_kernel *fk)
{
	if (pthread_create(&fk->thread, NULL, fake_kernel_run, fk)) {
		fprintf(stderr, "pthread_create failed\n");
		exit(2);
	}
}

/*
 * The request the fake kernel took, its command in *@cmd and attributes
 * in @tb; -1 if none came or it is no request of the family.
 */
static int fake_kernel_request(struct fake_kernel *fk, int *cmd, struct nlattr **tb)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)fk->req;

	pthread_join(fk->thread, NULL);
	if (fk->len < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) || nlh->nlmsg_type != FAMILY ||
	    nlh->nlmsg_len > (size_t)fk->len)
		return -1;
	*cmd = ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
	return genlmsg_parse(nlh, 0, tb, HDPROTECT_A_MAX, NULL) < 0 ? -1 : 0;
}

/* The disk a request names, or "" if none. */
static const char *request_disk(struct nlattr **tb)
{
	return tb[HDPROTECT_A_DISK] ? nla_get_string(tb[HDPROTECT_A_DISK]) : "";
}

/* hdp_unpark() ends the context's holds only; hdp_unpark_all() every hold. */
static void test_unpark_requests(void)
{
	static const char *const names[] = {
		"unpark-sends-no-all-flag", "unpark-all-sends-the-all-flag",
		"unpark-every-disk-names-none", "unpark-all-every-disk-names-none",
	};
	struct nlattr *tb[HDPROTECT_A_MAX + 1];
	struct fake_kernel fk;
	struct hdp_ctx *ctx;
	int i, err, cmd, bad;

	ctx = fake_kernel_ctx(&fk, "unpark-requests");
	if (!ctx)
		return;
	for (i = 0; i < 4; i++) {
		const char *disk = i < 2 ? "sda" : NULL;
		bool all = i % 2;

		fake_kernel_start(&fk);
		err = all ? hdp_unpark_all(ctx, disk) : hdp_unpark(ctx, disk);
		bad = fake_kernel_request(&fk, &cmd, tb);
		result(!err && !bad && cmd == HDPROTECT_CMD_UNPARK &&
		       !strcmp(request_disk(tb), disk ? disk : "") &&
		       !!tb[HDPROTECT_A_ALL] == all, names[i],
		       "err %d, request %s, cmd %d, disk '%s', all %d", err,
		       bad ? "none" : "taken", bad ? -1 : cmd, bad ? "-" : request_disk(tb),
		       !bad && tb[HDPROTECT_A_ALL]);
	}
	err = hdp_unpark_all(ctx, "sd/a");
	result(err == -EINVAL, "unpark-all-checks-the-name", "got %d", err);
	hdp_free(ctx);
	close(fk.fd);
}

/*
 * hdp_set() sends HDPROTECT_A_MAX_HOLD_MS for HDP_SET_MAX_HOLD; a caller
 * built before the member (a size that ends before it) never sends it,
 * whatever the memory past its size holds, and cannot ask for it.
 */
static void test_set_max_hold_request(void)
{
	const size_t size_1 = offsetof(struct hdp_settings, method) +
			      sizeof(enum hdp_park_method);
	struct hdp_settings s = {
		.size = sizeof(s), .set = HDP_SET_MAX_HOLD | HDP_SET_TIMEOUT,
		.timeout_ms = 3000, .max_hold_ms = 60000,
	};
	struct nlattr *tb[HDPROTECT_A_MAX + 1];
	struct fake_kernel fk;
	struct hdp_ctx *ctx;
	int err, cmd, bad;

	ctx = fake_kernel_ctx(&fk, "set-max-hold-request");
	if (!ctx)
		return;
	fake_kernel_start(&fk);
	err = hdp_set(ctx, "sda", &s);
	bad = fake_kernel_request(&fk, &cmd, tb);
	result(!err && !bad && cmd == HDPROTECT_CMD_SET && !strcmp(request_disk(tb), "sda") &&
	       tb[HDPROTECT_A_MAX_HOLD_MS] && nla_get_u32(tb[HDPROTECT_A_MAX_HOLD_MS]) == 60000 &&
	       tb[HDPROTECT_A_TIMEOUT_MS] && nla_get_u32(tb[HDPROTECT_A_TIMEOUT_MS]) == 3000 &&
	       !tb[HDPROTECT_A_ENABLED] && !tb[HDPROTECT_A_METHOD],
	       "set-sends-max-hold-ms", "err %d, request %s", err, bad ? "none" : "taken");

	fake_kernel_start(&fk);
	err = hdp_set_max_hold(ctx, "sdb", 90000);
	bad = fake_kernel_request(&fk, &cmd, tb);
	result(!err && !bad && cmd == HDPROTECT_CMD_SET && !strcmp(request_disk(tb), "sdb") &&
	       tb[HDPROTECT_A_MAX_HOLD_MS] && nla_get_u32(tb[HDPROTECT_A_MAX_HOLD_MS]) == 90000 &&
	       !tb[HDPROTECT_A_TIMEOUT_MS], "set-max-hold-sends-max-hold-ms",
	       "err %d, request %s", err, bad ? "none" : "taken");

	/* an older caller's size: max_hold_ms is past it, never read */
	s.size = size_1;
	s.set = HDP_SET_TIMEOUT;
	fake_kernel_start(&fk);
	err = hdp_set(ctx, "sda", &s);
	bad = fake_kernel_request(&fk, &cmd, tb);
	result(!err && !bad && tb[HDPROTECT_A_TIMEOUT_MS] && !tb[HDPROTECT_A_MAX_HOLD_MS],
	       "set-reads-no-max-hold-past-an-older-size", "err %d, request %s, max hold %s",
	       err, bad ? "none" : "taken", !bad && tb[HDPROTECT_A_MAX_HOLD_MS] ? "sent" : "not sent");
	s.set = HDP_SET_TIMEOUT | HDP_SET_MAX_HOLD;
	err = hdp_set(ctx, "sda", &s);
	s.size = offsetof(struct hdp_settings, max_hold_ms) + sizeof(s.max_hold_ms) - 1;
	result(err == -EINVAL && hdp_set(ctx, "sda", &s) == -EINVAL,
	       "set-max-hold-needs-a-size-that-holds-it", "got %d", err);
	hdp_free(ctx);
	close(fk.fd);
}

/* A park's arguments are checked, every disk's name, before anything is sent. */
static void test_park_arguments(void)
{
	static const char *const bad[] = { "sda", "sd/b" };
	static const char *const long_name[] = {
		"sda", "0123456789012345678901234567890123456789",
	};
	struct hdp_outcome **o = (struct hdp_outcome **)1;
	struct hdp_ctx *ctx;
	size_t n = 5;
	int err;

	if (hdp_new(&ctx)) {
		result(0, "park-arguments", "hdp_new failed");
		return;
	}
	err = hdp_park_disks(ctx, bad, 2, 0, &o, &n);
	result(err == -EINVAL && !o && !n, "park-disks-checks-every-name-first",
	       "got %d n %zu", err, n);
	err = hdp_park_disks(ctx, long_name, 2, 0, NULL, NULL);
	result(err == -ENAMETOOLONG, "park-disks-refuses-a-long-name", "got %d", err);
	err = hdp_park(ctx, "", 0, NULL, NULL);
	result(err == -EINVAL, "park-refuses-an-empty-name", "got %d", err);
	result(!hdp_set_park_wait(ctx, 0) && !hdp_set_park_wait(ctx, 10000),
	       "set-park-wait-takes-any-length", "-");
	hdp_free(ctx);
}

/* An NLMSG_ERROR with an extended ACK message, echoed request or capped. */
static void test_extack(void)
{
	static const char text[] = "disk not under protection";
	char buf[256];
	unsigned int capped;
	uint32_t attr_off;

	for (capped = 0; capped < 2; capped++) {
		struct nl_msg *msg = nlmsg_alloc();
		struct nlmsghdr *nlh;
		struct nlmsgerr e = { .error = -ENOENT };
		size_t off = sizeof(e);
		char name[64];

		nlh = nlmsg_put(msg, 1, 1, NLMSG_ERROR, 0,
				NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0));
		e.msg.nlmsg_len = capped ? NLMSG_HDRLEN : NLMSG_HDRLEN + 8;
		nlmsg_append(msg, &e, sizeof(e), 0);
		if (!capped) {
			nlmsg_append(msg, "echoecho", 8, 0);
			off += 8;
		}
		nla_put_u32(msg, NLMSGERR_ATTR_OFFS, 20);
		nla_put_string(msg, NLMSGERR_ATTR_MSG, text);
		nlh = nlmsg_hdr(msg);
		hdp_extack_message(nlh, off, buf, sizeof(buf), &attr_off);
		snprintf(name, sizeof(name), "extack-message-%s", capped ? "capped" : "after-echo");
		result(!strcmp(buf, text) && attr_off == 20, name, "got '%s' offset %u",
		       buf, attr_off);
		nlmsg_free(msg);
	}
	{
		struct nl_msg *msg = nlmsg_alloc();
		struct nlmsgerr e = { .error = -EPERM };

		nlmsg_put(msg, 1, 1, NLMSG_ERROR, 0, NLM_F_CAPPED);
		nlmsg_append(msg, &e, sizeof(e), 0);
		strcpy(buf, "stale");
		attr_off = 7;
		hdp_extack_message(nlmsg_hdr(msg), sizeof(e), buf, sizeof(buf), &attr_off);
		result(!buf[0] && !attr_off, "extack-none-gives-empty-message",
		       "got '%s' offset %u", buf, attr_off);
		nlmsg_free(msg);
	}
	{
		/* A policy's range, as the kernel sends it for "integer out of range". */
		struct nl_msg *msg = nlmsg_alloc();
		struct nlmsgerr e = { .error = -ERANGE };
		struct nlattr *pol;

		nlmsg_put(msg, 1, 1, NLMSG_ERROR, 0, NLM_F_CAPPED | NLM_F_ACK_TLVS);
		nlmsg_append(msg, &e, sizeof(e), 0);
		nla_put_string(msg, NLMSGERR_ATTR_MSG, "integer out of range");
		nla_put_u32(msg, NLMSGERR_ATTR_OFFS, 28);
		pol = nla_nest_start(msg, NLMSGERR_ATTR_POLICY);
		nla_put_u32(msg, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
		nla_put_u64(msg, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, 1);
		nla_put_u64(msg, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, 30000);
		nla_nest_end(msg, pol);
		hdp_extack_message(nlmsg_hdr(msg), sizeof(e), buf, sizeof(buf), &attr_off);
		result(!strcmp(buf, "integer out of range (1 to 30000)") && attr_off == 28,
		       "extack-message-gives-the-policys-range", "got '%s' offset %u",
		       buf, attr_off);
		nlmsg_free(msg);
	}
}

/* The setting at fault in a request, by the extended ACK's offset. */
static void test_request_attr(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_SET);
	struct nlmsghdr *nlh;
	uint32_t off_disk, off_timeout, off_method, off_max_hold;

	off_disk = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_string(msg, HDPROTECT_A_DISK, "sda");
	off_timeout = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 40000);
	off_method = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_u32(msg, HDPROTECT_A_METHOD, 7);
	off_max_hold = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_u32(msg, HDPROTECT_A_MAX_HOLD_MS, 500);
	nlh = nlmsg_hdr(msg);
	result(hdp_request_attr(nlh, off_timeout) && !strcmp(hdp_request_attr(nlh, off_timeout), "timeout_ms") &&
	       hdp_request_attr(nlh, off_method) && !strcmp(hdp_request_attr(nlh, off_method), "method") &&
	       hdp_request_attr(nlh, off_max_hold) &&
	       !strcmp(hdp_request_attr(nlh, off_max_hold), "max_hold_ms") &&
	       !hdp_request_attr(nlh, off_disk) && !hdp_request_attr(nlh, 0) &&
	       !hdp_request_attr(nlh, nlh->nlmsg_len) && !hdp_request_attr(nlh, off_method + 2),
	       "request-attr-names-the-setting-at-fault", "-");
	nlmsg_free(msg);
}

/* The offset an extended ACK gives names a disk of the request. */
static void test_request_disk(void)
{
	struct nl_msg *msg = msg_new(HDPROTECT_CMD_PARK);
	uint32_t off_sda, off_sdb, off_len;
	char name[HDP_NAME_MAX + 1] = "";
	struct nlmsghdr *nlh;
	int err;

	off_sda = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_string(msg, HDPROTECT_A_DISK, "sda");
	off_sdb = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_string(msg, HDPROTECT_A_DISK, "sdb");
	off_len = nlmsg_hdr(msg)->nlmsg_len;
	nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 3000);
	nlh = nlmsg_hdr(msg);
	err = hdp_request_disk(nlh, off_sdb, name);
	result(!err && !strcmp(name, "sdb"), "request-disk-at-the-offset", "err %d name '%s'",
	       err, name);
	err = hdp_request_disk(nlh, off_sda, name);
	result(!err && !strcmp(name, "sda"), "request-disk-at-the-first-offset",
	       "err %d name '%s'", err, name);
	result(hdp_request_disk(nlh, off_len, name) == -ENOENT &&
	       hdp_request_disk(nlh, 0, name) == -ENOENT &&
	       hdp_request_disk(nlh, off_sdb + 2, name) == -ENOENT &&
	       hdp_request_disk(nlh, nlh->nlmsg_len, name) == -ENOENT &&
	       hdp_request_disk(nlh, 0xfffffff0u, name) == -ENOENT,
	       "request-disk-elsewhere-is-enoent", "-");
	/* an attribute that claims more than the message holds */
	nlh->nlmsg_len = off_sdb + 6;
	result(hdp_request_disk(nlh, off_sdb, name) == -ENOENT,
	       "request-disk-cut-short-is-enoent", "-");
	nlmsg_free(msg);
}

static void test_seq(void)
{
	uint64_t next = 0, first = 0, lost;
	bool have = false;

	lost = hdp_seq_advance(&next, &have, 10, &first);
	result(!lost && have && next == 11, "seq-first-event-loses-nothing", "lost %llu next %llu",
	       (unsigned long long)lost, (unsigned long long)next);
	lost = hdp_seq_advance(&next, &have, 11, &first);
	result(!lost && next == 12, "seq-next-event-loses-nothing", "lost %llu",
	       (unsigned long long)lost);
	lost = hdp_seq_advance(&next, &have, 15, &first);
	result(lost == 3 && first == 12 && next == 16, "seq-gap-counts-the-lost",
	       "lost %llu first %llu next %llu", (unsigned long long)lost,
	       (unsigned long long)first, (unsigned long long)next);
	lost = hdp_seq_advance(&next, &have, 5, &first);
	result(!lost && next == 16, "seq-from-the-past-loses-nothing", "lost %llu next %llu",
	       (unsigned long long)lost, (unsigned long long)next);
}

static void test_names(void)
{
	enum hdp_park_method m = HDP_PARK_AUTO;
	int ok = 1;
	unsigned int i;

	for (i = HDP_PARK_AUTO; i <= HDP_PARK_STANDBY; i++)
		ok &= !hdp_method_from_name(hdp_method_name(i), &m) && m == i;
	result(ok, "method-names-round-trip", "a method's name did not read back");
	result(hdp_method_from_name("park", &m) == -EINVAL &&
	       hdp_method_from_name(NULL, &m) == -EINVAL, "method-from-unknown-name-is-einval", "-");
	result(!strcmp(hdp_method_name(7), "?") && !strcmp(hdp_state_name(-1), "?") &&
	       !strcmp(hdp_event_name(0), "?") && !strcmp(hdp_cause_name(7), "?") &&
	       !strcmp(hdp_holder_name(4), "?"),
	       "names-of-unknown-values-are-question-marks", "-");
	result(!strcmp(hdp_cause_name(HDP_CAUSE_CAP), "cap") &&
	       !strcmp(hdp_cause_name(HDP_CAUSE_ERROR), "error") &&
	       !strcmp(hdp_holder_name(HDP_HOLDER_NONE), "none") &&
	       !strcmp(hdp_holder_name(HDP_HOLDER_CONFIGFS), "configfs") &&
	       !strcmp(hdp_holder_name(HDP_HOLDER_UNLOAD_HEADS), "unload_heads") &&
	       !strcmp(hdp_holder_name(HDP_HOLDER_NETLINK), "netlink"),
	       "names-of-cap-and-holders", "cap '%s', netlink '%s'",
	       hdp_cause_name(HDP_CAUSE_CAP), hdp_holder_name(HDP_HOLDER_NETLINK));
	result(!strcmp(hdp_event_name(HDP_EV_LOSS), "loss") &&
	       !strcmp(hdp_event_name(HDP_EV_CHANGED), "changed") &&
	       !strcmp(hdp_cause_name(HDP_CAUSE_UNLOAD_HEADS), "unload_heads") &&
	       !strcmp(hdp_state_name(HDP_DISK_GONE), "gone"),
	       "names-match-the-kernel", "-");
}

static void test_strerror(void)
{
	static const int errs[] = {
		EPERM, EACCES, ENOENT, EEXIST, ENODEV, EOPNOTSUPP, EINVAL, ERANGE,
		EPROTONOSUPPORT, ENOSYS, EAGAIN, ENOBUFS, ENOMEM, EBADMSG, EBADF,
		ECOMM, EIO, EINPROGRESS, ENAMETOOLONG, EBUSY,
	};
	const char *tool = NULL;
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (strstr(hdp_strerror(-errs[i]), "hdpctl") ||
		    strstr(hdp_strerror(-errs[i]), "hdp_"))
			tool = hdp_strerror(-errs[i]);
	result(!tool, "strerror-texts-name-no-tool", "'%s'", tool ? tool : "");
	result(strstr(hdp_strerror(-ENOENT), "add it first") != NULL,
	       "strerror-enoent-says-add-the-disk", "'%s'", hdp_strerror(-ENOENT));
	result(strstr(hdp_strerror(-EPROTONOSUPPORT), "modprobe hdprotect") != NULL,
	       "strerror-no-family-says-load-the-module", "'%s'", hdp_strerror(-EPROTONOSUPPORT));
	result(!strstr(hdp_strerror(-ERANGE), " ms") &&
	       strstr(hdp_strerror(-ERANGE), "kernel's message") != NULL,
	       "strerror-erange-points-at-the-kernels-message", "'%s'", hdp_strerror(-ERANGE));
	result(strcmp(hdp_strerror(-ECOMM), hdp_strerror(-EIO)) &&
	       strstr(hdp_strerror(-ECOMM), "socket") && strstr(hdp_strerror(-EIO), "device"),
	       "strerror-socket-failure-is-not-the-devices", "'%s' / '%s'",
	       hdp_strerror(-ECOMM), hdp_strerror(-EIO));
	result(strstr(hdp_strerror(-EINPROGRESS), "not answered") != NULL,
	       "strerror-einprogress-says-the-device-has-not-answered", "'%s'",
	       hdp_strerror(-EINPROGRESS));
	result(strstr(hdp_strerror(-EBUSY), "longest continuous hold") &&
	       strstr(hdp_strerror(-EBUSY), "refused for a few seconds"),
	       "strerror-ebusy-tells-of-the-cool-down", "'%s'", hdp_strerror(-EBUSY));
	result(!strcmp(hdp_strerror(-ENOTTY), "Inappropriate ioctl for device"),
	       "strerror-other-errno-is-the-systems", "'%s'", hdp_strerror(-ENOTTY));
	result(!strcmp(hdp_strerror(-100000), "unknown error") &&
	       !strcmp(hdp_strerror(5), "unknown error"),
	       "strerror-unknown-error", "'%s'", hdp_strerror(-100000));
}

/* What a monitor's callback does, and saw. */
struct cb_state {
	struct hdp_ctx *ctx;
	int free_ctx;		/* hdp_free() rather than hdp_monitor_close() */
	int calls;
	int dispatch_err;	/* a dispatch from within the callback */
};

static int close_from_callback(const struct hdp_monitor_event *ev, void *data)
{
	struct cb_state *st = data;

	(void)ev;
	st->calls++;
	st->dispatch_err = hdp_monitor_dispatch(st->ctx, close_from_callback, st);
	if (st->free_ctx)
		hdp_free(st->ctx);
	else
		hdp_monitor_close(st->ctx);
	return 0;
}

/*
 * Three events in one datagram to a monitor whose callback closes it (or
 * frees the context) at the first: the dispatch must stop there without
 * touching the buffer or the context again (ASan sees it if it does).
 */
static void test_close_from_callback(int free_ctx)
{
	const char *name = free_ctx ? "monitor-free-from-callback" :
				      "monitor-close-from-callback";
	struct cb_state st = { .free_ctx = free_ctx };
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(dst);
	unsigned char buf[4096];
	size_t off = 0;
	int fd, tx, n, i;

	if (hdp_new(&st.ctx)) {
		result(0, name, "hdp_new failed");
		return;
	}
	fd = hdp_monitor_open_raw(st.ctx, FAMILY, true);
	tx = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0 || tx < 0 || getsockname(fd, (struct sockaddr *)&dst, &len)) {
		result(0, name, "no netlink socket here (%d)", fd);
		hdp_free(st.ctx);
		if (tx >= 0)
			close(tx);
		return;
	}
	for (i = 0; i < 3; i++) {
		struct nl_msg *msg = event_msg(HDPROTECT_EVENT_CHANGED, 7 + i,
					       HDPROTECT_REASON_REQUEST, "sdz");
		struct nlmsghdr *nlh = nlmsg_hdr(msg);

		memcpy(buf + off, nlh, nlh->nlmsg_len);
		off += NLMSG_ALIGN(nlh->nlmsg_len);
		nlmsg_free(msg);
	}
	if (sendto(tx, buf, off, 0, (struct sockaddr *)&dst, sizeof(dst)) != (ssize_t)off) {
		result(0, name, "sendto failed");
		close(tx);
		hdp_free(st.ctx);
		return;
	}
	close(tx);
	n = hdp_monitor_dispatch(st.ctx, close_from_callback, &st);
	if (free_ctx) {
		result(n == 1 && st.calls == 1 && st.dispatch_err == -EBUSY, name,
		       "dispatch %d, %d calls, inner dispatch %d", n, st.calls,
		       st.dispatch_err);
		return;
	}
	i = hdp_monitor_dispatch(st.ctx, close_from_callback, &st);
	result(n == 1 && st.calls == 1 && st.dispatch_err == -EBUSY && i == -EBADF,
	       name, "dispatch %d, %d calls, inner dispatch %d, after close %d",
	       n, st.calls, st.dispatch_err, i);
	hdp_free(st.ctx);
}

static int count_events(const struct hdp_monitor_event *ev, void *data)
{
	(void)ev;
	(*(int *)data)++;
	return 0;
}

/* Send @len bytes of messages at @buf to @fd's port from another socket; 0 or -1. */
static int send_raw(int fd, const void *buf, size_t len)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(dst);
	int tx, ret = -1;

	tx = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (tx < 0)
		return -1;
	if (!getsockname(fd, (struct sockaddr *)&dst, &alen) &&
	    sendto(tx, buf, len, 0, (struct sockaddr *)&dst, sizeof(dst)) > 0)
		ret = 0;
	close(tx);
	return ret;
}

/* Send @msg (freed) to @fd's port from another socket; 0 or -1. */
static int send_msg(int fd, struct nl_msg *msg)
{
	int ret = send_raw(fd, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len);

	nlmsg_free(msg);
	return ret;
}

/* Send one event to @fd's port from another socket; 0 or -1. */
static int send_event(int fd, uint64_t seq)
{
	return send_msg(fd, event_msg(HDPROTECT_EVENT_CHANGED, seq,
				      HDPROTECT_REASON_REQUEST, "sdz"));
}

/*
 * The monitor takes events from the kernel only: one another process
 * sends is dropped (the raw monitor of the other tests takes any sender).
 */
static void test_monitor_kernel_only(void)
{
	struct hdp_ctx *ctx;
	int fd, n, calls = 0;

	if (hdp_new(&ctx))
		return;
	fd = hdp_monitor_open_raw(ctx, FAMILY, false);
	if (fd < 0 || send_event(fd, 5)) {
		result(0, "monitor-takes-only-the-kernel", "no netlink socket here (%d)", fd);
		hdp_free(ctx);
		return;
	}
	n = hdp_monitor_dispatch(ctx, count_events, &calls);
	result(n == 0 && calls == 0, "monitor-takes-only-the-kernel",
	       "dispatch %d, %d events from a process", n, calls);
	hdp_free(ctx);
}

/* What a callback saw of the disk of each event. */
struct disk_seen {
	int events, losses, bad;
};

static int see_disk(const struct hdp_monitor_event *ev, void *data)
{
	struct disk_seen *ds = data;

	if (!ev->disk) {
		ds->bad++;
		return 0;
	}
	if (ev->type == HDP_EV_LOSS) {
		ds->losses++;
		ds->bad += ev->disk->name[0] || ev->disk->devt || ev->time_ns ||
			   ev->seq != 6 || ev->lost != 3;
	} else {
		ds->events++;
		ds->bad += strcmp(ev->disk->name, "sdz") != 0;
	}
	return 0;
}

/* Every event points at a disk, a loss too: one with an empty name. */
static void test_monitor_loss_disk(void)
{
	struct disk_seen ds = { 0 };
	struct hdp_ctx *ctx;
	int fd, n;

	if (hdp_new(&ctx))
		return;
	fd = hdp_monitor_open_raw(ctx, FAMILY, true);
	if (fd < 0 || send_event(fd, 5) || send_event(fd, 9)) {
		result(0, "monitor-loss-has-an-empty-disk", "no netlink socket here (%d)", fd);
		hdp_free(ctx);
		return;
	}
	n = hdp_monitor_dispatch(ctx, see_disk, &ds);
	result(n == 3 && ds.events == 2 && ds.losses == 1 && !ds.bad,
	       "monitor-loss-has-an-empty-disk", "dispatch %d: %d events, %d losses, %d bad",
	       n, ds.events, ds.losses, ds.bad);
	hdp_free(ctx);
}

/* A list of pointers: at copies of the objects, aligned, NULL after the last. */
static void test_ptr_array(void)
{
	struct hdp_disk d[3] = { { .name = "sda" }, { .name = "sdb", .parks = 7 },
				 { .name = "sdc" } };
	struct hdp_disk **p = hdp_ptr_array(d, 3, sizeof(*d));
	struct hdp_outcome **o = hdp_ptr_array(NULL, 0, sizeof(**o));
	int ok = p && !p[3], i;

	for (i = 0; ok && i < 3; i++)
		ok = p[i] != &d[i] && !strcmp(p[i]->name, d[i].name) &&
		     p[i]->parks == d[i].parks &&
		     !((uintptr_t)p[i] % _Alignof(struct hdp_disk));
	result(ok, "ptr-array-points-at-aligned-copies-null-after-the-last", "-");
	result(o && !o[0], "ptr-array-of-nothing-is-just-null", "-");
	hdp_disks_free(p);
	hdp_outcomes_free(o);
	result(hdp_ptr_array(d, SIZE_MAX / 8, sizeof(*d)) == NULL,
	       "ptr-array-refuses-an-overflowing-size", "-");
}

/* What a callback saw: counts by type, and the disks' names in a row. */
struct seen {
	int events, losses, gone, back, stop_after;
	char names[256];
};

static int note_event(const struct hdp_monitor_event *ev, void *data)
{
	struct seen *sn = data;
	size_t l = strlen(sn->names);

	switch (ev->type) {
	case HDP_EV_LOSS:
		sn->losses++;
		break;
	case HDP_EV_KERNEL_GONE:
		sn->gone++;
		snprintf(sn->names + l, sizeof(sn->names) - l, "gone ");
		break;
	case HDP_EV_KERNEL_BACK:
		sn->back++;
		snprintf(sn->names + l, sizeof(sn->names) - l, "back ");
		break;
	default:
		sn->events++;
		snprintf(sn->names + l, sizeof(sn->names) - l, "%s ", ev->disk->name);
	}
	return sn->stop_after && sn->events + sn->gone + sn->back == sn->stop_after;
}

/* A raw monitor of the family FAMILY that takes any sender, or NULL. */
static struct hdp_ctx *raw_monitor(const char *name, int *fd)
{
	struct hdp_ctx *ctx;

	if (hdp_new(&ctx))
		return NULL;
	*fd = hdp_monitor_open_raw(ctx, FAMILY, true);
	if (*fd < 0) {
		result(0, name, "no netlink socket here (%d)", *fd);
		hdp_free(ctx);
		return NULL;
	}
	return ctx;
}

/* One dispatch hands over at most 64 events; the rest wait for the next. */
static void test_dispatch_bounded(void)
{
	const char *name = "monitor-dispatch-hands-over-at-most-64-events";
	struct seen sn = { 0 };
	struct hdp_ctx *ctx;
	int fd, i, n1, p1, n2, p2, bad = 0;

	ctx = raw_monitor(name, &fd);
	if (!ctx)
		return;
	for (i = 1; i <= 100; i++)
		bad |= send_event(fd, (uint64_t)i);
	n1 = hdp_monitor_dispatch(ctx, note_event, &sn);
	p1 = hdp_monitor_pending(ctx);
	n2 = hdp_monitor_dispatch(ctx, note_event, &sn);
	p2 = hdp_monitor_pending(ctx);
	result(!bad && n1 == 64 && p1 == 1 && n2 == 36 && p2 == 0 &&
	       sn.events == 100 && !sn.losses, name,
	       "sent %s, dispatch %d (pending %d), then %d (pending %d), %d events, %d losses",
	       bad ? "failed" : "100", n1, p1, n2, p2, sn.events, sn.losses);
	hdp_free(ctx);
}

/*
 * A callback that stops the dispatch leaves the other events of the
 * datagram in the library's buffer: poll() does not tell of them,
 * hdp_monitor_pending() does, and the next dispatch hands them over.
 */
static void test_pending_in_buffer(void)
{
	const char *name = "monitor-pending-tells-of-events-left-in-the-buffer";
	struct seen sn = { .stop_after = 1 };
	struct nl_msg *m[3];
	unsigned char buf[4096];
	struct pollfd pfd;
	size_t len = 0;
	int fd, i, n1, p1, readable, n2, p2;
	struct hdp_ctx *ctx;

	ctx = raw_monitor(name, &fd);
	if (!ctx)
		return;
	for (i = 0; i < 3; i++) {
		m[i] = event_msg(HDPROTECT_EVENT_CHANGED, 10 + i, HDPROTECT_REASON_REQUEST,
				 i == 0 ? "sda" : i == 1 ? "sdb" : "sdc");
		memcpy(buf + len, nlmsg_hdr(m[i]), nlmsg_hdr(m[i])->nlmsg_len);
		len += NLMSG_ALIGN(nlmsg_hdr(m[i])->nlmsg_len);
		nlmsg_free(m[i]);
	}
	if (send_raw(fd, buf, len)) {
		result(0, name, "cannot send");
		hdp_free(ctx);
		return;
	}
	n1 = hdp_monitor_dispatch(ctx, note_event, &sn);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	readable = poll(&pfd, 1, 0);
	p1 = hdp_monitor_pending(ctx);
	sn.stop_after = 0;
	n2 = hdp_monitor_dispatch(ctx, note_event, &sn);
	p2 = hdp_monitor_pending(ctx);
	result(n1 == 1 && readable == 0 && p1 == 1 && n2 == 2 && p2 == 0 &&
	       !strcmp(sn.names, "sda sdb sdc "), name,
	       "dispatch %d, poll %d, pending %d, then %d, pending %d: '%s'",
	       n1, readable, p1, n2, p2, sn.names);
	hdp_free(ctx);
}

/* An nlctrl notification of family @fam: @cmd, with @id and events group @group if not 0. */
static struct nl_msg *ctrl_msg(int cmd, const char *fam, int id, int group)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *grps, *grp;

	if (!msg || !genlmsg_put(msg, 0, 0, GENL_ID_CTRL, 0, 0, cmd, 2)) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, fam);
	if (id)
		nla_put_u16(msg, CTRL_ATTR_FAMILY_ID, (uint16_t)id);
	if (group) {
		grps = nla_nest_start(msg, CTRL_ATTR_MCAST_GROUPS);
		grp = nla_nest_start(msg, 1);
		nla_put_string(msg, CTRL_ATTR_MCAST_GRP_NAME, HDPROTECT_GENL_MCGRP_EVENTS);
		nla_put_u32(msg, CTRL_ATTR_MCAST_GRP_ID, (uint32_t)group);
		nla_nest_end(msg, grp);
		nla_nest_end(msg, grps);
	}
	return msg;
}

/*
 * nlctrl tells of hdprotect going and coming back under another id: the
 * monitor hands over HDP_EV_KERNEL_GONE, ignores the old family's events,
 * hands over HDP_EV_KERNEL_BACK, then takes the new family's events.
 * Another family's notifications change nothing.
 */
static void test_family_gone_and_back(void)
{
	const char *name = "monitor-hears-hdprotect-go-and-come-back";
	struct seen sn = { 0 };
	struct hdp_ctx *ctx;
	struct nl_msg *ev;
	int fd, n, bad = 0;

	ctx = raw_monitor(name, &fd);
	if (!ctx)
		return;
	bad |= send_event(fd, 1);
	bad |= send_msg(fd, ctrl_msg(CTRL_CMD_DELFAMILY, "nl80211", FAMILY + 1, 0));
	bad |= send_msg(fd, ctrl_msg(CTRL_CMD_DELFAMILY, HDPROTECT_GENL_NAME, FAMILY, 0));
	bad |= send_event(fd, 2);	/* the old family's: no one sends it now */
	/* back as FAMILY + 1; its events group: nlctrl's own, to be joinable */
	bad |= send_msg(fd, ctrl_msg(CTRL_CMD_NEWFAMILY, HDPROTECT_GENL_NAME,
				     FAMILY + 1, GENL_ID_CTRL));
	ev = event_msg(HDPROTECT_EVENT_ADDED, 7, HDPROTECT_REASON_REQUEST, "sdy");
	nlmsg_hdr(ev)->nlmsg_type = FAMILY + 1;
	bad |= send_msg(fd, ev);
	n = hdp_monitor_dispatch(ctx, note_event, &sn);
	result(!bad && n == 4 && !strcmp(sn.names, "sdz gone back sdy ") && !sn.losses,
	       name, "sent %s, dispatch %d: '%s', %d losses", bad ? "failed" : "all",
	       n, sn.names, sn.losses);
	hdp_free(ctx);
}

/*
 * Without hdprotect (this machine's kernel has none), the monitor opens
 * and says so: HDP_EV_KERNEL_GONE waits, which hdp_monitor_pending()
 * tells although the descriptor is not readable.
 */
static void test_open_without_hdprotect(void)
{
	const char *name = "monitor-opens-without-hdprotect-and-says-so";
	struct seen sn = { 0 };
	struct hdp_ctx *ctx;
	int fd, p1, n, p2;

	if (hdp_new(&ctx))
		return;
	fd = hdp_monitor_open(ctx);
	p1 = hdp_monitor_pending(ctx);
	n = fd < 0 ? fd : hdp_monitor_dispatch(ctx, note_event, &sn);
	p2 = hdp_monitor_pending(ctx);
	if (fd >= 0 && !p1) {
		printf("ok - libhdp-%s # SKIP this kernel has hdprotect\n", name);
	} else {
		result(fd >= 0 && p1 == 1 && n == 1 && sn.gone == 1 && p2 == 0, name,
		       "open %d, pending %d, dispatch %d (%d gone), pending %d",
		       fd, p1, n, sn.gone, p2);
	}
	hdp_monitor_close(ctx);
	result(hdp_monitor_pending(ctx) == -EBADF, "monitor-pending-without-monitor-is-ebadf",
	       "got %d", hdp_monitor_pending(ctx));
	hdp_free(ctx);
}

/* The receive buffer: 1 MiB by default, the caller's if set, capped. */
static void test_monitor_buffer(void)
{
	struct hdp_ctx *ctx;
	int fd, got, want, rmem = 0;
	socklen_t len = sizeof(got);
	FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");

	if (f) {
		if (fscanf(f, "%d", &rmem) != 1)
			rmem = 0;
		fclose(f);
	}
	if (hdp_new(&ctx))
		return;
	result(hdp_monitor_set_buffer(ctx, 100) == -EINVAL, "monitor-buffer-too-small-refused",
	       "got %d", hdp_monitor_set_buffer(ctx, 100));
	fd = hdp_monitor_open_raw(ctx, FAMILY, true);
	got = 0;
	if (fd >= 0)
		getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
	/* The kernel doubles what it is given; without CAP_NET_ADMIN it caps. */
	want = 1 << 20;
	if (getuid() && rmem && rmem < want)
		want = rmem;
	result(fd >= 0 && got >= want, "monitor-buffer-1mib-by-default", "SO_RCVBUF %d, want >= %d",
	       got, want);
	result(!hdp_monitor_set_buffer(ctx, 4 << 20), "monitor-buffer-set", "refused");
	len = sizeof(got);
	if (fd >= 0)
		getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
	want = getuid() ? want : 4 << 20;
	result(got >= want, "monitor-buffer-set-applies-when-open", "SO_RCVBUF %d, want >= %d",
	       got, want);
	hdp_free(ctx);
}

int main(void)
{
	test_disk();
	test_disk_unknown_attrs();
	test_disk_minimal();
	test_disk_malformed();
	test_short_header();
	test_event_parked();
	test_event_unparked();
	test_event_holder();
	test_event_causes();
	test_event_unknown_type();
	test_event_malformed();
	test_outcomes();
	test_answers();
	test_answers_from_state();
	test_answer_message();
	test_park_arguments();
	test_set_settings();
	test_set_max_hold_request();
	test_unpark_requests();
	test_extack();
	test_request_disk();
	test_request_attr();
	test_seq();
	test_names();
	test_strerror();
	test_close_from_callback(0);
	test_close_from_callback(1);
	test_monitor_kernel_only();
	test_monitor_loss_disk();
	test_dispatch_bounded();
	test_pending_in_buffer();
	test_family_gone_and_back();
	test_open_without_hdprotect();
	test_ptr_array();
	test_monitor_buffer();
	return failed;
}
