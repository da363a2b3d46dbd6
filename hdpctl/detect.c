// SPDX-License-Identifier: GPL-2.0-only
/*
 * Motion detection for hdpctl guard, in physical units.
 *
 * An accelerometer reads proper acceleration: 1 g at rest whatever the
 * laptop's attitude, 0 g in free fall. So a fall is |a| near 0 for a
 * while, whichever way the laptop turns, and needs all three axes (a
 * vertical drop leaves x and y where they were, which is why a detector
 * of x and y alone misses it).
 *
 * The thresholds, at the default level (medium):
 * - free fall below 0.5 g: a tumbling laptop's sensor, 12 cm from the
 *   centre of mass, feels 0.2 g turning at 4 rad/s; walking with it
 *   goes down to 0.65 g, putting it down to 0.8 g, lifting it to 0.8 g,
 *   and a car's pothole to 0.6 g, for a few samples at most.
 * - for 30 ms: a 10 cm drop falls for 143 ms, so it is seen after a
 *   quarter of its fall. A 100 Hz sensor's first sample below 0.5 g comes
 *   up to 10 ms into the fall (it averages the period before it), so
 *   the fall is seen 30 to 40 ms after its start, and with a park
 *   command that takes a few ms more the disk gets it within 60 ms of
 *   the fall's start; a pothole stays under 0.6 g for less than 20 ms.
 * - a shock of 2.5 g from 1 g: a floor's impact is 10 to 100 g; a knock
 *   on the table or a laptop put down firmly stay under 1 g from 1 g
 *   once the sensor's 100 Hz filter has smoothed them.
 * - a tilt of 30 degrees within 250 ms: the direction of gravity, taken
 *   from the samples whose |a| is within 0.3 g of 1 g (at rest or moved
 *   gently), turns when the machine tips over or slides off a lap or a
 *   table's edge before it falls; carried while walking it sways by 10
 *   degrees or less, and typing, a car, lifting and putting it down move
 *   it along gravity without turning it. Only the last
 *   DETECT_TILT_SAMPLES samples are compared: 250 ms of them up to 256 Hz.
 * Low waits longer (0.4 g for 60 ms; shocks of 4 g; 45 degrees): only
 * clear falls. High parks sooner (0.6 g for 20 ms; shocks of 2 g; 20
 * degrees), and may park on a rough road.
 */
#include <math.h>
#include <string.h>

#include "detect.h"

struct detect_params detect_level_params(enum detect_level level)
{
	switch (level) {
	case DETECT_LOW:
		return (struct detect_params){ .ff_g = 0.4, .ff_ms = 60, .shock_g = 4.0,
					       .tilt_deg = 45 };
	case DETECT_HIGH:
		return (struct detect_params){ .ff_g = 0.6, .ff_ms = 20, .shock_g = 2.0,
					       .tilt_deg = 20 };
	case DETECT_MEDIUM:
	default:
		return (struct detect_params){ .ff_g = 0.5, .ff_ms = 30, .shock_g = 2.5,
					       .tilt_deg = 30 };
	}
}

void detect_init(struct detect *d, enum detect_level level)
{
	d->p = detect_level_params(level);
	d->in_fall = false;
	d->fall_start_ns = 0;
	d->ndir = d->head = 0;
}

/* Gravity's direction at @t_ns turned by tilt_deg within DETECT_TILT_MS. */
static bool tilted(struct detect *d, uint64_t t_ns, double x, double y,
		   double z, double a)
{
	double u[3] = { x / a, y / a, z / a }, lim = cos(d->p.tilt_deg * M_PI / 180);
	uint64_t win = DETECT_TILT_MS * 1000000ull;
	bool turned = false;
	unsigned int i, k;

	for (i = 0; i < d->ndir; i++) {
		k = (d->head + DETECT_TILT_SAMPLES - 1 - i) % DETECT_TILT_SAMPLES;
		if (t_ns < d->dir_ns[k] || t_ns - d->dir_ns[k] > win)
			break;
		if (u[0] * d->dir[k][0] + u[1] * d->dir[k][1] + u[2] * d->dir[k][2] < lim) {
			turned = true;
			break;
		}
	}
	d->dir_ns[d->head] = t_ns;
	memcpy(d->dir[d->head], u, sizeof(u));
	d->head = (d->head + 1) % DETECT_TILT_SAMPLES;
	if (d->ndir < DETECT_TILT_SAMPLES)
		d->ndir++;
	return turned;
}

enum detect_cause detect_sample(struct detect *d, uint64_t t_ns, double x,
				double y, double z)
{
	double a = sqrt(x * x + y * y + z * z);

	if (a >= d->p.ff_g) {
		d->in_fall = false;
		if (fabs(a - 1.0) >= d->p.shock_g)
			return DETECT_SHOCK;
		if (fabs(a - 1.0) <= 0.3 && tilted(d, t_ns, x, y, z, a))
			return DETECT_TILT;
		return DETECT_NONE;
	}
	if (!d->in_fall) {
		d->in_fall = true;
		d->fall_start_ns = t_ns;
	}
	if (t_ns < d->fall_start_ns)		/* a time from before: none passed */
		return DETECT_NONE;
	/*
	 * No laptop falls for 2 s (a 20 m drop): a source that reads that
	 * long below the threshold is stuck, and must not hold the disks
	 * parked for ever.
	 */
	if (t_ns - d->fall_start_ns > DETECT_STUCK_MS * 1000000ull)
		return DETECT_NONE;
	return t_ns - d->fall_start_ns >= (uint64_t)d->p.ff_ms * 1000000 ?
	       DETECT_FREE_FALL : DETECT_NONE;
}

const char *detect_cause_name(enum detect_cause cause)
{
	switch (cause) {
	case DETECT_FREE_FALL:
		return "free fall";
	case DETECT_SHOCK:
		return "shock";
	case DETECT_TILT:
		return "tilt";
	default:
		return "none";
	}
}
