// SPDX-License-Identifier: GPL-2.0-only
/*
 * motion-replay: play motion traces (tests/data/motion) through uinput as
 * an accelerometer, in real time, for hdpctl guard and hdapsd.
 *
 *   motion-replay [OPTION...] TRACE...
 *
 *   --name NAME       the device's name (default "hdprotect motion replay")
 *   --no-prop         without INPUT_PROP_ACCELEROMETER (a legacy driver)
 *   --bus B           i2c (default), host, usb or bluetooth
 *   --resolution N    the axes' resolution, counts per g (default 1024;
 *                     0: none, as legacy drivers)
 *   --counts-per-g N  the scale of the values written (default: the
 *                     resolution, or 1024)
 *   --range G         the axes' range, +-G g (their absinfo's minimum and
 *                     maximum; default 64): values beyond are clipped, as
 *                     a sensor's are
 *   --rate HZ         resample each trace to HZ (a driver's rate; default:
 *                     the trace's own)
 *   --seconds S       play at most S seconds of each trace
 *   --settle S        rest before the first trace (default 1): time for
 *                     the readers to find the device
 *   --gap S           rest after each trace (default 0)
 *   --wait-file F     once the device exists, wait for file F to exist
 *                     before the rest that --settle gives
 *   --i2c CHIP        instead of uinput, write the samples into the
 *                     registers of an emulated chip on i2c-stub, where its
 *                     real driver reads them: lis3lv02d (12 bits, 1024
 *                     counts per g, OUTX_L at 28h) or mma7455 (10 bits,
 *                     64 counts per g, clipped at 8 g, XOUTL at 00h)
 *   --i2c-bus N       the stub's bus (/dev/i2c-N, default 0)
 *   --i2c-addr A      the chip's address (default 0x1d)
 *   --loop S          instead of playing each TRACE once, play them for
 *                     S seconds in a seeded random order, each time turned
 *                     about z by a random quarter turn or mirror (gravity
 *                     stays on z, so that no turn shows between two
 *                     traces) and with 0.005 g of seeded Gaussian noise
 *                     added: the soak of non-fall motion
 *   --seed N          the seed of --loop (default 1)
 *   --mark PREFIX     kernel-log marks "hdp-mark: begin|end PREFIX/NAME"
 *                     around each trace (NAME: the file's name without
 *                     .trace) and, for a fall, "PREFIX-fall/NAME" just
 *                     before the fall's first sample
 *
 * Prints the event device ("device /dev/input/eventN") once it exists
 * (with --i2c: "device i2c-N ADDR"),
 * and for each fall "fall NAME T" with the CLOCK_MONOTONIC time in ns of
 * the fall's first sample. Rest is (0, 0, 1 g) with one count of
 * alternating noise, so that every sample reaches the readers (the input
 * core drops values that did not change). Exits 0 once all is played, 1
 * on an error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <linux/uinput.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *name;
	bool prop;
	int bus;
	int resolution;
	double counts_per_g;
	double range;
	double rate;
	double seconds;
	double settle;
	double gap;
	const char *mark;
	const char *wait_file;
	const char *i2c;
	int i2c_bus;
	int i2c_addr;
	double loop;
	uint64_t seed;
};


/* Where the samples go: a uinput device, or a chip's registers. */
struct sink {
	int fd;
	int reg;		/* i2c: the first output register */
	double cpg;		/* counts per g */
	int max;		/* i2c: the largest count */
};

struct trace {
	char name[128];
	double rate;
	double fall_start;	/* < 0: no fall */
	size_t n;
	double (*s)[4];		/* t, x, y, z */
};

static int kmsg = -1;

static void mark(const char *fmt, const char *a, const char *b)
{
	char buf[300];
	int n;

	if (kmsg < 0)
		return;
	n = snprintf(buf, sizeof(buf), fmt, a, b);
	if (write(kmsg, buf, n) < 0)
		perror("motion-replay: /dev/kmsg");
}

static int load(const char *path, struct trace *tr)
{
	char line[256];
	const char *base;
	size_t cap = 0;
	FILE *f;
	double t, x, y, z;
	int fall = 0;

	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	snprintf(tr->name, sizeof(tr->name), "%.*s", (int)strcspn(base, "."), base);
	tr->rate = 100;
	tr->fall_start = -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#') {
			sscanf(line, "# fall: %d", &fall);
			sscanf(line, "# fall_start_s: %lf", &tr->fall_start);
			sscanf(line, "# rate_hz: %lf", &tr->rate);
			continue;
		}
		if (sscanf(line, "%lf %lf %lf %lf", &t, &x, &y, &z) != 4)
			continue;
		if (tr->n == cap) {
			cap = cap ? 2 * cap : 1024;
			tr->s = realloc(tr->s, cap * sizeof(*tr->s));
			if (!tr->s) {
				fclose(f);
				return -1;
			}
		}
		tr->s[tr->n][0] = t;
		tr->s[tr->n][1] = x;
		tr->s[tr->n][2] = y;
		tr->s[tr->n][3] = z;
		tr->n++;
	}
	fclose(f);
	if (!fall)
		tr->fall_start = -1;
	if (!tr->n) {
		fprintf(stderr, "motion-replay: %s: no samples\n", path);
		return -1;
	}
	return 0;
}

/* The trace's acceleration at @t, linearly between its samples. */
static void at(const struct trace *tr, double t, double v[3])
{
	double i = t * tr->rate, f;
	size_t k = (size_t)i;
	int a;

	if (k + 1 >= tr->n) {
		for (a = 0; a < 3; a++)
			v[a] = tr->s[tr->n - 1][a + 1];
		return;
	}
	f = i - (double)k;
	for (a = 0; a < 3; a++)
		v[a] = tr->s[k][a + 1] * (1 - f) + tr->s[k + 1][a + 1] * f;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* One I2C block write of the three axes, little-endian, from @reg. */
static int emit_i2c(const struct sink *k, const double v[3])
{
	union i2c_smbus_data data = { 0 };
	struct i2c_smbus_ioctl_data args = {
		.read_write = I2C_SMBUS_WRITE,
		.command = (uint8_t)k->reg,
		.size = I2C_SMBUS_I2C_BLOCK_DATA,
		.data = &data,
	};
	long c;
	int a;

	data.block[0] = 6;
	for (a = 0; a < 3; a++) {
		c = lround(v[a] * k->cpg);
		c = c > k->max ? k->max : c < -k->max - 1 ? -k->max - 1 : c;
		data.block[1 + 2 * a] = (uint8_t)(c & 0xff);
		data.block[2 + 2 * a] = (uint8_t)((c >> 8) & 0xff);
	}
	return ioctl(k->fd, I2C_SMBUS, &args) ? -1 : 0;
}

static int emit(const struct sink *k, const double v[3])
{
	struct input_event ev[4] = { 0 };
	double cpg = k->cpg;
	int fd = k->fd;
	int a;

	if (k->reg >= 0)
		return emit_i2c(k, v);
	for (a = 0; a < 3; a++) {
		ev[a].type = EV_ABS;
		ev[a].code = ABS_X + a;
		ev[a].value = (int)lround(v[a] * cpg);
		if (ev[a].value > k->max)
			ev[a].value = k->max;
		if (ev[a].value < -k->max)
			ev[a].value = -k->max;
	}
	ev[3].type = EV_SYN;
	ev[3].code = SYN_REPORT;
	return write(fd, ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

/* @secs of rest from @t0, at @rate; returns the time after. */
static uint64_t rest(const struct sink *k, uint64_t t0, double secs, double rate)
{
	uint64_t period = (uint64_t)(1e9 / rate), t = t0;
	double v[3] = { 0, 0, 1 };
	unsigned int i;

	for (i = 0; i < secs * rate; i++, t += period) {
		sleep_until(t);
		v[2] = 1 + ((i & 1) ? 1 : -1) / k->cpg;
		emit(k, v);
	}
	return t;
}

/* The chip's registers, to be written as its driver reads them. */
static int open_i2c(const struct opts *o, struct sink *k)
{
	char path[32];

	if (!strcmp(o->i2c, "lis3lv02d")) {
		k->reg = 0x28;		/* OUTX_L, OUTX_H, OUTY_L, ... */
		k->cpg = 1024;
		k->max = 2047;
	} else if (!strcmp(o->i2c, "mma7455")) {
		k->reg = 0x00;		/* XOUTL, XOUTH, YOUTL, ... */
		k->cpg = 64;
		k->max = 511;
	} else {
		fprintf(stderr, "motion-replay: --i2c %s: lis3lv02d or mma7455\n", o->i2c);
		return -1;
	}
	snprintf(path, sizeof(path), "/dev/i2c-%d", o->i2c_bus);
	k->fd = open(path, O_RDWR | O_CLOEXEC);
	if (k->fd < 0 || ioctl(k->fd, I2C_SLAVE_FORCE, o->i2c_addr)) {
		perror(path);
		return -1;
	}
	printf("device i2c-%d 0x%02x\n", o->i2c_bus, o->i2c_addr);
	fflush(stdout);
	return 0;
}

static int create(const struct opts *o)
{
	struct uinput_abs_setup abs = { 0 };
	struct uinput_setup us = { 0 };
	char sys[64], path[128];
	int fd, a;

	fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("motion-replay: /dev/uinput");
		return -1;
	}
	ioctl(fd, UI_SET_EVBIT, EV_ABS);
	ioctl(fd, UI_SET_EVBIT, EV_SYN);
	if (o->prop)
		ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_ACCELEROMETER);
	for (a = 0; a < 3; a++) {
		ioctl(fd, UI_SET_ABSBIT, ABS_X + a);
		abs.code = ABS_X + a;
		abs.absinfo.minimum = -(int)(o->counts_per_g * o->range);
		abs.absinfo.maximum = (int)(o->counts_per_g * o->range);
		abs.absinfo.resolution = o->resolution;
		if (ioctl(fd, UI_ABS_SETUP, &abs)) {
			perror("motion-replay: UI_ABS_SETUP");
			return -1;
		}
	}
	snprintf(us.name, sizeof(us.name), "%s", o->name);
	us.id.bustype = o->bus;
	us.id.vendor = 0x1d6b;
	us.id.product = 0x0104;
	if (ioctl(fd, UI_DEV_SETUP, &us) || ioctl(fd, UI_DEV_CREATE)) {
		perror("motion-replay: UI_DEV_CREATE");
		return -1;
	}
	if (ioctl(fd, UI_GET_SYSNAME(sizeof(sys)), sys) >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/virtual/input/%s", sys);
		for (a = 0; a < 64; a++) {
			char ev[160];

			snprintf(ev, sizeof(ev), "%s/event%d", path, a);
			if (!access(ev, F_OK)) {
				printf("device /dev/input/event%d\n", a);
				break;
			}
		}
	}
	fflush(stdout);
	return fd;
}

/* xorshift64*: the seeded randomness of --loop. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static double gauss(uint64_t *s)
{
	double u = ((rnd(s) >> 11) + 1.0) / 9007199254740994.0;
	double v = (rnd(s) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* --loop: @secs of the traces, from @t; returns the time after. */
static uint64_t loop(const struct sink *k, struct trace *tr, int ntr,
		     const struct opts *o, uint64_t t)
{
	uint64_t s = o->seed * 0x9e3779b97f4a7c15ull + 1, end, period;
	double v[3], w[3], rate, ts, len;
	unsigned int turn, played = 0;
	int i, n;

	end = t + (uint64_t)(o->loop * 1e9);
	while (t < end) {
		i = (int)(rnd(&s) % (uint64_t)ntr);
		turn = (unsigned int)(rnd(&s) % 8);
		rate = o->rate ? o->rate : tr[i].rate;
		period = (uint64_t)(1e9 / rate);
		len = tr[i].n / tr[i].rate;
		for (n = 0; (ts = n / rate) < len && t < end; n++, t += period) {
			at(&tr[i], ts, v);
			/* a quarter turn or a mirror about z */
			w[0] = turn & 4 ? v[1] : v[0];
			w[1] = turn & 4 ? v[0] : v[1];
			w[0] = (turn & 1 ? -w[0] : w[0]) + 0.005 * gauss(&s);
			w[1] = (turn & 2 ? -w[1] : w[1]) + 0.005 * gauss(&s);
			w[2] = v[2] + 0.005 * gauss(&s);
			sleep_until(t);
			if (emit(k, w))
				return 0;
		}
		played++;
	}
	printf("looped %u traces in %.0f s\n", played, o->loop);
	return t;
}

static void usage(void)
{
	fputs("usage: motion-replay [--name N] [--no-prop] [--bus B] [--resolution N]\n"
	      "       [--counts-per-g N] [--range G] [--rate HZ] [--seconds S] [--settle S]\n"
	      "       [--gap S]\n"
	      "       [--wait-file F] [--i2c CHIP [--i2c-bus N] [--i2c-addr A]]\n"
	      "       [--loop S [--seed N]]\n"
	      "       [--mark PREFIX] TRACE...\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "name", 1, NULL, 'n' }, { "no-prop", 0, NULL, 'P' },
		{ "bus", 1, NULL, 'b' }, { "resolution", 1, NULL, 'r' },
		{ "counts-per-g", 1, NULL, 'c' }, { "rate", 1, NULL, 'R' },
		{ "seconds", 1, NULL, 's' }, { "settle", 1, NULL, 'S' },
		{ "gap", 1, NULL, 'g' }, { "mark", 1, NULL, 'm' },
		{ "wait-file", 1, NULL, 'w' }, { "i2c", 1, NULL, 'i' },
		{ "i2c-bus", 1, NULL, 'B' }, { "i2c-addr", 1, NULL, 'A' },
		{ "loop", 1, NULL, 'L' }, { "seed", 1, NULL, 'E' },
		{ "range", 1, NULL, 'G' }, { 0 },
	};
	struct opts o = {
		.name = "hdprotect motion replay", .prop = true, .bus = BUS_I2C,
		.resolution = 1024, .settle = 1, .i2c_addr = 0x1d, .seed = 1, .range = 64,
	};
	struct sink k = { .fd = -1, .reg = -1 };
	struct trace *tr;
	uint64_t t, period, fall_t;
	double v[3], rate, len, ts;
	int c, i, n;
	bool first;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o.name = optarg; break;
		case 'P': o.prop = false; break;
		case 'b':
			o.bus = !strcmp(optarg, "usb") ? BUS_USB :
				!strcmp(optarg, "bluetooth") ? BUS_BLUETOOTH :
				!strcmp(optarg, "host") ? BUS_HOST : BUS_I2C;
			break;
		case 'r': o.resolution = atoi(optarg); break;
		case 'c': o.counts_per_g = atof(optarg); break;
		case 'R': o.rate = atof(optarg); break;
		case 's': o.seconds = atof(optarg); break;
		case 'S': o.settle = atof(optarg); break;
		case 'g': o.gap = atof(optarg); break;
		case 'm': o.mark = optarg; break;
		case 'w': o.wait_file = optarg; break;
		case 'i': o.i2c = optarg; break;
		case 'B': o.i2c_bus = atoi(optarg); break;
		case 'A': o.i2c_addr = (int)strtol(optarg, NULL, 0); break;
		case 'L': o.loop = atof(optarg); break;
		case 'E': o.seed = strtoull(optarg, NULL, 0); break;
		case 'G': o.range = atof(optarg); break;
		default: usage();
		}
	}
	if (optind == argc)
		usage();
	if (!o.counts_per_g)
		o.counts_per_g = o.resolution > 0 ? o.resolution : 1024;
	tr = calloc(argc - optind, sizeof(*tr));
	if (!tr)
		return 1;
	for (i = optind; i < argc; i++)
		if (load(argv[i], &tr[i - optind]))
			return 1;
	if (o.mark)
		kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (o.i2c) {
		if (open_i2c(&o, &k))
			return 1;
	} else {
		k.fd = create(&o);
		k.cpg = o.counts_per_g;
		k.max = (int)(o.counts_per_g * o.range);
		if (k.fd < 0)
			return 1;
	}
	while (o.wait_file && access(o.wait_file, F_OK))
		usleep(10000);
	rate = o.rate ? o.rate : tr[0].rate;
	t = rest(&k, now_ns(), o.settle, rate);
	if (o.loop) {
		if (o.mark)
			mark("hdp-mark: begin %s/%s\n", o.mark, "loop");
		if (!loop(&k, tr, argc - optind, &o, t)) {
			perror("motion-replay: write");
			return 1;
		}
		if (o.mark)
			mark("hdp-mark: end %s/%s\n", o.mark, "loop");
	}
	for (i = 0; !o.loop && i < argc - optind; i++) {
		rate = o.rate ? o.rate : tr[i].rate;
		period = (uint64_t)(1e9 / rate);
		len = tr[i].n / tr[i].rate;
		if (o.seconds && o.seconds < len)
			len = o.seconds;
		if (o.mark)
			mark("hdp-mark: begin %s/%s\n", o.mark, tr[i].name);
		fall_t = 0;
		for (n = 0; (ts = n / rate) < len; n++, t += period) {
			at(&tr[i], ts, v);
			sleep_until(t);
			first = tr[i].fall_start >= 0 && !fall_t && ts >= tr[i].fall_start;
			if (first && o.mark)
				mark("hdp-mark: begin %s-fall/%s\n", o.mark, tr[i].name);
			if (first)
				fall_t = now_ns();
			if (emit(&k, v)) {
				perror("motion-replay: write");
				return 1;
			}
			if (first && o.mark)
				mark("hdp-mark: end %s-fall/%s\n", o.mark, tr[i].name);
		}
		if (fall_t)
			printf("fall %s %llu\n", tr[i].name, (unsigned long long)fall_t);
		t = rest(&k, t, o.gap, rate);
		if (o.mark)
			mark("hdp-mark: end %s/%s\n", o.mark, tr[i].name);
		fflush(stdout);
	}
	if (!o.i2c)
		ioctl(k.fd, UI_DEV_DESTROY);
	close(k.fd);
	return 0;
}
