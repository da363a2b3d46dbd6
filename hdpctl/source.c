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
 * IIO accelerometers: in_accel_{x,y,z}_raw times in_accel_scale (m/s^2 per
 * count), read at SOURCE_POLL_HZ: the buffered interface needs a trigger
 * that most laptop sensors lack, and the raw files work everywhere.
 *
 * /dev/freefall (lis3lv02d, dell-smo8800): a read returns how many times
 * the hardware saw a free fall; it is the hardware's own decision.
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "source.h"

/*
 * Sysfs sources are read 100 times a second: a 10 cm drop falls for
 * 143 ms, and the detector wants 40 ms of it (detect.c).
 */
#define SOURCE_POLL_HZ		100
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
	case SOURCE_FREEFALL:
		return "freefall";
	default:
		return "position";
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_timer(void)
{
	struct itimerspec its = {
		.it_interval.tv_nsec = 1000000000 / SOURCE_POLL_HZ,
		.it_value.tv_nsec = 1000000000 / SOURCE_POLL_HZ,
	};
	int fd;

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -errno;
	}
	return fd;
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

static int open_evdev(const char *path, bool named, struct source *src,
		      char *why, size_t whylen)
{
	unsigned long props[BIT_WORDS(INPUT_PROP_CNT)] = { 0 };
	unsigned long abs[BIT_WORDS(ABS_CNT)] = { 0 };
	struct input_absinfo ai;
	struct input_id id;
	int clk = CLOCK_MONOTONIC;
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
	if (!accel) {
		snprintf(why, whylen, "%s (%s) is not an accelerometer%s", path,
			 src->name, named ? " (no INPUT_PROP_ACCELEROMETER)" : "");
		goto notty;
	}
	if (id.bustype == BUS_USB || id.bustype == BUS_BLUETOOTH) {
		snprintf(why, whylen,
			 "%s (%s) is the motion sensor of a %s device, which moves without the disk: ignored",
			 path, src->name, id.bustype == BUS_USB ? "USB" : "Bluetooth");
		close(fd);
		return -EPERM;
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
	}
	/* Sample times on the clock of the park's times. */
	ioctl(fd, EVIOCSCLOCKID, &clk);
	src->kind = SOURCE_EVDEV;
	src->fd = fd;
	return 0;
notty:
	close(fd);
	return -ENOTTY;
}

static int open_iio(const char *path, struct source *src, char *why,
		    size_t whylen)
{
	char dir[PATH_MAX], file[PATH_MAX + 32], buf[64];
	const char *base;
	double scale;
	int fd;

	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!strchr(path, '/'))
		snprintf(dir, sizeof(dir), "/sys/bus/iio/devices/%s", path);
	else
		snprintf(dir, sizeof(dir), "%s", path);
	snprintf(file, sizeof(file), "%s/name", dir);
	if (read_text(file, src->name, sizeof(src->name)))
		snprintf(src->name, sizeof(src->name), "%s", base);
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
	fd = open_timer();
	if (fd < 0)
		return fd;
	snprintf(src->path, sizeof(src->path), "%s", dir);
	src->kind = SOURCE_IIO;
	src->fd = fd;
	src->iio_scale_g = scale / STANDARD_GRAVITY;
	src->counts_per_g = 1;
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
	fd = open_timer();
	if (fd < 0)
		return fd;
	snprintf(src->name, sizeof(src->name), "%s position", strstr(path, "lis3lv02d") ?
		 "lis3lv02d" : strstr(path, "applesmc") ? "applesmc" : "driver");
	src->counts_per_g = strstr(path, "lis3lv02d") ? 1000 : 0;
	src->kind = SOURCE_POSITION;
	src->fd = fd;
	return 0;
}

int source_open(const char *path, bool named, struct source *src,
		char *why, size_t whylen)
{
	struct stat st;
	int ret;

	*src = (struct source){ .fd = -1, .data_fd = -1 };
	snprintf(src->path, sizeof(src->path), "%s", path);
	*why = '\0';
	if (!strncmp(path, "iio:device", 10) || strstr(path, "/iio:device"))
		return open_iio(path, src, why, whylen);
	if (stat(path, &st))
		return -errno;
	if (S_ISCHR(st.st_mode) && strstr(path, "freefall")) {
		ret = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (ret < 0)
			return -errno;
		src->kind = SOURCE_FREEFALL;
		src->fd = ret;
		snprintf(src->name, sizeof(src->name), "hardware free-fall detector");
		return 0;
	}
	if (S_ISCHR(st.st_mode))
		return open_evdev(path, named, src, why, whylen);
	if (S_ISREG(st.st_mode))
		return open_position(path, src, why, whylen);
	snprintf(why, whylen, "%s is no accelerometer this tool knows", path);
	return -ENOTTY;
}

void source_close(struct source *src)
{
	if (src->fd >= 0)
		close(src->fd);
	if (src->data_fd >= 0)
		close(src->data_fd);
	src->fd = src->data_fd = -1;
}

/* Counts to g, or learn the scale from gravity; 1 if @s is a sample. */
static bool scale_sample(struct source *src, uint64_t t, struct sample *s)
{
	double x = src->raw[0], y = src->raw[1], z = src->raw[2];

	if (!src->counts_per_g) {
		src->cal_sum += sqrt(x * x + y * y + z * z);
		if (++src->cal_n == SOURCE_CALIBRATION_SAMPLES && src->cal_sum > 0)
			src->counts_per_g = src->cal_sum / src->cal_n;
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

static int read_evdev(struct source *src, sample_fn fn, void *data)
{
	struct input_event ev[64];
	struct input_absinfo ai;
	struct sample s;
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
				if (scale_sample(src, (uint64_t)ev[i].input_event_sec * 1000000000ull +
						 (uint64_t)ev[i].input_event_usec * 1000, &s))
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
	t = now_ns();
	if (src->kind == SOURCE_IIO) {
		for (a = 0; a < 3; a++) {
			snprintf(file, sizeof(file), "%s/in_accel_%c_raw", src->path, axis[a]);
			ret = read_text(file, buf, sizeof(buf));
			if (ret)
				return ret == -ENOENT ? -ENODEV : ret;
			src->raw[a] = (int32_t)strtol(buf, NULL, 10);
		}
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
	if (sscanf(buf, "(%d,%d,%d)", &src->raw[0], &src->raw[1], &src->raw[2]) != 3)
		return -EIO;
	if (scale_sample(src, t, &s))
		fn(src, &s, data);
	return 0;
}

static int read_freefall(struct source *src, sample_fn fn, void *data)
{
	struct sample s = { .hw_fall = true };
	unsigned long count;

	for (;;) {
		if (read(src->fd, &count, sizeof(count)) < 0)
			return errno == EAGAIN ? 0 : errno == ENODEV ? -ENODEV : -errno;
		s.t_ns = now_ns();
		fn(src, &s, data);
	}
}

int source_read(struct source *src, sample_fn fn, void *data)
{
	switch (src->kind) {
	case SOURCE_EVDEV:
		return read_evdev(src, fn, data);
	case SOURCE_FREEFALL:
		return read_freefall(src, fn, data);
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
