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
 * The rules, at the default level (medium), and the physics behind them:
 * - free fall: |a| below 0.4 g for 20 ms. To read less than 0.4 g the
 *   laptop must accelerate downwards at 0.6 g (5.9 m/s^2) or more: faster
 *   than a hand lowers it (putting it down lightens it by about 0.15 g),
 *   than a walker's trunk moves (vertical accelerations of +-0.3 g at the
 *   step frequency, Winter's gait data), than a car's body over a road
 *   (ISO 2631-1 calls 2 m/s^2 rms "extremely uncomfortable"). A knock or
 *   a keystroke is a pulse of 5 to 10 ms (a sensor's own filter spreads
 *   it over one sample or two); 20 ms is longer than both. Falls last
 *   longer: a 5 cm drop 101 ms, a 76 cm desk's 394 ms (t = sqrt(2h/g)).
 *   The first sample below counts for the period it averages (a sensor's
 *   sample is the mean of the time before it, up to DETECT_CREDIT_MS),
 *   so that a fall is seen within one sample period plus 20 ms of its
 *   start at any rate: at 50 Hz, the first sample below may well be the
 *   decision. The laptop in a jogger's backpack is in free fall for
 *   100 ms and more each stride, and is parked at every level: nothing
 *   in |a| tells it from a short drop, and parked is the safe answer.
 * - a tumbling fall: |a| below DETECT_SLOW_G (0.7 g) for 150 ms. A
 *   laptop that spins as it falls reads the centripetal acceleration of
 *   its sensor, w^2 r: 0.6 g at 7 rad/s 12 cm from the centre of mass,
 *   so it may never read below 0.4 g. To stay below 0.7 g for 150 ms its
 *   support must drop away at 0.3 g or more for that long, 3.3 cm below
 *   where a resting one would be (d = a t^2 / 2): more than a car's body
 *   sinks over a bump or a hand lowers a laptop, less than a 30 cm drop
 *   (247 ms) gives. One sample at or above the threshold does not end
 *   the count (DETECT_BLIP_MS): a tumbling sensor's |a| wavers. (The
 *   free-fall rule ends at the first sample above: a car's bump hovers
 *   about 0.4 g, and passing such samples would join its dips.)
 * - a shock of 2.5 g from 1 g: a floor's impact is 10 to 100 g; a hand
 *   that puts a laptop down firmly, or a knock on its table, stays under
 *   1 g from 1 g once a sensor's filter at 100 Hz or less has smoothed
 *   it; a jogger's foot strike reaches 2 to 3 g (ground reaction forces,
 *   Cavanagh and Lafortune). On a sensor of a smaller range the threshold
 *   is 80% of its range above 1 g, and an axis at its full scale is a
 *   shock (detect_set_range()): a +-2 g sensor clips every impact.
 * - a tilt of 30 degrees within 250 ms: the direction of gravity, taken
 *   from the samples whose |a| is within 0.3 g of 1 g (at rest or moved
 *   gently), turns when the machine tips over or slides off a lap or a
 *   table's edge before it falls; carried while walking it sways by 10
 *   degrees or less, and typing, lifting and putting it down move it
 *   along gravity without turning it. Only the last DETECT_TILT_SAMPLES
 *   samples are compared: 250 ms of them up to 256 Hz.
 * Low waits longer (0.4 g for 60 ms, below 0.7 g for 200 ms; shocks of
 * 4 g; 45 degrees): only clear falls. High parks sooner (0.5 g for 20 ms,
 * below 0.7 g for 100 ms; shocks of 2 g; 20 degrees), and may park in a
 * car over a bump or a bus on cobblestones.
 */
#include <math.h>
#include <string.h>

#include "detect.h"

struct detect_params detect_level_params(enum detect_level level)
{
	switch (level) {
	case DETECT_LOW:
		return (struct detect_params){ .ff_g = 0.4, .ff_ms = 60, .slow_ms = 200,
					       .shock_g = 4.0, .tilt_deg = 45 };
	case DETECT_HIGH:
		return (struct detect_params){ .ff_g = 0.5, .ff_ms = 20, .slow_ms = 100,
					       .shock_g = 2.0, .tilt_deg = 20 };
	case DETECT_MEDIUM:
	default:
		return (struct detect_params){ .ff_g = 0.4, .ff_ms = 20, .slow_ms = 150,
					       .shock_g = 2.5, .tilt_deg = 30 };
	}
}

/*
 * Forget the motion so far: falls and turns (not a shock that goes on, a
 * fault, the thresholds, the range).
 */
static void detect_restart(struct detect *d)
{
	d->in_fall = false;
	d->fall_start_ns = 0;
	d->fast = d->slow = (struct detect_run){ 0 };
	d->ndir = d->head = 0;
}

void detect_init(struct detect *d, enum detect_level level)
{
	d->p = detect_level_params(level);
	d->full_scale_g = 0;
	d->shock_g = d->p.shock_g;
	d->fault = DETECT_FAULT_NONE;
	d->ok_on = d->have_last = false;
	d->ok_since_ns = d->last_ns = d->last_real_ns = 0;
	d->period_ns = d->gap_min_ns = 0;
	d->gap_n = 0;
	d->in_shock = d->repeated = false;
	d->shock_start_ns = 0;
	detect_restart(d);
}

void detect_set_range(struct detect *d, double full_scale_g)
{
	d->full_scale_g = full_scale_g > 1 ? full_scale_g : 0;
	d->shock_g = d->p.shock_g;
	if (d->full_scale_g && 0.8 * (d->full_scale_g - 1) < d->shock_g)
		d->shock_g = 0.8 * (d->full_scale_g - 1);
}

/* An axis at the sensor's full scale (2% short of it: noise, rounding). */
static bool clipped(const struct detect *d, double x, double y, double z)
{
	double lim = d->full_scale_g * 0.98;

	return d->full_scale_g && (fabs(x) >= lim || fabs(y) >= lim || fabs(z) >= lim);
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

/*
 * One sample of |a| @a at @t_ns for a run below @thr; @credit_ns: the
 * period the sample averages (the time since the last, up to one and a
 * half of the sensor's periods), counted into a new run; @blips: whether
 * samples at or above @thr may leave the run on for DETECT_BLIP_MS.
 * The samples above are timed the same way, from the time their first
 * averages: two that came a few milliseconds late (a guest, a busy bus)
 * cover as much as two on time. A @repeated sample (the last again, of a
 * sensor that sends nothing while it reads the same) is no new sample,
 * but a sensor that stays above for DETECT_BLIP_MS ends the run.
 * How long a free-fall run has lasted is the time since its start: a
 * sensor in free fall reads the same, and sends nothing (an input
 * device), so repeated samples count. A tumbling run's is what its own
 * samples stand for: the first its credit, each other @held_ns, the
 * time since the last up to DETECT_CREDIT_MS. A tumbling sensor's
 * reading turns all the time, so a silence is a sensor or a system held
 * up (a guest stalled for 100 ms in a bus's dip, then its samples at
 * once), not a longer fall.
 * Return: how long the run has lasted, or -1 if it is off.
 */
static int64_t run_sample(struct detect_run *r, double thr, double a, uint64_t t_ns,
			  uint64_t credit_ns, uint64_t held_ns, bool blips, bool repeated)
{
	if (a < thr) {
		if (!r->on) {
			r->on = true;
			r->start_ns = t_ns > credit_ns ? t_ns - credit_ns : 0;
			r->len_ns = credit_ns;
			held_ns = 0;
		}
		r->above = 0;
	} else if (r->on) {
		if (!r->above)
			r->above_ns = t_ns > credit_ns ? t_ns - credit_ns : 0;
		if (!repeated || !r->above)
			r->above++;
		if (!blips || ((r->above >= 2 || repeated) &&
			       t_ns - r->above_ns > DETECT_BLIP_MS * 1000000ull))
			r->on = false;
	}
	if (!r->on)
		return -1;
	if (!repeated)
		r->len_ns += held_ns;
	return blips ? (int64_t)r->len_ns : (int64_t)(t_ns - r->start_ns);
}

enum detect_cause detect_sample(struct detect *d, uint64_t t_ns, double x,
				double y, double z)
{
	double a = sqrt(x * x + y * y + z * z);
	uint64_t credit = 0, held = 0, gap, real;
	int64_t fast, slow;
	bool fell;

	/*
	 * A sample a little before the last (a sample repeated on the
	 * guard's clock, then one the kernel timed before it) is at the
	 * last's time; one far before, or a second and more after it (a
	 * suspend: the guard's clock is CLOCK_BOOTTIME; a sensor that
	 * stopped; a guard held up) starts the motion afresh, as hdapsd does
	 * after a second without samples. A fault stays: an input device
	 * sends nothing while its values stay the same.
	 */
	if (d->have_last && t_ns < d->last_ns && d->last_ns - t_ns <= DETECT_BACK_MS * 1000000ull)
		t_ns = d->last_ns;
	if (d->have_last && (t_ns < d->last_ns || t_ns - d->last_ns > DETECT_GAP_MS * 1000000ull)) {
		detect_restart(d);
		d->have_last = false;
	}
	/*
	 * The first sample of a run counts for the period it averages: the
	 * time since the last, but not a silence before it (an input device
	 * sends only what changed), and 20 ms at most.
	 */
	if (d->have_last) {
		gap = t_ns - d->last_ns;
		/* the sensor's own gaps: not to or from a repeat */
		real = d->last_real_ns == d->last_ns && !d->repeated ? gap : 0;
		if (real && (!d->gap_n || real < d->gap_min_ns))
			d->gap_min_ns = real;
		if (real && (!d->period_ns || real < d->period_ns))
			d->period_ns = real;
		if (real && ++d->gap_n == 64) {
			d->period_ns = d->gap_min_ns;
			d->gap_n = 0;
		}
		/*
		 * The gap itself, unless it is longer than one and a half
		 * periods (a silence): samples come with some jitter, and
		 * the shortest gap of a window is below the true period.
		 */
		credit = gap < d->period_ns * 3 / 2 ? gap : d->period_ns * 3 / 2;
		/*
		 * What it stands for in a tumbling run: the time since the
		 * sensor's last (not the guard's repeat in between), up to
		 * DETECT_CREDIT_MS; no period estimate, which samples that
		 * came bunched make short.
		 */
		held = d->last_real_ns && t_ns > d->last_real_ns ? t_ns - d->last_real_ns : 0;
	}
	if (!d->repeated)
		d->last_real_ns = t_ns;
	if (credit > DETECT_CREDIT_MS * 1000000ull)
		credit = DETECT_CREDIT_MS * 1000000ull;
	if (held > DETECT_CREDIT_MS * 1000000ull)
		held = DETECT_CREDIT_MS * 1000000ull;
	d->have_last = true;
	d->last_ns = t_ns;
	/* A fault ends once the sensor reads near 1 g for long enough. */
	if (fabs(a - 1.0) > 0.3) {
		d->ok_on = false;
	} else if (!d->ok_on) {
		d->ok_on = true;
		d->ok_since_ns = t_ns;
	}
	if (d->fault && d->ok_on && t_ns - d->ok_since_ns >= DETECT_FAULT_CLEAR_MS * 1000000ull)
		d->fault = DETECT_FAULT_NONE;
	/*
	 * Only the tumbling rule lets a sample above its threshold pass: a
	 * free fall reads near 0 g throughout, while a car's bump hovers
	 * about 0.4 g, where letting samples pass would join its dips.
	 */
	fast = run_sample(&d->fast, d->p.ff_g, a, t_ns, credit, held, false, d->repeated);
	slow = run_sample(&d->slow, DETECT_SLOW_G, a, t_ns, credit, held, true, d->repeated);
	d->in_fall = d->fast.on || d->slow.on;
	if (d->in_fall)
		d->fall_start_ns = d->fast.on && (!d->slow.on || d->fast.start_ns < d->slow.start_ns) ?
				   d->fast.start_ns : d->slow.start_ns;
	fell = (fast >= 0 && fast >= (int64_t)d->p.ff_ms * 1000000) ||
	       (slow >= 0 && slow >= (int64_t)d->p.slow_ms * 1000000);
	/*
	 * No laptop falls for 2 s (a 20 m drop): a source that reads that
	 * long below the threshold is stuck, and must not hold the disks
	 * parked for ever.
	 */
	if (d->in_fall && t_ns - d->fall_start_ns > DETECT_STUCK_MS * 1000000ull)
		d->fault = DETECT_FAULT_FALL;
	if (a >= d->p.ff_g && (fabs(a - 1.0) >= d->shock_g || clipped(d, x, y, z))) {
		if (!d->in_shock) {
			d->in_shock = true;
			d->shock_start_ns = t_ns;
		}
		/*
		 * An impact lasts milliseconds, a fall's bounces well under a
		 * second: "shaken" for longer is a sensor that reads wrong (a
		 * scale learned from a bad rest, a stuck axis), which must
		 * not hold the disks.
		 */
		if (t_ns - d->shock_start_ns > DETECT_SHOCK_MAX_MS * 1000000ull)
			d->fault = DETECT_FAULT_SHOCK;
		return d->fault ? DETECT_NONE : DETECT_SHOCK;
	}
	d->in_shock = false;
	if (d->fault)
		return DETECT_NONE;
	if (fell)
		return DETECT_FREE_FALL;
	if (fabs(a - 1.0) <= 0.3 && tilted(d, t_ns, x, y, z, a))
		return DETECT_TILT;
	return DETECT_NONE;
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
