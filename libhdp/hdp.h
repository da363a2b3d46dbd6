/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libhdp: control and monitor hard-disk active protection (hdprotect).
 *
 * A disk is put under protection by adding it (a configfs item,
 * /config/hdprotect/<disk>); it can then be enabled, parked (heads
 * unloaded or spun down, I/O held) for a while, and unparked. The kernel
 * tells of every change as an event, which a monitor receives.
 *
 * Everything goes through a context, struct hdp_ctx, made by hdp_new().
 * The library keeps no global state and prints nothing. A context is not
 * to be used by two threads at once; make one per thread. A context is
 * one requester of parks: its parks are its own hold of each disk, which
 * hdp_unpark() ends without cutting short another requester's (another
 * context, process, configfs, libata's unload_heads); hdp_unpark_all(),
 * the administrator's unpark, ends every hold. Every function
 * that can fail returns 0 (or a count) on success and a negative errno on
 * failure; hdp_strerror() says what it means and what to do. After a
 * failed request, hdp_kernel_message() gives the kernel's own words, if
 * it said anything. Besides the errors each function lists, every
 * function that takes a disk name returns -EINVAL for a name that cannot
 * be a disk's (empty, NULL, with '/', "." or "..") and -ENAMETOOLONG for
 * one longer than HDP_NAME_MAX, and every request can fail with -EBADMSG
 * (a reply the library cannot read) or -ECOMM (the socket failed). The
 * kernel checks the values (lengths, methods); when it refuses one,
 * hdp_kernel_message() names the setting and what the kernel allows
 * ("timeout_ms: integer out of range (1 to 30000)").
 *
 * However often a park is renewed, and by however many requesters, the
 * kernel ends it once it has lasted the disk's max hold (max_hold_ms of
 * struct hdp_disk; the event's cause is HDP_CAUSE_CAP), and then refuses
 * parks of the disk with -EBUSY for a cool-down of a few seconds, in
 * which its held I/O runs.
 *
 * Times are CLOCK_MONOTONIC nanoseconds, as clock_gettime() gives them.
 *
 * The structures below (struct hdp_disk, struct hdp_monitor_event,
 * struct hdp_outcome) are made by the library only, and a later version
 * of LIBHDP_1 may add members at their end: read them through the
 * pointers the library gives, and never allocate one, take its size or
 * step through an array of them; a list is an array of pointers, NULL
 * after the last. Free what the library allocated with the free function
 * it names. Copying one by value is safe: the copy holds the members the
 * caller was built with. The one structure a caller fills, struct
 * hdp_settings, carries its size, which the library honours.
 */
#ifndef HDP_H
#define HDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest disk name, without its terminating NUL. */
#define HDP_NAME_MAX		31

/** enum hdp_disk_state - what a disk is doing */
enum hdp_disk_state {
	HDP_DISK_IDLE,		/* not parked: I/O flows */
	HDP_DISK_PARKED,	/* parked: heads off the platters, I/O held */
	HDP_DISK_GONE,		/* the disk was removed */
};

/** enum hdp_park_method - how a disk parks */
enum hdp_park_method {
	HDP_PARK_AUTO,		/* unload if the device can, else standby */
	HDP_PARK_UNLOAD,	/* unload the heads, keep spinning */
	HDP_PARK_STANDBY,	/* spin down */
};

/** enum hdp_event_type - what an event tells */
enum hdp_event_type {
	HDP_EV_PARKED = 1,	/* parked, or a park's deadline moved */
	HDP_EV_UNPARKED,	/* unparked: held I/O released */
	HDP_EV_ADDED,		/* the disk was added (configfs item made) */
	HDP_EV_REMOVED,		/* the disk was removed, or went away */
	HDP_EV_CHANGED,		/* a setting changed, or a hold ended */
	HDP_EV_LOSS = 100,	/* events were lost: list the disks again */
	HDP_EV_KERNEL_GONE,	/* hdprotect went away (module unloaded), or
				 * was not there when the monitor opened: no
				 * event comes until HDP_EV_KERNEL_BACK */
	HDP_EV_KERNEL_BACK,	/* hdprotect is there again: the monitor hears
				 * it; list the disks again */
};

/** enum hdp_cause - why a change happened */
enum hdp_cause {
	HDP_CAUSE_REQUEST,	/* a request (configfs, netlink) */
	HDP_CAUSE_TIMEOUT,	/* the park's deadline passed */
	HDP_CAUSE_UNLOAD_HEADS,	/* libata's unload_heads attribute */
	HDP_CAUSE_DISABLE,	/* protection disabled while parked */
	HDP_CAUSE_REMOVAL,	/* the disk or its driver went away */
	HDP_CAUSE_ERROR,	/* the driver parked the disk again on its
				 * own: error handling sent the parked
				 * device other commands (HDP_EV_PARKED) */
	HDP_CAUSE_CAP,		/* the park lasted the disk's max hold */
};

/** enum hdp_holder - who holds a park: a requester of parks */
enum hdp_holder {
	HDP_HOLDER_NONE,	/* the event names none */
	HDP_HOLDER_CONFIGFS,	/* the disk's configfs item (park file) */
	HDP_HOLDER_UNLOAD_HEADS, /* libata's unload_heads attribute */
	HDP_HOLDER_NETLINK,	/* a netlink socket: a context, a program */
};

/**
 * struct hdp_disk - one disk's protection state
 * @name: the disk's name, as in /sys/block
 * @devt: its device number
 * @state: idle, parked or gone
 * @enabled: protection is enabled (a park is allowed)
 * @timeout_ms: length of a park that names none
 * @method: the method configured
 * @methods: the methods the device supports, 1 << enum hdp_park_method
 *	each, HDP_PARK_AUTO's bit included; 0 if none (it cannot park)
 * @remaining_ms: time left in the park, 0 if not parked
 * @last_method: the method the last park used
 * @last_result: the last park's outcome: 0, or a negative errno if the
 *	device did not confirm it (I/O was held all the same);
 *	-EINPROGRESS while the device has not answered it
 * @parks: parks so far
 * @failures: parks the device did not confirm
 * @last_park_ns: the last park's latency
 * @request_ns: time of the last park or unpark request
 * @complete_ns: time the driver answered it
 * @deadline_ns: end of the park, 0 if not parked
 * @cookie: the cookie of the current or last park (see hdp_park_disks()),
 *	0 before the first
 * @max_hold_ms: the longest a park of the disk lasts, however it is
 *	renewed (the kernel's default is 30000)
 * @holds: how many requesters hold the park (configfs, unload_heads, each
 *	netlink socket), 0 if not parked
 * @cooldown_ms: time left of the cool-down after a park that lasted
 *	@max_hold_ms, in which parks are refused (-EBUSY); 0 if none
 *
 * Made by hdp_status() and hdp_list(), and for each event (valid during
 * the callback only); a later version may add members at the end.
 */
struct hdp_disk {
	char name[HDP_NAME_MAX + 1];
	dev_t devt;
	enum hdp_disk_state state;
	bool enabled;
	unsigned int timeout_ms;
	enum hdp_park_method method;
	unsigned int methods;
	unsigned int remaining_ms;
	enum hdp_park_method last_method;
	int last_result;
	uint64_t parks;
	uint64_t failures;
	uint64_t last_park_ns;
	uint64_t request_ns;
	uint64_t complete_ns;
	uint64_t deadline_ns;
	uint64_t cookie;
	unsigned int max_hold_ms;
	unsigned int holds;
	unsigned int cooldown_ms;
};

/**
 * struct hdp_monitor_event - a change of a disk, or a loss
 * @type: what happened
 * @cause: why (not for HDP_EV_LOSS); a cause this library does not know
 *	(a newer kernel's) has a value above the last one named here
 * @seq: the kernel's sequence number of the event; for HDP_EV_LOSS, the
 *	number of the first event known lost, or 0 if unknown (the socket
 *	overran)
 * @lost: for HDP_EV_LOSS, how many events were lost, 0 if unknown
 * @result: for HDP_EV_PARKED, the park's outcome (0 or a negative errno;
 *	-EINPROGRESS for a renewal of a park the device has not answered
 *	yet); otherwise the disk's last_result
 * @park_ms: for HDP_EV_PARKED, the park's length
 * @renewed: for HDP_EV_PARKED, the park only moved the deadline of a
 *	parked disk
 * @disk: the disk's state right after the change, never NULL (for
 *	HDP_EV_LOSS and the HDP_EV_KERNEL_ events, which are about no disk,
 *	one with an empty name and every member 0); for
 *	HDP_EV_PARKED, its cookie is that of the park the event tells of
 * @time_ns: when the change happened (for HDP_EV_LOSS and the
 *	HDP_EV_KERNEL_ events, 0)
 * @holder: for HDP_EV_PARKED, the requester that asked for the park or
 *	renewed it; for HDP_EV_CHANGED, the requester whose hold ended while
 *	others still hold the disk (@disk->holds counts them);
 *	HDP_HOLDER_NONE if the event names none (a holder this
 *	library does not know has a value above the last one named here)
 * @holder_portid: for HDP_HOLDER_NETLINK, the socket's port id (a
 *	context's requests go through one socket); else 0
 *
 * Made by the library for a callback, and valid during the call only; a
 * later version may add members at the end.
 */
struct hdp_monitor_event {
	enum hdp_event_type type;
	enum hdp_cause cause;
	uint64_t seq;
	uint64_t lost;
	int result;
	unsigned int park_ms;
	bool renewed;
	const struct hdp_disk *disk;
	uint64_t time_ns;
	enum hdp_holder holder;
	unsigned int holder_portid;
};

/**
 * struct hdp_outcome - one disk's part in a park
 * @name: the disk
 * @devt: its device number
 * @result: 0 if the device confirmed the park, else a negative errno
 *	(the disk's I/O is held all the same): the device's error,
 *	-ECANCELED if the park ended before the device was asked, -ENODEV
 *	if the disk went first, or -EINPROGRESS if the device had not
 *	answered when the wait ended (see hdp_park_disks())
 * @method: the method the park used
 * @park_ms: the park's length
 * @deadline_ns: when it ends
 * @request_ns: when it was asked for
 * @complete_ns: when the device answered
 * @cookie: names the park the disk is in: the request's, or for a
 *	renewal that of the request that started the park
 * @renewed: the disk was parked already: the park only moved its deadline
 *
 * Made by hdp_park_disks() and hdp_park(); a later version may add
 * members at the end.
 */
struct hdp_outcome {
	char name[HDP_NAME_MAX + 1];
	dev_t devt;
	int result;
	enum hdp_park_method method;
	unsigned int park_ms;
	uint64_t deadline_ns;
	uint64_t request_ns;
	uint64_t complete_ns;
	uint64_t cookie;
	bool renewed;
};

struct hdp_ctx;

/**
 * hdp_new() - make a context
 * @ctx: where to store it
 *
 * Nothing is opened yet: the first request connects to the kernel.
 * Return: 0, or -ENOMEM.
 */
int hdp_new(struct hdp_ctx **ctx);

/**
 * hdp_free() - close everything the context opened and free it
 * @ctx: the context, or NULL
 */
void hdp_free(struct hdp_ctx *ctx);

/**
 * hdp_set_configfs() - where configfs is mounted
 * @ctx: the context
 * @path: the mount point (default "/sys/kernel/config", else "/config")
 *
 * By default the library uses /sys/kernel/config/hdprotect, or
 * /config/hdprotect if only that exists.
 * Return: 0, or -EINVAL if @path is NULL or too long.
 */
int hdp_set_configfs(struct hdp_ctx *ctx, const char *path);

/**
 * hdp_add() - put a disk under protection (disabled, default settings)
 * @ctx: the context
 * @disk: its name, as in /sys/block
 *
 * Return: 0; -EEXIST if it already is; -ENODEV if there is no such disk;
 * -EINVAL for a partition; -EOPNOTSUPP if its driver cannot park it;
 * -EPERM/-EACCES without root; -ENOSYS if the kernel has no hdprotect
 * (module not loaded, configfs not mounted).
 */
int hdp_add(struct hdp_ctx *ctx, const char *disk);

/**
 * hdp_remove() - let a disk go (it is disabled, so unparked, first)
 * @ctx: the context
 * @disk: the disk
 *
 * Return: 0; -ENOENT if it is not under protection; as hdp_add().
 */
int hdp_remove(struct hdp_ctx *ctx, const char *disk);

/**
 * hdp_set_enabled() - enable or disable protection of a disk
 * @ctx: the context
 * @disk: the disk
 * @enabled: true to allow parks; false unparks a parked disk (but for a
 *	park held through libata's unload_heads, which needs no enable)
 *
 * Return: 0; -ENOENT if the disk is not under protection; -ENODEV if it
 * is gone; -EPERM without CAP_SYS_ADMIN; -EPROTONOSUPPORT if the kernel
 * has no hdprotect family.
 */
int hdp_set_enabled(struct hdp_ctx *ctx, const char *disk, bool enabled);

/**
 * hdp_set_timeout() - set the length of a park that names none
 * @ctx: the context
 * @disk: the disk
 * @ms: from 1 to the kernel's limit (30000 today)
 *
 * Return: 0; -ERANGE if the kernel finds @ms out of range; as
 * hdp_set_enabled().
 */
int hdp_set_timeout(struct hdp_ctx *ctx, const char *disk, unsigned int ms);

/**
 * hdp_set_max_hold() - set the longest a park of a disk lasts
 * @ctx: the context
 * @disk: the disk
 * @ms: the kernel's range (1000 to 120000 today)
 *
 * However its holds are renewed, a park ends @ms after it began, and
 * parks of the disk are then refused for a cool-down (see
 * hdp_park_disks()).
 * Return: 0; -ERANGE if the kernel finds @ms out of range; as
 * hdp_set_enabled().
 */
int hdp_set_max_hold(struct hdp_ctx *ctx, const char *disk, unsigned int ms);

/**
 * hdp_set_method() - choose how a disk parks
 * @ctx: the context
 * @disk: the disk
 * @method: the method
 *
 * Return: 0; -EOPNOTSUPP if the device lacks it; -ERANGE for a method the
 * kernel does not know ("method: integer out of range (0 to 2)"); as
 * hdp_set_enabled().
 */
int hdp_set_method(struct hdp_ctx *ctx, const char *disk,
		   enum hdp_park_method method);

/* Which members of struct hdp_settings hdp_set() applies. */
#define HDP_SET_ENABLED		(1u << 0)
#define HDP_SET_TIMEOUT		(1u << 1)
#define HDP_SET_METHOD		(1u << 2)
#define HDP_SET_MAX_HOLD	(1u << 3)

/**
 * struct hdp_settings - settings of a disk, for hdp_set()
 * @size: sizeof(struct hdp_settings) as the caller was built (zero the
 *	whole structure first, padding included): the library
 *	reads no member past it, and a later version may add members at
 *	the end (which must then be 0 for a library that does not know
 *	them), as statx() and clone3() do
 * @set: the members to apply, HDP_SET_ENABLED, HDP_SET_TIMEOUT,
 *	HDP_SET_METHOD, HDP_SET_MAX_HOLD
 * @enabled: allow parks; false unparks a parked disk
 * @timeout_ms: the length of a park that names none
 * @method: how the disk parks
 * @max_hold_ms: the longest a park lasts (HDP_SET_MAX_HOLD needs a
 *	@size that holds it)
 */
struct hdp_settings {
	size_t size;
	unsigned int set;
	bool enabled;
	unsigned int timeout_ms;
	enum hdp_park_method method;
	unsigned int max_hold_ms;
};

/**
 * hdp_set() - change several settings of a disk in one request
 * @ctx: the context
 * @disk: the disk
 * @settings: the settings, with @settings->size set
 *
 * The kernel checks every value before it changes any, and applies the
 * method first (the one value a device can refuse), then the other
 * settings, then enabled: a failed request changes nothing, and a disk
 * enabled by it parks with the method and timeout asked for.
 * Return: 0; -EINVAL if @settings names nothing, or a member unknown
 * (@set bits, @size too small, for the member a bit names too); -E2BIG if
 * members this library does not know are not 0; as hdp_set_enabled(),
 * hdp_set_timeout(), hdp_set_method() and hdp_set_max_hold().
 */
int hdp_set(struct hdp_ctx *ctx, const char *disk,
	    const struct hdp_settings *settings);

/**
 * hdp_park_disks() - park several disks, or every enabled disk, at once
 * @ctx: the context
 * @disks: the disks, or NULL for every enabled disk
 * @ndisks: how many; 0 for every enabled disk
 * @ms: the park's length, from 1 to the kernel's limit, or 0 for each disk's
 *	own timeout; a disk this context holds parked already has its hold
 *	renewed: its deadline moves to now plus the length
 * @outcomes: if not NULL, where to store a list of one outcome per disk
 *	parked (an array of pointers, NULL after the last), to be given
 *	back to hdp_outcomes_free(); NULL on failure
 * @n: if not NULL, where to store how many outcomes it holds
 *
 * One request parks all the disks in parallel, not one after the other.
 * The context holds each park (see the top of this file): the disk stays
 * parked while this or another requester holds it, until the latest of
 * their deadlines, or until the park has lasted the disk's max hold.
 * The kernel answers as soon as every disk's I/O is held and its park
 * started, with a cookie that names the request; each device's answer
 * comes later as an HDP_EV_PARKED event with that cookie. The call
 * listens to the events from before it sends the request, so no answer
 * is missed, and waits for the answer of every disk whose device has
 * not answered yet, for at most the park wait (hdp_set_park_wait(),
 * default 10 s) after the kernel's reply. Events of other disks and
 * other parks are ignored. An outcome whose device had not answered
 * when the wait ended keeps the result -EINPROGRESS: the device has not
 * answered yet, and the disk's I/O is held all the same. If the events
 * cannot be listened to, or were lost (the socket overran), the call
 * reads each waiting disk's state instead, every 20 ms until the wait
 * ends: the answer is there once the disk's cookie is the outcome's and
 * its result no longer -EINPROGRESS.
 *
 * If the kernel refuses the request because of one of several disks,
 * hdp_kernel_message() starts with that disk's name.
 * Return: 0 (a park the device did not confirm still succeeds: see each
 * outcome's result); -EINVAL if @disks names a disk twice; -EPERM if a
 * disk is not enabled or without CAP_SYS_ADMIN; -ENODEV if a disk is
 * gone or (no disk named) no disk is enabled; -EBUSY if a disk is in the
 * cool-down after a park that lasted its max hold; -ENOENT, -ERANGE,
 * -EPROTONOSUPPORT as above. When the request fails, no disk parks.
 */
int hdp_park_disks(struct hdp_ctx *ctx, const char *const *disks,
		   size_t ndisks, unsigned int ms,
		   struct hdp_outcome ***outcomes, size_t *n);

/**
 * hdp_park() - park one disk, or every enabled disk at once
 * @ctx: the context
 * @disk: the disk, or NULL for every enabled disk (parked in parallel)
 * @ms: as hdp_park_disks()
 * @outcomes: as hdp_park_disks()
 * @n: as hdp_park_disks()
 *
 * hdp_park_disks() of one disk, or of all: it waits for the devices'
 * answers in the same way.
 * Return: as hdp_park_disks().
 */
int hdp_park(struct hdp_ctx *ctx, const char *disk, unsigned int ms,
	     struct hdp_outcome ***outcomes, size_t *n);

/**
 * hdp_outcomes_free() - free the outcomes of a park
 * @outcomes: the list hdp_park_disks() or hdp_park() made, or NULL
 */
void hdp_outcomes_free(struct hdp_outcome **outcomes);

/**
 * hdp_set_park_wait() - how long a park waits for the devices' answers
 * @ctx: the context
 * @ms: the longest wait after the kernel's reply, in milliseconds
 *	(default 10000); 0: do not wait, hand over the outcomes as the
 *	kernel's reply gives them, -EINPROGRESS for each device that has
 *	not answered yet
 *
 * Return: 0.
 */
int hdp_set_park_wait(struct hdp_ctx *ctx, unsigned int ms);

/**
 * hdp_unpark() - end this context's hold of one disk's park, or of all
 * @ctx: the context: the requester whose hold ends
 * @disk: the disk, or NULL for every parked disk
 *
 * A context is one requester: the call ends the parks it holds, and
 * only those. A disk no other requester holds is unparked at once (an
 * HDP_EV_UNPARKED event); one that another requester holds stays parked
 * until that hold ends (an HDP_EV_CHANGED event names the hold that
 * ended). Unparking a disk that is not parked, or that this context does
 * not hold, succeeds. The call does not wait for the devices: the disk's
 * held I/O flows once its device unparked, or after one second if the
 * device does not answer.
 * Return: 0, or as hdp_set_enabled().
 */
int hdp_unpark(struct hdp_ctx *ctx, const char *disk);

/**
 * hdp_unpark_all() - the administrator's unpark: end every hold now
 * @ctx: the context
 * @disk: the disk, or NULL for every parked disk
 *
 * As hdp_unpark(), but the park ends whoever holds it: every requester's
 * hold ends (other programs', configfs', libata's unload_heads'), and
 * the disk is unparked at once.
 * Return: 0, or as hdp_set_enabled().
 */
int hdp_unpark_all(struct hdp_ctx *ctx, const char *disk);

/**
 * hdp_status() - the state of one disk
 * @ctx: the context
 * @disk: the disk
 * @out: where to store the state, to be given back to hdp_disk_free();
 *	NULL on failure
 *
 * Any user may ask.
 * Return: 0; -ENOENT if the disk is not under protection; -ENOMEM;
 * -EPROTONOSUPPORT if the kernel has no hdprotect family.
 */
int hdp_status(struct hdp_ctx *ctx, const char *disk, struct hdp_disk **out);

/**
 * hdp_disk_free() - free a disk's state that hdp_status() made
 * @disk: the state, or NULL
 */
void hdp_disk_free(struct hdp_disk *disk);

/**
 * hdp_list() - the state of every disk under protection
 * @ctx: the context
 * @disks: where to store the list (an array of pointers, NULL after the
 *	last; just the NULL if no disk is under protection), to be given
 *	back to hdp_disks_free(); NULL on failure
 * @n: if not NULL, where to store how many disks it holds
 *
 * A list that a concurrent add or remove disturbed is read again. A disk
 * that went away stays listed, in state HDP_DISK_GONE, until it is
 * removed (hdp_remove()).
 * Return: 0, -ENOMEM, -EPROTONOSUPPORT, -EAGAIN if the list kept
 * changing.
 */
int hdp_list(struct hdp_ctx *ctx, struct hdp_disk ***disks, size_t *n);

/**
 * hdp_disks_free() - free the list hdp_list() made
 * @disks: the list, or NULL
 */
void hdp_disks_free(struct hdp_disk **disks);

/**
 * hdp_monitor_open() - subscribe to the kernel's events
 * @ctx: the context
 *
 * Any user may listen. To keep a view of the disks, open the monitor
 * first, then hdp_list(), then apply the events:
 *
 * - HDP_EV_ADDED comes first for a newly added disk, with the state it
 *   had; the reset of its settings to the defaults follows as
 *   HDP_EV_CHANGED events.
 * - HDP_EV_REMOVED with cause HDP_CAUSE_REMOVAL: the disk went away; it
 *   stays listed as HDP_DISK_GONE until hdp_remove(), which sends a
 *   second HDP_EV_REMOVED (cause HDP_CAUSE_REQUEST).
 * - A disk parked through libata's unload_heads without being added has
 *   events (PARKED, UNPARKED) but is not listed: a view of the disks
 *   under protection ignores events of disks it does not hold.
 * - If hdprotect goes away (its module is unloaded), HDP_EV_KERNEL_GONE
 *   comes: no disk is protected. When it is back, HDP_EV_KERNEL_BACK
 *   comes and its events follow: list the disks again. Requests find the
 *   family again by themselves.
 *
 * The monitor opens without hdprotect too (when its module cannot be
 * loaded): hdp_monitor_pending() then says an HDP_EV_KERNEL_GONE waits,
 * and HDP_EV_KERNEL_BACK comes once it is there.
 *
 * Return: a file descriptor, readable when events are pending, for
 * poll(), epoll or a main loop (owned by the context: do not close it);
 * or -ENOMEM, -ECOMM, -EBUSY from a callback that closed the monitor.
 */
int hdp_monitor_open(struct hdp_ctx *ctx);

/**
 * typedef hdp_event_fn - a monitor's callback
 * @ev: the event, valid during the call only
 * @data: the caller's pointer given to hdp_monitor_dispatch()
 *
 * Return: 0 to go on; a positive value to stop the dispatch, which then
 * returns its count; a negative errno to stop it with that error.
 */
typedef int (*hdp_event_fn)(const struct hdp_monitor_event *ev, void *data);

/**
 * hdp_monitor_dispatch() - hand the pending events to a callback
 * @ctx: the context
 * @fn: the callback
 * @data: passed to @fn
 *
 * Does not block: returns when no event is pending, when @fn asked to
 * stop, or after 64 events, so that a flood of events does not keep a
 * main loop from its other work. The events not yet handed over wait
 * for the next call: the descriptor stays readable while the socket
 * holds some, but those already read into the library's buffer are
 * told only by hdp_monitor_pending(), which a caller checks after a
 * dispatch (or dispatches until it returns 0). Unknown
 * attributes and event types of a newer kernel are skipped. A socket
 * overrun, or a gap in the sequence numbers, is handed over as an
 * HDP_EV_LOSS event: list the disks again. After an overrun, the events
 * still queued are older than the ones lost: they are discarded, with
 * any that arrive meanwhile, before the loss is handed over, so that a
 * list taken on the loss is newer than every event that never reached
 * @fn. Events handed over after the loss may predate the list, but
 * every later change follows them.
 * @fn may make any call of the library on @ctx but a dispatch (-EBUSY).
 * If it calls hdp_monitor_close() or hdp_free(), that takes effect when
 * @fn returns, and the dispatch stops there; @ctx must not be used after
 * hdp_free().
 * Return: the number of events handed over (loss events and the one
 * that stopped the dispatch included); the negative errno @fn returned;
 * -EBADF if the monitor is not open; -EBUSY from within @fn; another
 * negative errno if reading the socket failed.
 */
int hdp_monitor_dispatch(struct hdp_ctx *ctx, hdp_event_fn fn, void *data);

/**
 * hdp_monitor_pending() - whether a dispatch has events to hand over now
 * @ctx: the context
 *
 * Return: 1 if events wait in the library's buffer or the socket (the
 * last dispatch stopped early), 0 if not (wait for the descriptor to be
 * readable), or -EBADF if the monitor is not open.
 */
int hdp_monitor_pending(struct hdp_ctx *ctx);

/**
 * hdp_monitor_set_buffer() - the monitor socket's receive buffer
 * @ctx: the context
 * @bytes: its size, from 16 KiB (default 1 MiB, about 1500 events)
 *
 * Applies now if the monitor is open, else when it opens. The kernel
 * caps the size at net.core.rmem_max unless the caller has
 * CAP_NET_ADMIN. A full buffer loses events (HDP_EV_LOSS).
 * Return: 0; -EINVAL for a size out of range.
 */
int hdp_monitor_set_buffer(struct hdp_ctx *ctx, size_t bytes);

/**
 * hdp_monitor_close() - unsubscribe and close the monitor's descriptor
 * @ctx: the context
 */
void hdp_monitor_close(struct hdp_ctx *ctx);

/**
 * hdp_kernel_message() - the kernel's message about the last failure
 * @ctx: the context
 *
 * Return: the extended ACK message of the last failed request, or NULL
 * if the kernel gave none. Valid until the next call on @ctx.
 */
const char *hdp_kernel_message(const struct hdp_ctx *ctx);

/**
 * hdp_strerror() - what an error of this library means, and what to do
 * @err: a negative errno returned by this library
 *
 * Return: a constant string, never NULL.
 */
const char *hdp_strerror(int err);

/* Names as the kernel and hdpctl print them; "?" for an unknown value. */
const char *hdp_state_name(enum hdp_disk_state state);
const char *hdp_method_name(enum hdp_park_method method);
const char *hdp_event_name(enum hdp_event_type type);
const char *hdp_cause_name(enum hdp_cause cause);
const char *hdp_holder_name(enum hdp_holder holder);

/**
 * hdp_method_from_name() - the method named "auto", "unload" or "standby"
 * @name: the name
 * @method: where to store it
 *
 * Return: 0, or -EINVAL for another name.
 */
int hdp_method_from_name(const char *name, enum hdp_park_method *method);

#ifdef __cplusplus
}
#endif

#endif /* HDP_H */
