// SPDX-License-Identifier: GPL-2.0-only
/*
 * The accelerometers hdpctl guard reads.
 *
 * Input event devices: those with INPUT_PROP_ACCELEROMETER, and the
 * drivers that predate it by name. An axis's resolution, for an
 * accelerometer, is in counts per g (Documentation/input/event-codes.rst);
 * lis3lv02d reports mg; any other is scaled from gravity: the mean |a| of
 * its first SOURCE_CALIBRATION_SAMPLES samples is 1 g, since a laptop at
 * rest feels 1 g whichever way it lies. A sensor of a game controller
 * (USB or Bluetooth: hid-sony, hid-nintendo, hid-playstation) moves with
 * the controller, not with the disk: refused. Two-axis sensors (hdaps,
 * applesmc's input device) cannot see a fall, which leaves x and y at
 * rest: refused with that reason.
 *
 * IIO accelerometers: through the buffer (/dev/iio:deviceN) when the device
 * has a trigger (trigger/current_trigger: its driver's own, or one the
 * administrator set, such as an hrtimer trigger made in configfs), with
 * CLOCK_BOOTTIME timestamps; else in_accel_{x,y,z}_raw read at
 * SOURCE_POLL_HZ. Either way times in_accel_scale (m/s^2 per count).
 * iio-sensor-proxy reads the same devices: one its udev rule marked
 * (IIO_SENSOR_PROXY_TYPE) is read through its raw files, which both can
 * read at once, and never through the buffer, which one program holds.
 * A buffer's settings are put back as they were found when it is closed.
 * Where an IIO accelerometer is comes from udev's ACCEL_LOCATION (the
 * hwdb), the driver's location, then its label, as iio-sensor-proxy
 * reads them; one that says nothing is taken to be the display's (the
 * sensor a convertible has for rotation), and only a named one is read.
 *
 * /dev/freefall (lis3lv02d, dell-smo8800): a read returns one byte, how
 * many times (up to 255) the hardware saw a free fall; it is the
 * hardware's own decision. dell-smo8800's has no poll and ignores
 * O_NONBLOCK: a thread of its own waits in a blocking read and tells the
 * loop through an eventfd (source_thread()). The device is known by its
 * misc class entry, not by its path, so that a link of another name works.
 *
 * Position files, polled at SOURCE_POLL_HZ: "(x,y,z)" (lis3lv02d in mg,
 * applesmc scaled from gravity).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libudev.h>

#include "source.h"

/*
 * Sysfs sources are read 100 times a second: a 10 cm drop falls for
 * 143 ms, and the detector wants 40 ms of it (detect.c).
 */
#define SOURCE_POLL_HZ		100
#define SOURCE_POLL_NS		(1000000000ull / SOURCE_POLL_HZ)
/*
 * An input device its driver polls (lis3lv02d: every 50 ms) is asked for
 * a sample every 10 ms, as the sysfs sources are read.
 */
#define SOURCE_POLL_MS		10
/* An IIO buffer's length in samples: 640 ms at 100 Hz, 160 ms at 400 Hz. */
#define SOURCE_IIO_RECORDS	64
#define STANDARD_GRAVITY	9.80665

#define BIT_WORDS(n)	(((n) + 8 * sizeof(long) - 1) / (8 * sizeof(long)))
#define TEST_BIT(b, a)	(((a)[(b) / (8 * sizeof(long))] >> ((b) % (8 * sizeof(long)))) & 1)

/* Input devices that are accelerometers by name, and their scale (0: learn it). */
static const struct {
	const char *name;
	double counts_per_g;
} legacy_names[] = {
	{ "ST LIS3LV02DL Accelerometer", 1000 },	/* lis3lv02d: mg */
	{ "Apple Motion Sensor", 0 },			/* ams */
	{ "Acer BMA150 accelerometer", 0 },		/* acer-wmi */
	{ "applesmc", 0 },
	{ "hdaps", 0 },
};

const char *source_kind_name(enum source_kind kind)
{
	switch (kind) {
	case SOURCE_EVDEV:
		return "input";
	case SOURCE_IIO:
		return "iio";
	case SOURCE_IIO_BUFFER:
		return "iio buffer";
	case SOURCE_FREEFALL:
		return "freefall";
	default:
		return "position";
	}
}

void source_escape(char *out, size_t len, const char *in, bool backslash)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0;

	if (!len)
		return;
	for (; *p; p++) {
		if (*p == '\\' && backslash) {
			if (n + 2 >= len)
				break;
			out[n++] = '\\';
			out[n++] = '\\';
		} else if (*p >= ' ' && *p < 0x7f) {
			if (n + 1 >= len)
				break;
			out[n++] = (char)*p;
		} else {
			if (n + 4 >= len)
				break;
			n += (size_t)snprintf(out + n, len - n, "\\x%02x", *p);
		}
	}
	out[n] = '\0';
}

/* A device's name, made printable in place (source_escape()). */
static void escape_name(char *name, size_t len)
{
	char buf[sizeof(((struct source *)0)->name)];

	source_escape(buf, len < sizeof(buf) ? len : sizeof(buf), name, true);
	snprintf(name, len, "%s", buf);
}

uint64_t source_now_ns(void)
{
	struct timespec ts;

	clock_gettime(SOURCE_CLOCK, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A polled source's timer fires every @ns (under a second) from now. */
static int set_period(int fd, uint64_t ns)
{
	struct itimerspec its = {
		.it_interval.tv_nsec = (long)ns,
		.it_value.tv_nsec = (long)ns,
	};

	return timerfd_settime(fd, 0, &its, NULL) ? -errno : 0;
}

/* A polled source's timer, every @src->poll_ns (SOURCE_POLL_NS at first). */
static int open_timer(struct source *src)
{
	int fd, ret;

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = set_period(fd, SOURCE_POLL_NS);
	if (ret) {
		close(fd);
		return ret;
	}
	src->poll_ns = SOURCE_POLL_NS;
	return fd;
}

/*
 * A sysfs read may be a bus transfer the driver makes there and then (an
 * accelerometer on a slow SMBus). The guard reads at real-time priority:
 * reads that take more than half the period would leave little of the
 * CPU to anything else. After SOURCE_SLOW_READS such reads in a row (one
 * may be an interrupt's) the period doubles, up to SOURCE_POLL_MAX_NS
 * (25 Hz still gives a 10 cm drop's 143 ms three samples); after
 * SOURCE_FAST_READS in a row that take less than an eighth of the period
 * it halves again, down to SOURCE_POLL_NS.
 */
#define SOURCE_POLL_MAX_NS	(40 * 1000000ull)
#define SOURCE_SLOW_READS	4
#define SOURCE_FAST_READS	1000

static void slow_down(struct source *src, uint64_t took)
{
	uint64_t was = src->poll_ns;

	if (took * 2 > src->poll_ns) {
		src->fast_reads = 0;
		if (++src->slow_reads < SOURCE_SLOW_READS || src->poll_ns >= SOURCE_POLL_MAX_NS)
			return;
		src->poll_ns *= 2;
		if (src->poll_ns > SOURCE_POLL_MAX_NS)
			src->poll_ns = SOURCE_POLL_MAX_NS;
	} else {
		src->slow_reads = 0;
		if (took * 8 > src->poll_ns || ++src->fast_reads < SOURCE_FAST_READS ||
		    src->poll_ns <= SOURCE_POLL_NS)
			return;
		src->poll_ns /= 2;
		if (src->poll_ns < SOURCE_POLL_NS)
			src->poll_ns = SOURCE_POLL_NS;
	}
	src->slow_reads = src->fast_reads = 0;
	set_period(src->fd, src->poll_ns);
	src->read_ns = took;
	src->slowed = src->poll_ns != was;
}

/* A sysfs file's text, without its newline. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_text(const char *path, const char *text)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * A polled input device (lis3lv02d) sampled every @ms; 0 asks for
 * SOURCE_POLL_MS and gives the interval it had, if it was longer (else 0,
 * and nothing changed).
 */
static unsigned int set_poll(const char *path, unsigned int ms)
{
	char file[PATH_MAX + 64], buf[32];
	const char *ev = strrchr(path, '/');
	unsigned int was;

	snprintf(file, sizeof(file), "/sys/class/input/%s/device/poll", ev ? ev + 1 : path);
	if (read_text(file, buf, sizeof(buf)))
		return 0;
	was = (unsigned int)strtoul(buf, NULL, 10);
	snprintf(buf, sizeof(buf), "%u", ms ? ms : SOURCE_POLL_MS);
	if ((!ms && was <= SOURCE_POLL_MS) || write_text(file, buf))
		return 0;
	return was;
}

/*
 * Accelerometers' ranges go from +-1.5 g to +-16 g (the LIS3LV02DL's and
 * LIS302DL's +-2 g to the BMA's and LIS3DH's +-16 g): a scale learned at
 * rest that makes the axes' range anything else was learned from a
 * sensor that was not at rest, or that read wrong. It is learned again.
 */
#define SOURCE_RANGE_MIN_G	1.5
#define SOURCE_RANGE_MAX_G	16

/*
 * Where a device is in sysfs (@sys: its directory, or a character
 * device's /sys/dev/char link): a virtual device (uinput's, IIO's dummy)
 * is made by a program, not by a sensor, and any user who may write
 * /dev/uinput can make one that claims to be an accelerometer; a USB or
 * Bluetooth device (a game controller, a sensor on a cable) moves
 * without the disk.
 */
enum where { WHERE_BUILT_IN, WHERE_VIRTUAL, WHERE_USB, WHERE_BLUETOOTH, WHERE_UNKNOWN };

static enum where device_where(const char *sys)
{
	char real[PATH_MAX];
	const char *p;

	if (!realpath(sys, real))
		return WHERE_UNKNOWN;
	if (!strncmp(real, "/sys/devices/virtual/", 21))
		return WHERE_VIRTUAL;
	for (p = strchr(real, '/'); p; p = strchr(p + 1, '/')) {
		/* a USB bus (usb1) or device (1-2, 1-2.3), a HID device on Bluetooth */
		if (!strncmp(p, "/usb", 4) && p[4] >= '0' && p[4] <= '9')
			return WHERE_USB;
		if (!strncmp(p, "/0005:", 6))
			return WHERE_BLUETOOTH;
	}
	return WHERE_BUILT_IN;
}

static const char *const where_text[] = {
	[WHERE_VIRTUAL] = "a virtual device (made by a program, such as a uinput device, not by a sensor): read only when the configuration's sources name it",
	[WHERE_USB] = "the motion sensor of a USB device, which moves without the disk: ignored",
	[WHERE_BLUETOOTH] = "the motion sensor of a Bluetooth device, which moves without the disk: ignored",
	[WHERE_UNKNOWN] = "a device whose place in sysfs cannot be read: read only when the configuration's sources name it",
};

static int open_evdev(const char *path, unsigned int flags, struct source *src,
		      char *why, size_t whylen)
{
	char sys[64];
	struct stat st;
	enum where w;
	unsigned long props[BIT_WORDS(INPUT_PROP_CNT)] = { 0 };
	unsigned long abs[BIT_WORDS(ABS_CNT)] = { 0 };
	struct input_absinfo ai;
	struct input_id id;
	int clk = SOURCE_CLOCK;
	bool accel;
	size_t i;
	int fd, a;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, EVIOCGNAME(sizeof(src->name)), src->name) < 0 ||
	    ioctl(fd, EVIOCGID, &id) < 0 ||
	    ioctl(fd, EVIOCGBIT(EV_ABS, sizeof(abs)), abs) < 0) {
		snprintf(why, whylen, "%s is not an input event device", path);
		goto notty;
	}
	src->name[sizeof(src->name) - 1] = '\0';
	ioctl(fd, EVIOCGPROP(sizeof(props)), props);
	accel = TEST_BIT(INPUT_PROP_ACCELEROMETER, props);
	src->counts_per_g = 0;
	for (i = 0; i < sizeof(legacy_names) / sizeof(legacy_names[0]); i++) {
		if (!strcmp(src->name, legacy_names[i].name)) {
			accel = true;
			src->counts_per_g = legacy_names[i].counts_per_g;
		}
	}
	escape_name(src->name, sizeof(src->name));
	if (!accel) {
		snprintf(why, whylen, "%s (%s) is not an accelerometer%s", path,
			 src->name, (flags & SOURCE_NAMED) ? " (no INPUT_PROP_ACCELEROMETER)" : "");
		goto notty;
	}
	/*
	 * Named, any device is read: an administrator knows a sensor hub
	 * on an internal USB port (some convertibles have one).
	 */
	if ((id.bustype == BUS_USB || id.bustype == BUS_BLUETOOTH) && !(flags & SOURCE_NAMED)) {
		snprintf(why, whylen,
			 "%s (%s) is the motion sensor of a %s device, which moves without the disk: ignored",
			 path, src->name, id.bustype == BUS_USB ? "USB" : "Bluetooth");
		close(fd);
		return -EPERM;
	}
	if (!fstat(fd, &st)) {
		snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		w = (flags & SOURCE_NAMED) ? WHERE_BUILT_IN : device_where(sys);
		if (w != WHERE_BUILT_IN) {
			snprintf(why, whylen, "%s (%s) is %s", path, src->name, where_text[w]);
			close(fd);
			return -EPERM;
		}
	}
	if (!TEST_BIT(ABS_X, abs) || !TEST_BIT(ABS_Y, abs) || !TEST_BIT(ABS_Z, abs)) {
		snprintf(why, whylen,
			 "%s (%s) has no z axis: a fall leaves x and y as they were, so it cannot be seen",
			 path, src->name);
		close(fd);
		return -EPERM;
	}
	for (a = 0; a < 3; a++) {
		if (ioctl(fd, EVIOCGABS(ABS_X + a), &ai) < 0) {
			snprintf(why, whylen, "%s: cannot read its axes", path);
			goto notty;
		}
		src->raw[a] = ai.value;
		if (a == 0 && ai.resolution > 0)
			src->counts_per_g = ai.resolution;
		if (ai.maximum > src->abs_max)
			src->abs_max = ai.maximum;
		if (ai.minimum < 0 && -(int64_t)ai.minimum > src->abs_max)
			src->abs_max = ai.minimum == INT32_MIN ? INT32_MAX : -ai.minimum;
	}
	src->scale_learned = !src->counts_per_g;
	if (src->counts_per_g && src->abs_max)
		src->full_scale_g = src->abs_max / src->counts_per_g;
	/* A range no accelerometer has says nothing: no clipping, no limit. */
	if (src->full_scale_g < SOURCE_RANGE_MIN_G || src->full_scale_g > SOURCE_RANGE_MAX_G)
		src->full_scale_g = 0;
	/*
	 * Sample times on SOURCE_CLOCK; a kernel that cannot (before 3.x
	 * had no CLOCK_BOOTTIME for input) gives CLOCK_REALTIME, which
	 * jumps: the guard times those samples itself as it reads them.
	 */
	src->stamp_on_read = ioctl(fd, EVIOCSCLOCKID, &clk) < 0;
	if (!(flags & SOURCE_PROBE))
		src->poll_was_ms = set_poll(path, 0);
	src->kind = SOURCE_EVDEV;
	src->fd = fd;
	return 0;
notty:
	close(fd);
	return -ENOTTY;
}

/* Where @chan ("accel_x", "timestamp") is in a record, from scan_elements. */
static int scan_type(const char *dir, const char *chan, struct iio_scan *sc,
		     unsigned int *index)
{
	char file[PATH_MAX + 64], buf[64], sign, endian[3] = "";
	unsigned int bits, storage, shift = 0;

	snprintf(file, sizeof(file), "%s/scan_elements/in_%s_type", dir, chan);
	if (read_text(file, buf, sizeof(buf)) ||
	    sscanf(buf, "%2[bl]e:%c%u/%u>>%u", endian, &sign, &bits, &storage, &shift) < 4 ||
	    (storage != 8 && storage != 16 && storage != 32 && storage != 64) ||
	    !bits || bits > storage)
		return -EINVAL;
	snprintf(file, sizeof(file), "%s/scan_elements/in_%s_index", dir, chan);
	if (read_text(file, buf, sizeof(buf)))
		return -EINVAL;
	*index = (unsigned int)strtoul(buf, NULL, 10);
	*sc = (struct iio_scan){
		.bytes = storage / 8, .shift = shift, .bits = bits,
		.is_signed = sign == 's', .be = endian[0] == 'b',
	};
	return 0;
}

static int iio_set(const char *dir, const char *file, const char *val)
{
	char path[2 * PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_text(path, val);
}

/* 1 if @dir's @file reads @val, 0 if not, or a negative errno. */
static int iio_is(const char *dir, const char *file, const char *val)
{
	char path[2 * PATH_MAX + 64], buf[64];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ret = read_text(path, buf, sizeof(buf));
	return ret ? ret : !strcmp(buf, val);
}

static const char *const iio_chans[4] = { "accel_x", "accel_y", "accel_z", "timestamp" };

/* Remember @dir's @file as it is now, for iio_restore(). */
static void iio_save(struct source *src, const char *dir, const char *file)
{
	struct iio_setting *st;
	char path[2 * PATH_MAX + 64];

	if (src->nsaved == SOURCE_IIO_SAVED)
		return;
	st = &src->saved[src->nsaved];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (strlen(file) >= sizeof(st->file) || read_text(path, st->val, sizeof(st->val)))
		return;
	snprintf(st->file, sizeof(st->file), "%s", file);
	src->nsaved++;
}

/*
 * The buffer's settings as open_iio_buffer() found them: off first (no
 * setting changes while on), the scan elements that were off, then those
 * that were on (a driver checks each mask as it is asked for), the other
 * settings, and the buffer on again if it was.
 */
static void iio_restore(struct source *src)
{
	const struct iio_setting *st;
	bool was_on = false;
	unsigned int pass, i;

	iio_set(src->path, "buffer/enable", "0");
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < src->nsaved; i++) {
			st = &src->saved[i];
			if (!strcmp(st->file, "buffer/enable")) {
				was_on = !strcmp(st->val, "1");
				continue;
			}
			if (!strncmp(st->file, "scan_elements/", 14) ?
			    pass != (strcmp(st->val, "0") ? 1u : 0u) : pass != 2)
				continue;
			iio_set(src->path, st->file, st->val);
		}
	if (was_on)
		iio_set(src->path, "buffer/enable", "1");
}

/*
 * @fn(@dir, "scan_elements/in_..._en", @ctx) for each of @dir's scan
 * elements, until one returns non-zero. Return: that, 0, or a negative
 * errno if there are none to walk.
 */
static int iio_each_scan_element(const char *dir,
				 int (*fn)(const char *dir, const char *en, void *ctx), void *ctx)
{
	char sdir[PATH_MAX + 32], en[PATH_MAX + 64];
	struct dirent *de;
	size_t len;
	int ret = 0;
	DIR *d;

	snprintf(sdir, sizeof(sdir), "%s/scan_elements", dir);
	d = opendir(sdir);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 7 || strncmp(de->d_name, "in_", 3) || strcmp(de->d_name + len - 3, "_en"))
			continue;
		snprintf(en, sizeof(en), "scan_elements/%s", de->d_name);
		ret = fn(dir, en, ctx);
	}
	closedir(d);
	return ret;
}

static int save_one(const char *dir, const char *en, void *src)
{
	iio_save(src, dir, en);
	return 0;
}

/* Every scan element's state, and the buffer's settings, for iio_restore(). */
static void iio_save_all(struct source *src, const char *dir)
{
	static const char *const files[] = {
		"buffer/enable", "buffer/length", "buffer/watermark", "current_timestamp_clock",
	};
	size_t i;

	src->nsaved = 0;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		iio_save(src, dir, files[i]);
	iio_each_scan_element(dir, save_one, src);
}

static int switch_off(const char *dir, const char *en, void *ctx)
{
	(void)ctx;
	return iio_set(dir, en, "0");
}

/*
 * Every scan element off, then x, y, z and the timestamp on: in two
 * passes, since a driver checks each mask it is asked for against the
 * masks it can scan, and ours beside another's may be none of them.
 */
static int iio_scan_only_ours(const char *dir)
{
	char en[64];
	size_t i;
	int ret;

	ret = iio_each_scan_element(dir, switch_off, NULL);
	for (i = 0; !ret && i < 4; i++) {
		snprintf(en, sizeof(en), "scan_elements/in_%s_en", iio_chans[i]);
		ret = iio_set(dir, en, "1");
	}
	return ret;
}

/*
 * Whether @dir's buffer is on as open_iio_buffer() sets it: its length,
 * a watermark of one record (where the kernel has one), boottime.
 */
static bool iio_on_as_guard_sets_it(const char *dir)
{
	char len[16];

	snprintf(len, sizeof(len), "%u", SOURCE_IIO_RECORDS);
	return iio_is(dir, "buffer/enable", "1") == 1 && iio_is(dir, "buffer/length", len) == 1 &&
	       iio_is(dir, "buffer/watermark", "1") != 0 &&
	       iio_is(dir, "current_timestamp_clock", "boottime") == 1;
}

/*
 * The buffer of an IIO device with a trigger (trigger/current_trigger).
 * Its character device is opened first: IIO lets one process hold it, so
 * a device another program reads (iio-sensor-proxy) answers -EBUSY and
 * is left as it is. Held, the buffer is the guard's: off, every scan
 * element but x, y, z and the timestamp off, those four on, a watermark
 * of one record (each sample wakes the loop), timestamps on
 * CLOCK_BOOTTIME (SOURCE_CLOCK), on. The records' layout comes from the scan elements
 * (each element aligned to its size, in the order of its index). With
 * @probe nothing is opened or changed: 0 says the buffer would be used.
 * Return: the buffer's fd, or a negative errno (-ENOENT: no trigger);
 * the buffer is off again after a failure.
 */
static int open_iio_buffer(const char *dir, struct source *src, bool probe)
{
	char path[PATH_MAX + 64], buf[64];
	unsigned int idx[4], order[4], i, j, off = 0, align = 1;
	const char *dev;
	int fd, ret;

	if (iio_is(dir, "trigger/current_trigger", "") != 0)
		return -ENOENT;
	for (i = 0; i < 4; i++) {
		if (scan_type(dir, iio_chans[i], &src->scan[i], &idx[i]))
			return -EINVAL;
		order[i] = i;
	}
	for (i = 0; i < 4; i++)			/* by index */
		for (j = i + 1; j < 4; j++)
			if (idx[order[j]] < idx[order[i]]) {
				unsigned int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	for (i = 0; i < 4; i++) {
		struct iio_scan *sc = &src->scan[order[i]];

		off = (off + sc->bytes - 1) / sc->bytes * sc->bytes;
		sc->offset = off;
		off += sc->bytes;
		if (sc->bytes > align)
			align = sc->bytes;
	}
	src->record = (off + align - 1) / align * align;
	if (probe)
		return 0;
	dev = strrchr(dir, '/');
	snprintf(path, sizeof(path), "/dev/%s", dev ? dev + 1 : dir);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * A buffer on that nobody holds is another program's between two
	 * reads (iio-sensor-proxy opens the device for each), unless it is
	 * as a guard sets it (one killed before it could switch it off):
	 * that one is taken, and left off at the end.
	 */
	if (iio_is(dir, "buffer/enable", "1") == 1 && !iio_on_as_guard_sets_it(dir)) {
		close(fd);
		return -EBUSY;
	}
	iio_save_all(src, dir);
	if (src->nsaved && !strcmp(src->saved[0].file, "buffer/enable"))
		snprintf(src->saved[0].val, sizeof(src->saved[0].val), "0");
	ret = iio_set(dir, "buffer/enable", "0");
	if (!ret)
		ret = iio_scan_only_ours(dir);
	/*
	 * Room for SOURCE_IIO_RECORDS samples (the default is 2: a loop held
	 * up for 20 ms would lose samples at 100 Hz), woken at each one.
	 * Older kernels have no watermark: one record is their way.
	 */
	snprintf(buf, sizeof(buf), "%u", SOURCE_IIO_RECORDS);
	if (!ret)
		ret = iio_set(dir, "buffer/length", buf);
	/*
	 * A watermark that cannot be set (a DMA buffer's is read-only) is
	 * not the guard's one record, which source_taken_over() checks: such
	 * a buffer is not used. Older kernels have none at all.
	 */
	if (!ret && iio_set(dir, "buffer/watermark", "1") && iio_is(dir, "buffer/watermark", "1") == 0)
		ret = -EOPNOTSUPP;
	/* The clock cannot change while an event fd is open: leave it if right. */
	if (!ret && iio_is(dir, "current_timestamp_clock", "boottime") != 1)
		ret = iio_set(dir, "current_timestamp_clock", "boottime");
	if (!ret)
		ret = iio_set(dir, "buffer/enable", "1");
	if (!ret) {
		src->restore = true;
		return fd;
	}
	iio_restore(src);
	close(fd);
	return ret;
}

/*
 * Udev's view of the device at sysfs @dir, where udevd runs: whether its
 * rules ran (udev is done with it: its database entry is written), and
 * the properties they and the hwdb set. One context and one device per
 * open: libudev reads the database file, and nothing waits.
 */
struct udev_info {
	bool udevd;		/* udevd runs here */
	bool initialized;	/* its rules ran */
	char location[32];	/* ACCEL_LOCATION */
	char proxy[96];		/* IIO_SENSOR_PROXY_TYPE */
};

static void udev_info(const char *dir, struct udev_info *ui)
{
	struct udev_device *d;
	char real[PATH_MAX];
	const char *v;
	struct udev *u;

	*ui = (struct udev_info){ .udevd = !access("/run/udev/control", F_OK) };
	if (!ui->udevd || !realpath(dir, real))
		return;
	u = udev_new();
	if (!u)
		return;
	d = udev_device_new_from_syspath(u, real);
	if (d) {
		/*
		 * udevd keeps no database entry of a device without a node
		 * that no rule gave a property: it has none to wait for.
		 */
		ui->initialized = udev_device_get_is_initialized(d) > 0 ||
				  !udev_device_get_devnum(d);
		v = udev_device_get_property_value(d, "ACCEL_LOCATION");
		if (v)
			snprintf(ui->location, sizeof(ui->location), "%s", v);
		v = udev_device_get_property_value(d, "IIO_SENSOR_PROXY_TYPE");
		if (v)
			snprintf(ui->proxy, sizeof(ui->proxy), "%s", v);
		udev_device_unref(d);
	}
	udev_unref(u);
}

/*
 * Whether the IIO accelerometer at @dir is in the base, with the disk,
 * as iio-sensor-proxy places it (accel-attributes.c): udev's
 * ACCEL_LOCATION (60-sensor.hwdb), else the driver's location attribute
 * (cros-ec: "base", "lid"), else its label ("accel-base",
 * "accel-display"); a value none of those words is passed over for the
 * next, and what says nothing at all is the display. @how says which
 * told.
 */
static bool iio_in_base(const char *dir, const struct udev_info *ui, char *how, size_t len)
{
	static const char *const keys[] = { "ACCEL_LOCATION", "location", "label" };
	char file[PATH_MAX + 32], buf[64], esc[64];
	const char *v;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (i == 0) {
			snprintf(buf, sizeof(buf), "%s", ui->location);
		} else {
			snprintf(file, sizeof(file), "%s/%s", dir, keys[i]);
			if (read_text(file, buf, sizeof(buf)))
				*buf = '\0';
		}
		v = i == 2 && !strncmp(buf, "accel-", 6) ? buf + 6 : buf;
		if (strcmp(v, "base") && strcmp(v, "display") && strcmp(v, "lid"))
			continue;
		source_escape(esc, sizeof(esc), buf, true);
		snprintf(how, len, "%s %s", keys[i], esc);
		return !strcmp(v, "base");
	}
	snprintf(how, len, "no ACCEL_LOCATION, location or label says where it is");
	return false;
}

/*
 * Whether the device at @dir is a HID sensor hub's: a trigger named
 * accel_3d-devN for its number N exists, iio-sensor-proxy's own test
 * (drv-iio-buffer-accel.c). A hub's raw reads are HID reports that can
 * take seconds, which the guard's loop must not wait for: its buffer is
 * the one way to read it.
 */
static bool iio_is_hub(const char *dir)
{
	char name[64], file[PATH_MAX], buf[64];
	const char *n = strrchr(dir, '/');
	struct dirent *de;
	bool hub = false;
	DIR *d;

	if (!n || strncmp(n + 1, "iio:device", 10))
		return false;
	snprintf(name, sizeof(name), "accel_3d-dev%s", n + 11);
	d = opendir("/sys/bus/iio/devices");
	if (!d)
		return false;
	while (!hub && (de = readdir(d))) {
		if (strncmp(de->d_name, "trigger", 7))
			continue;
		snprintf(file, sizeof(file), "/sys/bus/iio/devices/%s/name", de->d_name);
		hub = !read_text(file, buf, sizeof(buf)) && !strcmp(buf, name);
	}
	closedir(d);
	return hub;
}

/*
 * Whether iio-sensor-proxy, where its udev rule marked the device
 * (@ui->proxy), reads its raw files: it reads the buffer only of a hub.
 */
static bool proxy_reads_raw(const char *dir, const struct udev_info *ui)
{
	const char *n = strrchr(dir, '/');

	return *ui->proxy && n && !strncmp(n + 1, "iio:device", 10) && !iio_is_hub(dir);
}

static int open_iio(const char *path, unsigned int flags, struct source *src,
		    char *why, size_t whylen)
{
	char dir[PATH_MAX], file[PATH_MAX + 32], buf[64], how[96];
	struct udev_info ui;
	const char *base;
	enum where w;
	double scale;
	bool raw;
	int fd;

	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!strchr(path, '/'))
		snprintf(dir, sizeof(dir), "/sys/bus/iio/devices/%s", path);
	else
		snprintf(dir, sizeof(dir), "%s", path);
	snprintf(file, sizeof(file), "%s/name", dir);
	if (read_text(file, src->name, sizeof(src->name)))
		snprintf(src->name, sizeof(src->name), "%s", base);
	escape_name(src->name, sizeof(src->name));
	snprintf(file, sizeof(file), "%s/in_accel_scale", dir);
	if (read_text(file, buf, sizeof(buf))) {
		snprintf(file, sizeof(file), "%s/in_accel_x_scale", dir);
		if (read_text(file, buf, sizeof(buf))) {
			snprintf(why, whylen, "%s (%s) is not an accelerometer (no in_accel_scale)",
				 dir, src->name);
			return -ENOTTY;
		}
	}
	scale = strtod(buf, NULL);
	snprintf(file, sizeof(file), "%s/in_accel_z_raw", dir);
	if (scale <= 0 || access(file, R_OK)) {
		snprintf(why, whylen, "%s (%s) has no readable x, y and z with a scale",
			 dir, src->name);
		return -ENOTTY;
	}
	/*
	 * Where udevd runs, a device its rules have not yet seen has none
	 * of the properties read below: its udev event will come.
	 */
	udev_info(dir, &ui);
	if (ui.udevd && !ui.initialized) {
		snprintf(why, whylen, "%s (%s) is not yet set up by udev: read once it is",
			 dir, src->name);
		return -EAGAIN;
	}
	/*
	 * A convertible's lid sensor turns with the lid: opening it would
	 * read as a tilt. Its base sensor moves with the disk. A sensor
	 * that says nothing is the display's, as for iio-sensor-proxy.
	 */
	if (!(flags & SOURCE_NAMED) && !iio_in_base(dir, &ui, how, sizeof(how))) {
		snprintf(why, whylen,
			 "%s (%s) is taken to be in the display (%s), which moves apart from the disk: not read unless sources names it",
			 dir, src->name, how);
		return -EPERM;
	}
	w = (flags & SOURCE_NAMED) ? WHERE_BUILT_IN : device_where(dir);
	if (w != WHERE_BUILT_IN) {
		snprintf(why, whylen, "%s (%s) is %s", dir, src->name, where_text[w]);
		return -EPERM;
	}
	snprintf(src->path, sizeof(src->path), "%s", dir);
	src->iio_scale_g = scale / STANDARD_GRAVITY;
	src->counts_per_g = 1;
	/*
	 * A device iio-sensor-proxy reads through its raw files: the guard
	 * reads those too, which both can, and leaves the buffer, which one
	 * program holds, alone. (A sensor hub's it reads through the buffer,
	 * which goes to the first of the two to open the device.)
	 */
	raw = proxy_reads_raw(dir, &ui);
	if (raw && !(flags & SOURCE_NO_BUFFER) && iio_is(dir, "trigger/current_trigger", "") == 0)
		snprintf(why, whylen,
			 "%s (%s) has a trigger, but iio-sensor-proxy reads it too: read through its raw files %d times a second, which both can",
			 dir, src->name, SOURCE_POLL_HZ);
	/* (A hub's buffer is its one way, taken over or not.) */
	if (raw || ((flags & SOURCE_NO_BUFFER) && !iio_is_hub(dir)))
		fd = -ENOENT;
	else
		fd = open_iio_buffer(dir, src, flags & SOURCE_PROBE);
	if (fd >= 0) {
		/* Its range: what the sample's bits can hold, times the scale. */
		if (src->scan[0].bits >= 2 && src->scan[0].bits <= 32)
			src->full_scale_g = ldexp(1.0, (int)src->scan[0].bits -
						       (src->scan[0].is_signed ? 1 : 0)) *
					    src->iio_scale_g;
		src->kind = SOURCE_IIO_BUFFER;
		src->fd = (flags & SOURCE_PROBE) ? -1 : fd;
		return 0;
	}
	/*
	 * A sensor hub's buffer another program holds: its raw files are
	 * HID reports that may take seconds, which the loop must not wait
	 * for. Waited for (the guard tries again each second).
	 */
	if (fd == -EBUSY && iio_is_hub(dir)) {
		snprintf(why, whylen,
			 "%s (%s), a sensor hub's, is read by another program (iio-sensor-proxy?) through its buffer: read when it lets the buffer go",
			 dir, src->name);
		return -EBUSY;
	}
	/* Opened, with a note in @why. */
	if (fd != -ENOENT)
		snprintf(why, whylen,
			 "%s (%s) has a trigger, but its buffer cannot be used (%s): read through its raw files %d times a second",
			 dir, src->name, fd == -EBUSY ? "another program holds the device" :
			 fd == -EPERM ? "no access to its device node: restart the service" :
			 strerror(-fd), SOURCE_POLL_HZ);
	/* A buffer another program reads keeps the raw files from us too. */
	snprintf(file, sizeof(file), "%s/in_accel_z_raw", dir);
	if (!(flags & SOURCE_PROBE) && read_text(file, buf, sizeof(buf)) == -EBUSY) {
		snprintf(why, whylen,
			 "%s (%s) is read by another program (iio-sensor-proxy?) through its buffer: stop it to let the guard read it",
			 dir, src->name);
		return -EBUSY;
	}
	src->kind = SOURCE_IIO;
	if (flags & SOURCE_PROBE)
		return 0;
	fd = open_timer(src);
	if (fd < 0)
		return fd;
	src->fd = fd;
	return 0;
}

static int open_position(const char *path, struct source *src, char *why,
			 size_t whylen)
{
	char buf[64];
	int fd, n;

	if (read_text(path, buf, sizeof(buf)) ||
	    (n = sscanf(buf, "(%d,%d,%d)", &src->raw[0], &src->raw[1], &src->raw[2])) < 2) {
		snprintf(why, whylen, "%s is not a position file", path);
		return -ENOTTY;
	}
	if (n < 3) {
		snprintf(why, whylen,
			 "%s has no z axis: a fall leaves x and y as they were, so it cannot be seen",
			 path);
		return -EPERM;
	}
	fd = open_timer(src);
	if (fd < 0)
		return fd;
	snprintf(src->name, sizeof(src->name), "%s position", strstr(path, "lis3lv02d") ?
		 "lis3lv02d" : strstr(path, "applesmc") ? "applesmc" : "driver");
	src->counts_per_g = strstr(path, "lis3lv02d") ? 1000 : 0;
	src->scale_learned = !src->counts_per_g;
	src->kind = SOURCE_POSITION;
	src->fd = fd;
	return 0;
}

/* The misc device "freefall", whatever the path it was opened by. */
static bool is_freefall(dev_t rdev)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u", major(rdev), minor(rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	n = (ssize_t)strlen(target);
	return n >= 14 && !strcmp(target + n - 14, "/misc/freefall");
}

static int open_kind(const char *path, unsigned int flags, struct source *src,
		     char *why, size_t whylen)
{
	struct stat st;
	int ret;

	if (!strncmp(path, "iio:device", 10) || strstr(path, "/iio:device"))
		return open_iio(path, flags, src, why, whylen);
	if (stat(path, &st))
		return -errno;
	if (S_ISCHR(st.st_mode) && is_freefall(st.st_rdev)) {
		src->kind = SOURCE_FREEFALL;
		snprintf(src->name, sizeof(src->name), "hardware free-fall detector");
		if (flags & SOURCE_PROBE)
			return 0;
		ret = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (ret < 0 && errno == EBUSY)
			snprintf(why, whylen,
				 "%s is read by another program (one reader at a time): stop it to let the guard read it",
				 path);
		if (ret < 0)
			return -errno;
		src->fd = ret;
		return 0;
	}
	if (S_ISCHR(st.st_mode))
		return open_evdev(path, flags, src, why, whylen);
	if (S_ISREG(st.st_mode))
		return open_position(path, src, why, whylen);
	snprintf(why, whylen, "%s is no accelerometer this tool knows", path);
	return -ENOTTY;
}

int source_open(const char *path, unsigned int flags, struct source *src,
		char *why, size_t whylen)
{
	int ret;

	*src = (struct source){ .fd = -1, .data_fd = -1, .flags = flags };
	snprintf(src->path, sizeof(src->path), "%s", path);
	*why = '\0';
	ret = open_kind(path, flags, src, why, whylen);
	if (ret && !*why)
		snprintf(why, whylen, "%s: %s%s", path, strerror(-ret),
			 ret == -EACCES ? " (run the guard as root)" : "");
	return ret;
}

static void freefall_stop(struct source *src);

void source_close(struct source *src)
{
	if (src->kind == SOURCE_FREEFALL && src->data_fd >= 0)
		freefall_stop(src);
	/*
	 * The device as it was, unless it is gone or another program
	 * changed it since (source_yield()): those settings are its own.
	 */
	if (src->kind == SOURCE_IIO_BUFFER && src->fd >= 0 && src->restore &&
	    !source_iio_gone(src))
		iio_restore(src);
	if (src->kind == SOURCE_EVDEV && src->poll_was_ms)
		set_poll(src->path, src->poll_was_ms);
	if (src->fd >= 0)
		close(src->fd);
	if (src->data_fd >= 0)
		close(src->data_fd);
	src->fd = src->data_fd = -1;
}


static void learned(struct source *src, double cpg)
{
	double fs = src->abs_max ? src->abs_max / cpg : 0;

	if (src->abs_max && (fs < SOURCE_RANGE_MIN_G || fs > SOURCE_RANGE_MAX_G)) {
		snprintf(src->scale_note, sizeof(src->scale_note),
			 "learned %.1f counts per g at rest, which would make its range +-%.2f g (an accelerometer's is +-1.5 to +-16 g): learning it again",
			 cpg, fs);
		return;
	}
	src->counts_per_g = cpg;
	src->full_scale_g = fs;
	src->learned = true;
}

bool source_relearn(struct source *src)
{
	if (!src->scale_learned || !src->counts_per_g)
		return false;
	src->counts_per_g = 0;
	src->full_scale_g = 0;
	src->cal_n = 0;
	return true;
}

/*
 * Counts to g, or learn the scale from gravity; 1 if @s is a sample. The
 * scale is the mean |a| of SOURCE_CALIBRATION_SAMPLES samples in a row
 * that stay within SOURCE_CALIBRATION_SPREAD of each other: at rest. A
 * sample outside starts the count again (the machine moved), and so does
 * a mean of 0 counts (a sensor that reads nothing yet).
 */
static bool scale_sample(struct source *src, uint64_t t, struct sample *s)
{
	double x = src->raw[0], y = src->raw[1], z = src->raw[2];
	double a = sqrt(x * x + y * y + z * z);

	if (!src->counts_per_g) {
		if (src->cal_n && (a < src->cal_min || a > src->cal_max)) {
			if (a < src->cal_min)
				src->cal_min = a;
			else
				src->cal_max = a;
			if (src->cal_max - src->cal_min >
			    SOURCE_CALIBRATION_SPREAD * src->cal_sum / src->cal_n)
				src->cal_n = 0;
		}
		if (!src->cal_n) {
			src->cal_sum = 0;
			src->cal_min = src->cal_max = a;
		}
		src->cal_sum += a;
		if (++src->cal_n == SOURCE_CALIBRATION_SAMPLES) {
			if (src->cal_sum > 0)
				learned(src, src->cal_sum / src->cal_n);
			src->cal_n = 0;
		}
		return false;
	}
	*s = (struct sample){
		.t_ns = t,
		.x = x / src->counts_per_g,
		.y = y / src->counts_per_g,
		.z = z / src->counts_per_g,
	};
	return true;
}

/*
 * An input device sends a sample only when a value changed: its rate is
 * the shortest time between two samples, over windows of
 * SOURCE_INTERVAL_WINDOW samples (the last whole window's, so that it
 * follows a rate that changes).
 */
#define SOURCE_INTERVAL_WINDOW	64

static void measure_interval(struct source *src, uint64_t t)
{
	uint64_t gap;

	if (src->last_event_ns && t > src->last_event_ns) {
		gap = t - src->last_event_ns;
		if (!src->gap_n || gap < src->gap_min)
			src->gap_min = gap;
		if (!src->interval_ns || gap < src->interval_ns)
			src->interval_ns = gap;
		if (++src->gap_n == SOURCE_INTERVAL_WINDOW) {
			src->interval_ns = src->gap_min;
			src->gap_n = 0;
		}
	}
	src->last_event_ns = t;
}

static int read_evdev(struct source *src, sample_fn fn, void *data)
{
	struct input_event ev[64];
	struct input_absinfo ai;
	struct sample s;
	uint64_t t;
	ssize_t n;
	size_t i;
	bool dropped = false;
	int a;

	for (;;) {
		n = read(src->fd, ev, sizeof(ev));
		if (n < 0)
			return errno == EAGAIN ? 0 : errno == ENODEV ? -ENODEV : -errno;
		for (i = 0; i < (size_t)n / sizeof(ev[0]); i++) {
			if (ev[i].type == EV_ABS && ev[i].code <= ABS_Z) {
				src->raw[ev[i].code] = ev[i].value;
			} else if (ev[i].type == EV_SYN && ev[i].code == SYN_DROPPED) {
				dropped = true;
			} else if (ev[i].type == EV_SYN && ev[i].code == SYN_REPORT) {
				if (dropped) {
					/* The kernel's buffer overran: take its values. */
					for (a = 0; a < 3; a++)
						if (!ioctl(src->fd, EVIOCGABS(ABS_X + a), &ai))
							src->raw[a] = ai.value;
					dropped = false;
				}
				t = src->stamp_on_read ? source_now_ns() :
				    (uint64_t)ev[i].input_event_sec * 1000000000ull +
				    (uint64_t)ev[i].input_event_usec * 1000;
				measure_interval(src, t);
				if (scale_sample(src, t, &s))
					fn(src, &s, data);
			}
		}
	}
}

static int read_polled(struct source *src, sample_fn fn, void *data)
{
	static const char axis[] = "xyz";
	char file[PATH_MAX + 32], buf[64];
	uint64_t ticks, t;
	struct sample s;
	int a, ret;

	if (read(src->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	t = source_now_ns();
	if (src->kind == SOURCE_IIO) {
		for (a = 0; a < 3; a++) {
			snprintf(file, sizeof(file), "%s/in_accel_%c_raw", src->path, axis[a]);
			ret = read_text(file, buf, sizeof(buf));
			if (ret)
				return ret == -ENOENT ? -ENODEV : ret;
			src->raw[a] = (int32_t)strtol(buf, NULL, 10);
		}
		slow_down(src, source_now_ns() - t);
		s = (struct sample){
			.t_ns = t,
			.x = src->raw[0] * src->iio_scale_g,
			.y = src->raw[1] * src->iio_scale_g,
			.z = src->raw[2] * src->iio_scale_g,
		};
		fn(src, &s, data);
		return 0;
	}
	ret = read_text(src->path, buf, sizeof(buf));
	if (ret)
		return ret == -ENOENT ? -ENODEV : ret;
	slow_down(src, source_now_ns() - t);
	if (sscanf(buf, "(%d,%d,%d)", &src->raw[0], &src->raw[1], &src->raw[2]) != 3)
		return -EIO;
	if (scale_sample(src, t, &s))
		fn(src, &s, data);
	return 0;
}

/* One element of an IIO record, as a signed or unsigned integer. */
static int64_t scan_value(const unsigned char *rec, const struct iio_scan *sc)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < sc->bytes; i++)
		v |= (uint64_t)rec[sc->offset + (sc->be ? sc->bytes - 1 - i : i)] << (8 * i);
	v >>= sc->shift;
	if (sc->bits < 64) {
		v &= (1ull << sc->bits) - 1;
		if (sc->is_signed && (v >> (sc->bits - 1)) & 1)
			v |= ~0ull << sc->bits;
	}
	return (int64_t)v;
}

static int read_iio_buffer(struct source *src, sample_fn fn, void *data)
{
	unsigned char buf[4096];
	struct sample s;
	ssize_t n;
	size_t i;

	for (;;) {
		n = read(src->fd, buf, sizeof(buf) / src->record * src->record);
		if (n < 0)
			return errno == EAGAIN ? 0 : errno == ENODEV ? -ENODEV : -errno;
		if (!n)
			return 0;
		for (i = 0; i + src->record <= (size_t)n; i += src->record) {
			s = (struct sample){
				.t_ns = (uint64_t)scan_value(buf + i, &src->scan[3]),
				.x = scan_value(buf + i, &src->scan[0]) * src->iio_scale_g,
				.y = scan_value(buf + i, &src->scan[1]) * src->iio_scale_g,
				.z = scan_value(buf + i, &src->scan[2]) * src->iio_scale_g,
			};
			fn(src, &s, data);
		}
	}
}

/* What the thread adds to the eventfd when its device fails. */
#define FREEFALL_GONE	(1ull << 32)
/* The signal that interrupts the thread's read when the source closes. */
#define FREEFALL_STOP	SIGUSR2
/* Its stack: one read of one byte; PTHREAD_STACK_MIN is 16 KiB. */
#define FREEFALL_STACK	(64 * 1024)

static void freefall_wake(int sig)
{
	(void)sig;
}

static void *freefall_thread(void *arg)
{
	struct source *src = arg;
	uint64_t one = 1;
	unsigned char count;
	ssize_t n;

	while (!atomic_load(&src->stop)) {
		n = read(src->data_fd, &count, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			one = FREEFALL_GONE;
		if (write(src->fd, &one, sizeof(one)) < 0 || n <= 0)
			break;
	}
	return NULL;
}

int source_thread(struct source *src)
{
	/* No SA_RESTART: the signal ends the thread's read with EINTR. */
	struct sigaction sa = { .sa_handler = freefall_wake };
	struct sched_param sp;
	pthread_attr_t attr;
	int efd, flags, ret, pol;

	if (src->kind != SOURCE_FREEFALL || src->data_fd >= 0)
		return -EINVAL;
	sigemptyset(&sa.sa_mask);
	if (sigaction(FREEFALL_STOP, &sa, NULL))
		return -errno;
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0)
		return -errno;
	flags = fcntl(src->fd, F_GETFL);
	fcntl(src->fd, F_SETFL, flags & ~O_NONBLOCK);
	src->data_fd = src->fd;
	src->fd = efd;
	atomic_store(&src->stop, false);
	/* A small stack: the guard locks all its memory. */
	ret = pthread_attr_init(&attr);
	if (!ret)
		ret = pthread_attr_setstacksize(&attr, FREEFALL_STACK);
	if (!ret) {
		ret = pthread_create(&src->thread, &attr, freefall_thread, src);
		pthread_attr_destroy(&attr);
	}
	/*
	 * SCHED_RESET_ON_FORK gives every new thread SCHED_OTHER: the
	 * caller's real-time priority is set on it again (best effort: a
	 * guard without it runs without it too).
	 */
	pol = sched_getscheduler(0);
	if (!ret && pol >= 0 && (pol & ~SCHED_RESET_ON_FORK) == SCHED_FIFO &&
	    !sched_getparam(0, &sp))
		pthread_setschedparam(src->thread, SCHED_FIFO, &sp);
	if (ret) {
		src->fd = src->data_fd;
		src->data_fd = -1;
		close(efd);
		return -ret;
	}
	return 0;
}

/*
 * Stop the thread: the flag, then the signal until it has left its read
 * (a signal that comes just before it enters read() would be missed).
 */
static void freefall_stop(struct source *src)
{
	struct timespec ts;

	atomic_store(&src->stop, true);
	do {
		pthread_kill(src->thread, FREEFALL_STOP);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
	} while (pthread_timedjoin_np(src->thread, NULL, &ts) == ETIMEDOUT);
}

static int read_freefall(struct source *src, sample_fn fn, void *data)
{
	struct sample s = { .hw_fall = true };
	unsigned char count;
	uint64_t v;
	ssize_t n;

	if (src->data_fd >= 0) {		/* the thread's eventfd */
		if (read(src->fd, &v, sizeof(v)) < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (v >= FREEFALL_GONE)
			return -ENODEV;
		s.t_ns = source_now_ns();
		fn(src, &s, data);
		return 0;
	}
	for (;;) {
		n = read(src->fd, &count, 1);
		if (!n)
			return -ENODEV;
		if (n < 0)
			return errno == EAGAIN ? 0 : errno == ENODEV ? -ENODEV : -errno;
		s.t_ns = source_now_ns();
		fn(src, &s, data);
	}
}

/*
 * An IIO buffer's device is gone (its directory may be another device's
 * now, of the same number): a read answers ENODEV.
 */
bool source_iio_gone(struct source *src)
{
	char c;

	/*
	 * One byte, less than a record: a live buffer answers EINVAL and
	 * gives nothing, nor flushes a hardware FIFO; a gone one, ENODEV.
	 */
	if (src->kind != SOURCE_IIO_BUFFER || src->fd < 0)
		return false;
	return read(src->fd, &c, 1) < 0 && errno == ENODEV;
}

bool source_taken_over(const struct source *src)
{
	char en[64];
	unsigned int i;

	/* (A file that cannot be read: the device is gone, its uevent says so.) */
	if (src->kind != SOURCE_IIO_BUFFER || src->fd < 0 ||
	    iio_is(src->path, "buffer/enable", "1") < 0)
		return false;
	/*
	 * Off, or switched off, changed and on again within a second; not
	 * a device that went away between the reads.
	 */
	if (!iio_on_as_guard_sets_it(src->path) ||
	    iio_is(src->path, "trigger/current_trigger", "") == 1)
		return iio_is(src->path, "buffer/enable", "1") >= 0;
	for (i = 0; i < 4; i++) {
		snprintf(en, sizeof(en), "scan_elements/in_%s_en", iio_chans[i]);
		if (!iio_is(src->path, en, "1"))
			return true;
	}
	return false;
}

int source_read(struct source *src, sample_fn fn, void *data)
{
	switch (src->kind) {
	case SOURCE_EVDEV:
		return read_evdev(src, fn, data);
	case SOURCE_FREEFALL:
		return read_freefall(src, fn, data);
	case SOURCE_IIO_BUFFER:
		return read_iio_buffer(src, fn, data);
	default:
		return read_polled(src, fn, data);
	}
}

static int add_path(char ***list, size_t *n, const char *fmt, const char *a,
		    const char *b)
{
	char **grown;

	grown = realloc(*list, (*n + 2) * sizeof(**list));
	if (!grown)
		return -ENOMEM;
	*list = grown;
	if (asprintf(&grown[*n], fmt, a, b) < 0)
		return -ENOMEM;
	grown[++*n] = NULL;
	return 0;
}

/* The entries of @dir starting with @prefix, in version order. */
static int add_dir(char ***list, size_t *n, const char *dir, const char *prefix,
		   const char *need)
{
	char path[PATH_MAX + 300];
	struct dirent **ents;
	int i, k, ret = 0;

	k = scandir(dir, &ents, NULL, versionsort);
	if (k < 0)
		return 0;
	for (i = 0; i < k; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, ents[i]->d_name, need);
		if (!ret && !strncmp(ents[i]->d_name, prefix, strlen(prefix)) &&
		    (!*need || !access(path, F_OK)))
			ret = add_path(list, n, "%s/%s", dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int source_candidates(char ***paths)
{
	static const char *const positions[] = {
		"/sys/devices/platform/lis3lv02d/position",
		"/sys/devices/platform/applesmc.768/position",
		"/sys/devices/platform/hdaps/position",
	};
	char **list = NULL;
	size_t n = 0, i;
	int ret;

	ret = add_dir(&list, &n, "/dev/input", "event", "");
	if (!ret)
		ret = add_dir(&list, &n, "/sys/bus/iio/devices", "iio:device", "in_accel_z_raw");
	if (!ret && !access("/dev/freefall", F_OK))
		ret = add_path(&list, &n, "%s%s", "/dev/freefall", "");
	for (i = 0; !ret && i < sizeof(positions) / sizeof(positions[0]); i++)
		if (!access(positions[i], F_OK))
			ret = add_path(&list, &n, "%s%s", positions[i], "");
	if (ret) {
		source_paths_free(list);
		return ret;
	}
	if (!list) {
		list = calloc(1, sizeof(*list));
		if (!list)
			return -ENOMEM;
	}
	*paths = list;
	return 0;
}

void source_paths_free(char **paths)
{
	size_t i;

	for (i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}
