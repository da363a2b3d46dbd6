/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl guard's accelerometers: finding them, and reading their samples
 * in g. Four kinds (hdpctl(8), SOURCES): input event devices, IIO
 * accelerometers, /dev/freefall, and the position files of hdaps,
 * lis3lv02d and applesmc. Each source has one file descriptor to wait on;
 * source_read() turns what is ready into samples.
 */
#ifndef HDPCTL_SOURCE_H
#define HDPCTL_SOURCE_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "detect.h"

enum source_kind {
	SOURCE_EVDEV,		/* /dev/input/eventN */
	SOURCE_IIO,		/* /sys/bus/iio/devices/iio:deviceN, raw files */
	SOURCE_IIO_BUFFER,	/* the same, its buffer (/dev/iio:deviceN) */
	SOURCE_FREEFALL,	/* /dev/freefall: the hardware's decision */
	SOURCE_POSITION,	/* a driver's position file, polled */
};

/* Samples to take for a scale from gravity, at rest. */
#define SOURCE_CALIBRATION_SAMPLES	32
/*
 * At rest: their |a| within 10% of the mean of each other (sensor noise is
 * a few percent of 1 g; a hand that moves the laptop is more).
 */
#define SOURCE_CALIBRATION_SPREAD	0.10

/* source_open()'s flags */
#define SOURCE_NAMED	1	/* the configuration names it */
#define SOURCE_PROBE	2	/* --check: open nothing, change nothing */
#define SOURCE_NO_BUFFER 4	/* an IIO device: its raw files, not its buffer */

#define SOURCE_IIO_SAVED	48

/**
 * struct source - one accelerometer
 * @kind: what it is
 * @flags: source_open()'s
 * @path: what it was opened as (device node or sysfs file/directory)
 * @name: the device's own name
 * @fd: what to wait on (the device, or a timer for the polled kinds)
 * @data_fd: the file read for a polled kind, else -1
 * @counts_per_g: the scale; 0 while it is being learned from gravity
 * @raw: the last value of each axis, in counts
 * @cal_sum: sum of |a| in counts of the calibration samples
 * @cal_min: the least |a| among them
 * @cal_max: the greatest
 * @cal_n: how many were taken
 * @det: this source's detector
 * @last: its last sample, in g
 * @poll_ns: a polled kind's period
 * @read_ns: how long its read took when the period last grew
 * @slow_reads: reads in a row that took more than half of it
 * @fast_reads: reads in a row that took less than an eighth
 * @slowed: the period changed (the guard says so, and clears it)
 * @poll_was_ms: a polled input device's interval before the guard set
 *	SOURCE_POLL_MS (0: not changed)
 * @scan: where each axis and the timestamp are in a buffer's record
 * @record: a record's size
 * @rate_t0: the time of a buffer's first sample
 * @rate_n: how many samples since (its rate, told once after a second)
 * @rate_told: whether it was
 * @scale_learned: @counts_per_g is learned from gravity (it may be
 *	learned again: source_relearn())
 * @stamp_on_read: an input device whose events cannot be timed on
 *	SOURCE_CLOCK: timed as they are read
 * @learned: a scale was just learned (the guard says so, and clears it)
 * @scale_note: why a learned scale was thrown away (the guard says so,
 *	and empties it)
 * @abs_max: the largest count an axis can read (its range), 0 if unknown
 * @full_scale_g: the same in g, 0 while unknown
 * @last_event_ns: the time of its last sample (of the device's own)
 * @interval_ns: the shortest time between two of its samples lately:
 *	its rate, for an input device that sends only what changed
 * @gap_min: the shortest gap of the window being measured
 * @gap_n: how many gaps it has
 * @hold: what its calls for parks cost lately (the guard's limit): the
 *	park time they bought (@bucket_ns), when it last drained, its last
 *	call, its last call or call not done (@last_seen_ns), set aside (its
 *	samples ignored) until @aside_until_ns or 0, last warned; all
 *	CLOCK_MONOTONIC
 * @fault_told: the detector's fault the guard said last
 * @last_sample_ns: when (CLOCK_MONOTONIC) its last sample came, for the
 *	guard's liveness watch
 * @same_since_ns: when a polled source's raw values last changed
 * @silent_told: the guard said it sends nothing, or the same, and not yet
 *	that it sends again
 * @errors: failed reads in a row
 * @retry_ns: a polled source that failed is read again from then on
 * @thread: a freefall source's reader, where the device cannot be polled
 *	(then @fd is an eventfd the thread writes, @data_fd the device)
 * @stop: tells @thread to end
 */
struct source {
	enum source_kind kind;
	unsigned int flags;
	char path[PATH_MAX];
	char name[128];
	int fd;
	int data_fd;
	double counts_per_g;
	double iio_scale_g;
	int32_t raw[3];
	double cal_sum, cal_min, cal_max;
	unsigned int cal_n;
	struct detect det;
	double last[3];
	uint64_t poll_ns, read_ns;
	unsigned int slow_reads, fast_reads;
	bool slowed;
	unsigned int poll_was_ms;
	struct iio_scan {
		unsigned int offset, bytes, shift, bits;
		bool is_signed, be;
	} scan[4];		/* x, y, z, timestamp */
	unsigned int record;
	/* An IIO buffer's settings as found, put back at source_close(). */
	struct iio_setting {
		char file[80];
		char val[32];
	} saved[SOURCE_IIO_SAVED];
	unsigned int nsaved;
	bool restore;
	uint64_t rate_t0;
	unsigned int rate_n;
	bool rate_told;
	bool scale_learned, learned, stamp_on_read;
	char scale_note[160];
	int32_t abs_max;
	double full_scale_g;
	uint64_t last_event_ns, interval_ns, gap_min;
	unsigned int gap_n;
	struct source_hold {
		uint64_t bucket_ns, drained_ns, last_call_ns, last_seen_ns;
		uint64_t aside_until_ns, warned_ns;
	} hold;
	enum detect_fault fault_told;
	uint64_t last_sample_ns, same_since_ns;
	bool silent_told;
	unsigned int errors;
	uint64_t retry_ns;
	pthread_t thread;
	atomic_bool stop;
};

/*
 * The clock of every sample: CLOCK_BOOTTIME, which goes on through a
 * suspend, so that a detector sees the suspend as a gap between samples
 * (a lid closed at one angle and opened at another is no tilt).
 */
#define SOURCE_CLOCK	CLOCK_BOOTTIME

/* The time now on SOURCE_CLOCK, in ns. */
uint64_t source_now_ns(void);

/* One sample, or the hardware's free-fall decision (@hw_fall). */
struct sample {
	uint64_t t_ns;		/* SOURCE_CLOCK */
	double x, y, z;		/* g */
	bool hw_fall;
	bool repeated;		/* the last sample again, on the guard's clock */
};

typedef void (*sample_fn)(struct source *src, const struct sample *s,
			  void *data);

/**
 * source_open() - open one accelerometer
 * @path: an event device, an IIO device (its directory, or its name
 *	"iio:deviceN"), /dev/freefall, or a position file
 * @flags: SOURCE_NAMED: the administrator named it (a device that is no
 *	accelerometer is still refused, but the message says why, and a
 *	display's sensor is taken); SOURCE_PROBE: only say what it is and
 *	how it would be read (--check): no buffer is enabled, no driver's
 *	polling changed, /dev/freefall not opened; @src's fd may be -1
 * @src: where to store it
 * @why: where to write why it is refused; on success, a note worth
 *	logging (how it is read instead of the better way), or ""
 * @whylen: its size
 *
 * Return: 0; -ENOTTY if it is not an accelerometer, -EPERM if it is one
 * the guard does not use (a game controller's, a display's, two axes),
 * -EBUSY if another program reads it, or the negative errno of opening
 * it. @why always says why.
 */
int source_open(const char *path, unsigned int flags, struct source *src,
		char *why, size_t whylen);

void source_close(struct source *src);

/**
 * source_taken_over() - whether another program switched a buffer off
 * @src: an open source
 *
 * Holding an IIO device keeps others from its data, not from its sysfs
 * files: a program that starts later and fails to take the device may
 * switch its buffer off or take its trigger away (iio-sensor-proxy does,
 * as it gives up), and then no sample comes, and no error either.
 * Return: true if @src is an IIO buffer that is off, has no trigger, or
 * has another length, watermark, layout or clock than the guard set.
 */
bool source_taken_over(const struct source *src);

bool source_iio_gone(struct source *src);

/**
 * source_thread() - read a /dev/freefall that cannot be polled
 * @src: a freefall source whose fd epoll refused (EPERM: no poll)
 *
 * A thread waits in a blocking read of the device and adds to an eventfd,
 * which becomes @src's fd; source_read() and source_close() handle both.
 * Return: 0, or a negative errno (@src unchanged).
 */
int source_thread(struct source *src);

/**
 * source_relearn() - learn a source's scale from gravity again
 * @src: an open source
 *
 * Return: true if its scale was learned, and is to be learned again;
 * false if it comes from the device (then nothing changes).
 */
bool source_relearn(struct source *src);

/**
 * source_read() - take what is ready
 * @src: the source whose fd is readable
 * @fn: called for each sample (in g) or free-fall decision
 * @data: for @fn
 *
 * Return: 0; -ENODEV if the device went away (close it), or another
 * negative errno of reading.
 */
int source_read(struct source *src, sample_fn fn, void *data);

/**
 * source_candidates() - every accelerometer the machine may have
 * @paths: where to store a NULL-terminated list of paths to try with
 *	source_open(), in order of preference: event devices, IIO devices,
 *	/dev/freefall, position files
 *
 * Return: 0 or -ENOMEM.
 */
int source_candidates(char ***paths);

void source_paths_free(char **paths);

const char *source_kind_name(enum source_kind kind);

/**
 * source_escape() - a device's string, safe to print and to log
 * @out: where to write it, always terminated
 * @len: its size
 * @in: the string (a device's name comes from its driver, or from
 *	whoever made a uinput device)
 * @backslash: also write a backslash as \\, so that a name holding the
 *	text "\x0a" reads apart from one holding a newline (for a device's
 *	string; not for a line of text that holds escaped names already)
 *
 * Every byte that is not printable ASCII (control characters, DEL, and
 * any byte of 128 or more) becomes \xNN, so that no name can end a log
 * line, start one with a priority of its own, or move a terminal's
 * cursor. What does not fit is cut at a whole escape.
 */
void source_escape(char *out, size_t len, const char *in, bool backslash);

#endif /* HDPCTL_SOURCE_H */
