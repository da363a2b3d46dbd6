/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl guard's motion detection: accelerometer samples in g, in, a
 * decision to park out. Pure: no I/O, no clock, no global state, so that
 * the tests feed it the motion corpus (tests/data/motion).
 */
#ifndef HDPCTL_DETECT_H
#define HDPCTL_DETECT_H

#include <stdbool.h>
#include <stdint.h>

/* How readily the guard parks. */
enum detect_level {
	DETECT_LOW,		/* only clear falls and hard shocks */
	DETECT_MEDIUM,		/* the default */
	DETECT_HIGH,		/* also short falls; may park in a car */
};

/* Why a sample calls for a park. */
enum detect_cause {
	DETECT_NONE,
	DETECT_FREE_FALL,	/* |a| well below 1 g for long enough */
	DETECT_SHOCK,		/* |a| far from 1 g: a jolt */
	DETECT_TILT,		/* gravity's direction turned fast: tipped over */
};

/**
 * struct detect_params - the thresholds of a level
 * @ff_g: free fall: |a| below this, in g
 * @ff_ms: ... for this long, from the first sample below
 * @shock_g: a shock: | |a| - 1 g | at least this, in g
 * @tilt_deg: a tilt: gravity's direction turned by at least this, in
 *	degrees, within DETECT_TILT_MS (the same at every level)
 */
struct detect_params {
	double ff_g;
	unsigned int ff_ms;
	double shock_g;
	double tilt_deg;
};

/* A tilt is a turn within this long. */
#define DETECT_TILT_MS		250

/* A free fall longer than this is a stuck sensor: no park (detect.c). */
#define DETECT_STUCK_MS		2000

/* The directions of gravity a tilt is measured against. */
#define DETECT_TILT_SAMPLES	64

/* One detector's state; zero it with detect_init(). */
struct detect {
	struct detect_params p;
	bool in_fall;		/* the samples since fall_start were below ff_g */
	uint64_t fall_start_ns;
	/* the last samples near 1 g: their times and unit vectors, a ring */
	uint64_t dir_ns[DETECT_TILT_SAMPLES];
	double dir[DETECT_TILT_SAMPLES][3];
	unsigned int ndir, head;
};

/* The thresholds of @level (see detect.c for why each is what it is). */
struct detect_params detect_level_params(enum detect_level level);

void detect_init(struct detect *d, enum detect_level level);

/**
 * detect_sample() - take one sample
 * @d: the detector
 * @t_ns: the sample's time (any monotonic clock), not before the last's
 * @x: acceleration along x, in g (proper acceleration: 1 g up at rest)
 * @y: along y
 * @z: along z
 *
 * Return: why this sample calls for a park, or DETECT_NONE. A free fall
 * that goes on calls for it at every sample, so that the park is renewed.
 */
enum detect_cause detect_sample(struct detect *d, uint64_t t_ns, double x,
				double y, double z);

const char *detect_cause_name(enum detect_cause cause);

#endif /* HDPCTL_DETECT_H */
