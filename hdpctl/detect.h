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
	DETECT_FREE_FALL,	/* |a| well below 1 g for long enough, or
				 * below 0.7 g for longer (tumbling) */
	DETECT_SHOCK,		/* |a| far from 1 g: a jolt */
	DETECT_TILT,		/* gravity's direction turned fast: tipped over */
};

/**
 * struct detect_params - the thresholds of a level
 * @ff_g: free fall: |a| below this, in g
 * @ff_ms: ... for this long (the first sample below counts for the
 *	period it averages)
 * @slow_ms: a tumbling fall: |a| below DETECT_SLOW_G for this long
 * @shock_g: a shock: | |a| - 1 g | at least this, in g
 * @tilt_deg: a tilt: gravity's direction turned by at least this, in
 *	degrees, within DETECT_TILT_MS (the same at every level)
 */
struct detect_params {
	double ff_g;
	unsigned int ff_ms;
	unsigned int slow_ms;
	double shock_g;
	double tilt_deg;
};

/* A tumbling fall reads up to 0.6 g: its rule's threshold (detect.c). */
#define DETECT_SLOW_G		0.7

/*
 * A run below a threshold ends at two samples in a row at or above it
 * that stand for more than this long (from the time the first averages,
 * see run_sample()): one sample of a tumbling fall above it does not
 * start the count again; at 400 Hz, about four do not.
 */
#define DETECT_BLIP_MS		10

/* The first sample of a run counts for its period, up to this long. */
#define DETECT_CREDIT_MS	20

/* A run of samples below a threshold. */
struct detect_run {
	bool on;
	uint64_t start_ns;	/* its start, the first sample's period included */
	unsigned int above;	/* samples in a row at or above, since */
	uint64_t above_ns;	/* the time the first of them averages from */
	uint64_t len_ns;	/* the time its own samples stand for */
};

/* A tilt is a turn within this long. */
#define DETECT_TILT_MS		250

/* A free fall longer than this is a stuck sensor: no park (detect.c). */
#define DETECT_STUCK_MS		2000

/* A shock longer than this is a broken or mis-scaled sensor (detect.c). */
#define DETECT_SHOCK_MAX_MS	500

/*
 * Samples further apart than this start the motion afresh (a suspend, a
 * stall); a fault stays. A time up to DETECT_BACK_MS before the last is
 * taken as no time passed (two clocks' samples met); further back, the
 * motion starts afresh too.
 */
#define DETECT_GAP_MS		1000
#define DETECT_BACK_MS		100

/* A fault ends after this long of samples within 0.3 g of 1 g. */
#define DETECT_FAULT_CLEAR_MS	500

/*
 * What the detector finds wrong with the sensor, not with the motion:
 * while it lasts, the sensor calls for no park.
 */
enum detect_fault {
	DETECT_FAULT_NONE,
	DETECT_FAULT_FALL,	/* "falling" for longer than DETECT_STUCK_MS */
	DETECT_FAULT_SHOCK,	/* a "shock" for longer than DETECT_SHOCK_MAX_MS */
};

/* The directions of gravity a tilt is measured against. */
#define DETECT_TILT_SAMPLES	64

/* One detector's state; zero it with detect_init(). */
struct detect {
	struct detect_params p;
	double full_scale_g;	/* the sensor's range, 0 if unknown */
	double shock_g;		/* p.shock_g, or less for a small range */
	enum detect_fault fault;
	bool ok_on;		/* the samples since ok_since_ns were near 1 g */
	uint64_t ok_since_ns;
	bool have_last;
	uint64_t last_ns;	/* the last sample's time */
	uint64_t last_real_ns;	/* the last not repeated */
	/* the sensor's period: the shortest gap of the last whole window */
	uint64_t period_ns, gap_min_ns;
	unsigned int gap_n;
	bool in_fall;		/* either run is on */
	uint64_t fall_start_ns;	/* the earlier run's start */
	struct detect_run fast, slow;
	/*
	 * Set by the caller for a sample it repeats on its own clock (the
	 * last one again, while a fall goes on): its gap is not the
	 * sensor's, and does not count in the period.
	 */
	bool repeated;
	bool in_shock;		/* the samples since shock_start were shocks */
	uint64_t shock_start_ns;
	/* the last samples near 1 g: their times and unit vectors, a ring */
	uint64_t dir_ns[DETECT_TILT_SAMPLES];
	double dir[DETECT_TILT_SAMPLES][3];
	unsigned int ndir, head;
};

/* The thresholds of @level (see detect.c for why each is what it is). */
struct detect_params detect_level_params(enum detect_level level);

void detect_init(struct detect *d, enum detect_level level);

/**
 * detect_set_range() - the sensor's full scale
 * @d: the detector
 * @full_scale_g: the largest value an axis can read, in g (2 for a
 *	+-2 g sensor); 0 if unknown
 *
 * An axis at its full scale is a shock: the sensor clipped what it felt.
 * The shock threshold is at most 80% of the range above 1 g, so that a
 * +-2 g sensor can see one at all (detect.c).
 */
void detect_set_range(struct detect *d, double full_scale_g);

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
 * A sample more than DETECT_GAP_MS after the one before starts the motion
 * afresh (no fall, shock run or tilt before it counts). @d->fault says
 * whether the sensor itself looks wrong; while it does, no sample calls
 * for a park, and it lasts until DETECT_FAULT_CLEAR_MS of samples near
 * 1 g, whatever the gaps between them.
 */
enum detect_cause detect_sample(struct detect *d, uint64_t t_ns, double x,
				double y, double z);

const char *detect_cause_name(enum detect_cause cause);

#endif /* HDPCTL_DETECT_H */
