// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl guard's detection (hdpctl/detect.c) over the motion corpus:
 * motion-unit TRACE... feeds each trace (tests/motion/gen's format) to a
 * detector at each level and prints TAP lines. At the default level
 * (medium) a fall must call for a park by free fall within 45 ms of its
 * start (which leaves the park command 15 ms to reach the disk within
 * the 60 ms goal), and nothing before; a trace that is no fall must call for none.
 * At low and high every fall must still be seen before it ends. A trace
 * whose CAUSE is tilt (a tip over) must call for a park by tilt within
 * 300 ms of the turn's start at every level, and nothing before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"

static int failed;

/* The first call for a park in @path at @level: its cause and time. */
static int run(const char *path, enum detect_level level, int *fall,
	       double *fall_start, double *when, enum detect_cause *cause,
	       int *tilt)
{
	char want[32];
	FILE *f = fopen(path, "r");
	char line[256];
	double t, x, y, z;
	struct detect d;
	enum detect_cause c;

	if (!f)
		return -1;
	detect_init(&d, level);
	*fall = 0;
	*fall_start = -1;
	*when = -1;
	*cause = DETECT_NONE;
	*tilt = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#') {
			if (sscanf(line, "# cause: %31s", want) == 1)
				*tilt = !strcmp(want, "tilt");
			sscanf(line, "# fall: %d", fall);
			sscanf(line, "# fall_start_s: %lf", fall_start);
			continue;
		}
		if (sscanf(line, "%lf %lf %lf %lf", &t, &x, &y, &z) != 4)
			continue;
		c = detect_sample(&d, (uint64_t)(t * 1e9 + 0.5), x, y, z);
		if (c != DETECT_NONE && *cause == DETECT_NONE) {
			*cause = c;
			*when = t;
		}
	}
	fclose(f);
	return 0;
}

static void check(const char *path, enum detect_level level, const char *lname)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	double start, when;
	enum detect_cause c;
	int fall, ok, tilt;

	if (run(path, level, &fall, &start, &when, &c, &tilt)) {
		printf("not ok - motion-%s-%s: cannot read it\n", lname, name);
		failed = 1;
		return;
	}
	if (!fall)
		ok = c == DETECT_NONE;
	else if (tilt)
		ok = c == DETECT_TILT && when >= start && when <= start + 0.300;
	else if (level == DETECT_MEDIUM)
		ok = c == DETECT_FREE_FALL && when >= start && when <= start + 0.045;
	else
		ok = c == DETECT_FREE_FALL && when >= start;
	if (ok && fall)
		printf("ok - motion-%s-%s: %s seen %.0f ms after the %s's start\n",
		       lname, name, detect_cause_name(c), (when - start) * 1000,
		       tilt ? "turn" : "fall");
	else if (ok)
		printf("ok - motion-%s-%s: no park\n", lname, name);
	else {
		printf("not ok - motion-%s-%s: %s at %.3f s (fall %d, from %.3f s)\n",
		       lname, name, detect_cause_name(c), when, fall, start);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		check(argv[i], DETECT_MEDIUM, "medium");
	for (i = 1; i < argc; i++) {
		int fall, tilt;
		double s, w;
		enum detect_cause c;

		/* low and high: only whether falls are seen */
		if (run(argv[i], DETECT_LOW, &fall, &s, &w, &c, &tilt) || !fall)
			continue;
		check(argv[i], DETECT_LOW, "low");
		check(argv[i], DETECT_HIGH, "high");
	}
	return failed;
}
