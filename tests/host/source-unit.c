// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl guard's scale learned from gravity (hdpctl/source.c), through a
 * position file of the host's own: a sensor of unknown scale is read
 * SOURCE_CALIBRATION_SAMPLES times at rest before its first sample, and
 * its mean |a| is 1 g. A machine moved while it learns (|a| spread beyond
 * SOURCE_CALIBRATION_SPREAD) starts the count again, and so does a sensor
 * that reads 0 counts; --check (SOURCE_PROBE) opens nothing it would
 * change. A scale that would give the axes a range no accelerometer has
 * is learned again. A device's name is escaped for the log. TAP lines;
 * exit 1 if any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

static int failed;
static char file[4096];

static void expect(const char *name, int cond, const char *why)
{
	if (cond) {
		printf("ok - guard-source-%s\n", name);
	} else {
		printf("not ok - guard-source-%s: %s\n", name, why);
		failed = 1;
	}
}

struct seen {
	unsigned int n;
	struct sample last;
};

static void on_sample(struct source *src, const struct sample *s, void *data)
{
	struct seen *seen = data;

	(void)src;
	seen->n++;
	seen->last = *s;
}

/* The file reads "(x,y,z)"; @src reads it @times times. */
static int feed(struct source *src, int x, int y, int z, unsigned int times,
		struct seen *seen)
{
	FILE *f;
	int ret = 0;

	f = fopen(file, "w");
	if (!f)
		return -errno;
	fprintf(f, "(%d,%d,%d)\n", x, y, z);
	fclose(f);
	while (times-- && !ret)
		ret = source_read(src, on_sample, seen);
	return ret;
}

static int open_one(struct source *src, char *why, size_t len)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return -errno;
	fputs("(0,0,0)\n", f);
	fclose(f);
	return source_open(file, 0, src, why, len);
}

int main(void)
{
	struct source src;
	struct seen seen = { 0 };
	char why[512], msg[700];
	unsigned int i;
	int ret;

	snprintf(file, sizeof(file), "%s/position", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (getenv("SOURCE_UNIT_DIR"))
		snprintf(file, sizeof(file), "%s/position", getenv("SOURCE_UNIT_DIR"));

	ret = open_one(&src, why, sizeof(why));
	expect("position-file-opens", !ret && src.kind == SOURCE_POSITION && src.fd >= 0 &&
	       !src.counts_per_g, why);
	if (ret)
		return 1;

	/* At rest, 500 counts of gravity with a count of noise. */
	for (i = 0; i < SOURCE_CALIBRATION_SAMPLES - 1; i++)
		feed(&src, (int)(i % 3) - 1, 0, 500, 1, &seen);
	snprintf(msg, sizeof(msg), "%u samples before the scale was learned", seen.n);
	expect("no-sample-while-it-learns", seen.n == 0 && !src.counts_per_g, msg);
	feed(&src, 0, 0, 500, 1, &seen);
	feed(&src, 0, 250, 0, 1, &seen);
	snprintf(msg, sizeof(msg), "scale %g, %u samples, last y %g", src.counts_per_g, seen.n,
		 seen.last.y);
	expect("rest-gives-the-scale", fabs(src.counts_per_g - 500) < 1 && seen.n == 1 &&
	       fabs(seen.last.y - 0.5) < 0.01, msg);
	source_close(&src);

	/* Moved while it learns: 500 and 800 counts, in turn. */
	ret = open_one(&src, why, sizeof(why));
	seen.n = 0;
	for (i = 0; !ret && i < 4 * SOURCE_CALIBRATION_SAMPLES; i++)
		feed(&src, 0, 0, i % 2 ? 800 : 500, 1, &seen);
	snprintf(msg, sizeof(msg), "scale %g after %u samples in motion", src.counts_per_g, i);
	expect("motion-is-not-learned", !ret && !src.counts_per_g && !seen.n, msg);
	/* Then at rest at 800: learned from those alone. */
	feed(&src, 0, 0, 800, SOURCE_CALIBRATION_SAMPLES, &seen);
	snprintf(msg, sizeof(msg), "scale %g", src.counts_per_g);
	expect("rest-after-motion-gives-the-scale", fabs(src.counts_per_g - 800) < 1, msg);
	source_close(&src);

	/* A sensor that reads 0 first, then 100 counts at rest. */
	ret = open_one(&src, why, sizeof(why));
	feed(&src, 0, 0, 0, SOURCE_CALIBRATION_SAMPLES, &seen);
	expect("zero-is-no-scale", !ret && !src.counts_per_g, "a scale of 0 counts per g");
	feed(&src, 0, 0, 100, SOURCE_CALIBRATION_SAMPLES, &seen);
	snprintf(msg, sizeof(msg), "scale %g", src.counts_per_g);
	expect("zero-then-rest-gives-the-scale", fabs(src.counts_per_g - 100) < 1, msg);
	source_close(&src);

	/*
	 * A range known (an input device's absinfo: 512 counts): a scale
	 * learned at rest that makes it +-25 g (20 counts per g) is no
	 * accelerometer's, and is learned again; 256 counts per g (+-2 g)
	 * is taken, with the range.
	 */
	ret = open_one(&src, why, sizeof(why));
	src.abs_max = 512;
	feed(&src, 0, 0, 20, SOURCE_CALIBRATION_SAMPLES, &seen);
	snprintf(msg, sizeof(msg), "scale %g, note '%s'", src.counts_per_g, src.scale_note);
	expect("scale-out-of-any-range-is-learned-again", !ret && !src.counts_per_g &&
	       strstr(src.scale_note, "learned 20.0 counts per g at rest, which would make its range +-25.60 g"),
	       msg);
	feed(&src, 0, 0, 256, SOURCE_CALIBRATION_SAMPLES, &seen);
	snprintf(msg, sizeof(msg), "scale %g, range %g, learned %d", src.counts_per_g,
		 src.full_scale_g, src.learned);
	expect("scale-in-range-is-taken-with-the-range", fabs(src.counts_per_g - 256) < 1 &&
	       fabs(src.full_scale_g - 2) < 0.01 && src.learned, msg);
	/* Learned again on demand (the guard's, after an endless shock). */
	expect("learned-scale-can-be-learned-again", source_relearn(&src) && !src.counts_per_g,
	       "not relearnt");
	seen.n = 0;
	feed(&src, 0, 0, 256, 3, &seen);
	expect("no-sample-while-it-learns-again", seen.n == 0, "samples while it learns");
	source_close(&src);

	/* A device's name, escaped: no newline, no escape, no high byte. */
	source_escape(msg, sizeof(msg), "evil\n<0>forged \033[2J\xc3\xa9 \\x0a ok", true);
	expect("name-escaped", !strcmp(msg, "evil\\x0a<0>forged \\x1b[2J\\xc3\\xa9 \\\\x0a ok"),
	       msg);
	source_escape(msg, sizeof(msg), "a\\x0a\n", false);
	expect("line-escaped-keeps-backslashes", !strcmp(msg, "a\\x0a\\x0a"), msg);
	source_escape(msg, 8, "ab\ncdef", true);
	expect("name-escape-cut-at-a-whole-escape", !strcmp(msg, "ab\\x0ac"), msg);
	source_escape(msg, 6, "abc\ndef", true);
	expect("name-escape-never-half-an-escape", !strcmp(msg, "abc"), msg);

	/* Not a position file: refused, and why names it. */
	ret = source_open("/dev/null", SOURCE_NAMED, &src, why, sizeof(why));
	snprintf(msg, sizeof(msg), "returned %d, said '%s'", ret, why);
	expect("refusal-says-why", ret == -ENOTTY && strstr(why, "/dev/null"), msg);
	ret = source_open("/nonexistent/event9", SOURCE_NAMED, &src, why, sizeof(why));
	snprintf(msg, sizeof(msg), "returned %d, said '%s'", ret, why);
	expect("missing-says-why", ret == -ENOENT && strstr(why, "/nonexistent/event9") &&
	       strstr(why, "No such file"), msg);
	unlink(file);
	return failed;
}
