// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdpctl guard: feel the fall, park every protected disk.
 *
 * One thread waits in epoll on everything that can happen: each
 * accelerometer (an event device, or a timer for the sources that only
 * offer sysfs files), the kernel's protection events (libhdp's monitor),
 * udev's events (disks and accelerometers that come and go; the kernel's
 * where udevd does not run), a
 * timer for the end of a park, and a signalfd (SIGTERM and SIGINT stop,
 * SIGHUP reloads the configuration). Nothing is polled at a fixed rate
 * but the sysfs sources, and once a second the watchdog, the sources'
 * liveness and the IIO buffers' state (on_watch()). The log is written
 * by a thread of its own (glog()), and the system bus is served by
 * another (bus.c): the loop hands it a copy of its state (bus_tell())
 * and takes the commands it authorised (on_bus()).
 *
 * A sample that calls for a park (detect.c) sends one netlink PARK of
 * every enabled disk at once, with the configured timeout, and does not
 * wait for the devices: the kernel answers when the disks' I/O is held and
 * their park commands started, and the devices' answers come as events.
 * While the motion goes on the park is renewed (at most every RENEW_MS),
 * so it ends a timeout after the last motion: the kernel unparks by
 * itself, and a guard that dies leaves no disk parked for long.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <linux/input.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <hdp.h>
#include <libudev.h>

#include "bus.h"
#include "conf.h"
#include "detect.h"
#include "guard.h"
#include "source.h"

#define MAX_SOURCES	GUARD_MAX_SOURCES
#define MAX_DISKS	GUARD_MAX_DISKS
/*
 * A park that goes on is renewed at most every 100 ms: often enough that
 * it never ends during a motion (a timeout is 1 ms at the very least, but
 * 2 s by default), rarely enough that a long fall costs a handful of
 * requests.
 */
#define RENEW_NS	(100 * 1000000ull)
/*
 * SCHED_FIFO priority 10: above every ordinary task, so that a busy
 * machine does not delay a fall's sample, and below the kernel's
 * interrupt threads (50), which the park itself needs.
 */
#define GUARD_RT_PRIORITY	10

enum tag {
	TAG_SIGNAL = 1,
	TAG_UEVENT,
	TAG_TIMER,
	TAG_MONITOR,
	TAG_FALL,
	TAG_RESCAN,
	TAG_WATCH,
	TAG_BUS,
	TAG_SOURCE = 100,	/* + the source's slot, + its generation << 32 */
};

struct guard {
	const struct guard_opts *opts;
	struct guard_conf conf;
	struct hdp_ctx *ctx;		/* requests: parks, items */
	struct hdp_ctx *mon;		/* the kernel's events */
	int ep, sfd, uev, tfd, ftfd, rfd, wfd;
	struct udev *udev;		/* with umon: udevd's events, */
	struct udev_monitor *umon;	/* else uev is the kernel's */
	bool rescan_due;		/* events were lost: rescan_all() */
	uint64_t lost_told_ns;		/* said so last (once a minute) */
	/* IIO devices left to another program, tried again each second */
	struct waiting {
		char path[PATH_MAX];
		unsigned int flags;
	} waiting[4];
	unsigned int display_skipped;	/* auto: passed over as the display's */
	struct logq *log;
	struct source src[MAX_SOURCES];	/* fd -1: a free slot */
	/* bumped when a slot is freed: an event of the closed fd still
	 * queued in the same epoll batch is not the new source's */
	uint32_t src_gen[MAX_SOURCES];
	uint64_t src_key[MAX_SOURCES];	/* what names it: hold_key() */
	/* the buckets of sources closed, by what named them: hold_save() */
	struct hold_memo {
		uint64_t key;		/* 0: free */
		struct source_hold hold;
	} held[2 * MAX_SOURCES];
	unsigned int rescans;		/* retries left for named disks */
	uint64_t missing;		/* bit i: conf.disks[i] not present */
	char disks[MAX_DISKS][HDP_NAME_MAX + 1];	/* protected now */
	bool disk_parked[MAX_DISKS];	/* the kernel said so (any park) */
	size_t ndisks;
	bool kernel_missing;		/* hdprotect is not loaded */
	unsigned int refused;		/* disks the kernel refused to set up */
	/* the park in progress */
	bool parked;
	uint64_t park_start_ns, last_request_ns, park_end_ns;
	unsigned int renewals;
	uint64_t last_failure_ns;
	bool stop;
	bool failed;			/* the loop broke: exit 1 */
	bool status_dirty;		/* STATUS= to tell systemd again */
	char status[600];		/* the last told */
	bool watchdog;			/* systemd's WatchdogSec= is on */
	/* paused (no park) until then (CLOCK_MONOTONIC), or 0; by whom */
	uint64_t paused_until_ns;
	uint64_t paused_until_us;	/* the same, CLOCK_REALTIME (D-Bus) */
	char paused_by[64];
	bool paused_fall_told;		/* a fall while paused was said */
	/* the D-Bus face (bus.h), or NULL; its state to tell again */
	struct bus *bus;
	bool bus_dirty;
	uint32_t parks;			/* since the start, renewals not */
	uint64_t last_park_us;		/* CLOCK_REALTIME; 0: none yet */
	char last_cause[32], last_sensor[128], last_disks[256];
	double last_latency_ms;
	struct bus_state bus_st;	/* bus_tell()'s */
};

/* The kernel's message of the last request, or "" if it gave none. */
static const char *kmsg(const struct hdp_ctx *ctx)
{
	const char *m = hdp_kernel_message(ctx);

	return m ? m : "";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A sample's time (SOURCE_CLOCK) on CLOCK_MONOTONIC, the kernel's. */
/* CLOCK_REALTIME in µs of @mono_ns, a CLOCK_MONOTONIC time (for D-Bus). */
static uint64_t realtime_us(uint64_t mono_ns)
{
	struct timespec ts;
	uint64_t now = now_ns(), real;

	clock_gettime(CLOCK_REALTIME, &ts);
	real = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	return mono_ns >= now ? real + (mono_ns - now) / 1000 : real - (now - mono_ns) / 1000;
}

static uint64_t sample_to_mono(uint64_t t)
{
	uint64_t boot = source_now_ns(), mono = now_ns();

	return t + mono > boot ? t + mono - boot : 0;
}

/* A timerfd that fires every @ns from now, or never (@ns 0). */
static void set_periodic(int fd, uint64_t ns)
{
	struct itimerspec its = {
		.it_value.tv_sec = ns / 1000000000ull,
		.it_value.tv_nsec = ns % 1000000000ull,
	};

	its.it_interval = its.it_value;
	timerfd_settime(fd, 0, &its, NULL);
}

/*
 * The log. The loop never writes stderr itself: a journal that is slow
 * to take a line, or a pipe nobody reads, would stop it in the middle of
 * a fall. glog() puts each line in a ring (LOG_RING bytes) and a thread of
 * ordinary priority writes them out, blocking as it must. A line that
 * finds the ring full is dropped and counted, and the writer says how
 * many were lost once it catches up. Its mutex inherits priority: the
 * writer holds it only to copy lines out, never while it writes.
 */
#define LOG_RING	(64 * 1024)
#define LOG_LINE	1024
#define LOG_EXIT_S	2

struct logq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char ring[LOG_RING];
	size_t head, tail;		/* free-running: used = head - tail */
	unsigned long dropped;
	bool journal;			/* stderr is the journal's stream */
	bool running, stop;
	pthread_t thread;
};

/* Write all of @buf to stderr, waiting as needed (the writer's thread). */
static void write_all(const char *buf, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(STDERR_FILENO, buf, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		buf += r;
		n -= (size_t)r;
	}
}

static void *log_writer(void *arg)
{
	struct logq *q = arg;
	char out[LOG_LINE * 4], note[128];
	unsigned long dropped;
	size_t n, k;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->head == q->tail && !q->dropped && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->head == q->tail && !q->dropped)
			break;
		n = q->head - q->tail;
		if (n > sizeof(out))
			n = sizeof(out);
		for (k = 0; k < n; k++)
			out[k] = q->ring[(q->tail + k) % LOG_RING];
		q->tail += n;
		dropped = q->head == q->tail ? q->dropped : 0;
		q->dropped -= dropped;
		pthread_mutex_unlock(&q->mu);
		write_all(out, n);
		if (dropped) {
			k = (size_t)snprintf(note, sizeof(note),
					     "%s%lu log line%s lost: stderr was not read fast enough\n",
					     q->journal ? "<4>" : "hdpctl guard: ", dropped,
					     dropped == 1 ? "" : "s");
			write_all(note, k);
		}
		pthread_mutex_lock(&q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

static int log_start(struct logq *q)
{
	pthread_mutexattr_t ma;
	pthread_attr_t attr;
	sigset_t all, was;
	int ret;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	ret = pthread_mutex_init(&q->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	if (ret)
		return -ret;
	pthread_cond_init(&q->cv, NULL);
	/* A small stack: the guard locks all its memory. */
	ret = pthread_attr_init(&attr);
	if (!ret)
		ret = pthread_attr_setstacksize(&attr, 64 * 1024 + sizeof(((struct logq *)0)->ring) / 8);
	/* Signals are the loop's (its signalfd): the writer blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	if (!ret) {
		ret = pthread_create(&q->thread, &attr, log_writer, q);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	q->running = !ret;
	return -ret;
}

/* Every line queued is written before this returns. */
static void log_stop(struct logq *q)
{
	if (!q->running)
		return;
	struct timespec ts;

	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	/*
	 * A writer stuck in write() (a pipe nobody reads, a journal that
	 * waits for a disk) does not keep the guard from exiting: after
	 * LOG_EXIT_S the rest of the log is lost, and said so on stderr
	 * without waiting.
	 */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += LOG_EXIT_S;
	if (pthread_timedjoin_np(q->thread, NULL, &ts)) {
		static const char lost[] = "hdpctl guard: stderr is not read: the last lines are lost\n";

		fcntl(STDERR_FILENO, F_SETFL, fcntl(STDERR_FILENO, F_GETFL) | O_NONBLOCK);
		if (write(STDERR_FILENO, lost, sizeof(lost) - 1) < 0)
			(void)0;
		return;		/* the process exits; the thread with it */
	}
	q->running = false;
}

/*
 * One line: with a syslog priority prefix when stderr is the journal
 * (systemd's JOURNAL_STREAM names stderr's device and inode), else
 * after "hdpctl guard: ". Queued for the writer, never waited for.
 */
static void __attribute__((format(printf, 3, 4)))
glog(const struct guard *g, int prio, const char *fmt, ...)
{
	struct logq *q = g->log;
	char msg[LOG_LINE], buf[LOG_LINE];
	va_list ap;
	size_t k;
	int n;

	if (prio == LOG_DEBUG && !g->opts->verbose)
		return;
	n = q->journal ? snprintf(buf, sizeof(buf), "<%d>", prio) :
	    snprintf(buf, sizeof(buf), "hdpctl guard: ");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/*
	 * Devices' names are escaped where they are read; this is for every
	 * other string (a path from a uevent, a kernel's message): a line is
	 * one line, whose priority is ours.
	 */
	source_escape(buf + n, sizeof(buf) - n - 1, msg, false);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	if (!q->running) {
		write_all(buf, (size_t)n);
		return;
	}
	pthread_mutex_lock(&q->mu);
	if (LOG_RING - (q->head - q->tail) < (size_t)n) {
		q->dropped++;
	} else {
		for (k = 0; k < (size_t)n; k++)
			q->ring[(q->head + k) % LOG_RING] = buf[k];
		q->head += (size_t)n;
	}
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

/* Whether stderr is the stream systemd's JOURNAL_STREAM names. */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 &&
	       !fstat(STDERR_FILENO, &st) && st.st_dev == dev && st.st_ino == ino;
}

/* Tell systemd (Type=notify) how things are, if it asked. */
static void notify(const char *msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	socklen_t len;
	int fd;

	if (!path || (*path != '/' && *path != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	if (*path == '@')
		sa.sun_path[0] = '\0';
	len = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sa,
		   len) < 0)
		(void)0;
	close(fd);
}

/* ---- disks ---- */

static int read_sysfs_int(const char *fmt, const char *name, int *v)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), fmt, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*v = atoi(buf);
	return 0;
}

/*
 * The /sys/block name of @spec: a name from /sys/block, or the path of a
 * whole disk's device node (/dev/disk/by-id/..., wwn-..., /dev/sda).
 */
static int disk_name(const char *spec, char *name, size_t len, char *why,
		     size_t wlen)
{
	char link[PATH_MAX], target[PATH_MAX], *base;
	struct stat st;
	ssize_t n;

	if (!strchr(spec, '/')) {
		snprintf(link, sizeof(link), "/sys/block/%s", spec);
		if (strlen(spec) >= len || access(link, F_OK)) {
			snprintf(why, wlen, "%s: no such disk", spec);
			return -ENODEV;
		}
		strcpy(name, spec);
		return 0;
	}
	if (stat(spec, &st)) {
		snprintf(why, wlen, "%s: %s", spec, strerror(errno));
		return -ENODEV;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(why, wlen, "%s is not a block device", spec);
		return -EINVAL;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		snprintf(why, wlen, "%s: no disk in /sys/dev/block", spec);
		return -ENODEV;
	}
	target[n] = '\0';
	strcat(link, "/partition");
	if (!access(link, F_OK)) {
		snprintf(why, wlen, "%s is a partition: name the whole disk", spec);
		return -EINVAL;
	}
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len) {
		snprintf(why, wlen, "%s: its name is too long", spec);
		return -ENAMETOOLONG;
	}
	strcpy(name, base);
	return 0;
}

/* "auto": a disk with a device (not virtual), rotational, not removable. */
static bool auto_disk(const char *name)
{
	char path[PATH_MAX];
	int rot, rem;

	snprintf(path, sizeof(path), "/sys/block/%s/device", name);
	if (access(path, F_OK))
		return false;
	if (read_sysfs_int("/sys/block/%s/queue/rotational", name, &rot) || !rot)
		return false;
	if (read_sysfs_int("/sys/block/%s/removable", name, &rem) || rem)
		return false;
	return true;
}

static bool is_protected(const struct guard *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->ndisks; i++)
		if (!strcmp(g->disks[i], name))
			return true;
	return false;
}

static void forget_disk(struct guard *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->ndisks; i++) {
		if (!strcmp(g->disks[i], name)) {
			memmove(g->disks[i], g->disks[i + 1],
				(g->ndisks - i - 1) * sizeof(g->disks[0]));
			memmove(&g->disk_parked[i], &g->disk_parked[i + 1],
				(g->ndisks - i - 1) * sizeof(g->disk_parked[0]));
			g->ndisks--;
			g->bus_dirty = true;
			return;
		}
	}
}

/*
 * Put one disk under protection with the configuration's settings. An
 * "auto" disk whose driver cannot park it is passed over quietly, once.
 */
static void protect_disk(struct guard *g, const char *name, const char *spec,
			 bool quiet)
{
	struct hdp_settings set = {
		.size = sizeof(set),
		.set = HDP_SET_ENABLED | HDP_SET_TIMEOUT | HDP_SET_METHOD,
		.enabled = true,
		.timeout_ms = g->conf.timeout_ms,
		.method = g->conf.method,
	};
	int ret;

	ret = hdp_add(g->ctx, name);
	if (ret == -EOPNOTSUPP || ret == -EINVAL) {
		if (!quiet)
			glog(g, spec ? LOG_WARNING : LOG_INFO,
			     "%s%s%s: %s: not protected", name, spec ? " " : "", spec ? spec : "",
			     ret == -EINVAL ? "a partition" : "its driver cannot park it");
		return;
	}
	if (ret == -ENOSYS || ret == -ENOENT || ret == -EPROTONOSUPPORT) {
		g->kernel_missing = true;
		return;
	}
	if (!ret || ret == -EEXIST)
		ret = hdp_set(g->ctx, name, &set);
	if (ret) {
		if (ret != -ENODEV)
			g->refused++;
		if (!quiet || !is_protected(g, name))
			glog(g, LOG_WARNING, "%s: cannot protect it: %s%s%s%s", name,
			     hdp_strerror(ret), *kmsg(g->ctx) ? " (" : "",
			     kmsg(g->ctx), *kmsg(g->ctx) ? ")" : "");
		if (ret == -ENODEV)
			forget_disk(g, name);
		return;
	}
	if (is_protected(g, name) || g->ndisks == MAX_DISKS)
		return;
	g->disk_parked[g->ndisks] = false;
	snprintf(g->disks[g->ndisks++], sizeof(g->disks[0]), "%s", name);
	g->bus_dirty = true;
	glog(g, LOG_NOTICE, "protecting %s%s%s%s: parks of %u.%03u s, method %s", name,
	     spec ? " (" : "", spec ? spec : "", spec ? ")" : "",
	     g->conf.timeout_ms / 1000, g->conf.timeout_ms % 1000,
	     hdp_method_name(g->conf.method));
}

/*
 * The configuration's disks, added and enabled. Run at the start, on
 * SIGHUP, when a disk appears and when hdprotect comes back; @quiet
 * after the start, where only news is told; @rescan: only the named
 * disks that were not present (g->missing), for on_rescan(). Updates
 * g->missing and returns how many disks the configuration names that are
 * not present (a partition or a file named is an error, not missing).
 */
static size_t setup_disks(struct guard *g, bool quiet, bool rescan)
{
	char name[HDP_NAME_MAX + 1], why[PATH_MAX + 64];
	struct dirent **ents;
	size_t i, missing = 0;
	uint64_t bit;
	int k, j, ret;

	/* Without hdprotect only its return tells: KERNEL_BACK sets all up. */
	if (rescan && g->kernel_missing)
		return 1;
	g->kernel_missing = false;
	if (!rescan)
		g->missing = g->refused = 0;
	if (g->conf.disks) {
		for (i = 0; g->conf.disks[i]; i++) {
			bit = i < 64 ? 1ull << i : 0;
			if (rescan && !(g->missing & bit))
				continue;
			g->missing &= ~bit;
			ret = disk_name(g->conf.disks[i], name, sizeof(name), why, sizeof(why));
			if (ret == -ENODEV) {
				if (!quiet)
					glog(g, LOG_WARNING, "%s; it is protected when it appears",
					     why);
				/* (past 64 names: protected when its uevent comes) */
				g->missing |= bit;
				missing += bit != 0;
				continue;
			}
			if (ret) {
				if (!quiet)
					glog(g, LOG_WARNING, "%s: not protected", why);
				continue;
			}
			protect_disk(g, name, strcmp(name, g->conf.disks[i]) ?
				     g->conf.disks[i] : NULL, quiet);
		}
	} else {
		k = scandir("/sys/block", &ents, NULL, versionsort);
		for (j = 0; j < k; j++) {
			if (ents[j]->d_name[0] != '.' && auto_disk(ents[j]->d_name))
				protect_disk(g, ents[j]->d_name, NULL, quiet);
			free(ents[j]);
		}
		if (k >= 0)
			free(ents);
	}
	if (g->kernel_missing)
		glog(g, quiet ? LOG_DEBUG : LOG_WARNING,
		     "hdprotect is not in the kernel (modprobe hdprotect): the disks are protected once it is");
	return missing;
}

/*
 * A disk that the configuration names by a link (/dev/disk/by-id/...):
 * the kernel announces the disk before udev has made the link, and at
 * boot the guard may start before udev is done. Whenever named disks are
 * missing after a setup, they are looked up again every RESCAN_NS,
 * RESCANS times (10 s in all).
 */
#define RESCAN_NS	(250 * 1000000ull)
#define RESCANS		40

static void arm_rescan(struct guard *g, bool on)
{
	char names[512] = "";
	size_t i, n = 0;

	/* Without hdprotect, its return sets every disk up. */
	if (on && g->kernel_missing)
		return;
	for (i = 0; on && g->conf.disks && g->conf.disks[i] && i < 64 && n < sizeof(names); i++)
		if (g->missing & (1ull << i))
			n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? " " : "",
				      g->conf.disks[i]);
	if (on)
		glog(g, LOG_INFO, "named disks not present (%s): looked up again for %llu s",
		     names, RESCANS * RESCAN_NS / 1000000000ull);
	g->rescans = on ? RESCANS : 0;
	set_periodic(g->rfd, on ? RESCAN_NS : 0);
}

/* Set the disks up; look again for the named ones missing. */
static void setup_all_disks(struct guard *g, bool quiet)
{
	if (setup_disks(g, quiet, false))
		arm_rescan(g, true);
}

static void on_rescan(struct guard *g)
{
	uint64_t ticks;

	if (read(g->rfd, &ticks, sizeof(ticks)) < 0)
		(void)0;
	if (!g->rescans || !setup_disks(g, true, true) || !--g->rescans)
		arm_rescan(g, false);
}

/* Whether the configuration asks for @name, whether protected now or not. */
static bool wanted(const struct guard *g, const char *name)
{
	char n[HDP_NAME_MAX + 1], why[PATH_MAX + 64];
	size_t i;

	if (!g->conf.disks)
		return auto_disk(name);
	for (i = 0; g->conf.disks[i]; i++)
		if (!disk_name(g->conf.disks[i], n, sizeof(n), why, sizeof(why)) &&
		    !strcmp(n, name))
			return true;
	return false;
}

static void disks_text(const struct guard *g, char *buf, size_t len)
{
	size_t i, n = 0;

	*buf = '\0';
	for (i = 0; i < g->ndisks && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "", g->disks[i]);
}

/*
 * The unit's STATUS=, as systemctl status shows it: what is protected and
 * with which sensors, or why nothing is. Told when it changes.
 */
static void update_status(struct guard *g)
{
	char disks[256], srcs[256] = "", msg[600];
	size_t i, n = 0, ok = 0, len = 0;

	g->status_dirty = false;
	disks_text(g, disks, sizeof(disks));
	for (i = 0; i < MAX_SOURCES; i++) {
		const struct source *src = &g->src[i];

		if (src->fd < 0)
			continue;
		n++;
		if (now_ns() < src->hold.aside_until_ns || src->det.fault || src->silent_told || src->errors)
			continue;
		ok++;
		if (len < sizeof(srcs))
			len += (size_t)snprintf(srcs + len, sizeof(srcs) - len, "%s%s",
						len ? " " : "", src->path);
	}
	if (!g->ndisks)
		snprintf(msg, sizeof(msg), "STATUS=no disk protected yet (%s)",
			 g->kernel_missing ? "waiting for hdprotect" : "waiting for the disks named");
	else if (!ok)
		snprintf(msg, sizeof(msg), "STATUS=%s NOT guarded: %s", disks,
			 n ? "no accelerometer reads as it should (see the log)" :
			 "no accelerometer; waiting for one");
	else
		snprintf(msg, sizeof(msg), "STATUS=protecting %s with %s", disks, srcs);
	if (g->paused_until_ns && g->ndisks)
		snprintf(msg, sizeof(msg), "STATUS=%s NOT guarded: paused %s", disks, g->paused_by);
	if (strcmp(msg, g->status)) {
		snprintf(g->status, sizeof(g->status), "%s", msg);
		notify(msg);
	}
}

/* ---- parks ---- */

static void arm_timer(struct guard *g, uint64_t at_ns)
{
	struct itimerspec its = {
		.it_value.tv_sec = at_ns / 1000000000ull,
		.it_value.tv_nsec = at_ns % 1000000000ull,
	};

	timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void describe(const struct source *src, const struct sample *s,
		     enum detect_cause cause, char *buf, size_t len)
{
	double a;

	if (s->hw_fall) {
		snprintf(buf, len, "free fall seen by the hardware (%s)", src->path);
		return;
	}
	a = s->x * s->x + s->y * s->y + s->z * s->z;
	snprintf(buf, len, "%s, |a| %.2f g, on %s (%s)", detect_cause_name(cause),
		 a > 0 ? sqrt(a) : 0.0, src->path, src->name);
}

/*
 * Park every enabled disk now, or renew the park; @s is the sample that
 * called for it.
 */
static void park(struct guard *g, const struct source *src,
		 const struct sample *s, enum detect_cause cause)
{
	char why[PATH_MAX + 256], names[512];
	struct hdp_outcome **out;
	uint64_t t = now_ns(), at = 0, st = sample_to_mono(s->t_ns);
	size_t i;
	int ret;

	/* Without hdprotect, a request would only wait for modprobe. */
	if (g->kernel_missing && t - g->last_failure_ns < 1000000000ull)
		return;
	/* Renewed before it ends, also for a timeout under 2 * RENEW_NS. */
	if (g->parked && t - g->last_request_ns <
	    (RENEW_NS < g->conf.timeout_ms * 500000ull ? RENEW_NS : g->conf.timeout_ms * 500000ull))
		return;
	ret = hdp_park_disks(g->ctx, NULL, 0, g->conf.timeout_ms, &out, NULL);
	if (ret) {
		/* Once a second at most: a fall goes on for many samples. */
		if (t - g->last_failure_ns >= 1000000000ull || !g->last_failure_ns) {
			describe(src, s, cause, why, sizeof(why));
			glog(g, LOG_ERR, "cannot park (%s): %s%s%s", why,
			     ret == -ENODEV ? "no disk is enabled (hdpctl status lists them)" : hdp_strerror(ret),
			     *kmsg(g->ctx) ? ": " : "", kmsg(g->ctx));
			g->last_failure_ns = t;
		}
		return;
	}
	names[0] = '\0';
	for (i = 0; out[i]; i++) {
		if (out[i]->request_ns > at)
			at = out[i]->request_ns;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? " " : "", out[i]->name);
	}
	hdp_outcomes_free(out);
	g->last_request_ns = t;
	g->park_end_ns = t + g->conf.timeout_ms * 1000000ull;
	arm_timer(g, g->park_end_ns + 50 * 1000000ull);
	describe(src, s, cause, why, sizeof(why));
	if (g->parked) {
		g->renewals++;
		glog(g, LOG_DEBUG, "park renewed: %s", why);
		return;
	}
	g->parked = true;
	g->park_start_ns = t;
	g->renewals = 0;
	g->parks++;
	g->last_park_us = realtime_us(t);
	g->last_latency_ms = at > st ? (at - st) / 1e6 : 0.0;
	snprintf(g->last_cause, sizeof(g->last_cause), "%s",
		 s->hw_fall ? "free fall (hardware)" : detect_cause_name(cause));
	snprintf(g->last_sensor, sizeof(g->last_sensor), "%.127s", src->path);
	snprintf(g->last_disks, sizeof(g->last_disks), "%s", names);
	g->bus_dirty = true;
	/* The kernel's time of the park command, against the sample's. */
	glog(g, LOG_NOTICE, "park: %s; parked %s, park command %.2f ms after the sample at %llu.%06llu s",
	     why, names, at > st ? (at - st) / 1e6 : 0.0,
	     (unsigned long long)(st / 1000000000ull),
	     (unsigned long long)(st % 1000000000ull / 1000));
}

/*
 * While a source is in a fall, its samples are taken again every 10 ms
 * when it sends none: the input core passes on only values that changed,
 * and a sensor that reads the same in free fall would otherwise stop the
 * detector's clock.
 */
#define FALL_TICK_NS	(10 * 1000000ull)

/*
 * An IIO buffer's rate is its trigger's, which the administrator (or
 * another program) set: below MIN_RATE_HZ a 10 cm drop (143 ms) gets a
 * few samples and may be seen late. Said once, after its first second.
 * (Not for input devices: the input core passes on changed values only,
 * so a still sensor would seem slow.)
 */
#define MIN_RATE_HZ	50

static void check_rate(struct guard *g, struct source *src, const struct sample *s)
{
	double hz;

	if (!src->rate_n++) {
		src->rate_t0 = s->t_ns;
		return;
	}
	if (s->t_ns < src->rate_t0 + 1000000000ull)
		return;
	src->rate_told = true;
	hz = (src->rate_n - 1) * 1e9 / (double)(s->t_ns - src->rate_t0);
	if (hz < MIN_RATE_HZ)
		glog(g, LOG_WARNING,
		     "%s (%s): %.0f samples a second from its trigger: a 10 cm drop lasts 143 ms and may be seen late; set the trigger's sampling_frequency to 100 or more",
		     src->path, src->name, hz);
}

/*
 * Each source has a bucket of the park time it bought: a call for a park
 * is charged what it adds to the disks' park: the time since the
 * source's previous call while that park is still in force (a renewal),
 * a whole timeout when its previous park ended less than a timeout ago
 * (parks a moment apart are one hold to the disks' I/O), nothing after a
 * pause of a timeout or more with the disks unparked (falls, however
 * many, cost what they last). The bucket drains at
 * one second in LEAK (6) of time that passes, pauses included. A call
 * that would take it past its size (HOLD_NS, 10 s, or two timeouts if
 * more: a park must fit) is not done: the source is set aside, with a
 * warning (once a minute at most), until the bucket has drained room for
 * one whole park (LEAK timeouts after it was full); its samples are still
 * looked at meanwhile, and the first fall after parks at once; a call
 * not done is no pause. So a source that calls without a break keeps
 * the disks parked about a sixth of the time over a long stretch (plus
 * its bucket's size); one that times its calls to pauses of two
 * timeouts, about three fifths at worst (a model of this rule: short
 * bursts, each a whole timeout's park, with I/O running between); and a
 * pause does not give it its allowance back at once. A device that goes
 * away and comes back keeps its bucket (hold_save()). Each source has
 * its own: two forged sources named in the configuration may hold the
 * disks twice as long. Times are the guard's own (CLOCK_MONOTONIC,
 * at receipt), not the samples'. The kernel has its own cap on a hold:
 * 30 s by default.
 */
#define HOLD_NS		(10 * 1000000000ull)
#define LEAK		6
#define WARN_NS		(60 * 1000000000ull)

static uint64_t hold_size(const struct guard *g)
{
	uint64_t two = 2 * (uint64_t)g->conf.timeout_ms * 1000000ull;

	return two > HOLD_NS ? two : HOLD_NS;
}

/* A call for a park from @src at @t: false if it is not done. */
static bool hold_allowed(struct guard *g, struct source *src, uint64_t t)
{
	uint64_t timeout = (uint64_t)g->conf.timeout_ms * 1000000ull, size = hold_size(g);
	uint64_t since = src->hold.last_call_ns ? t - src->hold.last_call_ns : UINT64_MAX;
	/* (calls not done count: a source set aside did not pause) */
	uint64_t pause = src->hold.last_seen_ns ? t - src->hold.last_seen_ns : UINT64_MAX;
	uint64_t leak = src->hold.drained_ns ? (t - src->hold.drained_ns) / LEAK : 0;
	/* a renewal; a park right after one ended; a run after a pause */
	uint64_t cost = since < timeout ? since : pause < 2 * timeout ? timeout : 0;

	src->hold.last_seen_ns = t;

	src->hold.bucket_ns = src->hold.bucket_ns > leak ? src->hold.bucket_ns - leak : 0;
	src->hold.drained_ns = t;
	if (src->hold.aside_until_ns) {
		if (src->hold.bucket_ns + timeout > size)
			return false;
		src->hold.aside_until_ns = 0;
		g->status_dirty = true;
		glog(g, LOG_NOTICE, "%s (%s): read again, room for a park of %u.%03u s",
		     src->path, src->name, g->conf.timeout_ms / 1000, g->conf.timeout_ms % 1000);
	}
	if (src->hold.bucket_ns + cost <= size) {
		src->hold.bucket_ns += cost;
		src->hold.last_call_ns = t;
		return true;
	}
	/* Until one park fits again: LEAK times what must drain. */
	src->hold.aside_until_ns = t + (src->hold.bucket_ns + timeout - size) * LEAK;
	g->status_dirty = true;
	if (!src->hold.warned_ns || t - src->hold.warned_ns >= WARN_NS) {
		src->hold.warned_ns = t;
		glog(g, LOG_WARNING,
		     "%s (%s) has called for %llu s of parks: no fall lasts that long (a stuck, broken or forged sensor?); set aside for %llu s, and so on while it calls; the disks unpark when their park ends",
		     src->path, src->name, (unsigned long long)(size / 1000000000ull),
		     (unsigned long long)((src->hold.aside_until_ns - t) / 1000000000ull));
	}
	return false;
}

/*
 * A source's bucket outlives its device: one that goes away and comes
 * back (a forged uinput device made again at its path, a source named
 * again by a reload that changed the sources) finds its bucket as it
 * left it, drained since,
 * and set aside if it was. Kept by what names the source: its entry in
 * the configuration (a link may lead to another device each time), else
 * its device's path (a hash of it). A bucket drained empty and not set
 * aside is forgotten: it is what a new source starts with. A device that
 * appears where another was inherits its bucket: a real sensor at a path
 * a forged device left waits at most LEAK timeouts.
 */
static const char *source_path(const char *path, char *buf, size_t len);

/* FNV-1a of @prefix and @s: a name's key, never 0 (a free memo). */
static uint64_t name_key(const char *prefix, const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *p;

	for (p = prefix; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	for (p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h ? h : 1;
}

/*
 * The entry of the configuration that names @s, opened as @path: the
 * one that says it, else the first that leads to the same device.
 */
static uint64_t hold_key(const struct guard *g, const char *path, const struct source *s)
{
	char buf[PATH_MAX], real[PATH_MAX], want[PATH_MAX];
	size_t k;

	if (!(s->flags & SOURCE_NAMED) || !g->conf.sources)
		return name_key("", s->path);
	for (k = 0; g->conf.sources[k]; k++)
		if (!strcmp(g->conf.sources[k], path) || !strcmp(g->conf.sources[k], s->path))
			return name_key("conf:", g->conf.sources[k]);
	if (!realpath(s->path, want))
		snprintf(want, sizeof(want), "%s", s->path);
	for (k = 0; g->conf.sources[k]; k++)
		if (realpath(source_path(g->conf.sources[k], buf, sizeof(buf)), real) &&
		    !strcmp(real, want))
			return name_key("conf:", g->conf.sources[k]);
	return name_key("", s->path);
}

static bool hold_forgotten(const struct hold_memo *m, uint64_t t)
{
	return !m->key || (m->hold.aside_until_ns <= t &&
			   m->hold.bucket_ns <= (t - m->hold.drained_ns) / LEAK);
}

static void hold_save(struct guard *g, size_t i)
{
	const struct source *src = &g->src[i];
	struct hold_memo *m, *slot = NULL;
	uint64_t t = now_ns();
	size_t k;

	if (!src->hold.bucket_ns && !src->hold.aside_until_ns)
		return;
	for (k = 0; k < sizeof(g->held) / sizeof(g->held[0]); k++) {
		m = &g->held[k];
		if (m->key == g->src_key[i]) {
			slot = m;
			break;
		}
		/* else the first forgotten, or the one drained longest ago */
		if (!slot || (!hold_forgotten(slot, t) &&
			      (hold_forgotten(m, t) || m->hold.drained_ns < slot->hold.drained_ns)))
			slot = m;
	}
	slot->key = g->src_key[i];
	slot->hold = src->hold;
}

static void hold_restore(struct guard *g, size_t i)
{
	struct source *src = &g->src[i];
	uint64_t t = now_ns();
	struct hold_memo *m;
	size_t k;

	for (k = 0; k < sizeof(g->held) / sizeof(g->held[0]); k++) {
		m = &g->held[k];
		if (!m->key || m->key != g->src_key[i])
			continue;
		if (!hold_forgotten(m, t))
			src->hold = m->hold;
		m->key = 0;
		if (src->hold.aside_until_ns > t)
			glog(g, LOG_WARNING,
			     "%s (%s): still set aside for %llu s: it called for too many parks before it was opened again",
			     src->path, src->name,
			     (unsigned long long)((src->hold.aside_until_ns - t + 999999999ull) /
						  1000000000ull));
		return;
	}
}

/* A source's detector from the start, at the level and the source's range. */
static void detector_reset(const struct guard *g, struct source *src)
{
	detect_init(&src->det, g->conf.level);
	detect_set_range(&src->det, src->full_scale_g);
}

/* The detector's view of the sensor changed: say so, and act on it. */
static void fault_changed(struct guard *g, struct source *src, const struct sample *s)
{
	double a = sqrt(s->x * s->x + s->y * s->y + s->z * s->z);
	enum detect_fault f = src->det.fault;

	if (f == DETECT_FAULT_NONE) {
		glog(g, LOG_NOTICE, "%s (%s) reads %.2f g again: parks on it again", src->path,
		     src->name, a);
	} else if (f == DETECT_FAULT_FALL) {
		glog(g, LOG_WARNING,
		     "%s (%s) has read %.2f g for %u s: no fall lasts that long (a 20 m drop); a stuck sensor? no park on it until it reads more",
		     src->path, src->name, a, DETECT_STUCK_MS / 1000);
	} else {
		glog(g, LOG_WARNING,
		     "%s (%s) has read %.2f g for %u ms: no impact lasts that long; a broken or mis-scaled sensor? no park on it until it reads near 1 g%s",
		     src->path, src->name, a, DETECT_SHOCK_MAX_MS,
		     src->scale_learned && src->counts_per_g ?
		     "; its scale, learned from gravity, is learned again" : "");
		if (source_relearn(src))
			detector_reset(g, src);
	}
	src->fault_told = src->det.fault;
	g->status_dirty = true;
}

/*
 * A pause: no park until it ends, by itself (SIGUSR1: PAUSE_SIGNAL_MS, as
 * hdapsd does) or when resumed. A pause never shortens one in force, and
 * never ends a park in force: the disks unpark when it ends. The
 * detectors go on (a fall that begins as the pause ends is seen whole),
 * their calls are not made: not charged to a source's bucket, and no
 * break in its calls either; the first is said, once a pause.
 */
#define PAUSE_SIGNAL_MS	8000

/* @by: who, for STATUS= and the log; @who: more for the log (a pid) */
static void pause_for(struct guard *g, uint64_t ms, const char *by, const char *who)
{
	uint64_t until = now_ns() + ms * 1000000ull;
	bool was = g->paused_until_ns;

	if (until <= g->paused_until_ns)
		return;
	if (!was)
		g->paused_fall_told = false;
	g->paused_until_ns = until;
	g->paused_until_us = realtime_us(until);
	snprintf(g->paused_by, sizeof(g->paused_by), "%s for %llu.%03llu s", by,
		 (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
	g->status_dirty = true;
	/* (a pause made longer is said quietly: a loop of signals) */
	glog(g, was ? LOG_INFO : LOG_NOTICE, "paused %s (%s): no park until it ends%s",
	     g->paused_by, who, g->parked ? "; the disks unpark when their park ends" : "");
}

/* The pause in force ends: @why, or it ran out. */
static void pause_end(struct guard *g, const char *why)
{
	if (!g->paused_until_ns)
		return;
	g->paused_until_ns = 0;
	g->status_dirty = true;
	glog(g, LOG_NOTICE, "protecting again: %s", why);
}

static bool paused(struct guard *g, struct source *src, enum detect_cause cause)
{
	if (!g->paused_until_ns)
		return false;
	if (now_ns() >= g->paused_until_ns) {
		pause_end(g, "the pause ended");
		return false;
	}
	/* A call not made is no break in the source's calls (hold_allowed()). */
	src->hold.last_seen_ns = now_ns();
	if (!g->paused_fall_told) {
		g->paused_fall_told = true;
		glog(g, LOG_NOTICE, "%s on %s (%s) while paused: not parked",
		     detect_cause_name(cause), src->path, src->name);
	}
	return true;
}

/* A sample (the device's, or its last repeated): detect, and park. */
static void feed(struct guard *g, struct source *src, const struct sample *s)
{
	enum detect_cause cause;

	src->det.repeated = s->repeated;
	cause = detect_sample(&src->det, s->t_ns, s->x, s->y, s->z);
	src->det.repeated = false;
	if (src->det.fault != src->fault_told)
		fault_changed(g, src, s);
	if (cause == DETECT_NONE || paused(g, src, cause) || !hold_allowed(g, src, now_ns()))
		return;
	park(g, src, s, cause);
}

static void on_sample(struct source *src, const struct sample *s, void *data)
{
	struct guard *g = data;
	bool was = src->det.in_fall;

	src->last_sample_ns = now_ns();
	if (src->silent_told && (src->kind == SOURCE_IIO_BUFFER ||
				 src->last[0] != s->x || src->last[1] != s->y || src->last[2] != s->z)) {
		src->silent_told = false;
		g->status_dirty = true;
		glog(g, LOG_NOTICE, "%s (%s) sends samples again", src->path, src->name);
	}
	if (src->last[0] != s->x || src->last[1] != s->y || src->last[2] != s->z)
		src->same_since_ns = src->last_sample_ns;
	if (s->hw_fall) {
		if (!paused(g, src, DETECT_FREE_FALL) && hold_allowed(g, src, now_ns()))
			park(g, src, s, DETECT_FREE_FALL);
		return;
	}
	if (src->kind == SOURCE_IIO_BUFFER && !src->rate_told)
		check_rate(g, src, s);
	src->last[0] = s->x;
	src->last[1] = s->y;
	src->last[2] = s->z;
	feed(g, src, s);
	if (src->det.in_fall && !was && src->kind == SOURCE_EVDEV)
		set_periodic(g->ftfd, FALL_TICK_NS);
}

static void source_gone(struct guard *g, size_t i, int err);

/*
 * An input device in a fall that sent nothing for one and a half of its
 * own intervals (interval_ns) read the same since: its last sample is
 * taken again. Not sooner: a polled sensor's one low sample must not
 * count as a fall that lasts until its next.
 */
static void on_fall_timer(struct guard *g)
{
	struct sample s = { 0 };
	uint64_t ticks, quiet;
	bool any = false;
	size_t i;
	int ret;

	if (read(g->ftfd, &ticks, sizeof(ticks)) < 0)
		(void)0;
	for (i = 0; i < MAX_SOURCES; i++) {
		struct source *src = &g->src[i];

		/* The other kinds send every sample, at their own rate. */
		if (src->fd < 0 || !src->det.in_fall || src->det.fault ||
		    now_ns() < src->hold.aside_until_ns || src->kind != SOURCE_EVDEV)
			continue;
		/* Its queued samples first: the detector's clock only goes on. */
		ret = source_read(src, on_sample, g);
		if (ret) {
			source_gone(g, i, ret);
			continue;
		}
		if (!src->det.in_fall || src->det.fault)
			continue;
		any = true;
		s.t_ns = source_now_ns();
		quiet = (src->interval_ns ? src->interval_ns : FALL_TICK_NS) * 3 / 2;
		if (s.t_ns < src->last_event_ns + quiet)
			continue;
		s.x = src->last[0];
		s.y = src->last[1];
		s.z = src->last[2];
		s.repeated = true;
		feed(g, src, &s);
	}
	if (!any)
		set_periodic(g->ftfd, 0);
}

static void on_timer(struct guard *g)
{
	uint64_t t = now_ns(), ticks;

	if (read(g->tfd, &ticks, sizeof(ticks)) < 0)
		(void)0;
	if (!g->parked || t < g->park_end_ns)
		return;
	g->parked = false;
	g->bus_dirty = true;
	glog(g, LOG_NOTICE, "unparked: quiet for %u.%03u s; parked %.2f s in all, %u renewal%s",
	     g->conf.timeout_ms / 1000, g->conf.timeout_ms % 1000,
	     (g->park_end_ns - g->park_start_ns) / 1e9, g->renewals,
	     g->renewals == 1 ? "" : "s");
}

/* ---- sources ---- */

static size_t nr_sources(const struct guard *g, bool motion_only)
{
	size_t i, n = 0;

	for (i = 0; i < MAX_SOURCES; i++)
		if (g->src[i].fd >= 0 && (!motion_only || g->src[i].kind == SOURCE_EVDEV ||
					  g->src[i].kind == SOURCE_IIO ||
					  g->src[i].kind == SOURCE_IIO_BUFFER))
			n++;
	return n;
}

/* The path a source is known by: an IIO device's directory, or @path. */
static const char *source_path(const char *path, char *buf, size_t len)
{
	if (strncmp(path, "iio:device", 10))
		return path;
	snprintf(buf, len, "/sys/bus/iio/devices/%s", path);
	return buf;
}

static bool source_is_open(const struct guard *g, const char *path)
{
	char buf[PATH_MAX];
	size_t i;

	path = source_path(path, buf, sizeof(buf));
	for (i = 0; i < MAX_SOURCES; i++)
		if (g->src[i].fd >= 0 && !strcmp(g->src[i].path, path))
			return true;
	return false;
}

static void close_source(struct guard *g, size_t i)
{
	g->status_dirty = true;
	epoll_ctl(g->ep, EPOLL_CTL_DEL, g->src[i].fd, NULL);
	hold_save(g, i);
	source_close(&g->src[i]);
	g->src_gen[i]++;
}

/*
 * Liveness. A source that streams (an IIO buffer, polled raw files, a
 * position file) and sent no sample for SILENT_NS, or a polled one that
 * read exactly the same for FROZEN_NS (a sensor's noise moves its last
 * bits), protects nothing: said once, and again when it comes back. An
 * input device sends only values that changed, and /dev/freefall only
 * falls: their silence says nothing.
 */
#define SILENT_NS	(2000 * 1000000ull)
#define FROZEN_NS	(30000 * 1000000ull)

static void watch_liveness(struct guard *g, struct source *src)
{
	uint64_t t = now_ns();

	if (src->silent_told || now_ns() < src->hold.aside_until_ns || src->errors || !src->last_sample_ns)
		return;
	if (src->kind == SOURCE_IIO_BUFFER || src->kind == SOURCE_IIO ||
	    src->kind == SOURCE_POSITION) {
		if (t - src->last_sample_ns > SILENT_NS) {
			glog(g, LOG_WARNING,
			     "%s (%s) has sent no sample for %llu s (its trigger stopped?): no fall can be seen on it until it does",
			     src->path, src->name, SILENT_NS / 1000000000ull);
			src->silent_told = true;
		} else if (src->kind != SOURCE_IIO_BUFFER && src->same_since_ns &&
			   t - src->same_since_ns > FROZEN_NS) {
			glog(g, LOG_WARNING,
			     "%s (%s) has read exactly the same for %llu s: frozen? a fall may not be seen on it",
			     src->path, src->name, FROZEN_NS / 1000000000ull);
			src->silent_told = true;
		}
		g->status_dirty |= src->silent_told;
	}
}

/*
 * Once a second (on_watch()): systemd's watchdog, each source's liveness,
 * STATUS=, and the IIO buffers (source_taken_over()): one that another
 * program switched off or changed is left to it (iio-sensor-proxy, which
 * takes the buffer when a desktop asks for the screen's orientation):
 * closed with its settings as that program left them, and read through
 * its raw files instead, or, while the other program's buffer keeps
 * those busy, not at all, which is said.
 */
#define WATCH_NS	(1000 * 1000000ull)

static int try_source(struct guard *g, const char *path, unsigned int flags, bool quiet);
static void rescan_all(struct guard *g);

/* @path left to another program: tried again each second until read. */
static void wait_for_source(struct guard *g, const char *path, unsigned int flags)
{
	size_t i;

	for (i = 0; i < sizeof(g->waiting) / sizeof(g->waiting[0]); i++)
		if (!*g->waiting[i].path || !strcmp(g->waiting[i].path, path)) {
			snprintf(g->waiting[i].path, sizeof(g->waiting[i].path), "%s", path);
			g->waiting[i].flags = flags;
			return;
		}
}

static void retry_waiting(struct guard *g)
{
	struct waiting *w;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(g->waiting) / sizeof(g->waiting[0]); i++) {
		w = &g->waiting[i];
		if (!*w->path)
			continue;
		/* gone: its uevent's add opens it when it comes back */
		if (access(w->path, F_OK)) {
			*w->path = '\0';
			continue;
		}
		ret = try_source(g, w->path, w->flags, true);
		if (ret != -EBUSY && ret != -EAGAIN && !source_is_open(g, w->path)) {
			*w->path = '\0';	/* another device, or no more waiting */
			continue;
		}
		if (source_is_open(g, w->path)) {
			glog(g, LOG_NOTICE, "%s: read", w->path);
			*w->path = '\0';
		}
	}
}

static void on_watch(struct guard *g)
{
	char path[PATH_MAX];
	unsigned int flags;
	uint64_t ticks;
	size_t i;

	if (read(g->wfd, &ticks, sizeof(ticks)) < 0)
		(void)0;
	if (g->watchdog)
		notify("WATCHDOG=1");
	if (g->paused_until_ns && now_ns() >= g->paused_until_ns)
		pause_end(g, "the pause ended");
	update_status(g);
	for (i = 0; i < MAX_SOURCES; i++)
		if (g->src[i].fd >= 0)
			watch_liveness(g, &g->src[i]);
	if (g->rescan_due) {
		g->rescan_due = false;
		rescan_all(g);
	}
	retry_waiting(g);
	for (i = 0; i < MAX_SOURCES; i++) {
		if (g->src[i].fd < 0 || !source_taken_over(&g->src[i]))
			continue;
		glog(g, LOG_WARNING,
		     "%s (%s): its buffer was switched off or changed by another program (iio-sensor-proxy?): left to it; reading its raw files instead",
		     g->src[i].path, g->src[i].name);
		snprintf(path, sizeof(path), "%s", g->src[i].path);
		flags = (g->src[i].flags & SOURCE_NAMED) | SOURCE_NO_BUFFER;
		g->src[i].restore = false;
		close_source(g, i);
		/* (busy: try_source() put it on the waiting list) */
		if (try_source(g, path, flags, false) == -EBUSY)
			glog(g, LOG_ERR, "%s: not read while the other program's buffer keeps its raw files busy%s; tried again each second",
			     path, nr_sources(g, false) ? "" : ": no accelerometer left");
	}
}

/*
 * Open one source; @flags: SOURCE_NAMED (the configuration names it),
 * SOURCE_NO_BUFFER. Return: 0 when read (or already), -EBUSY while
 * another program keeps it, -EAGAIN while udev sets it up (both waited
 * for: retry_waiting()), or another negative errno.
 */
static int try_source(struct guard *g, const char *path, unsigned int flags, bool quiet)
{
	bool named = flags & SOURCE_NAMED;
	struct epoll_event ev = { .events = EPOLLIN };
	char why[PATH_MAX + 256], scale[64];
	struct source s;
	size_t i;
	int ret;

	if (source_is_open(g, path))
		return 0;
	/* A position file is the last resort: the driver's own device is better. */
	if (!named && strstr(path, "/position") && nr_sources(g, true))
		return -EEXIST;
	ret = source_open(path, flags, &s, why, sizeof(why));
	if (ret == -EPERM && strstr(why, "taken to be in the display"))
		g->display_skipped++;
	if (ret) {
		/*
		 * Auto: every input device is tried; only accelerometers are
		 * told. Named: told, but not at each retry (@quiet).
		 */
		if (named && !quiet)
			glog(g, LOG_WARNING, "%s", why);
		else if (ret != -ENOTTY && ret != -ENOENT && !quiet)
			glog(g, LOG_INFO, "%s", why);
		/*
		 * Udev not done with it (its event may be the kernel's), or a
		 * sensor hub's buffer another program holds: wait.
		 */
		if (ret == -EAGAIN || ret == -EBUSY)
			wait_for_source(g, path, flags);
		return ret;
	}
	for (i = 0; i < MAX_SOURCES && g->src[i].fd >= 0; i++)
		;
	if (i == MAX_SOURCES) {
		glog(g, LOG_WARNING, "%s (%s): not read: %d accelerometers are read already",
		     s.path, s.name, MAX_SOURCES);
		source_close(&s);
		return -ENOSPC;
	}
	detector_reset(g, &s);
	g->src[i] = s;
	g->src_key[i] = hold_key(g, path, &s);
	ev.data.u64 = TAG_SOURCE + i + ((uint64_t)g->src_gen[i] << 32);
	ret = epoll_ctl(g->ep, EPOLL_CTL_ADD, s.fd, &ev) ? -errno : 0;
	/* dell-smo8800's /dev/freefall cannot be polled: a thread reads it. */
	if (ret == -EPERM && s.kind == SOURCE_FREEFALL && !source_thread(&g->src[i]))
		ret = epoll_ctl(g->ep, EPOLL_CTL_ADD, g->src[i].fd, &ev) ? -errno : 0;
	if (ret) {
		glog(g, LOG_ERR, "%s: cannot wait for it: %s", path, strerror(-ret));
		close_source(g, i);
		return ret;
	}
	if (*why)
		glog(g, LOG_INFO, "%s", why);
	g->status_dirty = true;
	if (s.kind == SOURCE_FREEFALL)
		snprintf(scale, sizeof(scale), "the hardware's decision");
	else if (s.kind == SOURCE_IIO || s.kind == SOURCE_IIO_BUFFER)
		snprintf(scale, sizeof(scale), "%.6g g per count", s.iio_scale_g);
	else if (s.counts_per_g)
		snprintf(scale, sizeof(scale), "%g counts per g", s.counts_per_g);
	else
		snprintf(scale, sizeof(scale), "scale learned from gravity");
	if (s.full_scale_g)
		snprintf(scale + strlen(scale), sizeof(scale) - strlen(scale), ", +-%.1f g",
			 s.full_scale_g);
	glog(g, LOG_NOTICE, "reading %s (%s, %s, %s), sensitivity %s", s.path, s.name,
	     source_kind_name(s.kind), scale, conf_level_name(g->conf.level));
	if (s.poll_was_ms)
		glog(g, LOG_INFO, "%s: its driver polled it every %u ms: now every 10 ms",
		     s.path, s.poll_was_ms);
	hold_restore(g, i);
	return 0;
}

/* The configuration's sources, or every one found; @only: just this path. */
static void open_sources(struct guard *g, const char *only, bool quiet)
{
	char **paths = NULL, real[PATH_MAX], buf[PATH_MAX];
	const char *p;
	size_t i;

	if (g->conf.sources) {
		for (i = 0; g->conf.sources[i]; i++) {
			p = source_path(g->conf.sources[i], buf, sizeof(buf));
			if (only && (!realpath(p, real) || strcmp(real, only)) && strcmp(p, only))
				continue;
			try_source(g, g->conf.sources[i], SOURCE_NAMED, quiet);
		}
		return;
	}
	if (source_candidates(&paths))
		return;
	for (i = 0; paths[i]; i++)
		if (!only || !strcmp(paths[i], only))
			try_source(g, paths[i], 0, quiet);
	source_paths_free(paths);
}

static void source_gone(struct guard *g, size_t i, int err)
{
	struct source *src = &g->src[i];

	if (err == -ENODEV)
		glog(g, LOG_WARNING, "%s (%s) went away%s", src->path, src->name,
		     nr_sources(g, false) > 1 ? "" :
		     ": no accelerometer left; waiting for one to appear");
	else if (err == -EBUSY)
		glog(g, LOG_ERR,
		     "%s (%s) is now read by another program (iio-sensor-proxy?) through its buffer: no longer read; stop that program and reload the guard",
		     src->path, src->name);
	else
		glog(g, LOG_ERR, "%s (%s): %s; no longer read", src->path, src->name,
		     strerror(-err));
	close_source(g, i);
}

/*
 * A read that failed, but not because the device went away (an I2C
 * transfer that timed out, an EIO of a busy bus): the source stays. A
 * polled one is read again after RETRY_MIN_NS, twice as long after each
 * failure in a row, up to RETRY_MAX_NS; one with its own device node is
 * closed after READ_TRIES failures in a row (its fd would wake the loop
 * for ever). Said at the first failure and when it reads again.
 */
#define RETRY_MIN_NS	(100 * 1000000ull)
#define RETRY_MAX_NS	(5000 * 1000000ull)
#define READ_TRIES	8

static void read_failed(struct guard *g, struct source *src, int err)
{
	uint64_t wait = RETRY_MIN_NS << (src->errors < 6 ? src->errors : 6);

	if (!src->errors++)
		glog(g, LOG_WARNING, "%s (%s): cannot read it (%s): trying again, less often while it fails",
		     src->path, src->name, strerror(-err));
	src->retry_ns = now_ns() + (wait < RETRY_MAX_NS ? wait : RETRY_MAX_NS);
	g->status_dirty = true;
}

static void on_source(struct guard *g, size_t i)
{
	struct source *src = &g->src[i];
	int ret;

	/* A polled source that failed waits for its retry. */
	if (src->retry_ns && (src->kind == SOURCE_IIO || src->kind == SOURCE_POSITION)) {
		if (now_ns() < src->retry_ns) {
			uint64_t ticks;

			if (read(src->fd, &ticks, sizeof(ticks)) < 0)
				(void)0;
			return;
		}
		src->retry_ns = 0;
	}
	ret = source_read(src, on_sample, g);
	if (ret && ret != -ENODEV && (src->kind == SOURCE_IIO || src->kind == SOURCE_POSITION ||
				      src->errors < READ_TRIES)) {
		read_failed(g, src, ret);
		return;
	}
	if (ret) {
		source_gone(g, i, ret);
		return;
	}
	if (src->errors) {
		glog(g, LOG_NOTICE, "%s (%s) reads again, after %u failed read%s", src->path,
		     src->name, src->errors, src->errors == 1 ? "" : "s");
		src->errors = 0;
		g->status_dirty = true;
	}
	if (src->learned) {
		src->learned = false;
		detect_set_range(&src->det, src->full_scale_g);
		if (src->full_scale_g)
			glog(g, LOG_NOTICE, "%s (%s): scale learned from gravity: %.1f counts per g (a range of +-%.1f g)",
			     src->path, src->name, src->counts_per_g, src->full_scale_g);
		else
			glog(g, LOG_NOTICE, "%s (%s): scale learned from gravity: %.1f counts per g",
			     src->path, src->name, src->counts_per_g);
	}
	if (*src->scale_note) {
		glog(g, LOG_WARNING, "%s (%s): %s", src->path, src->name, src->scale_note);
		*src->scale_note = '\0';
	}
	if (src->slowed) {
		src->slowed = false;
		glog(g, LOG_WARNING, "%s (%s): a read takes %.1f ms: now read every %llu ms",
		     src->path, src->name, src->read_ns / 1e6,
		     (unsigned long long)(src->poll_ns / 1000000));
	}
}

/* A device removed (a uevent): the source read from it, if any, is closed. */
static void source_removed(struct guard *g, const char *path)
{
	size_t i;

	for (i = 0; i < MAX_SOURCES; i++)
		if (g->src[i].fd >= 0 && !strcmp(g->src[i].path, path))
			source_gone(g, i, -ENODEV);
}

/* ---- uevents: disks and accelerometers that appear ---- */

/*
 * Where udevd runs (its control socket exists), its events: each comes
 * after the rules ran, so the links a configuration may name
 * (/dev/input/by-path/...) and the properties read (ACCEL_LOCATION,
 * IIO_SENSOR_PROXY_TYPE, ID_BUS) are there. Without udevd (an
 * initramfs, a container), the kernel's. Either socket is non-blocking.
 * Return: the socket's fd, or a negative errno.
 */
static int open_uevents(struct guard *g)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	static const char *const subsystems[] = { "block", "input", "misc", "iio" };
	size_t i;
	int fd;

	if (!access("/run/udev/control", F_OK)) {
		g->udev = udev_new();
		g->umon = g->udev ? udev_monitor_new_from_netlink(g->udev, "udev") : NULL;
		for (i = 0; g->umon && i < sizeof(subsystems) / sizeof(subsystems[0]); i++)
			if (udev_monitor_filter_add_match_subsystem_devtype(g->umon, subsystems[i],
									    NULL) < 0)
				break;
		if (g->umon && i == sizeof(subsystems) / sizeof(subsystems[0]) &&
		    udev_monitor_enable_receiving(g->umon) >= 0)
			return udev_monitor_get_fd(g->umon);
		/* (The kernel's, then: links and properties may come late.) */
		udev_monitor_unref(g->umon);
		udev_unref(g->udev);
		g->umon = NULL;
		g->udev = NULL;
	}
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * Events were lost (ENOBUFS: the socket's buffer filled while the loop
 * was held up, or a burst such as `udevadm trigger`): what is queued is
 * dropped (an old "remove" would close what the rescan opens), and at
 * the next second's on_watch(), at most once a second however long a
 * flood lasts, every disk and accelerometer is looked at again; a source
 * whose device is gone is closed (an IIO buffer's fd tells nobody).
 */
static void rescan_all(struct guard *g)
{
	struct stat now, held;
	int version;
	size_t i;

	if (!g->lost_told_ns || now_ns() - g->lost_told_ns >= 60 * 1000000000ull) {
		g->lost_told_ns = now_ns();
		glog(g, LOG_WARNING, "device events were lost (too many at once): looking at every disk and accelerometer again");
	}
	for (i = 0; i < MAX_SOURCES; i++) {
		if (g->src[i].fd < 0)
			continue;
		/*
		 * An event device removed answers ENODEV, even when a new one
		 * took its number; a link named may lead to another node now.
		 */
		if (g->src[i].kind == SOURCE_EVDEV || g->src[i].kind == SOURCE_FREEFALL) {
			/* (data_fd: the device, when a thread reads it) */
			if (stat(g->src[i].path, &now) ||
			    fstat(g->src[i].data_fd >= 0 ? g->src[i].data_fd : g->src[i].fd, &held) ||
			    now.st_rdev != held.st_rdev ||
			    (g->src[i].kind == SOURCE_EVDEV &&
			     ioctl(g->src[i].fd, EVIOCGVERSION, &version) && errno == ENODEV))
				source_gone(g, i, -ENODEV);
		} else if (!strncmp(g->src[i].path, "/sys/", 5) &&
			   (access(g->src[i].path, F_OK) || source_iio_gone(&g->src[i]))) {
			source_gone(g, i, -ENODEV);
		}
	}
	setup_all_disks(g, true);
	open_sources(g, NULL, true);
}

/* One device's event; @devname as the kernel's DEVNAME: "input/event3". */
static void device_event(struct guard *g, const char *action, const char *subsystem,
			 const char *devname, const char *devtype, const char *devpath)
{
	char path[PATH_MAX];

	if (!*devname || (strcmp(action, "add") && strcmp(action, "remove")))
		return;
	if (!strcmp(action, "remove")) {
		/* An IIO buffer's fd tells nobody its device went away. */
		if (!strcmp(subsystem, "iio"))
			snprintf(path, sizeof(path), "/sys/bus/iio/devices/%s", devname);
		else
			snprintf(path, sizeof(path), "/dev/%s", devname);
		source_removed(g, path);
		return;
	}
	if (!strcmp(subsystem, "block") && !strcmp(devtype, "disk")) {
		setup_all_disks(g, true);
	} else if (!g->conf.sources && !strncmp(devpath, "/devices/virtual/", 17) &&
		   strcmp(subsystem, "misc")) {
		/* auto: a virtual device is no sensor; not even opened */
		return;
	} else if (!strcmp(subsystem, "input") || !strcmp(subsystem, "misc")) {
		snprintf(path, sizeof(path), "/dev/%s", devname);
		open_sources(g, path, false);
	} else if (!strcmp(subsystem, "iio")) {
		snprintf(path, sizeof(path), "/sys/bus/iio/devices/%s", devname);
		open_sources(g, path, false);
	}
}

/* Events read at one wake-up, at most: a flood does not hold the loop. */
#define EVENTS_MAX	64

/* Lost events: drop what is queued (up to 256), rescan at the next second. */
static void events_lost(struct guard *g)
{
	char buf[4096];
	int n;

	g->rescan_due = true;
	for (n = 0; n < 256 && recv(g->uev, buf, sizeof(buf), MSG_DONTWAIT) >= 0; n++)
		;
}

static void on_udev(struct guard *g)
{
	const char *node, *v;
	struct udev_device *d;
	unsigned int n;
	int err;

	for (n = 0; n < EVENTS_MAX; n++) {
		errno = 0;
		d = udev_monitor_receive_device(g->umon);
		if (!d) {
			err = errno;
			if (err == ENOBUFS)
				events_lost(g);
			if (err == EINTR)
				continue;
			return;
		}
		node = udev_device_get_devnode(d);
		if (node && !strncmp(node, "/dev/", 5))
			node += 5;
		/* An IIO device: its sysfs name (its node is not needed) */
		if (!strcmp(udev_device_get_subsystem(d) ?: "", "iio"))
			node = udev_device_get_sysname(d);
		v = udev_device_get_devtype(d);
		device_event(g, udev_device_get_action(d) ?: "", udev_device_get_subsystem(d) ?: "",
			     node ?: "", v ?: "", udev_device_get_devpath(d) ?: "");
		udev_device_unref(d);
	}
}

static void on_uevent(struct guard *g)
{
	const char *action, *subsystem, *devname, *devtype, *devpath, *p;
	char buf[4096];
	struct sockaddr_nl sa;
	socklen_t salen;
	unsigned int i;
	ssize_t n;

	if (g->umon) {
		on_udev(g);
		return;
	}
	for (i = 0; i < EVENTS_MAX; i++) {
		salen = sizeof(sa);
		n = recvfrom(g->uev, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&sa, &salen);
		if (n < 0 && errno == ENOBUFS)
			events_lost(g);
		if (n < 0)
			return;
		if (sa.nl_pid)		/* only the kernel's own */
			continue;
		buf[n] = '\0';
		action = subsystem = devname = devtype = devpath = "";
		for (p = buf; p < buf + n; p += strlen(p) + 1) {
			if (!strncmp(p, "ACTION=", 7))
				action = p + 7;
			else if (!strncmp(p, "SUBSYSTEM=", 10))
				subsystem = p + 10;
			else if (!strncmp(p, "DEVNAME=", 8))
				devname = p + 8;
			else if (!strncmp(p, "DEVTYPE=", 8))
				devtype = p + 8;
			else if (!strncmp(p, "DEVPATH=", 8))
				devpath = p + 8;
		}
		device_event(g, action, subsystem, devname, devtype, devpath);
	}
}

/* ---- the kernel's events ---- */

static void set_disk_parked(struct guard *g, const char *name, bool parked)
{
	size_t i;

	for (i = 0; i < g->ndisks; i++) {
		if (!strcmp(g->disks[i], name) && g->disk_parked[i] != parked) {
			g->disk_parked[i] = parked;
			g->bus_dirty = true;
		}
	}
}

static int on_event(const struct hdp_monitor_event *ev, void *data)
{
	struct guard *g = data;
	const char *name = ev->disk ? ev->disk->name : "";

	switch (ev->type) {
	case HDP_EV_PARKED:
	case HDP_EV_UNPARKED:
		set_disk_parked(g, name, ev->type == HDP_EV_PARKED);
		if (!is_protected(g, name) || ev->type == HDP_EV_UNPARKED)
			break;
		if (ev->result && ev->result != -EINPROGRESS)
			glog(g, LOG_ERR, "%s: the device did not park: %s; its I/O is held all the same",
			     name, hdp_strerror(ev->result));
		else if (!ev->renewed)
			glog(g, LOG_DEBUG, "%s: parked by %s, the device answered %.2f ms after the request",
			     name, hdp_method_name(ev->disk->last_method),
			     (ev->disk->complete_ns - ev->disk->request_ns) / 1e6);
		break;
	case HDP_EV_REMOVED:
		if (is_protected(g, name)) {
			glog(g, LOG_NOTICE, "%s is no longer protected (%s)", name,
			     hdp_cause_name(ev->cause));
			forget_disk(g, name);
		}
		break;
	case HDP_EV_KERNEL_GONE:
		/* Also when the monitor opens without hdprotect: said already. */
		if (!g->kernel_missing)
			glog(g, LOG_WARNING, "hdprotect went away: no disk can park until it is back");
		g->kernel_missing = true;
		g->ndisks = 0;
		break;
	case HDP_EV_KERNEL_BACK:
		setup_all_disks(g, false);
		break;
	default:
		break;
	}
	return 0;
}

static void on_monitor(struct guard *g)
{
	int ret;

	do {
		ret = hdp_monitor_dispatch(g->mon, on_event, g);
	} while (ret >= 0 && hdp_monitor_pending(g->mon) > 0);
	if (ret < 0 && ret != -EAGAIN)
		glog(g, LOG_WARNING, "the kernel's events: %s", hdp_strerror(ret));
}

/* ---- start, reload, stop ---- */

static int open_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

static bool same_list(char *const *a, char *const *b)
{
	size_t i;

	if (!a || !b)
		return a == b;
	for (i = 0; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return a[i] == b[i];
}

/*
 * SIGHUP. The sources stay open if the configuration names the same ones
 * (their scales learned from gravity are kept), with the new sensitivity;
 * the disks are set up again, and a disk the guard protected that the new
 * configuration leaves out is disabled (its configfs item stays).
 */
static void reload(struct guard *g)
{
	char err[PATH_MAX + 256], was[MAX_DISKS][HDP_NAME_MAX + 1];
	struct hdp_settings off = {
		.size = sizeof(off), .set = HDP_SET_ENABLED, .enabled = false,
	};
	struct guard_conf conf;
	size_t i, nwas = g->ndisks;
	bool same_sources;
	int ret;

	conf_defaults(&conf);
	if (conf_load(g->opts->config, &conf, err, sizeof(err))) {
		glog(g, LOG_ERR, "reload: %s; the configuration in force stays", err);
		conf_free(&conf);
		return;
	}
	same_sources = same_list(conf.sources, g->conf.sources);
	conf_free(&g->conf);
	g->conf = conf;
	glog(g, LOG_NOTICE, "reload: %s read", g->opts->config);
	for (i = 0; i < MAX_SOURCES; i++) {
		if (g->src[i].fd < 0)
			continue;
		if (same_sources)
			detector_reset(g, &g->src[i]);
		else
			close_source(g, i);
	}
	/* What waited for another program is the old configuration's. */
	memset(g->waiting, 0, sizeof(g->waiting));
	open_sources(g, NULL, false);
	memcpy(was, g->disks, sizeof(was));
	g->ndisks = 0;
	arm_rescan(g, false);
	setup_all_disks(g, false);
	for (i = 0; i < nwas && !g->kernel_missing; i++) {
		if (is_protected(g, was[i]) || wanted(g, was[i]))
			continue;
		ret = hdp_set(g->ctx, was[i], &off);
		if (ret && ret != -ENOENT && ret != -ENODEV)
			glog(g, LOG_WARNING, "%s: left out of the configuration, but cannot disable it: %s",
			     was[i], hdp_strerror(ret));
		else if (!ret)
			glog(g, LOG_NOTICE, "%s: left out of the configuration: no longer protected",
			     was[i]);
	}
	if (!nr_sources(g, false))
		glog(g, LOG_WARNING, "no accelerometer: waiting for one to appear");
}

static void on_signal(struct guard *g)
{
	struct signalfd_siginfo si;
	char who[64];

	while (read(g->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			notify("RELOADING=1");
			reload(g);
			notify("READY=1");
		} else if (si.ssi_signo == SIGUSR1) {
			snprintf(who, sizeof(who), "sent by pid %u, uid %u", si.ssi_pid, si.ssi_uid);
			pause_for(g, PAUSE_SIGNAL_MS, "by SIGUSR1", who);
		} else {
			glog(g, LOG_NOTICE, "stopping (%s)%s", strsignal((int)si.ssi_signo),
			     g->parked ? "; the disks unpark when their park ends" : "");
			g->stop = true;
		}
	}
}

/* --check: what the guard would read and protect; nothing changes. */
static int check(struct guard *g)
{
	char **paths = NULL, name[HDP_NAME_MAX + 1], why[PATH_MAX + 256];
	char *const *list;
	struct dirent **ents;
	struct source s;
	size_t i, nsrc = 0, ndisk = 0;
	int k, j, ret;

	printf("configuration: %s\ntimeout: %u.%03u s\nmethod: %s\nsensitivity: %s\n",
	       g->opts->config, g->conf.timeout_ms / 1000, g->conf.timeout_ms % 1000,
	       hdp_method_name(g->conf.method), conf_level_name(g->conf.level));
	if (!g->conf.sources && source_candidates(&paths))
		return EXIT_FAILURE;
	list = g->conf.sources ? g->conf.sources : paths;
	for (i = 0; list[i]; i++) {
		ret = source_open(list[i], SOURCE_PROBE | (g->conf.sources ? SOURCE_NAMED : 0),
				  &s, why, sizeof(why));
		if (ret) {
			if (g->conf.sources || (ret != -ENOTTY && ret != -ENOENT))
				printf("source: %s: not used: %s\n", list[i], why);
			continue;
		}
		printf("source: %s (%s, %s)\n", s.path, s.name, source_kind_name(s.kind));
		if (*why)
			printf("  %s\n", why);
		source_close(&s);
		nsrc++;
	}
	source_paths_free(paths);
	if (g->conf.disks) {
		for (i = 0; g->conf.disks[i]; i++) {
			if (disk_name(g->conf.disks[i], name, sizeof(name), why, sizeof(why)))
				printf("disk: %s: not present: %s\n", g->conf.disks[i], why);
			else
				printf("disk: %s (%s)\n", name, g->conf.disks[i]), ndisk++;
		}
	} else {
		k = scandir("/sys/block", &ents, NULL, versionsort);
		for (j = 0; j < k; j++) {
			if (ents[j]->d_name[0] != '.' && auto_disk(ents[j]->d_name))
				printf("disk: %s (rotational, not removable)\n", ents[j]->d_name), ndisk++;
			free(ents[j]);
		}
		if (k >= 0)
			free(ents);
	}
	if (!nsrc)
		printf("no accelerometer: the guard would exit\n");
	if (!ndisk)
		printf("no disk to protect: the guard would exit\n");
	return EXIT_SUCCESS;
}

/* ---- the D-Bus face (bus.h) ---- */

/*
 * The bus thread's lines, through the log's thread only: a line written
 * straight to a stalled stderr would keep bus_stop() waiting.
 */
static void bus_log(void *data, int prio, const char *msg)
{
	const struct guard *g = data;

	if (g->log->running)
		glog(g, prio, "%s", msg);
}

/* The guard's state, as the bus shows it: copied to the bus thread. */
static void bus_tell(struct guard *g)
{
	struct bus_state *st = &g->bus_st;
	char disks[256];
	size_t i, ok = 0;
	uint64_t t = now_ns();

	g->bus_dirty = false;
	if (!g->bus)
		return;
	memset(st, 0, sizeof(*st));
	for (i = 0; i < MAX_SOURCES && st->nsensors < MAX_SOURCES; i++) {
		const struct source *src = &g->src[i];
		struct bus_sensor *b = &st->sensors[st->nsensors++];
		const char *state = "reading";

		if (src->fd < 0) {
			st->nsensors--;
			continue;
		}
		if (t < src->hold.aside_until_ns)
			state = "set aside";
		else if (src->det.fault)
			state = "fault";
		else if (src->silent_told || src->errors)
			state = "silent";
		else
			ok++;
		snprintf(b->path, sizeof(b->path), "%.127s", src->path);
		snprintf(b->name, sizeof(b->name), "%.63s", src->name);
		snprintf(b->state, sizeof(b->state), "%s", state);
	}
	for (i = 0; i < g->ndisks; i++) {
		snprintf(st->disks[i].name, sizeof(st->disks[i].name), "%s", g->disks[i]);
		st->disks[i].parked = g->disk_parked[i];
	}
	st->ndisks = g->ndisks;
	disks_text(g, disks, sizeof(disks));
	st->state = BUS_GUARDING;
	if (!g->ndisks) {
		st->state = BUS_NOT_PROTECTING;
		snprintf(st->reason, sizeof(st->reason), "no disk protected yet (%s)",
			 g->kernel_missing ? "waiting for hdprotect" : "waiting for the disks named");
	} else if (!ok) {
		st->state = BUS_NOT_PROTECTING;
		snprintf(st->reason, sizeof(st->reason), "%s", st->nsensors ?
			 "no accelerometer reads as it should (see the log)" :
			 "no accelerometer; waiting for one");
	} else if (g->paused_until_ns) {
		st->state = BUS_PAUSED;
		snprintf(st->reason, sizeof(st->reason), "paused %s", g->paused_by);
	} else if (g->parked) {
		st->state = BUS_PARKED;
		snprintf(st->reason, sizeof(st->reason), "parked: %.31s on %.100s", g->last_cause,
			 g->last_sensor);
	} else {
		snprintf(st->reason, sizeof(st->reason), "protecting %.148s", disks);
	}
	if (g->paused_until_ns) {
		st->paused_until_us = g->paused_until_us;
		snprintf(st->paused_by, sizeof(st->paused_by), "%s", g->paused_by);
	}
	st->level = g->conf.level;
	st->parks = g->parks;
	st->last_us = g->last_park_us;
	memcpy(st->last_cause, g->last_cause, sizeof(st->last_cause));
	memcpy(st->last_sensor, g->last_sensor, sizeof(st->last_sensor));
	memcpy(st->last_disks, g->last_disks, sizeof(st->last_disks));
	st->last_latency_ms = g->last_latency_ms;
	bus_publish(g->bus, st);
}

/* The callers' commands, authorised by the bus thread (polkit). */
static void on_bus(struct guard *g)
{
	struct bus_command c;
	char who[96], by[32];
	size_t i;

	while (bus_command(g->bus, &c) > 0) {
		c.sender[sizeof(c.sender) - 1] = '\0';
		snprintf(who, sizeof(who), "over D-Bus: %s, pid %lld, uid %lld", c.sender,
			 (long long)c.pid, (long long)c.uid);
		snprintf(by, sizeof(by), "by uid %lld", (long long)c.uid);
		switch (c.type) {
		case BUS_CMD_PAUSE:
			if (c.seconds >= 1 && c.seconds <= BUS_PAUSE_MAX_S)
				pause_for(g, c.seconds * 1000ull, by, who);
			break;
		case BUS_CMD_RESUME:
			if (g->paused_until_ns) {
				snprintf(by, sizeof(by), "resumed by uid %lld", (long long)c.uid);
				glog(g, LOG_INFO, "resumed %s", who);
				pause_end(g, by);
			}
			break;
		case BUS_CMD_SENSITIVITY:
			if (c.level > DETECT_HIGH || c.level == g->conf.level)
				break;
			g->conf.level = c.level;
			for (i = 0; i < MAX_SOURCES; i++)
				if (g->src[i].fd >= 0)
					detector_reset(g, &g->src[i]);
			glog(g, LOG_NOTICE, "sensitivity %s (%s), until the configuration is read again",
			     conf_level_name(c.level), who);
			break;
		}
		g->bus_dirty = true;
	}
}

static int add_fd(struct guard *g, int fd, enum tag tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(g->ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static void lock_and_prioritize(struct guard *g)
{
	struct sched_param sp = { .sched_priority = GUARD_RT_PRIORITY };

	/* No page fault between a fall's sample and its park. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		glog(g, LOG_INFO, "cannot lock its memory (%s): a fall may wait for a page fault",
		     strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		glog(g, LOG_INFO, "no real-time priority (%s): a busy machine may delay a park",
		     strerror(errno));
}

static void loop(struct guard *g)
{
	struct epoll_event evs[16];
	uint32_t slot;
	int n, i;

	while (!g->stop) {
		n = epoll_wait(g->ep, evs, 16, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			glog(g, LOG_ERR, "epoll_wait: %s; stopping", strerror(errno));
			g->failed = true;
			return;
		}
		for (i = 0; i < n && !g->stop; i++) {
			switch (evs[i].data.u64) {
			case TAG_SIGNAL:
				on_signal(g);
				break;
			case TAG_UEVENT:
				on_uevent(g);
				break;
			case TAG_TIMER:
				on_timer(g);
				break;
			case TAG_MONITOR:
				on_monitor(g);
				break;
			case TAG_FALL:
				on_fall_timer(g);
				break;
			case TAG_RESCAN:
				on_rescan(g);
				break;
			case TAG_WATCH:
				on_watch(g);
				g->bus_dirty = true;
				break;
			case TAG_BUS:
				on_bus(g);
				break;
			default:
				slot = (uint32_t)evs[i].data.u64 - TAG_SOURCE;
				if (slot < MAX_SOURCES && g->src[slot].fd >= 0 &&
				    g->src_gen[slot] == evs[i].data.u64 >> 32)
					on_source(g, slot);
				break;
			}
		}
		if (g->status_dirty) {
			update_status(g);
			g->bus_dirty = true;
		}
		if (g->bus_dirty)
			bus_tell(g);
	}
}

static int start(struct guard *g)
{
	char text[512];
	const char *env;
	int fd, ret;

	ret = hdp_new(&g->ctx);
	if (!ret)
		ret = hdp_new(&g->mon);
	if (ret) {
		glog(g, LOG_ERR, "%s", hdp_strerror(ret));
		return EXIT_FAILURE;
	}
	/* The devices' answers come as events: a park does not wait for them. */
	hdp_set_park_wait(g->ctx, 0);
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	g->sfd = open_signals();
	g->uev = open_uevents(g);
	g->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	g->ftfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	g->rfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	g->wfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (g->ep < 0 || g->sfd < 0 || g->tfd < 0 || g->ftfd < 0 || g->rfd < 0 || g->wfd < 0) {
		glog(g, LOG_ERR, "cannot set up its event loop: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	if (g->uev < 0)
		glog(g, LOG_WARNING, "no uevents (%s): disks and accelerometers that appear later are not seen",
		     strerror(-g->uev));
	if (add_fd(g, g->sfd, TAG_SIGNAL) || add_fd(g, g->tfd, TAG_TIMER) ||
	    add_fd(g, g->ftfd, TAG_FALL) || add_fd(g, g->rfd, TAG_RESCAN) ||
	    add_fd(g, g->wfd, TAG_WATCH) ||
	    (g->uev >= 0 && add_fd(g, g->uev, TAG_UEVENT))) {
		glog(g, LOG_ERR, "cannot set up its event loop: %s", strerror(errno));
		return EXIT_FAILURE;
	}

	/* Before the sources: /dev/freefall's thread takes the priority it has. */
	lock_and_prioritize(g);
	open_sources(g, NULL, false);
	if (!nr_sources(g, false) && g->display_skipped) {
		/* A laptop's one IIO sensor, of unknown place: say what to do. */
		glog(g, LOG_WARNING,
		     "no accelerometer: %u IIO accelerometer%s passed over as the display's (said above): name one in sources, or give it ACCEL_LOCATION=base in the hwdb, to guard with it",
		     g->display_skipped, g->display_skipped > 1 ? "s" : "");
		notify("READY=1\nSTATUS=no accelerometer: the IIO ones are taken to be the display's; name one in sources");
		return EXIT_SUCCESS;
	}
	if (!nr_sources(g, false)) {
		glog(g, LOG_NOTICE, "no accelerometer%s: nothing to guard with",
		     g->conf.sources ? " of the configuration can be read" :
		     " found (input devices, IIO, /dev/freefall, position files)");
		/* Started, and done: systemd sees no failure. */
		notify("READY=1\nSTATUS=no accelerometer: nothing to guard with");
		return EXIT_SUCCESS;
	}
	/* Listen before adding the disks, so that no event is missed. */
	fd = hdp_monitor_open(g->mon);
	if (fd < 0 || add_fd(g, fd, TAG_MONITOR)) {
		glog(g, LOG_ERR, "cannot hear the kernel's events: %s",
		     hdp_strerror(fd < 0 ? fd : -errno));
		return EXIT_FAILURE;
	}
	setup_all_disks(g, false);
	/* Disks there, that the kernel would not set up: a failure to start. */
	if (!g->ndisks && g->refused && !g->rescans) {
		glog(g, LOG_ERR, "no disk could be protected (why is said above): stopping");
		notify("STATUS=no disk could be protected");
		return EXIT_FAILURE;
	}
	if (!g->ndisks && !g->kernel_missing && !g->rescans) {
		glog(g, LOG_NOTICE, "no disk to protect%s",
		     g->conf.disks ? " of the configuration is present" :
		     ": no rotational, non-removable disk that its driver can park");
		notify("READY=1\nSTATUS=no disk to protect");
		return EXIT_SUCCESS;
	}
	notify("READY=1");
	update_status(g);
	/*
	 * Every second: the sources' liveness, the IIO buffers' owners,
	 * STATUS=, and systemd's watchdog (WatchdogSec= of 2 s or more),
	 * which a loop that stopped no longer pings.
	 */
	env = getenv("WATCHDOG_PID");
	g->watchdog = getenv("WATCHDOG_USEC") && (!env || atol(env) == (long)getpid());
	set_periodic(g->wfd, WATCH_NS);
	/* Its face on the system bus: no bus is no failure. */
	ret = bus_start(&g->bus, bus_log, g);
	if (ret) {
		glog(g, LOG_WARNING, "no D-Bus interface: %s", strerror(-ret));
	} else if (add_fd(g, bus_command_fd(g->bus), TAG_BUS)) {
		/* (commands nobody would carry out are not taken) */
		glog(g, LOG_WARNING, "no D-Bus interface: %s", strerror(errno));
		bus_stop(g->bus);
		g->bus = NULL;
	}
	bus_tell(g);
	disks_text(g, text, sizeof(text));
	glog(g, LOG_NOTICE, "guarding %s", *text ? text : g->kernel_missing ?
	     "no disk yet (waiting for hdprotect)" : "no disk yet (waiting for the named disks)");
	loop(g);
	return g->failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int guard_main(const struct guard_opts *opts)
{
	struct guard g = {
		.opts = opts,
		.ep = -1, .sfd = -1, .uev = -1, .tfd = -1, .ftfd = -1, .rfd = -1, .wfd = -1,
	};
	char err[PATH_MAX + 256];
	size_t i;
	int rc;

	g.log = calloc(1, sizeof(*g.log));
	if (!g.log) {
		fprintf(stderr, "hdpctl guard: %s\n", strerror(ENOMEM));
		return 1;
	}
	g.log->journal = stderr_is_journal();
	/* --check writes to stdout, and waits for nothing in a fall. */
	if (!opts->check && log_start(g.log))
		glog(&g, LOG_WARNING, "no thread for its log: a stalled stderr may delay a park");
	for (i = 0; i < MAX_SOURCES; i++)
		g.src[i].fd = g.src[i].data_fd = -1;
	conf_defaults(&g.conf);
	if (conf_load(opts->config, &g.conf, err, sizeof(err))) {
		glog(&g, LOG_ERR, "%s", err);
		log_stop(g.log);
		free(g.log);
		return 1;
	}
	rc = opts->check ? check(&g) : start(&g);
	bus_stop(g.bus);
	for (i = 0; i < MAX_SOURCES; i++)
		if (g.src[i].fd >= 0)
			source_close(&g.src[i]);
	hdp_free(g.mon);
	hdp_free(g.ctx);
	if (g.ep >= 0)
		close(g.ep);
	if (g.sfd >= 0)
		close(g.sfd);
	if (g.umon)
		udev_monitor_unref(g.umon);	/* closes uev */
	else if (g.uev >= 0)
		close(g.uev);
	udev_unref(g.udev);
	if (g.tfd >= 0)
		close(g.tfd);
	if (g.ftfd >= 0)
		close(g.ftfd);
	if (g.rfd >= 0)
		close(g.rfd);
	if (g.wfd >= 0)
		close(g.wfd);
	conf_free(&g.conf);
	log_stop(g.log);
	free(g.log);
	return rc;
}
