// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libhdp: decoding the kernel's messages, names of values, and error
 * messages. Nothing here touches a socket.
 *
 * Attributes of a type this library does not know (a newer kernel's) are
 * skipped: they parse against HDPROTECT_A_MAX as the library was built,
 * and the parser ignores anything above it. An attribute the library knows but
 * whose size is wrong makes the message malformed (-EBADMSG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <linux/hdprotect.h>

#include "hdp-internal.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define HDP_EXPORT	__attribute__((visibility("default")))

/*
 * The library's enums of states, methods, events and causes carry the
 * kernel's values unchanged. Holders are translated (holder_of()):
 * HDP_HOLDER_NONE comes first.
 */
#define SAME(a, b)	_Static_assert((int)(a) == (int)(b), #a " is " #b)
SAME(HDP_DISK_IDLE, HDPROTECT_STATE_IDLE);
SAME(HDP_DISK_PARKED, HDPROTECT_STATE_PARKED);
SAME(HDP_DISK_GONE, HDPROTECT_STATE_GONE);
SAME(HDP_PARK_AUTO, HDPROTECT_METHOD_AUTO);
SAME(HDP_PARK_UNLOAD, HDPROTECT_METHOD_UNLOAD);
SAME(HDP_PARK_STANDBY, HDPROTECT_METHOD_STANDBY);
SAME(HDP_EV_PARKED, HDPROTECT_EVENT_PARKED);
SAME(HDP_CAUSE_REQUEST, HDPROTECT_REASON_REQUEST);
SAME(HDP_CAUSE_TIMEOUT, HDPROTECT_REASON_TIMEOUT);
SAME(HDP_CAUSE_UNLOAD_HEADS, HDPROTECT_REASON_UNLOAD_HEADS);
SAME(HDP_CAUSE_DISABLE, HDPROTECT_REASON_DISABLE);
SAME(HDP_CAUSE_REMOVAL, HDPROTECT_REASON_REMOVAL);
SAME(HDP_CAUSE_ERROR, HDPROTECT_REASON_ERROR);
SAME(HDP_CAUSE_CAP, HDPROTECT_REASON_CAP);
SAME(HDP_EV_UNPARKED, HDPROTECT_EVENT_UNPARKED);
SAME(HDP_EV_ADDED, HDPROTECT_EVENT_ADDED);
SAME(HDP_EV_REMOVED, HDPROTECT_EVENT_REMOVED);
SAME(HDP_EV_CHANGED, HDPROTECT_EVENT_CHANGED);

static const struct nla_policy hdp_policy[HDPROTECT_A_MAX + 1] = {
	[HDPROTECT_A_DISK]		= { .type = NLA_STRING },
	[HDPROTECT_A_MAJOR]		= { .type = NLA_U32 },
	[HDPROTECT_A_MINOR]		= { .type = NLA_U32 },
	[HDPROTECT_A_STATE]		= { .type = NLA_U32 },
	[HDPROTECT_A_ENABLED]		= { .type = NLA_U32 },
	[HDPROTECT_A_TIMEOUT_MS]	= { .type = NLA_U32 },
	[HDPROTECT_A_METHOD]		= { .type = NLA_U32 },
	[HDPROTECT_A_METHODS]		= { .type = NLA_U32 },
	[HDPROTECT_A_REMAINING_MS]	= { .type = NLA_U32 },
	[HDPROTECT_A_LAST_METHOD]	= { .type = NLA_U32 },
	[HDPROTECT_A_RESULT]		= { .type = NLA_U32 },
	[HDPROTECT_A_PARKS]		= { .type = NLA_U64 },
	[HDPROTECT_A_FAILURES]	= { .type = NLA_U64 },
	[HDPROTECT_A_LAST_PARK_NS]	= { .type = NLA_U64 },
	[HDPROTECT_A_REQUEST_NS]	= { .type = NLA_U64 },
	[HDPROTECT_A_COMPLETE_NS]	= { .type = NLA_U64 },
	[HDPROTECT_A_DEADLINE_NS]	= { .type = NLA_U64 },
	[HDPROTECT_A_PARK_MS]		= { .type = NLA_U32 },
	[HDPROTECT_A_REASON]		= { .type = NLA_U32 },
	[HDPROTECT_A_EVENT]		= { .type = NLA_U32 },
	[HDPROTECT_A_SEQ]		= { .type = NLA_U64 },
	[HDPROTECT_A_RENEWED]		= { .type = NLA_FLAG },
	[HDPROTECT_A_OUTCOME]		= { .type = NLA_NESTED },
	[HDPROTECT_A_COOKIE]		= { .type = NLA_U64 },
	[HDPROTECT_A_EVENT_NS]		= { .type = NLA_U64 },
	[HDPROTECT_A_MAX_HOLD_MS]	= { .type = NLA_U32 },
	[HDPROTECT_A_HOLDS]		= { .type = NLA_U32 },
	[HDPROTECT_A_COOLDOWN_MS]	= { .type = NLA_U32 },
	[HDPROTECT_A_HOLDER]		= { .type = NLA_U32 },
	[HDPROTECT_A_HOLDER_PORTID]	= { .type = NLA_U32 },
};

static unsigned int get_u32(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u32(tb[type]) : 0;
}

static uint64_t get_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

/* The disk's name, NUL-terminated and short enough; -EBADMSG if not. */
static int get_name(struct nlattr **tb, char *name)
{
	struct nlattr *a = tb[HDPROTECT_A_DISK];

	if (!a || nla_len(a) < 2 || nla_len(a) > HDP_NAME_MAX + 1)
		return -EBADMSG;
	memcpy(name, nla_data(a), nla_len(a));
	return 0;
}

/* The disk's attributes, as GET replies and events carry them. */
static int decode_disk_attrs(struct nlattr **tb, struct hdp_disk *d)
{
	memset(d, 0, sizeof(*d));
	if (get_name(tb, d->name))
		return -EBADMSG;
	/* The kernel encodes dev_t as stat(2) does for 32 bits. */
	d->devt = makedev(get_u32(tb, HDPROTECT_A_MAJOR),
			  get_u32(tb, HDPROTECT_A_MINOR));
	d->state = (enum hdp_disk_state)get_u32(tb, HDPROTECT_A_STATE);
	d->enabled = get_u32(tb, HDPROTECT_A_ENABLED);
	d->timeout_ms = get_u32(tb, HDPROTECT_A_TIMEOUT_MS);
	d->method = (enum hdp_park_method)get_u32(tb, HDPROTECT_A_METHOD);
	d->methods = get_u32(tb, HDPROTECT_A_METHODS);
	d->remaining_ms = get_u32(tb, HDPROTECT_A_REMAINING_MS);
	d->last_method = (enum hdp_park_method)get_u32(tb, HDPROTECT_A_LAST_METHOD);
	d->last_result = (int)get_u32(tb, HDPROTECT_A_RESULT);
	d->parks = get_u64(tb, HDPROTECT_A_PARKS);
	d->failures = get_u64(tb, HDPROTECT_A_FAILURES);
	d->last_park_ns = get_u64(tb, HDPROTECT_A_LAST_PARK_NS);
	d->request_ns = get_u64(tb, HDPROTECT_A_REQUEST_NS);
	d->complete_ns = get_u64(tb, HDPROTECT_A_COMPLETE_NS);
	d->deadline_ns = get_u64(tb, HDPROTECT_A_DEADLINE_NS);
	d->cookie = get_u64(tb, HDPROTECT_A_COOKIE);
	d->max_hold_ms = get_u32(tb, HDPROTECT_A_MAX_HOLD_MS);
	d->holds = get_u32(tb, HDPROTECT_A_HOLDS);
	d->cooldown_ms = get_u32(tb, HDPROTECT_A_COOLDOWN_MS);
	return 0;
}

/*
 * The kernel's reason as the library's cause: the same value. A reason
 * this library does not know (a newer kernel's) is handed over as it
 * came, a value past every cause named in hdp.h.
 */
static enum hdp_cause cause_of(unsigned int reason)
{
	return (enum hdp_cause)(reason > INT_MAX ? INT_MAX : reason);
}

/*
 * The holder an event names; HDP_HOLDER_NONE if it names none. A holder
 * this library does not know (a newer kernel's) is handed over one above
 * its value, as the others are, so that it is no holder named in hdp.h.
 */
static enum hdp_holder holder_of(struct nlattr **tb)
{
	unsigned int holder;

	if (!tb[HDPROTECT_A_HOLDER])
		return HDP_HOLDER_NONE;
	holder = nla_get_u32(tb[HDPROTECT_A_HOLDER]);
	switch (holder) {
	case HDPROTECT_HOLDER_CONFIGFS:
		return HDP_HOLDER_CONFIGFS;
	case HDPROTECT_HOLDER_UNLOAD_HEADS:
		return HDP_HOLDER_UNLOAD_HEADS;
	case HDPROTECT_HOLDER_NETLINK:
		return HDP_HOLDER_NETLINK;
	}
	return (enum hdp_holder)(holder < INT_MAX ? holder + 1 : holder);
}

static int parse(const struct nlmsghdr *nlh, struct nlattr **tb)
{
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EBADMSG;
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, HDPROTECT_A_MAX,
			  (struct nla_policy *)hdp_policy) < 0)
		return -EBADMSG;
	return 0;
}

int hdp_decode_disk(const struct nlmsghdr *nlh, struct hdp_disk *d)
{
	struct nlattr *tb[HDPROTECT_A_MAX + 1];

	if (parse(nlh, tb))
		return -EBADMSG;
	return decode_disk_attrs(tb, d);
}

int hdp_decode_event(const struct nlmsghdr *nlh, struct hdp_event_buf *eb)
{
	struct hdp_monitor_event *ev = &eb->ev;
	struct nlattr *tb[HDPROTECT_A_MAX + 1];
	unsigned int type;

	memset(eb, 0, sizeof(*eb));
	ev->disk = &eb->disk;
	if (parse(nlh, tb) || !tb[HDPROTECT_A_EVENT] || !tb[HDPROTECT_A_SEQ])
		return -EBADMSG;
	ev->seq = nla_get_u64(tb[HDPROTECT_A_SEQ]);
	type = nla_get_u32(tb[HDPROTECT_A_EVENT]);
	if (type < HDP_EV_PARKED || type > HDP_EV_CHANGED)
		return 1;
	if (decode_disk_attrs(tb, &eb->disk))
		return -EBADMSG;
	ev->type = (enum hdp_event_type)type;
	ev->cause = cause_of(get_u32(tb, HDPROTECT_A_REASON));
	ev->result = eb->disk.last_result;
	ev->time_ns = get_u64(tb, HDPROTECT_A_EVENT_NS);
	ev->holder = holder_of(tb);
	if (ev->holder == HDP_HOLDER_NETLINK)
		ev->holder_portid = get_u32(tb, HDPROTECT_A_HOLDER_PORTID);
	if (ev->type == HDP_EV_PARKED) {
		ev->park_ms = get_u32(tb, HDPROTECT_A_PARK_MS);
		ev->renewed = nla_get_flag(tb[HDPROTECT_A_RENEWED]);
	}
	return 0;
}

static int decode_outcome(struct nlattr *nest, struct hdp_outcome *o)
{
	struct nlattr *tb[HDPROTECT_A_MAX + 1];

	if (nla_parse_nested(tb, HDPROTECT_A_MAX, nest,
			     (struct nla_policy *)hdp_policy) < 0)
		return -EBADMSG;
	memset(o, 0, sizeof(*o));
	if (get_name(tb, o->name))
		return -EBADMSG;
	o->devt = makedev(get_u32(tb, HDPROTECT_A_MAJOR),
			  get_u32(tb, HDPROTECT_A_MINOR));
	o->result = (int)get_u32(tb, HDPROTECT_A_RESULT);
	o->method = (enum hdp_park_method)get_u32(tb, HDPROTECT_A_LAST_METHOD);
	o->park_ms = get_u32(tb, HDPROTECT_A_PARK_MS);
	o->deadline_ns = get_u64(tb, HDPROTECT_A_DEADLINE_NS);
	o->request_ns = get_u64(tb, HDPROTECT_A_REQUEST_NS);
	o->complete_ns = get_u64(tb, HDPROTECT_A_COMPLETE_NS);
	o->cookie = get_u64(tb, HDPROTECT_A_COOKIE);
	o->renewed = nla_get_flag(tb[HDPROTECT_A_RENEWED]);
	return 0;
}

int hdp_decode_outcomes(const struct nlmsghdr *nlh, struct hdp_outcome **out,
			size_t *n)
{
	struct nlattr *tb[HDPROTECT_A_MAX + 1], *a;
	struct hdp_outcome *o = NULL;
	size_t count = 0, i = 0;
	int rem, err;

	*out = NULL;
	*n = 0;
	if (parse(nlh, tb))
		return -EBADMSG;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem)
		count += nla_type(a) == HDPROTECT_A_OUTCOME;
	if (!count)
		return 0;
	o = calloc(count, sizeof(*o));
	if (!o)
		return -ENOMEM;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != HDPROTECT_A_OUTCOME)
			continue;
		err = decode_outcome(a, &o[i++]);
		if (err) {
			free(o);
			return err;
		}
	}
	*out = o;
	*n = count;
	return 0;
}

void *hdp_ptr_array(const void *v, size_t n, size_t size)
{
	size_t i, head;
	char *objs;
	void **p;

	if (n > (SIZE_MAX / 2 - sizeof(max_align_t)) / (sizeof(*p) + size))
		return NULL;
	/* The objects start where any type may: 8-byte pointers or 4-byte. */
	head = ((n + 1) * sizeof(*p) + _Alignof(max_align_t) - 1) /
	       _Alignof(max_align_t) * _Alignof(max_align_t);
	p = malloc(head + n * size);
	if (!p)
		return NULL;
	objs = (char *)p + head;
	if (n)
		memcpy(objs, v, n * size);
	for (i = 0; i < n; i++)
		p[i] = objs + i * size;
	p[n] = NULL;
	return p;
}

bool hdp_outcome_answer(struct hdp_outcome *o, size_t n,
			const struct hdp_disk *d)
{
	size_t i;

	if (d->last_result == -EINPROGRESS)
		return false;
	for (i = 0; i < n; i++) {
		if (o[i].result != -EINPROGRESS || o[i].cookie != d->cookie ||
		    strcmp(o[i].name, d->name))
			continue;
		o[i].result = d->last_result;
		o[i].method = d->last_method;
		o[i].complete_ns = d->complete_ns;
		return true;
	}
	return false;
}

bool hdp_event_answers(struct hdp_outcome *o, size_t n,
		       const struct hdp_monitor_event *ev)
{
	return ev->type == HDP_EV_PARKED && !ev->renewed &&
	       hdp_outcome_answer(o, n, ev->disk);
}

uint64_t hdp_seq_advance(uint64_t *next, bool *have, uint64_t seq,
			 uint64_t *first)
{
	uint64_t lost = 0;

	if (*have && seq > *next) {
		*first = *next;
		lost = seq - *next;
	}
	if (!*have || seq >= *next) {
		*next = seq + 1;
		*have = true;
	}
	return lost;
}

/*
 * The range a rejected attribute's policy allows (NLMSGERR_ATTR_POLICY),
 * as " (MIN to MAX)" into @buf; empty if the policy gives none.
 */
static void policy_range(struct nlattr *policy, char *buf, size_t len)
{
	struct nlattr *a;
	long long min = 0, max = 0;
	int rem, have = 0;

	nla_for_each_nested(a, policy, rem) {
		switch (nla_type(a)) {
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
			if (nla_len(a) == sizeof(uint64_t)) {
				min = (long long)nla_get_u64(a);
				have |= 1;
			}
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
			if (nla_len(a) == sizeof(uint64_t)) {
				max = (long long)nla_get_u64(a);
				have |= 2;
			}
			break;
		}
	}
	buf[0] = '\0';
	if (have == 3)
		snprintf(buf, len, " (%lld to %lld)", min, max);
}

void hdp_extack_message(const struct nlmsghdr *nlh, size_t off, char *buf,
			size_t len, uint32_t *attr_off)
{
	struct nlattr *a, *policy = NULL;
	char range[64];
	size_t used;
	int rem;

	buf[0] = '\0';
	*attr_off = 0;
	off = NLMSG_HDRLEN + NLMSG_ALIGN(off);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return;
	nla_for_each_attr(a, (struct nlattr *)((char *)nlh + off),
			  (int)(nlh->nlmsg_len - off), rem) {
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0 && len)
			snprintf(buf, len, "%.*s",
				 (int)strnlen(nla_data(a), nla_len(a)),
				 (const char *)nla_data(a));
		else if (nla_type(a) == NLMSGERR_ATTR_OFFS &&
			 nla_len(a) == sizeof(uint32_t))
			*attr_off = nla_get_u32(a);
		else if (nla_type(a) == NLMSGERR_ATTR_POLICY)
			policy = a;
	}
	/* The kernel's policy says what it allows: "out of range (1 to 30000)". */
	if (policy && buf[0]) {
		policy_range(policy, range, sizeof(range));
		used = strlen(buf);
		if (used < len)
			snprintf(buf + used, len - used, "%s", range);
	}
}

const char *hdp_request_attr(const struct nlmsghdr *req, uint32_t off)
{
	static const char *const names[HDPROTECT_A_MAX + 1] = {
		[HDPROTECT_A_ENABLED] = "enabled",
		[HDPROTECT_A_TIMEOUT_MS] = "timeout_ms",
		[HDPROTECT_A_METHOD] = "method",
		[HDPROTECT_A_MAX_HOLD_MS] = "max_hold_ms",
	};
	const struct nlattr *a;

	if (off < NLMSG_HDRLEN + GENL_HDRLEN || off % NLA_ALIGNTO ||
	    (size_t)off + NLA_HDRLEN > req->nlmsg_len)
		return NULL;
	a = (const struct nlattr *)((const char *)req + off);
	return nla_type(a) <= HDPROTECT_A_MAX ? names[nla_type(a)] : NULL;
}

int hdp_request_disk(const struct nlmsghdr *req, uint32_t off, char *name)
{
	const struct nlattr *a;
	int len;

	if (off < NLMSG_HDRLEN + GENL_HDRLEN || off % NLA_ALIGNTO ||
	    (size_t)off + NLA_HDRLEN > req->nlmsg_len)
		return -ENOENT;
	a = (const struct nlattr *)((const char *)req + off);
	len = nla_len(a);
	if (nla_type(a) != HDPROTECT_A_DISK || (size_t)off + a->nla_len > req->nlmsg_len ||
	    len < 2 || len > HDP_NAME_MAX + 1 ||
	    strnlen(nla_data(a), len) != (size_t)len - 1)
		return -ENOENT;
	memcpy(name, nla_data(a), len);
	return 0;
}

static const char *const state_names[] = { "idle", "parked", "gone" };
static const char *const method_names[] = { "auto", "unload", "standby" };
static const char *const event_names[] = {
	[HDP_EV_PARKED] = "parked", [HDP_EV_UNPARKED] = "unparked",
	[HDP_EV_ADDED] = "added", [HDP_EV_REMOVED] = "removed",
	[HDP_EV_CHANGED] = "changed",
};
static const char *const cause_names[] = {
	[HDP_CAUSE_REQUEST] = "request", [HDP_CAUSE_TIMEOUT] = "timeout",
	[HDP_CAUSE_UNLOAD_HEADS] = "unload_heads",
	[HDP_CAUSE_DISABLE] = "disable", [HDP_CAUSE_REMOVAL] = "removal",
	[HDP_CAUSE_ERROR] = "error", [HDP_CAUSE_CAP] = "cap",
};
static const char *const holder_names[] = {
	[HDP_HOLDER_NONE] = "none", [HDP_HOLDER_CONFIGFS] = "configfs",
	[HDP_HOLDER_UNLOAD_HEADS] = "unload_heads",
	[HDP_HOLDER_NETLINK] = "netlink",
};

#define NAME_OF(table, v) \
	((unsigned int)(v) < ARRAY_SIZE(table) && (table)[v] ? (table)[v] : "?")

HDP_EXPORT const char *hdp_state_name(enum hdp_disk_state state)
{
	return NAME_OF(state_names, state);
}

HDP_EXPORT const char *hdp_method_name(enum hdp_park_method method)
{
	return NAME_OF(method_names, method);
}

HDP_EXPORT const char *hdp_event_name(enum hdp_event_type type)
{
	if (type == HDP_EV_LOSS)
		return "loss";
	if (type == HDP_EV_KERNEL_GONE)
		return "kernel-gone";
	if (type == HDP_EV_KERNEL_BACK)
		return "kernel-back";
	return NAME_OF(event_names, type);
}

HDP_EXPORT const char *hdp_cause_name(enum hdp_cause cause)
{
	return NAME_OF(cause_names, cause);
}

HDP_EXPORT const char *hdp_holder_name(enum hdp_holder holder)
{
	return NAME_OF(holder_names, holder);
}

HDP_EXPORT int hdp_method_from_name(const char *name,
				    enum hdp_park_method *method)
{
	unsigned int i;

	for (i = 0; name && i < ARRAY_SIZE(method_names); i++) {
		if (!strcmp(name, method_names[i])) {
			*method = (enum hdp_park_method)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct {
	int err;
	const char *text;
} messages[] = {
	{ EPERM, "not permitted: this needs root (CAP_SYS_ADMIN), and a park needs the disk's protection enabled first" },
	{ EACCES, "permission denied: this needs root" },
	{ ENOENT, "the disk is not under protection: add it first" },
	{ EEXIST, "the disk is already under protection" },
	{ ENODEV, "no such disk, or it is gone; for a park of every disk: no disk has protection enabled" },
	{ EOPNOTSUPP, "not supported: the disk's driver cannot park it, or not with this method (the method auto picks one it can)" },
	{ EINVAL, "invalid argument: a disk's name is as in /sys/block (a whole disk, not a partition), and the kernel's message says which value it refused" },
	{ ERANGE, "a value is out of range: the kernel's message says which, and what it allows" },
	{ EPROTONOSUPPORT, "the kernel has no hdprotect netlink family: its module is not loaded (modprobe hdprotect)" },
	{ ENOSYS, "hdprotect is not in configfs: load the module (modprobe hdprotect) and mount configfs (mount -t configfs none /sys/kernel/config)" },
	{ EAGAIN, "the list of disks kept changing while it was read: try again" },
	{ ENOBUFS, "events were lost: list the disks again" },
	{ ENOMEM, "out of memory" },
	{ EBADMSG, "the kernel sent a message this library cannot read: update libhdp" },
	{ EBADF, "the monitor is not open" },
	{ ECOMM, "cannot talk to the kernel: the netlink socket failed; try again" },
	{ EIO, "the device did not confirm: check the disk and the kernel log (dmesg)" },
	{ EINPROGRESS, "the device has not answered the park yet; its I/O is held" },
	{ ENAMETOOLONG, "the disk's name is too long (31 characters at most)" },
	{ EBUSY, "busy: the disk was held parked for its longest continuous hold (its max hold), and parks of it are refused for a few seconds while its held I/O runs: try again then" },
};

HDP_EXPORT const char *hdp_strerror(int err)
{
	const char *text;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(messages); i++)
		if (messages[i].err == -err)
			return messages[i].text;
#ifdef __GLIBC__
	text = err < 0 ? strerrordesc_np(-err) : NULL;
#else
	/* POSIX: a known errno's text is a constant string. */
	text = err < 0 ? strerror(-err) : NULL;
#endif
	return text ? text : "unknown error";
}
