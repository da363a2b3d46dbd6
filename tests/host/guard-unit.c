// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl guard's configuration parser (hdpctl/conf.c): every key, the
 * defaults, "auto", comments, and each error: the message names the file,
 * the line and what is allowed, and the configuration in force is left as
 * it was. TAP lines; exit 1 if any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

static int failed;

static void expect(const char *name, int cond, const char *why)
{
	if (cond) {
		printf("ok - guard-conf-%s\n", name);
	} else {
		printf("not ok - guard-conf-%s: %s\n", name, why);
		failed = 1;
	}
}

/* Parse @text into @c; the return value, and the message in @err. */
static int parse(const char *text, struct guard_conf *c, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	*err = '\0';
	ret = conf_parse(f, "test.conf", c, err, len);
	fclose(f);
	return ret;
}

static void bad(const char *name, const char *text, const char *want)
{
	struct guard_conf c;
	char err[512], why[700];
	int ret;

	conf_defaults(&c);
	c.timeout_ms = 1234;
	ret = parse(text, &c, err, sizeof(err));
	snprintf(why, sizeof(why), "returned %d, said '%s', timeout now %u", ret, err,
		 c.timeout_ms);
	expect(name, ret == -EINVAL && strstr(err, want) && c.timeout_ms == 1234, why);
	conf_free(&c);
}

int main(void)
{
	struct guard_conf c;
	char err[512], why[700];
	int ret;

	conf_defaults(&c);
	ret = parse("", &c, err, sizeof(err));
	expect("empty-is-the-defaults",
	       !ret && !c.disks && !c.sources && c.timeout_ms == 2000 &&
	       c.method == HDP_PARK_AUTO && c.level == DETECT_MEDIUM, err);

	ret = parse("# a comment\n\n  disks = /dev/disk/by-id/ata-X   wwn-0x5000 # two\n"
		    "timeout=0.5\nmethod = standby\nsensitivity = high\r\n"
		    "sources = /dev/input/event3 iio:device0\n", &c, err, sizeof(err));
	snprintf(why, sizeof(why), "%d %s: %s %s %s %u %d %d", ret, err,
		 c.disks && c.disks[0] ? c.disks[0] : "-",
		 c.disks && c.disks[1] ? c.disks[1] : "-",
		 c.sources && c.sources[1] ? c.sources[1] : "-", c.timeout_ms, c.method, c.level);
	expect("every-key", !ret && c.disks && !strcmp(c.disks[0], "/dev/disk/by-id/ata-X") &&
	       !strcmp(c.disks[1], "wwn-0x5000") && !c.disks[2] && c.timeout_ms == 500 &&
	       c.method == HDP_PARK_STANDBY && c.level == DETECT_HIGH && c.sources &&
	       !strcmp(c.sources[0], "/dev/input/event3") &&
	       !strcmp(c.sources[1], "iio:device0") && !c.sources[2], why);

	ret = parse("disks = sda\ndisks = auto\nsources = auto\ntimeout = 3\ntimeout = 4\n",
		    &c, err, sizeof(err));
	expect("auto-and-the-last-value", !ret && !c.disks && !c.sources && c.timeout_ms == 4000,
	       err);
	ret = parse("timeout = 0.5\n", &c, err, sizeof(err));
	expect("timeout-least", !ret && c.timeout_ms == 500, err);
	ret = parse("timeout = 30\nsources = iio:device12 /dev/freefall\n"
		    "disks = /a /b /c /d /e /f /g /h /i /j /k /l /m /n /o /p /q\n", &c, err, sizeof(err));
	expect("timeout-most-and-names", !ret && c.timeout_ms == 30000 && c.sources &&
	       !strcmp(c.sources[0], "iio:device12") && c.disks && c.disks[16], err);
	conf_free(&c);

	bad("unknown-key", "timeout = 1\ndisk = sda\n", "test.conf, line 2: unknown key 'disk'");
	bad("no-equals", "sensitivity high\n", "test.conf, line 1: 'sensitivity high' is not 'key = value'");
	bad("no-value", "method =\n", "line 1: method has no value");
	bad("timeout-not-seconds", "timeout = 2s\n", "line 1: timeout '2s' is not a number of seconds");
	bad("timeout-zero", "timeout = 0\n", "timeout '0' is out of range: 0.5 to 30 seconds");
	bad("timeout-four-decimals", "timeout = 0.0005\n", "timeout '0.0005' is not a number");
	bad("timeout-shorter-than-a-fall", "timeout = 0.001\n",
	    "line 1: timeout '0.001' is out of range: 0.5 to 30 seconds (a park must outlast a 1 m fall");
	bad("timeout-0.499", "timeout = 0.499\n", "timeout '0.499' is out of range");
	bad("timeout-past-the-kernels-limit", "timeout = 45\n",
	    "line 1: timeout '45' is out of range: 0.5 to 30 seconds");
	bad("timeout-30.001", "timeout = 30.001\n", "timeout '30.001' is out of range");
	bad("timeout-overflows", "timeout = 99999999999\n", "timeout '99999999999' is out of range");
	bad("auto-beside-names", "disks = sda auto\n",
	    "line 1: disks: 'auto' is not alone: 'auto' or names, not both");
	bad("disk-relative-path", "disks = disk/by-id/x\n",
	    "disks: 'disk/by-id/x' is neither a name from /sys/block nor an absolute path");
	bad("disk-name-too-long", "disks = sdaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "is too long for a disk's name");
	bad("source-relative", "sources = event3\n",
	    "sources: 'event3' is neither an absolute path nor an IIO device's name (iio:deviceN)");
	bad("source-iio-not-a-number", "sources = iio:device0x\n",
	    "sources: 'iio:device0x' is not an IIO device's name (iio:deviceN)");
	bad("source-iio-no-number", "sources = iio:device\n", "is not an IIO device's name");
	bad("seventeen-sources",
	    "sources = /a /b /c /d /e /f /g /h /i /j /k /l /m /n /o /p /q\n",
	    "sources: '/q' is one too many (at most 16 sources)");
	bad("control-character", "method = unload\033[2J\n",
	    "line 1: method: its value holds a control character (byte 27)");
	bad("method-unknown", "method = eject\n", "method 'eject' is not auto, unload or standby");
	bad("sensitivity-unknown", "sensitivity = 11\n",
	    "sensitivity '11' is not low, medium or high");
	bad("error-after-good-lines-changes-nothing", "timeout = 9\nmethod = eject\n",
	    "line 2:");

	conf_defaults(&c);
	ret = conf_load("/nonexistent/hdprotect.conf", &c, err, sizeof(err));
	expect("named-file-missing-is-an-error",
	       ret == -ENOENT && strstr(err, "cannot read /nonexistent/hdprotect.conf"), err);
	conf_free(&c);
	return failed;
}
