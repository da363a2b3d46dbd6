// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of hdpctl's output formatting and number parsing
 * (hdpctl/format.c): disks, park outcomes and events built in memory are
 * printed into memory and compared, byte for byte, with the lines
 * hdpctl(8) shows (OUTPUT); the lengths and counts a user types are
 * accepted or refused as the manual says. Prints one TAP line per test;
 * exits 1 if any failed. Built and run, under AddressSanitizer and
 * UndefinedBehaviorSanitizer, by tests/host/test-libhdp; by hand:
 *
 *   gcc -Wall -Wextra -Werror -I libhdp -I hdpctl -o hdpctl-format-unit \
 *	tests/host/hdpctl-format-unit.c hdpctl/format.c \
 *	build/libhdp/libhdp.a $(pkg-config --libs libnl-genl-3.0)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sysmacros.h>

#include <hdp.h>

#include "format.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* libhdp's reason for -EIO, as the lines about an unconfirmed park end. */
#define EIO_TEXT	"the device did not confirm: check the disk and the kernel log (dmesg)"

static int failed;

static void __attribute__((format(printf, 3, 4)))
result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok - hdpctl-%s\n", name);
		return;
	}
	failed = 1;
	printf("not ok - hdpctl-%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* @s on one line, as a C string: a TAP line must not break. */
static void put_escaped(const char *s)
{
	unsigned char c;

	putchar('"');
	for (; (c = *s); s++) {
		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* What a printer wrote, compared with what it should have. */
static void expect(const char *name, const char *got, const char *want)
{
	size_t at = 0;

	if (!strcmp(got, want)) {
		printf("ok - hdpctl-%s\n", name);
		return;
	}
	while (got[at] && got[at] == want[at])
		at++;
	failed = 1;
	printf("not ok - hdpctl-%s: differs at byte %zu: got ", name, at);
	put_escaped(got);
	fputs(", want ", stdout);
	put_escaped(want);
	putchar('\n');
}

/* A memory stream for a printer to write to. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *capture_start(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(2);
	}
	return c->f;
}

/* Close the stream, compare what it holds with @want, free it. */
static void capture_check(struct capture *c, const char *name,
			  const char *want)
{
	if (fclose(c->f)) {
		perror("fclose");
		exit(2);
	}
	expect(name, c->buf, want);
	free(c->buf);
}

static void check_disk(const char *name, const struct hdp_disk *d, bool json,
		       const char *want)
{
	struct capture c;

	hdpctl_print_disk(capture_start(&c), d, json);
	capture_check(&c, name, want);
}

static void check_outcome(const char *name, const struct hdp_outcome *o,
			  bool json, const char *want)
{
	struct capture c;

	hdpctl_print_outcome(capture_start(&c), o, json);
	capture_check(&c, name, want);
}

static void check_event(const char *name, const struct hdp_monitor_event *ev,
			bool json, const char *want)
{
	struct capture c;

	if (json)
		hdpctl_print_event_json(capture_start(&c), ev);
	else
		hdpctl_print_event_text(capture_start(&c), ev);
	capture_check(&c, name, want);
}

/*
 * The disks of hdpctl(8)'s examples, and some the manual tells of. Their
 * device numbers are set by setup(): makedev() is no constant.
 */

/* Parked, able to unload and spin down: the manual's sda. */
static struct hdp_disk sda_parked = {
	.name = "sda",
	.state = HDP_DISK_PARKED,
	.enabled = true,
	.timeout_ms = 5000,
	.method = HDP_PARK_AUTO,
	.methods = 1u << HDP_PARK_AUTO | 1u << HDP_PARK_UNLOAD |
		   1u << HDP_PARK_STANDBY,
	.remaining_ms = 2940,
	.last_method = HDP_PARK_UNLOAD,
	.last_result = 0,
	.parks = 3,
	.failures = 0,
	.last_park_ns = 6300000,
	.request_ns = 1520000000,
	.complete_ns = 1526300000,
	.deadline_ns = 4520000000ULL,
	.max_hold_ms = 30000,
	.holds = 1,
};

#define SDA_PARKED_KEYS							\
	"\"disk\":\"sda\",\"devt\":\"8:0\",\"state\":\"parked\","	\
	"\"enabled\":true,\"timeout_ms\":5000,\"method\":\"auto\","	\
	"\"methods\":[\"auto\",\"unload\",\"standby\"],"		\
	"\"remaining_ms\":2940,\"last_method\":\"unload\","		\
	"\"last_result\":0,\"parks\":3,\"failures\":0,"			\
	"\"last_park_ns\":6300000,\"request_ns\":1520000000,"		\
	"\"complete_ns\":1526300000,\"deadline_ns\":4520000000,"	\
	"\"max_hold_ms\":30000,\"holds\":1,\"cooldown_ms\":0"

/* Idle and disabled, able to spin down only: the manual's sdb. */
static struct hdp_disk sdb_idle = {
	.name = "sdb",
	.state = HDP_DISK_IDLE,
	.enabled = false,
	.timeout_ms = 5000,
	.method = HDP_PARK_STANDBY,
	.methods = 1u << HDP_PARK_AUTO | 1u << HDP_PARK_STANDBY,
	.last_method = HDP_PARK_AUTO,
	.max_hold_ms = 30000,
};

#define SDB_IDLE_KEYS							\
	"\"disk\":\"sdb\",\"devt\":\"8:16\",\"state\":\"idle\","	\
	"\"enabled\":false,\"timeout_ms\":5000,\"method\":\"standby\","	\
	"\"methods\":[\"auto\",\"standby\"],"				\
	"\"remaining_ms\":0,\"last_method\":\"auto\","			\
	"\"last_result\":0,\"parks\":0,\"failures\":0,"			\
	"\"last_park_ns\":0,\"request_ns\":0,"				\
	"\"complete_ns\":0,\"deadline_ns\":0,"				\
	"\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0"

/* Removed, with the state it had: only its name and state print. */
static struct hdp_disk sdc_gone = {
	.name = "sdc",
	.state = HDP_DISK_GONE,
	.enabled = false,
	.timeout_ms = 3000,
	.method = HDP_PARK_UNLOAD,
	.methods = 1u << HDP_PARK_AUTO | 1u << HDP_PARK_UNLOAD,
	.last_method = HDP_PARK_UNLOAD,
	.parks = 1,
	.last_park_ns = 412700000,
	.request_ns = 1000,
	.complete_ns = 412701000,
	.max_hold_ms = 30000,
};

#define SDC_GONE_KEYS							\
	"\"disk\":\"sdc\",\"devt\":\"8:32\",\"state\":\"gone\","	\
	"\"enabled\":false,\"timeout_ms\":3000,\"method\":\"unload\","	\
	"\"methods\":[\"auto\",\"unload\"],"				\
	"\"remaining_ms\":0,\"last_method\":\"unload\","		\
	"\"last_result\":0,\"parks\":1,\"failures\":0,"			\
	"\"last_park_ns\":412700000,\"request_ns\":1000,"		\
	"\"complete_ns\":412701000,\"deadline_ns\":0,"			\
	"\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0"

/* A device that supports no method (methods 0): it cannot park. */
static struct hdp_disk sdd_cannot = {
	.name = "sdd",
	.state = HDP_DISK_IDLE,
	.enabled = true,
	.timeout_ms = 3000,
	.method = HDP_PARK_AUTO,
	.methods = 0,
	.last_method = HDP_PARK_AUTO,
	.max_hold_ms = 30000,
};

/* Its last park was not confirmed: the device answered -EIO. */
static struct hdp_disk sde_failed = {
	.name = "sde",
	.state = HDP_DISK_IDLE,
	.enabled = true,
	.timeout_ms = 2500,
	.method = HDP_PARK_UNLOAD,
	.methods = 1u << HDP_PARK_AUTO | 1u << HDP_PARK_UNLOAD,
	.last_method = HDP_PARK_UNLOAD,
	.last_result = -EIO,
	.parks = 2,
	.failures = 1,
	.last_park_ns = 412700000,
	.request_ns = 9000000000ULL,
	.complete_ns = 9412700000ULL,
	.max_hold_ms = 30000,
};

/* A park the device confirmed, and one it did not. */
static struct hdp_outcome sda_confirmed = {
	.name = "sda",
	.result = 0,
	.method = HDP_PARK_UNLOAD,
	.park_ms = 3000,
	.deadline_ns = 4520000000ULL,
	.request_ns = 1520000000,
	.complete_ns = 1526300000,
};

static struct hdp_outcome sdb_unconfirmed = {
	.name = "sdb",
	.result = -EIO,
	.method = HDP_PARK_STANDBY,
	.park_ms = 3000,
	.deadline_ns = 4521000000ULL,
	.request_ns = 1521000000,
	.complete_ns = 1533000000,
};

/* The device numbers of the fixtures. */
static void setup(void)
{
	sda_parked.devt = makedev(8, 0);
	sdb_idle.devt = makedev(8, 16);
	sdc_gone.devt = makedev(8, 32);
	sdd_cannot.devt = makedev(8, 48);
	sde_failed.devt = makedev(259, 3);
	sda_confirmed.devt = makedev(8, 0);
	sdb_unconfirmed.devt = makedev(8, 16);
}

static void test_status_text(void)
{
	struct hdp_disk d;

	check_disk("status-text-parked", &sda_parked, false,
		   "sda: parked 2940 ms left, 1 hold, enabled, timeout 5000 ms, max hold 30000 ms, method auto (unload standby), parks 3, failures 0, last park 6.3 ms\n");
	check_disk("status-text-idle", &sdb_idle, false,
		   "sdb: idle, disabled, timeout 5000 ms, max hold 30000 ms, method standby (standby), parks 0, failures 0\n");
	check_disk("status-text-gone", &sdc_gone, false, "sdc: gone\n");
	check_disk("status-text-cannot-park", &sdd_cannot, false,
		   "sdd: idle, enabled, timeout 3000 ms, max hold 30000 ms, method auto (cannot park), parks 0, failures 0\n");
	check_disk("status-text-last-park-not-confirmed", &sde_failed, false,
		   "sde: idle, enabled, timeout 2500 ms, max hold 30000 ms, method unload (unload), parks 2, failures 1, last park 412.7 ms, last park not confirmed: "
		   EIO_TEXT "\n");

	/* parked and unconfirmed: both tails, "ms left" first */
	d = sde_failed;
	d.state = HDP_DISK_PARKED;
	d.remaining_ms = 81;
	d.holds = 2;
	check_disk("status-text-parked-not-confirmed", &d, false,
		   "sde: parked 81 ms left, 2 holds, enabled, timeout 2500 ms, max hold 30000 ms, method unload (unload), parks 2, failures 1, last park 412.7 ms, last park not confirmed: "
		   EIO_TEXT "\n");

	/* the methods in parentheses leave auto out, in a fixed order */
	d = sdb_idle;
	d.methods = 1u << HDP_PARK_STANDBY | 1u << HDP_PARK_UNLOAD;
	check_disk("status-text-methods-in-order", &d, false,
		   "sdb: idle, disabled, timeout 5000 ms, max hold 30000 ms, method standby (unload standby), parks 0, failures 0\n");

	/* the manual's sdd: in the cool-down after a park that lasted its max hold */
	d = sda_parked;
	snprintf(d.name, sizeof(d.name), "sdd");
	d.state = HDP_DISK_IDLE;
	d.remaining_ms = 0;
	d.deadline_ns = 0;
	d.holds = 0;
	d.cooldown_ms = 8200;
	d.parks = 4;
	d.last_park_ns = 6100000;
	check_disk("status-text-cool-down", &d, false,
		   "sdd: idle, cool-down 8200 ms left, enabled, timeout 5000 ms, max hold 30000 ms, method auto (unload standby), parks 4, failures 0, last park 6.1 ms\n");
	d = sda_parked;
	d.max_hold_ms = 120000;
	d.holds = 8;
	check_disk("status-text-holds-and-max-hold", &d, false,
		   "sda: parked 2940 ms left, 8 holds, enabled, timeout 5000 ms, max hold 120000 ms, method auto (unload standby), parks 3, failures 0, last park 6.3 ms\n");
}

static void test_status_json(void)
{
	struct hdp_disk d;

	check_disk("status-json-parked", &sda_parked, true,
		   "{" SDA_PARKED_KEYS "}\n");
	/* the manual's example, joined as it says */
	check_disk("status-json-as-in-the-manual", &sda_parked, true,
		   "{\"disk\":\"sda\",\"devt\":\"8:0\",\"state\":\"parked\",\"enabled\":true,"
		   "\"timeout_ms\":5000,\"method\":\"auto\",\"methods\":[\"auto\",\"unload\",\"standby\"],"
		   "\"remaining_ms\":2940,\"last_method\":\"unload\",\"last_result\":0,\"parks\":3,"
		   "\"failures\":0,\"last_park_ns\":6300000,\"request_ns\":1520000000,"
		   "\"complete_ns\":1526300000,\"deadline_ns\":4520000000,"
		   "\"max_hold_ms\":30000,\"holds\":1,\"cooldown_ms\":0}\n");
	check_disk("status-json-idle", &sdb_idle, true,
		   "{" SDB_IDLE_KEYS "}\n");
	check_disk("status-json-gone-has-every-key", &sdc_gone, true,
		   "{" SDC_GONE_KEYS "}\n");
	check_disk("status-json-cannot-park-has-no-methods", &sdd_cannot, true,
		   "{\"disk\":\"sdd\",\"devt\":\"8:48\",\"state\":\"idle\","
		   "\"enabled\":true,\"timeout_ms\":3000,\"method\":\"auto\","
		   "\"methods\":[],\"remaining_ms\":0,\"last_method\":\"auto\","
		   "\"last_result\":0,\"parks\":0,\"failures\":0,"
		   "\"last_park_ns\":0,\"request_ns\":0,\"complete_ns\":0,"
		   "\"deadline_ns\":0,"
		   "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0}\n");
	check_disk("status-json-last-park-not-confirmed", &sde_failed, true,
		   "{\"disk\":\"sde\",\"devt\":\"259:3\",\"state\":\"idle\","
		   "\"enabled\":true,\"timeout_ms\":2500,\"method\":\"unload\","
		   "\"methods\":[\"auto\",\"unload\"],\"remaining_ms\":0,"
		   "\"last_method\":\"unload\",\"last_result\":-5,\"parks\":2,"
		   "\"failures\":1,\"last_park_ns\":412700000,"
		   "\"request_ns\":9000000000,\"complete_ns\":9412700000,"
		   "\"deadline_ns\":0,"
		   "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0}\n");

	/* 64-bit counters print whole */
	d = sdb_idle;
	d.parks = UINT64_MAX;
	d.failures = UINT64_MAX - 1;
	d.deadline_ns = UINT64_MAX;
	check_disk("status-json-64-bit-counters", &d, true,
		   "{\"disk\":\"sdb\",\"devt\":\"8:16\",\"state\":\"idle\","
		   "\"enabled\":false,\"timeout_ms\":5000,\"method\":\"standby\","
		   "\"methods\":[\"auto\",\"standby\"],"
		   "\"remaining_ms\":0,\"last_method\":\"auto\","
		   "\"last_result\":0,\"parks\":18446744073709551615,"
		   "\"failures\":18446744073709551614,"
		   "\"last_park_ns\":0,\"request_ns\":0,"
		   "\"complete_ns\":0,\"deadline_ns\":18446744073709551615,"
		   "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0}\n");

	/* the last keys: max hold, holds, the cool-down's time left */
	d = sdb_idle;
	d.max_hold_ms = 60000;
	d.cooldown_ms = 9999;
	check_disk("status-json-max-hold-and-cool-down", &d, true,
		   "{\"disk\":\"sdb\",\"devt\":\"8:16\",\"state\":\"idle\","
		   "\"enabled\":false,\"timeout_ms\":5000,\"method\":\"standby\","
		   "\"methods\":[\"auto\",\"standby\"],"
		   "\"remaining_ms\":0,\"last_method\":\"auto\","
		   "\"last_result\":0,\"parks\":0,\"failures\":0,"
		   "\"last_park_ns\":0,\"request_ns\":0,"
		   "\"complete_ns\":0,\"deadline_ns\":0,"
		   "\"max_hold_ms\":60000,\"holds\":0,\"cooldown_ms\":9999}\n");
	d = sda_parked;
	d.holds = 3;
	check_disk("status-json-holds", &d, true,
		   "{\"disk\":\"sda\",\"devt\":\"8:0\",\"state\":\"parked\",\"enabled\":true,"
		   "\"timeout_ms\":5000,\"method\":\"auto\",\"methods\":[\"auto\",\"unload\",\"standby\"],"
		   "\"remaining_ms\":2940,\"last_method\":\"unload\",\"last_result\":0,\"parks\":3,"
		   "\"failures\":0,\"last_park_ns\":6300000,\"request_ns\":1520000000,"
		   "\"complete_ns\":1526300000,\"deadline_ns\":4520000000,"
		   "\"max_hold_ms\":30000,\"holds\":3,\"cooldown_ms\":0}\n");
}

static void test_outcome(void)
{
	struct hdp_outcome o;

	check_outcome("park-text-confirmed", &sda_confirmed, false,
		      "sda: parked for 3000 ms (unload), device answered in 6.3 ms\n");
	check_outcome("park-text-not-confirmed", &sdb_unconfirmed, false,
		      "sdb: I/O held for 3000 ms, but the device did not confirm the park: "
		      EIO_TEXT "\n");
	/* a clock that went backwards does not wrap round */
	o = sda_confirmed;
	o.complete_ns = o.request_ns - 1;
	check_outcome("park-text-answer-before-request-is-0", &o, false,
		      "sda: parked for 3000 ms (unload), device answered in 0.0 ms\n");
	check_outcome("park-json-confirmed", &sda_confirmed, true,
		      "{\"disk\":\"sda\",\"devt\":\"8:0\",\"result\":0,\"method\":\"unload\",\"park_ms\":3000,"
		      "\"deadline_ns\":4520000000,\"request_ns\":1520000000,\"complete_ns\":1526300000}\n");
	check_outcome("park-json-not-confirmed", &sdb_unconfirmed, true,
		      "{\"disk\":\"sdb\",\"devt\":\"8:16\",\"result\":-5,\"method\":\"standby\",\"park_ms\":3000,"
		      "\"deadline_ns\":4521000000,\"request_ns\":1521000000,\"complete_ns\":1533000000}\n");
	/* the manual's sdc: the device had not answered when the wait ended */
	o = sdb_unconfirmed;
	snprintf(o.name, sizeof(o.name), "sdc");
	o.result = -EINPROGRESS;
	o.complete_ns = 0;
	check_outcome("park-text-not-answered", &o, false,
		      "sdc: I/O held for 3000 ms, but the device did not confirm the park: "
		      "the device has not answered the park yet; its I/O is held\n");
	check_outcome("park-json-not-answered", &o, true,
		      "{\"disk\":\"sdc\",\"devt\":\"8:16\",\"result\":-115,\"method\":\"standby\",\"park_ms\":3000,"
		      "\"deadline_ns\":4521000000,\"request_ns\":1521000000,\"complete_ns\":0}\n");
}

/* An event of @type, @cause and @seq about @disk. */
static struct hdp_monitor_event event(enum hdp_event_type type,
				      enum hdp_cause cause, uint64_t seq,
				      const struct hdp_disk *disk)
{
	struct hdp_monitor_event ev = {
		.type = type,
		.cause = cause,
		.seq = seq,
		.result = disk->last_result,
		.disk = disk,
	};

	return ev;
}

static void test_event_text(void)
{
	struct hdp_monitor_event ev;
	struct hdp_disk d;

	ev = event(HDP_EV_ADDED, HDP_CAUSE_REQUEST, 1, &sdb_idle);
	check_event("monitor-text-added", &ev, false, "[seq 1] sdb: added (request)\n");

	d = sda_parked;
	d.state = HDP_DISK_IDLE;
	ev = event(HDP_EV_CHANGED, HDP_CAUSE_REQUEST, 2, &d);
	check_event("monitor-text-changed", &ev, false,
		    "[seq 2] sda: changed (request): enabled, timeout 5000 ms, max hold 30000 ms, method auto\n");
	ev = event(HDP_EV_CHANGED, HDP_CAUSE_REQUEST, 2, &sdb_idle);
	check_event("monitor-text-changed-disabled", &ev, false,
		    "[seq 2] sdb: changed (request): disabled, timeout 5000 ms, max hold 30000 ms, method standby\n");

	ev = event(HDP_EV_PARKED, HDP_CAUSE_REQUEST, 3, &sda_parked);
	ev.park_ms = 3000;
	check_event("monitor-text-parked", &ev, false,
		    "[seq 3] sda: parked (request), unload, 3000 ms\n");
	ev.seq = 4;
	ev.renewed = true;
	check_event("monitor-text-parked-renewed", &ev, false,
		    "[seq 4] sda: parked (request), unload, 3000 ms, renewed\n");
	ev.seq = 5;
	ev.renewed = false;
	ev.cause = HDP_CAUSE_UNLOAD_HEADS;
	ev.result = -EIO;
	check_event("monitor-text-parked-not-confirmed", &ev, false,
		    "[seq 5] sda: parked (unload_heads), unload, 3000 ms, not confirmed: "
		    EIO_TEXT "\n");
	ev.renewed = true;
	check_event("monitor-text-parked-renewed-not-confirmed", &ev, false,
		    "[seq 5] sda: parked (unload_heads), unload, 3000 ms, renewed, not confirmed: "
		    EIO_TEXT "\n");

	d = sda_parked;
	d.state = HDP_DISK_IDLE;
	d.remaining_ms = 0;
	d.deadline_ns = 0;
	ev = event(HDP_EV_UNPARKED, HDP_CAUSE_TIMEOUT, 6, &d);
	check_event("monitor-text-unparked", &ev, false,
		    "[seq 6] sda: unparked (timeout)\n");
	ev = event(HDP_EV_REMOVED, HDP_CAUSE_REQUEST, 7, &d);
	check_event("monitor-text-removed", &ev, false,
		    "[seq 7] sda: removed (request)\n");
	ev = event(HDP_EV_REMOVED, HDP_CAUSE_REMOVAL, 8, &sdc_gone);
	check_event("monitor-text-removed-by-removal", &ev, false,
		    "[seq 8] sdc: removed (removal)\n");

	/* the requester that asked for a park, and one whose hold ended */
	ev = event(HDP_EV_PARKED, HDP_CAUSE_REQUEST, 3, &sda_parked);
	ev.park_ms = 3000;
	ev.holder = HDP_HOLDER_NETLINK;
	ev.holder_portid = 4021;
	check_event("monitor-text-parked-by-netlink", &ev, false,
		    "[seq 3] sda: parked (request), unload, 3000 ms, by netlink port 4021\n");
	ev.seq = 4;
	ev.renewed = true;
	check_event("monitor-text-parked-renewed-by-netlink", &ev, false,
		    "[seq 4] sda: parked (request), unload, 3000 ms, by netlink port 4021, renewed\n");
	ev.seq = 5;
	ev.renewed = false;
	ev.cause = HDP_CAUSE_UNLOAD_HEADS;
	ev.holder = HDP_HOLDER_UNLOAD_HEADS;
	ev.holder_portid = 0;
	ev.result = -EIO;
	check_event("monitor-text-parked-by-unload-heads-not-confirmed", &ev, false,
		    "[seq 5] sda: parked (unload_heads), unload, 3000 ms, by unload_heads, not confirmed: "
		    EIO_TEXT "\n");
	ev.holder = HDP_HOLDER_CONFIGFS;
	ev.result = 0;
	check_event("monitor-text-parked-by-configfs", &ev, false,
		    "[seq 5] sda: parked (unload_heads), unload, 3000 ms, by configfs\n");
	ev = event(HDP_EV_CHANGED, HDP_CAUSE_REQUEST, 6, &sda_parked);
	ev.holder = HDP_HOLDER_NETLINK;
	ev.holder_portid = 4021;
	check_event("monitor-text-changed-hold-ended", &ev, false,
		    "[seq 6] sda: changed (request): hold of netlink port 4021 ended, 1 hold left\n");
	d = sda_parked;
	d.holds = 2;
	ev = event(HDP_EV_CHANGED, HDP_CAUSE_TIMEOUT, 6, &d);
	ev.holder = HDP_HOLDER_CONFIGFS;
	check_event("monitor-text-changed-hold-of-configfs-ended", &ev, false,
		    "[seq 6] sda: changed (timeout): hold of configfs ended, 2 holds left\n");

	/* the max hold: unparked, and the cool-down that follows */
	d = sda_parked;
	d.state = HDP_DISK_IDLE;
	d.remaining_ms = 0;
	d.deadline_ns = 0;
	d.holds = 0;
	d.cooldown_ms = 10000;
	ev = event(HDP_EV_UNPARKED, HDP_CAUSE_CAP, 8, &d);
	check_event("monitor-text-unparked-by-the-cap", &ev, false,
		    "[seq 8] sda: unparked (cap), cool-down 10000 ms\n");

	/* a loss is about no disk: the disk's fields are not printed */
	ev = event(HDP_EV_LOSS, HDP_CAUSE_REQUEST, 14, &sda_parked);
	ev.lost = 3;
	check_event("monitor-text-loss", &ev, false,
		    "events lost: 3; list the disks again: hdpctl status\n");
	ev.seq = 0;
	ev.lost = 0;
	check_event("monitor-text-loss-unknown-count", &ev, false,
		    "events lost (socket overrun); list the disks again: hdpctl status\n");
	ev = event(HDP_EV_KERNEL_GONE, HDP_CAUSE_REQUEST, 0, &sda_parked);
	check_event("monitor-text-kernel-gone", &ev, false,
		    "hdprotect is gone (its module is not loaded): no disk is protected; "
		    "waiting for it\n");
	ev = event(HDP_EV_KERNEL_BACK, HDP_CAUSE_REQUEST, 0, &sda_parked);
	check_event("monitor-text-kernel-back", &ev, false,
		    "hdprotect is back; list the disks again: hdpctl status\n");
}

static void test_event_json(void)
{
	struct hdp_monitor_event ev;
	struct hdp_disk d;

	ev = event(HDP_EV_PARKED, HDP_CAUSE_REQUEST, 12, &sda_parked);
	ev.park_ms = 3000;
	check_event("monitor-json-parked", &ev, true,
		    "{\"event\":\"parked\",\"seq\":12,\"cause\":\"request\",\"result\":0,\"park_ms\":3000,"
		    "\"renewed\":false," SDA_PARKED_KEYS "}\n");
	ev.renewed = true;
	check_event("monitor-json-parked-renewed", &ev, true,
		    "{\"event\":\"parked\",\"seq\":12,\"cause\":\"request\",\"result\":0,\"park_ms\":3000,"
		    "\"renewed\":true," SDA_PARKED_KEYS "}\n");
	ev.renewed = false;
	ev.cause = HDP_CAUSE_UNLOAD_HEADS;
	ev.result = -EIO;
	check_event("monitor-json-parked-not-confirmed", &ev, true,
		    "{\"event\":\"parked\",\"seq\":12,\"cause\":\"unload_heads\",\"result\":-5,\"park_ms\":3000,"
		    "\"renewed\":false," SDA_PARKED_KEYS "}\n");

	d = sdb_idle;
	d.timeout_ms = 3000;
	d.last_result = -EIO;
	ev = event(HDP_EV_UNPARKED, HDP_CAUSE_TIMEOUT, 13, &d);
	ev.park_ms = 3000;	/* only a park's: not printed */
	ev.renewed = true;
	check_event("monitor-json-unparked", &ev, true,
		    "{\"event\":\"unparked\",\"seq\":13,\"cause\":\"timeout\",\"result\":-5,"
		    "\"disk\":\"sdb\",\"devt\":\"8:16\",\"state\":\"idle\","
		    "\"enabled\":false,\"timeout_ms\":3000,\"method\":\"standby\","
		    "\"methods\":[\"auto\",\"standby\"],"
		    "\"remaining_ms\":0,\"last_method\":\"auto\","
		    "\"last_result\":-5,\"parks\":0,\"failures\":0,"
		    "\"last_park_ns\":0,\"request_ns\":0,"
		    "\"complete_ns\":0,\"deadline_ns\":0,"
		    "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0}\n");

	ev = event(HDP_EV_ADDED, HDP_CAUSE_REQUEST, 1, &sdb_idle);
	check_event("monitor-json-added", &ev, true,
		    "{\"event\":\"added\",\"seq\":1,\"cause\":\"request\",\"result\":0,"
		    SDB_IDLE_KEYS "}\n");
	ev = event(HDP_EV_CHANGED, HDP_CAUSE_DISABLE, 2, &sdb_idle);
	check_event("monitor-json-changed", &ev, true,
		    "{\"event\":\"changed\",\"seq\":2,\"cause\":\"disable\",\"result\":0,"
		    SDB_IDLE_KEYS "}\n");
	ev = event(HDP_EV_REMOVED, HDP_CAUSE_REMOVAL, 8, &sdc_gone);
	check_event("monitor-json-removed", &ev, true,
		    "{\"event\":\"removed\",\"seq\":8,\"cause\":\"removal\",\"result\":0,"
		    SDC_GONE_KEYS "}\n");

	/* the holder, after the park's keys; its port id for a netlink socket */
	ev = event(HDP_EV_PARKED, HDP_CAUSE_REQUEST, 12, &sda_parked);
	ev.park_ms = 3000;
	ev.holder = HDP_HOLDER_NETLINK;
	ev.holder_portid = 4021;
	check_event("monitor-json-parked-holder-netlink", &ev, true,
		    "{\"event\":\"parked\",\"seq\":12,\"cause\":\"request\",\"result\":0,\"park_ms\":3000,"
		    "\"renewed\":false,\"holder\":\"netlink\",\"holder_portid\":4021,"
		    SDA_PARKED_KEYS "}\n");
	ev = event(HDP_EV_CHANGED, HDP_CAUSE_REQUEST, 13, &sda_parked);
	ev.holder = HDP_HOLDER_CONFIGFS;
	check_event("monitor-json-changed-holder-configfs", &ev, true,
		    "{\"event\":\"changed\",\"seq\":13,\"cause\":\"request\",\"result\":0,"
		    "\"holder\":\"configfs\"," SDA_PARKED_KEYS "}\n");
	ev.holder = HDP_HOLDER_UNLOAD_HEADS;
	check_event("monitor-json-changed-holder-unload-heads", &ev, true,
		    "{\"event\":\"changed\",\"seq\":13,\"cause\":\"request\",\"result\":0,"
		    "\"holder\":\"unload_heads\"," SDA_PARKED_KEYS "}\n");
	d = sdb_idle;
	d.cooldown_ms = 10000;
	ev = event(HDP_EV_UNPARKED, HDP_CAUSE_CAP, 14, &d);
	check_event("monitor-json-unparked-by-the-cap", &ev, true,
		    "{\"event\":\"unparked\",\"seq\":14,\"cause\":\"cap\",\"result\":0,"
		    "\"disk\":\"sdb\",\"devt\":\"8:16\",\"state\":\"idle\","
		    "\"enabled\":false,\"timeout_ms\":5000,\"method\":\"standby\","
		    "\"methods\":[\"auto\",\"standby\"],"
		    "\"remaining_ms\":0,\"last_method\":\"auto\","
		    "\"last_result\":0,\"parks\":0,\"failures\":0,"
		    "\"last_park_ns\":0,\"request_ns\":0,"
		    "\"complete_ns\":0,\"deadline_ns\":0,"
		    "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":10000}\n");

	ev = event(HDP_EV_LOSS, HDP_CAUSE_ERROR, 14, &sda_parked);
	ev.lost = 3;
	check_event("monitor-json-loss", &ev, true,
		    "{\"event\":\"loss\",\"seq\":14,\"lost\":3}\n");
	ev.seq = 0;
	ev.lost = 0;
	check_event("monitor-json-loss-unknown-count", &ev, true,
		    "{\"event\":\"loss\",\"seq\":0,\"lost\":0}\n");
	ev = event(HDP_EV_KERNEL_GONE, HDP_CAUSE_REQUEST, 0, &sda_parked);
	check_event("monitor-json-kernel-gone", &ev, true, "{\"event\":\"kernel-gone\"}\n");
	ev = event(HDP_EV_KERNEL_BACK, HDP_CAUSE_REQUEST, 0, &sda_parked);
	check_event("monitor-json-kernel-back", &ev, true, "{\"event\":\"kernel-back\"}\n");
}

/*
 * A quote, a backslash, control bytes (tab, 0x01, 0x1f, DEL) and UTF-8
 * (é): JSON escapes the first ones, copies UTF-8; text prints it as is.
 */
#define ODD_NAME	"a\"b\\c\t\x01\x1f\x7f" "\xc3\xa9"
#define ODD_JSON	"\"a\\\"b\\\\c\\u0009\\u0001\\u001f\\u007f\xc3\xa9\""

static void test_escaping(void)
{
	struct hdp_monitor_event ev;
	struct hdp_outcome o;
	struct hdp_disk d;
	struct capture c;

	hdpctl_json_string(capture_start(&c), ODD_NAME);
	capture_check(&c, "json-string-escapes", ODD_JSON);
	hdpctl_json_string(capture_start(&c), "");
	capture_check(&c, "json-string-empty", "\"\"");

	d = sdc_gone;
	snprintf(d.name, sizeof(d.name), "%s", ODD_NAME);
	check_disk("status-json-escapes-the-name", &d, true,
		   "{\"disk\":" ODD_JSON ",\"devt\":\"8:32\",\"state\":\"gone\","
		   "\"enabled\":false,\"timeout_ms\":3000,\"method\":\"unload\","
		   "\"methods\":[\"auto\",\"unload\"],"
		   "\"remaining_ms\":0,\"last_method\":\"unload\","
		   "\"last_result\":0,\"parks\":1,\"failures\":0,"
		   "\"last_park_ns\":412700000,\"request_ns\":1000,"
		   "\"complete_ns\":412701000,\"deadline_ns\":0,"
		   "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0}\n");
	check_disk("status-text-prints-the-name-as-is", &d, false,
		   ODD_NAME ": gone\n");

	o = sda_confirmed;
	snprintf(o.name, sizeof(o.name), "%s", ODD_NAME);
	check_outcome("park-json-escapes-the-name", &o, true,
		      "{\"disk\":" ODD_JSON ",\"devt\":\"8:0\",\"result\":0,\"method\":\"unload\",\"park_ms\":3000,"
		      "\"deadline_ns\":4520000000,\"request_ns\":1520000000,\"complete_ns\":1526300000}\n");

	ev = event(HDP_EV_REMOVED, HDP_CAUSE_REMOVAL, 8, &d);
	check_event("monitor-json-escapes-the-name", &ev, true,
		    "{\"event\":\"removed\",\"seq\":8,\"cause\":\"removal\",\"result\":0,"
		    "\"disk\":" ODD_JSON ",\"devt\":\"8:32\",\"state\":\"gone\","
		    "\"enabled\":false,\"timeout_ms\":3000,\"method\":\"unload\","
		    "\"methods\":[\"auto\",\"unload\"],"
		    "\"remaining_ms\":0,\"last_method\":\"unload\","
		    "\"last_result\":0,\"parks\":1,\"failures\":0,"
		    "\"last_park_ns\":412700000,\"request_ns\":1000,"
		    "\"complete_ns\":412701000,\"deadline_ns\":0,"
		    "\"max_hold_ms\":30000,\"holds\":0,\"cooldown_ms\":0}\n");
}

#define UNTOUCHED	12345

/* The pretty printer indents; strings, escapes and empty containers stay. */
static void test_json_pretty(void)
{
	struct capture c;

	hdpctl_json_pretty(capture_start(&c), "[{\"a\":1,\"b\":[\"x,{\\\"y\\\":]\"]},\n{\"c\":{},\"d\":[]}]");
	capture_check(&c, "json-pretty-indents-and-keeps-strings",
		      "[\n  {\n    \"a\": 1,\n    \"b\": [\n      \"x,{\\\"y\\\":]\"\n    ]\n  },\n"
		      "  {\n    \"c\": {},\n    \"d\": []\n  }\n]\n");
	hdpctl_json_pretty(capture_start(&c), "[]");
	capture_check(&c, "json-pretty-empty-array", "[]\n");
}

/* A timestamp: ISO 8601 with microseconds and the zone's offset. */
static void test_timestamp(void)
{
	struct timespec now;
	char a[64], b[64];
	unsigned int y, mo, d, h, mi, s, us, z;
	char sign;

	hdpctl_timestamp(a, sizeof(a), 0);
	result(sscanf(a, "%4u-%2u-%2uT%2u:%2u:%2u.%6u%c%4u", &y, &mo, &d, &h, &mi, &s, &us,
		      &sign, &z) == 9 && strlen(a) == 31 && (sign == '+' || sign == '-'),
	       "timestamp-is-iso-8601-with-microseconds", "got '%s'", a);
	/* an event 2 s ago is stamped 2 s before now (within 10 ms) */
	clock_gettime(CLOCK_MONOTONIC, &now);
	hdpctl_timestamp(b, sizeof(b), (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec -
				       2000000000ull);
	hdpctl_timestamp(a, sizeof(a), 0);
	result(sscanf(a + 11, "%2u:%2u:%2u.%6u", &h, &mi, &s, &us) == 4 &&
	       sscanf(b + 11, "%2u:%2u:%2u.%6u", &y, &mo, &d, &z) == 4 &&
	       llabs(((long long)(h * 3600 + mi * 60 + s) * 1000000 + us -
		      ((long long)(y * 3600 + mo * 60 + d) * 1000000 + z) + 86400000000ll) %
		     86400000000ll - 2000000) < 10000,
	       "timestamp-of-an-event-is-its-own-time", "now '%s', event '%s'", a, b);
}

static void test_parse_seconds(void)
{
	static const struct {
		const char *s;
		unsigned int ms;
	} good[] = {
		{ "1", 1000 }, { "30", 30000 }, { "2.5", 2500 },
		{ "0.001", 1 }, { "0.5", 500 }, { "2.25", 2250 },
		{ "30.000", 30000 }, { "29.999", 29999 },
		/* the kernel refuses these, and says its limit */
		{ "31", 31000 }, { "30.001", 30001 }, { "4294967.295", 4294967295u },
	};
	/* sign, exponent, spaces, 0, over u32, a bare dot, over 3 decimals */
	static const char *const bad[] = {
		"abc", "0", "-1", "1e3", "", "2.", ".5", "1.0001",
		"+1", " 1", "1 ", "0x1", "0.000", "0.0001", "1.2.3",
		"1,5", "99999999999999999999999", "4294967.296",
	};
	char name[64];
	unsigned int ms;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ms = UNTOUCHED;
		err = hdpctl_parse_seconds(good[i].s, &ms);
		snprintf(name, sizeof(name), "parse-seconds-accepts-%s", good[i].s);
		result(!err && ms == good[i].ms, name, "got %d, %u ms, want 0, %u ms",
		       err, ms, good[i].ms);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ms = UNTOUCHED;
		err = hdpctl_parse_seconds(bad[i], &ms);
		snprintf(name, sizeof(name), "parse-seconds-refuses-'%s'", bad[i]);
		result(err && ms == UNTOUCHED, name, "got %d, %u ms", err, ms);
	}
}

static void test_parse_count(void)
{
	static const struct {
		const char *s;
		unsigned long long n;
	} good[] = {
		{ "1", 1 }, { "10", 10 },
		{ "18446744073709551615", 18446744073709551615ULL },
	};
	static const char *const bad[] = {
		"0", "-1", "abc", "", "+1", " 1", "1 ", "1.0", "1e3",
		"18446744073709551616",
	};
	unsigned long long n;
	char name[64];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		n = UNTOUCHED;
		err = hdpctl_parse_count(good[i].s, &n);
		snprintf(name, sizeof(name), "parse-count-accepts-%s", good[i].s);
		result(!err && n == good[i].n, name, "got %d, %llu", err, n);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		n = UNTOUCHED;
		err = hdpctl_parse_count(bad[i], &n);
		snprintf(name, sizeof(name), "parse-count-refuses-'%s'", bad[i]);
		result(err && n == UNTOUCHED, name, "got %d, %llu", err, n);
	}
}

int main(void)
{
	setup();
	test_status_text();
	test_status_json();
	test_outcome();
	test_event_text();
	test_event_json();
	test_escaping();
	test_json_pretty();
	test_timestamp();
	test_parse_seconds();
	test_parse_count();
	return failed;
}
