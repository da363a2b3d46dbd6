// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl guard's detection (hdpctl/detect.c) over the motion corpus:
 * motion-unit TRACE... feeds each trace (tests/motion/gen's format) to a
 * detector at each level and prints TAP lines. At the default level
 * (medium) a fall must call for a park by free fall no later than one
 * sample period (the trace's rate_hz) plus 20 ms after its start, and
 * nothing before: issue 27's item 15 gives a period plus 25 ms from the
 * fall's start to the disk (50 Hz: 45 ms, 100 Hz: 35 ms, 400 Hz: 28 ms),
 * of which 5 ms are left for the park command to reach it. The sample at
 * the fall's start still reads the hand (each sample is the mean of the
 * period before it): the first that shows the fall comes a period later.
 * A drop that spins fast as it falls (tests/motion/gen's --spin: its
 * sensor reads w^2 r, up to 0.6 g, issue 27's item 9) is seen at medium
 * by the tumbling rule instead, which must wait longer than a car's bump
 * lasts: there the park must come at least SPIN_MARGIN_S before the
 * impact (the fall lasts sqrt(2h/g), h from the generator's line).
 * A trace that is no fall must call for none. At low and high every fall
 * must still be seen (by free fall, not before its start). A trace whose
 * CAUSE is tilt (a tip over) must call for a park by tilt within 300 ms
 * of the turn's start at every level, and nothing before.
 * A trace with a "# silent: LEVEL..." header (tests/motion/physics's
 * motion from outside the detector's model) is checked only at the
 * levels it names, where it must call for no park; at the others (all of
 * them for an empty list, "# silent:": motion that every level may park)
 * a TAP comment says what the detector did.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"

/* At medium, a fall's park by free fall within a period and this. */
#define BUDGET_S	0.020

/*
 * A spinning drop's park before its impact: the park command reaches the
 * disk within a few ms, and a drive unloads its heads within 20 ms.
 */
#define SPIN_MARGIN_S	0.050

/* A "# silent:" header line was seen (with or without levels). */
#define SILENT_HEADER	(1u << 8)

static int failed;

static const char *const level_names[] = {
	[DETECT_LOW] = "low", [DETECT_MEDIUM] = "medium", [DETECT_HIGH] = "high",
};

/* What one trace is and what a detector did on it. */
struct result {
	int fall;		/* "# fall: 1" */
	int tilt;		/* "# cause: tilt" */
	double start;		/* the fall's start, s; -1 without */
	double rate;		/* "# rate_hz:", 100 without */
	unsigned int silent;	/* "# silent:": SILENT_HEADER | 1 << level... */
	double spin_fall_s;	/* a drop made with --spin: how long it falls */
	enum detect_cause cause;	/* the first call for a park */
	double when;		/* its sample's time, s; -1 without */
};

/*
 * The levels a "# silent: LEVEL..." header line names, as 1 << level,
 * with SILENT_HEADER.
 */
static unsigned int silent_levels(const char *line)
{
	char word[16];
	unsigned int mask = SILENT_HEADER, l;
	int n;

	line += strlen("# silent:");
	while (sscanf(line, "%15s%n", word, &n) == 1) {
		for (l = 0; l < sizeof(level_names) / sizeof(level_names[0]); l++)
			if (!strcmp(word, level_names[l]))
				mask |= 1u << l;
		line += n;
	}
	return mask;
}

/* The first call for a park in @path at @level, and the trace's header. */
static int run(const char *path, enum detect_level level, struct result *r)
{
	char want[32];
	FILE *f = fopen(path, "r");
	char line[512];
	double t, x, y, z, lo, hi, h;
	const char *spin;
	struct detect d;
	enum detect_cause c;

	if (!f)
		return -1;
	detect_init(&d, level);
	*r = (struct result){ .start = -1, .rate = 100, .when = -1, .cause = DETECT_NONE };
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#') {
			if (!strncmp(line, "# silent:", strlen("# silent:")))
				r->silent = silent_levels(line);
			if (sscanf(line, "# cause: %31s", want) == 1)
				r->tilt = !strcmp(want, "tilt");
			sscanf(line, "# fall: %d", &r->fall);
			sscanf(line, "# fall_start_s: %lf", &r->start);
			sscanf(line, "# rate_hz: %lf", &r->rate);
			/* the sensor's range: clipped axes are shocks */
			if (sscanf(line, "# full_scale_g: %lf %lf", &lo, &hi) == 2)
				detect_set_range(&d, -lo < hi ? -lo : hi);
			spin = strstr(line, "# generator: ") ? strstr(line, " --spin ") : NULL;
			if (spin && sscanf(strstr(line, "--height-cm "), "--height-cm %lf", &h) == 1)
				r->spin_fall_s = sqrt(2 * h / 100 / 9.80665);
			continue;
		}
		if (sscanf(line, "%lf %lf %lf %lf", &t, &x, &y, &z) != 4)
			continue;
		c = detect_sample(&d, (uint64_t)(t * 1e9 + 0.5), x, y, z);
		if (c != DETECT_NONE && r->cause == DETECT_NONE) {
			r->cause = c;
			r->when = t;
		}
	}
	fclose(f);
	if (r->rate <= 0)
		r->rate = 100;
	return 0;
}

static const char *base_name(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

static void check(const char *path, enum detect_level level)
{
	const char *name = base_name(path), *lname = level_names[level];
	/* medium: a period and BUDGET_S (1 us for the times' rounding) */
	double budget, late;
	struct result r;
	int ok;

	if (run(path, level, &r)) {
		printf("not ok - motion-%s-%s: cannot read it\n", lname, name);
		failed = 1;
		return;
	}
	budget = r.spin_fall_s > 0 ? r.spin_fall_s - SPIN_MARGIN_S : 1 / r.rate + BUDGET_S;
	late = (r.when - r.start) * 1000;
	if (!r.fall)
		ok = r.cause == DETECT_NONE;
	else if (r.tilt)
		ok = r.cause == DETECT_TILT && r.when >= r.start && r.when <= r.start + 0.300;
	else if (level == DETECT_MEDIUM && r.spin_fall_s > 0)
		ok = r.cause == DETECT_FREE_FALL && r.when >= r.start &&
		     r.when <= r.start + r.spin_fall_s - SPIN_MARGIN_S + 1e-6;
	else if (level == DETECT_MEDIUM)
		ok = r.cause == DETECT_FREE_FALL && r.when >= r.start &&
		     r.when <= r.start + budget + 1e-6;
	else
		ok = r.cause == DETECT_FREE_FALL && r.when >= r.start;
	if (ok && r.fall && !r.tilt && level == DETECT_MEDIUM)
		printf("ok - motion-%s-%s: %s seen %.1f ms after the fall's start "
		       "(at most %.1f: %s)\n", lname, name, detect_cause_name(r.cause),
		       late, budget * 1000, r.spin_fall_s > 0 ? "spinning, 50 ms before the impact" :
		       r.rate == 50 ? "50 Hz" : r.rate == 400 ? "400 Hz" : "100 Hz");
	else if (ok && r.fall)
		printf("ok - motion-%s-%s: %s seen %.1f ms after the %s's start\n",
		       lname, name, detect_cause_name(r.cause), late,
		       r.tilt ? "turn" : "fall");
	else if (ok)
		printf("ok - motion-%s-%s: no park\n", lname, name);
	else if (r.fall && r.cause != DETECT_NONE && !r.tilt && level == DETECT_MEDIUM)
		printf("not ok - motion-%s-%s: %s %.1f ms after the fall's start "
		       "(at %.4f s), at most %.1f (%g Hz)\n", lname, name,
		       detect_cause_name(r.cause), late, r.when, budget * 1000, r.rate);
	else if (r.fall && r.cause != DETECT_NONE)
		printf("not ok - motion-%s-%s: %s %.1f ms after the %s's start (at %.4f s)\n",
		       lname, name, detect_cause_name(r.cause), late,
		       r.tilt ? "turn" : "fall", r.when);
	else if (r.fall)
		printf("not ok - motion-%s-%s: not seen (the %s from %.3f s)\n", lname, name,
		       r.tilt ? "turn" : "fall", r.start);
	else
		printf("not ok - motion-%s-%s: %s at %.4f s, and it is no fall\n", lname, name,
		       detect_cause_name(r.cause), r.when);
	if (!ok)
		failed = 1;
}

/*
 * A trace with a "# silent:" header at @level: no park where it names
 * @level; elsewhere only a comment of what the detector did.
 */
static void check_silent(const char *path, enum detect_level level)
{
	const char *name = base_name(path), *lname = level_names[level];
	struct result r;

	if (run(path, level, &r)) {
		printf("not ok - motion-%s-%s: cannot read it\n", lname, name);
		failed = 1;
	} else if (!(r.silent & (1u << level)) && r.cause == DETECT_NONE)
		printf("# motion-%s-%s: may park, no park\n", lname, name);
	else if (!(r.silent & (1u << level)))
		printf("# motion-%s-%s: may park, %s at %.4f s\n", lname, name,
		       detect_cause_name(r.cause), r.when);
	else if (r.cause == DETECT_NONE)
		printf("ok - motion-%s-%s: no park (silent at %s)\n", lname, name, lname);
	else {
		printf("not ok - motion-%s-%s: %s at %.4f s, where the trace is silent\n",
		       lname, name, detect_cause_name(r.cause), r.when);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	struct result *r = calloc(argc, sizeof(*r));
	int i;

	if (!r)
		return 1;
	for (i = 1; i < argc; i++) {
		if (run(argv[i], DETECT_MEDIUM, &r[i]))
			r[i].silent = 0;
		if (r[i].silent)
			check_silent(argv[i], DETECT_MEDIUM);
		else
			check(argv[i], DETECT_MEDIUM);
	}
	for (i = 1; i < argc; i++) {
		if (r[i].silent) {
			check_silent(argv[i], DETECT_LOW);
			check_silent(argv[i], DETECT_HIGH);
			continue;
		}
		/* low and high: only whether falls are seen */
		if (!r[i].fall)
			continue;
		check(argv[i], DETECT_LOW);
		check(argv[i], DETECT_HIGH);
	}
	free(r);
	return failed;
}
