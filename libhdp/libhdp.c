// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libhdp: the context, requests to the kernel's "hdprotect" generic
 * netlink family (libnl-genl-3), configfs for adding and removing disks,
 * and the monitor.
 *
 * A context holds two sockets, made when first needed: one for requests
 * (blocking; the kernel answers each at once, a park too), one for the
 * monitor. A park opens a third for the time of the call, which hears
 * its devices' answers. Both listeners are non-blocking and read
 * directly, so that an overrun's ENOBUFS is seen as such. Nothing is
 * global; nothing is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <linux/hdprotect.h>

#include "hdp-internal.h"

#define HDP_EXPORT	__attribute__((visibility("default")))
/* Room for one event, or a few: each is a few hundred bytes. */
#define HDP_MONITOR_BUF	16384
/* The monitor's receive buffer by default: about 1500 events. */
#define HDP_MONITOR_RCVBUF	(1 << 20)
/* What an overrun discards at most if the socket's size is unknown. */
#define HDP_MONITOR_DRAIN	(1 << 20)
/* How often a list disturbed by an add or remove is read again. */
#define HDP_LIST_TRIES	5
/* How long a park waits for its devices' answers, by default. */
#define HDP_PARK_WAIT_MS	10000
/* How often a park without events reads the state of a waiting disk. */
#define HDP_STATUS_POLL_MS	20
/* The most events one dispatch hands over (loss and kernel events too). */
#define HDP_DISPATCH_MAX	64
/* Generic netlink's own family, and its group that tells of families. */
#define HDP_NLCTRL		"nlctrl"
#define HDP_NLCTRL_NOTIFY	"notify"

struct hdp_ctx {
	struct nl_sock *sk;		/* requests */
	int family;			/* the family's id, once resolved */
	int group;			/* the events group's id, once resolved */
	struct nl_sock *mon;		/* events */
	int mon_family;			/* the family it hears; 0: gone */
	bool mon_gone_pending;		/* HDP_EV_KERNEL_GONE to hand over */
	unsigned char *mon_buf;
	size_t mon_off, mon_len;	/* messages of mon_buf not handed over */
	uint64_t next_seq;		/* the event number expected next */
	bool have_seq;
	bool mon_any_sender;		/* unit tests: not only the kernel */
	int mon_rcvbuf;			/* 0: HDP_MONITOR_RCVBUF */
	bool dispatching;		/* in hdp_monitor_dispatch() */
	bool close_pending;		/* its callback closed the monitor */
	bool free_pending;		/* its callback freed the context */
	unsigned int park_wait_ms;	/* see hdp_set_park_wait() */
	char configfs[256];		/* "": find it */
	char message[256];		/* the last failure's extended ACK */
	uint32_t err_off;		/* its attribute in the request, or 0 */
};

/* A request in flight and what its replies are for. */
struct hdp_req {
	struct hdp_ctx *ctx;
	int (*reply)(const struct nlmsghdr *nlh, void *arg);
	void *arg;
	unsigned int seq;
	int done;
	int error;
	int intr;		/* a dump part carried NLM_F_DUMP_INTR */
	int single;		/* no ACK asked: the one reply ends it */
	int type;		/* the replies' type: the request's family */
};

HDP_EXPORT int hdp_new(struct hdp_ctx **ctx)
{
	*ctx = calloc(1, sizeof(**ctx));
	if (!*ctx)
		return -ENOMEM;
	(*ctx)->park_wait_ms = HDP_PARK_WAIT_MS;
	return 0;
}

HDP_EXPORT void hdp_free(struct hdp_ctx *ctx)
{
	if (!ctx)
		return;
	/* From a monitor's callback: once the dispatch is done with it. */
	if (ctx->dispatching) {
		ctx->free_pending = true;
		return;
	}
	hdp_monitor_close(ctx);
	nl_socket_free(ctx->sk);
	free(ctx);
}

HDP_EXPORT const char *hdp_kernel_message(const struct hdp_ctx *ctx)
{
	return ctx->message[0] ? ctx->message : NULL;
}

/* libnl's error as a negative errno. */
static int nl_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_OBJ_NOTFOUND:
		return -EPROTONOSUPPORT;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_MSG_OVERFLOW:
	case NLE_INVAL:
		return -EBADMSG;
	default:
		/* The socket failed: not the device's -EIO. */
		return -ECOMM;
	}
}

/* A socket with extended ACKs, connected to generic netlink. */
static int open_socket(struct nl_sock **out)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, err;

	if (!sk)
		return -ENOMEM;
	err = genl_connect(sk);
	if (err < 0) {
		nl_socket_free(sk);
		return nl_errno(err);
	}
	/* Without extended ACKs errors still come, only without text. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	*out = sk;
	return 0;
}

static int refamily(struct hdp_ctx *ctx);

/* A new call: the last one's kernel message is no longer true. */
static void forget_message(struct hdp_ctx *ctx)
{
	ctx->message[0] = '\0';
	ctx->err_off = 0;
}

/*
 * The request socket, made once: the context's parks are held by its
 * port id, so that hdp_unpark() ends them and no one else's.
 */
static int request_socket(struct hdp_ctx *ctx)
{
	int err;

	if (ctx->sk)
		return 0;
	err = open_socket(&ctx->sk);
	if (err)
		return err;
	/* Each request says whether it wants an ACK (new_request()). */
	nl_socket_disable_auto_ack(ctx->sk);
	return 0;
}

/*
 * The request socket, and the family's id; -EPROTONOSUPPORT if there is
 * no family (the socket stays, for the next try). Every public call
 * forgets the last kernel message first (forget_message()).
 */
static int connect_ctx(struct hdp_ctx *ctx)
{
	int err = request_socket(ctx);

	if (err)
		return err;
	if (ctx->family)
		return 0;
	err = refamily(ctx);
	return err < 0 ? err : 0;
}

int hdp_requests_raw(struct hdp_ctx *ctx, int family, uint32_t port)
{
	int err = request_socket(ctx);

	if (err)
		return err;
	nl_socket_set_peer_port(ctx->sk, port);
	ctx->family = family;
	ctx->group = 0;
	return 0;
}

static int events_group(struct nlattr *groups);

/* What a GETFAMILY reply says: the family's id and its events group. */
struct family_reply {
	int id, group;
};

/* nlctrl's attributes, in a GETFAMILY reply and a notification alike. */
static const struct nla_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID]		= { .type = NLA_U16 },
	[CTRL_ATTR_FAMILY_NAME]		= { .type = NLA_STRING },
	[CTRL_ATTR_MCAST_GROUPS]	= { .type = NLA_NESTED },
};

static int family_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct family_reply *fr = arg;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX,
			  (struct nla_policy *)ctrl_policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	fr->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	fr->group = tb[CTRL_ATTR_MCAST_GROUPS] ?
		    events_group(tb[CTRL_ATTR_MCAST_GROUPS]) : -1;
	return 0;
}

static int transact(struct hdp_ctx *ctx, struct nl_msg *msg,
		    int (*reply)(const struct nlmsghdr *, void *), void *arg,
		    int *intr);

/*
 * The family's id and its events group's, from one GETFAMILY on the
 * request socket (which loads the module if it can), so that both are
 * of the same registration. Return: 0, -EPROTONOSUPPORT if there is no
 * family (or no events group), or another negative errno.
 */
static int lookup_family(struct hdp_ctx *ctx, int *id, int *group)
{
	struct family_reply fr = { .id = -1, .group = -1 };
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
				 NLM_F_ACK, CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, HDPROTECT_GENL_NAME) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = transact(ctx, msg, family_reply, &fr, NULL);
	/* nlctrl's words are not the caller's request's */
	forget_message(ctx);
	if (err == -ENOENT || (!err && (fr.id <= 0 || fr.group <= 0)))
		return -EPROTONOSUPPORT;
	if (err)
		return err;
	*id = fr.id;
	*group = fr.group;
	return 0;
}

/*
 * Look the family up again on the request socket. Return: 1 if its id
 * changed (the module was loaded again), 0 if not, or a negative errno
 * (-EPROTONOSUPPORT: the family is not there).
 */
static int refamily(struct hdp_ctx *ctx)
{
	int id, group, err = lookup_family(ctx, &id, &group);

	if (err)
		return err;
	if (id == ctx->family && group == ctx->group)
		return 0;
	ctx->family = id;
	ctx->group = group;
	return 1;
}

/*
 * A socket that hears the events, non-blocking. The group's id is
 * resolved once, through the request socket (connect_ctx() first).
 */
static int open_listener(struct hdp_ctx *ctx, struct nl_sock **out)
{
	struct nl_sock *sk = NULL;
	int err;

	if (ctx->group <= 0)
		return -EPROTONOSUPPORT;
	err = open_socket(&sk);
	if (err)
		return err;
	err = nl_socket_add_membership(sk, ctx->group);
	if (!err)
		err = nl_socket_set_nonblocking(sk);
	if (err < 0) {
		nl_socket_free(sk);
		return nl_errno(err);
	}
	*out = sk;
	return 0;
}

static int seq_cb(struct nl_msg *msg, void *arg)
{
	struct hdp_req *req = arg;

	return nlmsg_hdr(msg)->nlmsg_seq == req->seq ? NL_OK : NL_SKIP;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct hdp_req *req = arg;
	int err;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		req->intr = 1;
	if (nlh->nlmsg_type != req->type)
		return NL_OK;
	if (req->reply && !req->error) {
		err = req->reply(nlh, req->arg);
		if (err)
			req->error = err;
	}
	if (req->single) {
		req->done = 1;
		return NL_STOP;
	}
	return NL_OK;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	struct hdp_req *req = arg;

	(void)msg;
	req->done = 1;
	return NL_STOP;
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct hdp_req *req = arg;
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		hdp_extack_message(nlh, sizeof(int), req->ctx->message,
				   sizeof(req->ctx->message), &req->ctx->err_off);
	}
	if (err && !req->error)
		req->error = err;
	req->done = 1;
	return NL_STOP;
}

static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct hdp_req *req = arg;
	size_t off = sizeof(*e);

	(void)nla;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len > NLMSG_HDRLEN)
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	hdp_extack_message(nlh, off, req->ctx->message,
			   sizeof(req->ctx->message), &req->ctx->err_off);
	req->error = e->error ? e->error : req->error;
	req->done = 1;
	return NL_STOP;
}

/*
 * The kernel refused a setting of the request @msg: its message starts
 * with the setting's name ("timeout_ms: integer out of range (1 to
 * 30000)"), which it does not say.
 */
static void name_refused_attr(struct hdp_ctx *ctx, struct nl_msg *msg)
{
	const char *name = hdp_request_attr(nlmsg_hdr(msg), ctx->err_off);
	char text[sizeof(ctx->message)];

	if (!ctx->message[0] || !name)
		return;
	snprintf(text, sizeof(text), "%s: %.230s", name, ctx->message);
	memcpy(ctx->message, text, sizeof(text));
}

/*
 * Send @msg (freed) and read its answer: each reply to @reply, then the
 * ACK, the error or the end of the dump. Return: 0 or a negative errno;
 * *@intr (if not NULL) tells whether a dump was interrupted.
 */
static int transact(struct hdp_ctx *ctx, struct nl_msg *msg,
		    int (*reply)(const struct nlmsghdr *, void *), void *arg,
		    int *intr)
{
	struct hdp_req req = { .ctx = ctx, .reply = reply, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	/* A request to hdprotect, not to nlctrl: the family may have moved. */
	bool ours = nlmsg_hdr(msg)->nlmsg_type == ctx->family, retried = false;
	int err;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, seq_cb, &req);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, err_cb, &req);
again:
	err = nl_send_auto(ctx->sk, msg);
	if (err < 0) {
		req.error = nl_errno(err);
		goto out;
	}
	req.seq = nlmsg_hdr(msg)->nlmsg_seq;
	req.type = nlmsg_hdr(msg)->nlmsg_type;
	req.single = !(nlmsg_hdr(msg)->nlmsg_flags & (NLM_F_ACK | NLM_F_DUMP));
	while (!req.done) {
		err = nl_recvmsgs(ctx->sk, cb);
		if (err < 0 && !req.done) {
			req.error = req.error ? req.error : nl_errno(err);
			break;
		}
	}
	/*
	 * The family went and came back (module reloaded) under a new id:
	 * the old one reaches nobody (-ENOENT), or another family
	 * (-EOPNOTSUPP). Once, with the id looked up again.
	 */
	if ((req.error == -ENOENT || req.error == -EOPNOTSUPP) && ours &&
	    !retried && !ctx->err_off && (err = refamily(ctx)) != 0) {
		/* Gone: say so, not what -ENOENT means from hdprotect. */
		if (err < 0) {
			req.error = err;
			goto out;
		}
		retried = true;
		nlmsg_hdr(msg)->nlmsg_type = (uint16_t)ctx->family;
		nlmsg_hdr(msg)->nlmsg_seq = NL_AUTO_SEQ;
		req.done = req.error = req.intr = 0;
		forget_message(ctx);
		goto again;
	}
	if (req.error)
		name_refused_attr(ctx, msg);
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	if (intr)
		*intr = req.intr;
	return req.error;
}

/*
 * A request of @cmd, naming @disk if not NULL, with room for @size bytes
 * (0: the default); NULL if out of memory. Every request but PARK asks
 * for an ACK; PARK's reply is its acknowledgment (the UAPI header says
 * why: an ACK would be allocated while the disks' I/O is held).
 */
static struct nl_msg *new_request(struct hdp_ctx *ctx, int cmd, int flags,
				  const char *disk, size_t size)
{
	struct nl_msg *msg = size ? nlmsg_alloc_size(size) : nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ctx->family, 0,
			 flags | (cmd == HDPROTECT_CMD_PARK ? 0 : NLM_F_ACK), cmd,
			 HDPROTECT_GENL_VERSION) ||
	    (disk && nla_put_string(msg, HDPROTECT_A_DISK, disk) < 0)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* A disk name the kernel could know: 1..31 bytes, no '/', not . or .. */
static int check_name(const char *disk)
{
	size_t len = disk ? strlen(disk) : 0;

	if (!len || strchr(disk, '/') || !strcmp(disk, ".") || !strcmp(disk, ".."))
		return -EINVAL;
	return len > HDP_NAME_MAX ? -ENAMETOOLONG : 0;
}

/* Connect, check the disk's name (unless @disk is NULL), make a request. */
static int prepare(struct hdp_ctx *ctx, int cmd, int flags, const char *disk,
		   struct nl_msg **msg)
{
	int err;

	forget_message(ctx);
	err = disk ? check_name(disk) : 0;

	err = err ? err : connect_ctx(ctx);
	if (err)
		return err;
	*msg = new_request(ctx, cmd, flags, disk, 0);
	return *msg ? 0 : -ENOMEM;
}

/* The first version of struct hdp_settings ends after its method. */
#define HDP_SETTINGS_SIZE_1	(offsetof(struct hdp_settings, method) + \
				 sizeof(enum hdp_park_method))
/* The second adds max_hold_ms. */
#define HDP_SETTINGS_SIZE_2	(offsetof(struct hdp_settings, max_hold_ms) + \
				 sizeof(unsigned int))
#define HDP_SET_ALL		(HDP_SET_ENABLED | HDP_SET_TIMEOUT | HDP_SET_METHOD | \
				 HDP_SET_MAX_HOLD)

/*
 * The caller's settings as this library knows them: members past the
 * caller's size are 0 (unset), members past the library's must be 0, and
 * a bit may name only a member within the caller's size.
 */
static int copy_settings(struct hdp_settings *c, const struct hdp_settings *s)
{
	const unsigned char *tail;
	size_t i;

	if (!s || s->size < HDP_SETTINGS_SIZE_1)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	memcpy(c, s, s->size < sizeof(*c) ? s->size : sizeof(*c));
	tail = (const unsigned char *)s;
	for (i = sizeof(*c); i < s->size; i++)
		if (tail[i])
			return -E2BIG;
	if (!c->set || (c->set & ~HDP_SET_ALL))
		return -EINVAL;
	if ((c->set & HDP_SET_MAX_HOLD) && s->size < HDP_SETTINGS_SIZE_2)
		return -EINVAL;
	return 0;
}

HDP_EXPORT int hdp_set(struct hdp_ctx *ctx, const char *disk,
		       const struct hdp_settings *settings)
{
	struct hdp_settings c;
	struct nl_msg *msg;
	int err;

	forget_message(ctx);
	if (!disk)
		return -EINVAL;
	err = copy_settings(&c, settings);
	if (err)
		return err;
	err = prepare(ctx, HDPROTECT_CMD_SET, 0, disk, &msg);
	if (err)
		return err;
	if (((c.set & HDP_SET_ENABLED) &&
	     nla_put_u32(msg, HDPROTECT_A_ENABLED, c.enabled) < 0) ||
	    ((c.set & HDP_SET_TIMEOUT) &&
	     nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, c.timeout_ms) < 0) ||
	    ((c.set & HDP_SET_METHOD) &&
	     nla_put_u32(msg, HDPROTECT_A_METHOD, (unsigned int)c.method) < 0) ||
	    ((c.set & HDP_SET_MAX_HOLD) &&
	     nla_put_u32(msg, HDPROTECT_A_MAX_HOLD_MS, c.max_hold_ms) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(ctx, msg, NULL, NULL, NULL);
}

/* SET of one setting. */
static int set_one(struct hdp_ctx *ctx, const char *disk,
		   struct hdp_settings s)
{
	s.size = sizeof(s);
	return hdp_set(ctx, disk, &s);
}

HDP_EXPORT int hdp_set_enabled(struct hdp_ctx *ctx, const char *disk,
			       bool enabled)
{
	return set_one(ctx, disk, (struct hdp_settings){
		.set = HDP_SET_ENABLED, .enabled = enabled });
}

/* The kernel checks the values, and its message says what it allows. */
HDP_EXPORT int hdp_set_timeout(struct hdp_ctx *ctx, const char *disk,
			       unsigned int ms)
{
	return set_one(ctx, disk, (struct hdp_settings){
		.set = HDP_SET_TIMEOUT, .timeout_ms = ms });
}

HDP_EXPORT int hdp_set_max_hold(struct hdp_ctx *ctx, const char *disk,
				unsigned int ms)
{
	return set_one(ctx, disk, (struct hdp_settings){
		.set = HDP_SET_MAX_HOLD, .max_hold_ms = ms });
}

HDP_EXPORT int hdp_set_method(struct hdp_ctx *ctx, const char *disk,
			      enum hdp_park_method method)
{
	return set_one(ctx, disk, (struct hdp_settings){
		.set = HDP_SET_METHOD, .method = method });
}

/* The outcomes of a PARK reply, handed to the caller. */
struct park_reply {
	struct hdp_outcome *outcomes;
	size_t n;
};

static int park_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct park_reply *pr = arg;

	free(pr->outcomes);
	return hdp_decode_outcomes(nlh, &pr->outcomes, &pr->n);
}

/* A park's outcomes that wait for their devices' answers, until a time. */
struct park_wait {
	struct hdp_outcome *o;
	size_t n;
	size_t pending;		/* outcomes whose result is -EINPROGRESS */
	uint64_t deadline_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Milliseconds until @deadline_ns, rounded up, for poll(); 0 once past. */
static int ms_until(uint64_t deadline_ns)
{
	uint64_t now = now_ns(), ms;

	if (now >= deadline_ns)
		return 0;
	ms = (deadline_ns - now + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* An HDPROTECT_CMD_EVENT message of the family. */
static bool is_event(int family, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *gnlh = nlmsg_data(nlh);

	return family && nlh->nlmsg_type == family &&
	       nlh->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) &&
	       gnlh->cmd == HDPROTECT_CMD_EVENT;
}

/* Apply the answers among the @len bytes of messages at @nlh. */
static void park_answers(struct hdp_ctx *ctx, struct park_wait *w,
			 struct nlmsghdr *nlh, int len)
{
	struct hdp_event_buf eb;

	for (; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
		if (is_event(ctx->family, nlh) && !hdp_decode_event(nlh, &eb) &&
		    hdp_event_answers(w->o, w->n, &eb.ev))
			w->pending--;
	}
}

/*
 * One datagram of @fd into @buf, without waiting; a datagram that another
 * process sent (not the kernel, port 0) is dropped unless @any_sender.
 * Return: its length, 0 for one dropped, or -1 with errno set.
 */
static ssize_t recv_kernel(int fd, void *buf, size_t size, bool any_sender)
{
	struct sockaddr_nl from;
	socklen_t len = sizeof(from);
	ssize_t n;

	memset(&from, 0, sizeof(from));
	n = recvfrom(fd, buf, size, MSG_DONTWAIT, (struct sockaddr *)&from, &len);
	if (n > 0 && from.nl_pid != 0 && !any_sender)
		return 0;
	return n;
}

/*
 * Read the events socket @sk until every outcome is answered or the time
 * is up. Return: 0; -ENOBUFS if events were lost (an answer among them,
 * maybe); another negative errno if reading failed.
 */
static int wait_events(struct hdp_ctx *ctx, struct nl_sock *sk,
		       struct park_wait *w)
{
	unsigned char buf[HDP_MONITOR_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct pollfd pfd = { .fd = nl_socket_get_fd(sk), .events = POLLIN };
	ssize_t len;
	int ret;

	while (w->pending) {
		len = recv_kernel(pfd.fd, buf, sizeof(buf), false);
		if (len > 0) {
			park_answers(ctx, w, (struct nlmsghdr *)buf, (int)len);
			continue;
		}
		if (!len)
			continue;
		if (len < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			return -errno;
		ret = poll(&pfd, 1, ms_until(w->deadline_ns));
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (!ret)
			break;
	}
	return 0;
}

static int get_status(struct hdp_ctx *ctx, const char *disk,
		      struct hdp_disk *out);

/*
 * Without events: read the state of each disk still waiting, every
 * HDP_STATUS_POLL_MS, until every outcome is answered or the time is up.
 */
static void wait_status(struct hdp_ctx *ctx, struct park_wait *w)
{
	struct hdp_disk d;
	size_t i;
	int ms;

	for (;;) {
		for (i = 0; i < w->n && w->pending; i++) {
			if (w->o[i].result == -EINPROGRESS &&
			    !get_status(ctx, w->o[i].name, &d) &&
			    hdp_outcome_answer(w->o, w->n, &d))
				w->pending--;
		}
		ms = ms_until(w->deadline_ns);
		if (!w->pending || !ms)
			return;
		poll(NULL, 0, ms < HDP_STATUS_POLL_MS ? ms : HDP_STATUS_POLL_MS);
	}
}

/*
 * Wait for the answers to the outcomes of @pr still in progress: through
 * @events if it is open and nothing is lost, else by reading the disks'
 * states.
 */
static void park_wait(struct hdp_ctx *ctx, struct nl_sock *events,
		      const struct park_reply *pr)
{
	struct park_wait w = {
		.o = pr->outcomes, .n = pr->n,
		.deadline_ns = now_ns() + (uint64_t)ctx->park_wait_ms * 1000000,
	};
	size_t i;

	for (i = 0; i < w.n; i++)
		w.pending += w.o[i].result == -EINPROGRESS;
	if (w.pending && (!events || wait_events(ctx, events, &w)))
		wait_status(ctx, &w);
}

/* A PARK naming @disks, with length @ms if not 0; NULL if out of memory. */
static struct nl_msg *park_request(struct hdp_ctx *ctx,
				   const char *const *disks, size_t ndisks,
				   unsigned int ms)
{
	size_t i, size = NLMSG_HDRLEN + GENL_HDRLEN +
			 nla_total_size(sizeof(uint32_t)) +
			 ndisks * nla_total_size(HDP_NAME_MAX + 1);
	struct nl_msg *msg = new_request(ctx, HDPROTECT_CMD_PARK, 0, NULL, size);

	if (!msg)
		return NULL;
	for (i = 0; i < ndisks; i++) {
		if (nla_put_string(msg, HDPROTECT_A_DISK, disks[i]) < 0)
			goto fail;
	}
	if (ms && nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, ms) < 0)
		goto fail;
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

/*
 * The kernel refused the request @msg because of the disk at err_off:
 * its message starts with the disk's name, which it does not say.
 */
static void name_refused_disk(struct hdp_ctx *ctx, struct nl_msg *msg)
{
	char disk[HDP_NAME_MAX + 1], text[sizeof(ctx->message)];

	if (!ctx->message[0] ||
	    hdp_request_disk(nlmsg_hdr(msg), ctx->err_off, disk))
		return;
	/* the kernel's messages are short: 220 bytes leave room for the name */
	snprintf(text, sizeof(text), "%s: %.220s", disk, ctx->message);
	memcpy(ctx->message, text, sizeof(text));
}

HDP_EXPORT int hdp_park_disks(struct hdp_ctx *ctx, const char *const *disks,
			      size_t ndisks, unsigned int ms,
			      struct hdp_outcome ***outcomes, size_t *n)
{
	struct nl_sock *events = NULL;
	struct park_reply pr = { 0 };
	struct nl_msg *msg;
	int err, family;
	size_t i;

	forget_message(ctx);
	if (outcomes)
		*outcomes = NULL;
	if (n)
		*n = 0;
	if (!disks)
		ndisks = 0;
	for (i = 0; i < ndisks; i++) {
		err = check_name(disks[i]);
		if (err)
			return err;
	}
	err = connect_ctx(ctx);
	if (err)
		return err;
	msg = park_request(ctx, disks, ndisks, ms);
	if (!msg)
		return -ENOMEM;
	/* Listening from before the request, no answer can be missed. */
	if (ctx->park_wait_ms && open_listener(ctx, &events))
		events = NULL;
	family = ctx->family;
	nlmsg_get(msg);
	err = transact(ctx, msg, park_reply, &pr, NULL);
	/* Sent again to a family that came back: its answers go elsewhere. */
	if (ctx->family != family) {
		nl_socket_free(events);
		events = NULL;
	}
	if (err && ndisks > 1)
		name_refused_disk(ctx, msg);
	nlmsg_free(msg);
	if (!err && ctx->park_wait_ms)
		park_wait(ctx, events, &pr);
	nl_socket_free(events);
	if (!err && outcomes) {
		/* The disks parked all the same, without outcomes. */
		*outcomes = hdp_ptr_array(pr.outcomes, pr.n, sizeof(*pr.outcomes));
		if (!*outcomes)
			err = -ENOMEM;
		else if (n)
			*n = pr.n;
	}
	free(pr.outcomes);
	return err;
}

HDP_EXPORT int hdp_park(struct hdp_ctx *ctx, const char *disk, unsigned int ms,
			struct hdp_outcome ***outcomes, size_t *n)
{
	return hdp_park_disks(ctx, disk ? &disk : NULL, disk ? 1 : 0, ms,
			      outcomes, n);
}

HDP_EXPORT void hdp_outcomes_free(struct hdp_outcome **outcomes)
{
	free(outcomes);
}

HDP_EXPORT int hdp_set_park_wait(struct hdp_ctx *ctx, unsigned int ms)
{
	ctx->park_wait_ms = ms;
	return 0;
}

/*
 * UNPARK from the request socket: the kernel ends this socket's holds,
 * or with HDPROTECT_A_ALL (@all) every hold.
 */
static int unpark(struct hdp_ctx *ctx, const char *disk, bool all)
{
	struct nl_msg *msg;
	int err;

	err = prepare(ctx, HDPROTECT_CMD_UNPARK, 0, disk, &msg);
	if (err)
		return err;
	if (all && nla_put_flag(msg, HDPROTECT_A_ALL) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(ctx, msg, NULL, NULL, NULL);
}

HDP_EXPORT int hdp_unpark(struct hdp_ctx *ctx, const char *disk)
{
	return unpark(ctx, disk, false);
}

HDP_EXPORT int hdp_unpark_all(struct hdp_ctx *ctx, const char *disk)
{
	return unpark(ctx, disk, true);
}

static int status_reply(const struct nlmsghdr *nlh, void *arg)
{
	return hdp_decode_disk(nlh, arg);
}

/* The state of @disk into @out, which the caller owns. */
static int get_status(struct hdp_ctx *ctx, const char *disk,
		      struct hdp_disk *out)
{
	struct nl_msg *msg;
	int err;

	if (!disk)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	err = prepare(ctx, HDPROTECT_CMD_GET, 0, disk, &msg);
	if (err)
		return err;
	err = transact(ctx, msg, status_reply, out, NULL);
	if (!err && !out->name[0])
		err = -EBADMSG;
	return err;
}

HDP_EXPORT int hdp_status(struct hdp_ctx *ctx, const char *disk,
			  struct hdp_disk **out)
{
	struct hdp_disk *d = malloc(sizeof(*d));
	int err;

	forget_message(ctx);
	*out = NULL;
	if (!d)
		return -ENOMEM;
	err = get_status(ctx, disk, d);
	if (err) {
		free(d);
		return err;
	}
	*out = d;
	return 0;
}

HDP_EXPORT void hdp_disk_free(struct hdp_disk *disk)
{
	free(disk);
}

/* The disks of a dump, in a growing array. */
struct list_reply {
	struct hdp_disk *disks;
	size_t n, cap;
};

static int list_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct list_reply *lr = arg;
	struct hdp_disk *d;

	if (lr->n == lr->cap) {
		lr->cap = lr->cap ? 2 * lr->cap : 8;
		d = reallocarray(lr->disks, lr->cap, sizeof(*d));
		if (!d)
			return -ENOMEM;
		lr->disks = d;
	}
	return hdp_decode_disk(nlh, &lr->disks[lr->n++]);
}

HDP_EXPORT int hdp_list(struct hdp_ctx *ctx, struct hdp_disk ***disks, size_t *n)
{
	struct list_reply lr;
	struct nl_msg *msg;
	int err, intr = 0, tries;

	*disks = NULL;
	if (n)
		*n = 0;
	for (tries = 0; tries < HDP_LIST_TRIES; tries++) {
		memset(&lr, 0, sizeof(lr));
		err = prepare(ctx, HDPROTECT_CMD_GET, NLM_F_DUMP, NULL, &msg);
		if (err)
			return err;
		err = transact(ctx, msg, list_reply, &lr, &intr);
		if (err || !intr)
			break;
		free(lr.disks);
		lr.disks = NULL;
		err = -EAGAIN;
	}
	if (!err) {
		*disks = hdp_ptr_array(lr.disks, lr.n, sizeof(*lr.disks));
		if (!*disks)
			err = -ENOMEM;
		else if (n)
			*n = lr.n;
	}
	free(lr.disks);
	return err;
}

HDP_EXPORT void hdp_disks_free(struct hdp_disk **disks)
{
	free(disks);
}

/* The hdprotect directory in configfs, or -ENOSYS. */
static int configfs_dir(struct hdp_ctx *ctx, char *dir, size_t len)
{
	static const char *const mounts[] = { "/sys/kernel/config", "/config" };
	struct stat st;
	unsigned int i;

	if (ctx->configfs[0]) {
		snprintf(dir, len, "%s/hdprotect", ctx->configfs);
		return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -ENOSYS;
	}
	for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		snprintf(dir, len, "%s/hdprotect", mounts[i]);
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
	}
	return -ENOSYS;
}

HDP_EXPORT int hdp_set_configfs(struct hdp_ctx *ctx, const char *path)
{
	if (!path || strlen(path) + sizeof("/hdprotect/") + HDP_NAME_MAX >=
	    sizeof(ctx->configfs))
		return -EINVAL;
	strcpy(ctx->configfs, path);
	return 0;
}

/* mkdir or rmdir of the disk's item. */
static int item_op(struct hdp_ctx *ctx, const char *disk, bool add)
{
	char dir[PATH_MAX], path[PATH_MAX + HDP_NAME_MAX + 2];
	int err;

	forget_message(ctx);
	err = check_name(disk);
	err = err ? err : configfs_dir(ctx, dir, sizeof(dir));
	/*
	 * No hdprotect in configfs: the module may not be loaded yet, and
	 * resolving its family loads it (the module's genetlink alias).
	 */
	if (err == -ENOSYS && add && !connect_ctx(ctx))
		err = configfs_dir(ctx, dir, sizeof(dir));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", dir, disk);
	if (add ? mkdir(path, 0755) : rmdir(path))
		return -errno;
	return 0;
}

HDP_EXPORT int hdp_add(struct hdp_ctx *ctx, const char *disk)
{
	return item_op(ctx, disk, true);
}

HDP_EXPORT int hdp_remove(struct hdp_ctx *ctx, const char *disk)
{
	return item_op(ctx, disk, false);
}

/*
 * The monitor's receive buffer: SO_RCVBUFFORCE where the caller may
 * (CAP_NET_ADMIN), else SO_RCVBUF, which the kernel caps at rmem_max.
 */
static void monitor_rcvbuf(struct hdp_ctx *ctx)
{
	int fd = nl_socket_get_fd(ctx->mon);
	int size = ctx->mon_rcvbuf ? ctx->mon_rcvbuf : HDP_MONITOR_RCVBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

HDP_EXPORT int hdp_monitor_set_buffer(struct hdp_ctx *ctx, size_t bytes)
{
	if (bytes < HDP_MONITOR_BUF || bytes > (size_t)INT_MAX / 2)
		return -EINVAL;
	ctx->mon_rcvbuf = (int)bytes;
	if (ctx->mon)
		monitor_rcvbuf(ctx);
	return 0;
}

/* Make @sk, non-blocking, the monitor's socket, with a fresh buffer. */
static int monitor_attach(struct hdp_ctx *ctx, struct nl_sock *sk)
{
	ctx->mon_buf = malloc(HDP_MONITOR_BUF);
	if (!ctx->mon_buf) {
		nl_socket_free(sk);
		return -ENOMEM;
	}
	ctx->mon = sk;
	ctx->mon_off = 0;
	ctx->mon_len = 0;
	ctx->have_seq = false;
	monitor_rcvbuf(ctx);
	return nl_socket_get_fd(sk);
}

/*
 * Have the monitor hear the family @id: join its events group @group.
 * The numbering goes on, but what came meanwhile is unknown.
 */
static int monitor_hear(struct hdp_ctx *ctx, int id, int group)
{
	int err = nl_socket_add_membership(ctx->mon, group);

	if (err < 0)
		return nl_errno(err);
	ctx->mon_family = id;
	ctx->have_seq = false;
	return 0;
}

/*
 * Look the family up and have the monitor hear it: join its events
 * group if its id is new. Without the family the monitor hears none,
 * and HDP_EV_KERNEL_GONE waits (ctx->mon_gone_pending) if the monitor
 * heard one before, or if it is opening (!@known).
 * Return: 0 or a negative errno.
 */
static int monitor_family(struct hdp_ctx *ctx, bool known)
{
	int err = refamily(ctx);

	if (err == -EPROTONOSUPPORT) {
		ctx->mon_gone_pending = !known || ctx->mon_family;
		ctx->mon_family = 0;
		return 0;
	}
	if (err < 0)
		return err;
	if (ctx->family == ctx->mon_family)
		return 0;
	return monitor_hear(ctx, ctx->family, ctx->group);
}

/* Join @name's group @grp on the monitor: 0 or a negative errno. */
static int monitor_join(struct hdp_ctx *ctx, const char *name, const char *grp)
{
	int group = genl_ctrl_resolve_grp(ctx->sk, name, grp), err;

	if (group < 0)
		return group == -NLE_OBJ_NOTFOUND ? -EPROTONOSUPPORT : nl_errno(group);
	err = nl_socket_add_membership(ctx->mon, group);
	return err < 0 ? nl_errno(err) : 0;
}

/*
 * The monitor hears nlctrl's notifications of families coming and going
 * first, then looks hdprotect up (which loads the module if it can): a
 * family registered meanwhile is announced to it. Without hdprotect it
 * opens all the same and hands over HDP_EV_KERNEL_GONE first.
 */
HDP_EXPORT int hdp_monitor_open(struct hdp_ctx *ctx)
{
	struct nl_sock *sk;
	int fd, err;

	forget_message(ctx);
	if (ctx->close_pending || ctx->free_pending)
		return -EBUSY;
	if (ctx->mon)
		return nl_socket_get_fd(ctx->mon);
	err = open_socket(&sk);
	if (!err && (err = nl_socket_set_nonblocking(sk)) < 0) {
		nl_socket_free(sk);
		err = nl_errno(err);
	}
	if (err)
		return err;
	fd = monitor_attach(ctx, sk);
	if (fd < 0)
		return fd;
	ctx->mon_family = 0;
	ctx->mon_gone_pending = false;
	/* The request socket looks the groups up; nlctrl is always there. */
	err = connect_ctx(ctx);
	if (err == -EPROTONOSUPPORT && ctx->sk)
		err = 0;
	/* nlctrl's word first: a family that comes after this is told. */
	if (!err)
		err = monitor_join(ctx, HDP_NLCTRL, HDP_NLCTRL_NOTIFY);
	/*
	 * Then the family afresh, its id and group from one reply: a monitor
	 * opened again after the module came back must not listen for the
	 * old id, and a reload between two lookups must not mix them.
	 */
	if (!err)
		err = monitor_family(ctx, false);
	if (err) {
		hdp_monitor_close(ctx);
		return err;
	}
	return fd;
}

int hdp_monitor_open_raw(struct hdp_ctx *ctx, int family, bool any_sender)
{
	struct nl_sock *sk;
	int err;

	if (ctx->mon)
		return -EBUSY;
	err = open_socket(&sk);
	if (err)
		return err;
	err = nl_socket_set_nonblocking(sk);
	if (err < 0) {
		nl_socket_free(sk);
		return nl_errno(err);
	}
	ctx->family = family;
	ctx->mon_family = family;
	ctx->mon_gone_pending = false;
	ctx->mon_any_sender = any_sender;
	return monitor_attach(ctx, sk);
}

HDP_EXPORT void hdp_monitor_close(struct hdp_ctx *ctx)
{
	/* From its callback: once the dispatch is done with the buffer. */
	if (ctx->dispatching) {
		ctx->close_pending = true;
		return;
	}
	nl_socket_free(ctx->mon);
	ctx->mon = NULL;
	ctx->mon_family = 0;
	ctx->mon_gone_pending = false;
	free(ctx->mon_buf);
	ctx->mon_buf = NULL;
}

/* Hand over an event about no disk: a loss, or hdprotect going or coming. */
static int no_disk_event(enum hdp_event_type type, uint64_t first,
			 uint64_t lost, hdp_event_fn fn, void *data)
{
	struct hdp_event_buf eb = {
		.ev = { .type = type, .seq = first, .lost = lost },
	};

	eb.ev.disk = &eb.disk;
	return fn(&eb.ev, data);
}

/* Hand over a loss: @lost events from @first (0, 0: an overrun). */
static int loss(uint64_t first, uint64_t lost, hdp_event_fn fn, void *data)
{
	return no_disk_event(HDP_EV_LOSS, first, lost, fn, data);
}

static const struct nla_policy ctrl_grp_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
	[CTRL_ATTR_MCAST_GRP_NAME]	= { .type = NLA_STRING },
	[CTRL_ATTR_MCAST_GRP_ID]	= { .type = NLA_U32 },
};

/* The id of the events group among a NEWFAMILY's groups, or -1. */
static int events_group(struct nlattr *groups)
{
	struct nlattr *grp, *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	int rem;

	nla_for_each_nested(grp, groups, rem) {
		if (nla_parse_nested(tb, CTRL_ATTR_MCAST_GRP_MAX, grp,
				     (struct nla_policy *)ctrl_grp_policy) < 0 ||
		    !tb[CTRL_ATTR_MCAST_GRP_NAME] || !tb[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		if (!nla_strcmp(tb[CTRL_ATTR_MCAST_GRP_NAME],
				HDPROTECT_GENL_MCGRP_EVENTS))
			return (int)nla_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return -1;
}

/*
 * nlctrl tells that hdprotect went (DELFAMILY: the module was unloaded)
 * or came (NEWFAMILY, maybe under another id): the monitor stops hearing
 * it, or joins its events group. Return: the event to hand over
 * (HDP_EV_KERNEL_GONE, HDP_EV_KERNEL_BACK), or 0 for none.
 */
static int monitor_ctrl(struct hdp_ctx *ctx, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int id, group;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0) ||
	    genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX,
			  (struct nla_policy *)ctrl_policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME] ||
	    nla_strcmp(tb[CTRL_ATTR_FAMILY_NAME], HDPROTECT_GENL_NAME))
		return 0;
	if (gnlh->cmd == CTRL_CMD_DELFAMILY) {
		if (!ctx->mon_family)
			return 0;
		ctx->mon_family = 0;
		return HDP_EV_KERNEL_GONE;
	}
	if (gnlh->cmd != CTRL_CMD_NEWFAMILY || !tb[CTRL_ATTR_FAMILY_ID] ||
	    !tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	group = events_group(tb[CTRL_ATTR_MCAST_GROUPS]);
	if (id == ctx->mon_family || group <= 0 || monitor_hear(ctx, id, group))
		return 0;
	return HDP_EV_KERNEL_BACK;
}

/* The callback closed the monitor or freed the context: stop at once. */
static bool leaving(const struct hdp_ctx *ctx)
{
	return ctx->close_pending || ctx->free_pending;
}

/*
 * One event message: a loss first if its number skips some, then the
 * event itself. Return: 0 to go on, or what @fn returned to stop;
 * *@consumed tells whether the message is done with (a stop at the loss
 * leaves the event for the next dispatch: its number no longer counts
 * as a gap then).
 */
static int monitor_message(struct hdp_ctx *ctx, const struct nlmsghdr *nlh,
			   hdp_event_fn fn, void *data, int *count,
			   bool *consumed)
{
	struct hdp_event_buf eb;
	uint64_t lost, first;
	int kind, err;

	*consumed = true;
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		kind = monitor_ctrl(ctx, nlh);
		if (!kind)
			return 0;
		(*count)++;
		return no_disk_event((enum hdp_event_type)kind, 0, 0, fn, data);
	}
	if (!is_event(ctx->mon_family, nlh))
		return 0;
	kind = hdp_decode_event(nlh, &eb);
	if (kind < 0)
		return 0;	/* malformed: nothing a caller could use */
	lost = hdp_seq_advance(&ctx->next_seq, &ctx->have_seq, eb.ev.seq, &first);
	if (lost) {
		(*count)++;
		err = loss(first, lost, fn, data);
		/* Stopped, closed, or the batch full: the event waits. */
		if (err || leaving(ctx) || *count >= HDP_DISPATCH_MAX) {
			*consumed = kind == 1;
			return err ? err : 1;
		}
	}
	if (kind == 1)		/* an event type of a newer kernel */
		return 0;
	(*count)++;
	return fn(&eb.ev, data);
}

/*
 * Hand over the messages left in the buffer from the last read. Return:
 * 0 once all are, 1 once the dispatch handed over HDP_DISPATCH_MAX
 * events (the rest stay), or what @fn returned to stop.
 */
static int monitor_buffered(struct hdp_ctx *ctx, hdp_event_fn fn, void *data,
			    int *count)
{
	struct nlmsghdr *nlh;
	bool consumed;
	int rem, err;

	while (ctx->mon_off < ctx->mon_len) {
		if (*count >= HDP_DISPATCH_MAX)
			return 1;
		nlh = (struct nlmsghdr *)(ctx->mon_buf + ctx->mon_off);
		rem = (int)(ctx->mon_len - ctx->mon_off);
		if (!nlmsg_ok(nlh, rem)) {
			ctx->mon_off = ctx->mon_len;
			break;
		}
		err = monitor_message(ctx, nlh, fn, data, count, &consumed);
		if (consumed)
			ctx->mon_off += NLMSG_ALIGN(nlh->nlmsg_len) < (size_t)rem ?
					NLMSG_ALIGN(nlh->nlmsg_len) : (size_t)rem;
		if (err)
			return err;
		if (leaving(ctx))
			return 1;
	}
	return 0;
}

/*
 * The socket overran: the kernel dropped events. Those still queued are
 * older than the dropped ones, so applied after the caller's new list
 * they would undo it: discard them, and any that come while discarding,
 * which the list will show too. The numbering starts afresh. Reading
 * stops after what the socket could hold at the overrun, so a steady
 * stream of new events cannot keep it going. It is best effort: if
 * reading fails, the loss is handed over all the same.
 */
static void monitor_overrun(struct hdp_ctx *ctx)
{
	int fd = nl_socket_get_fd(ctx->mon);
	socklen_t size_len = sizeof(int);
	int size = HDP_MONITOR_DRAIN;
	ssize_t len;
	size_t left;

	ctx->have_seq = false;
	ctx->mon_off = 0;
	ctx->mon_len = 0;
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &size_len);
	for (left = size > 0 ? (size_t)size : HDP_MONITOR_DRAIN; left;) {
		len = recv(fd, ctx->mon_buf, HDP_MONITOR_BUF, MSG_DONTWAIT);
		if (len > 0)
			left -= (size_t)len < left ? (size_t)len : left;
		else if (len == 0 || (errno != EINTR && errno != ENOBUFS))
			break;
	}
}

/*
 * After an overrun, nlctrl's word of the family going or coming may be
 * among what was discarded: look the family up again. Return: the event
 * to hand over (HDP_EV_KERNEL_GONE, HDP_EV_KERNEL_BACK), or 0.
 */
static int monitor_resync(struct hdp_ctx *ctx)
{
	int before = ctx->mon_family;

	if (monitor_family(ctx, true))
		return 0;
	if (ctx->mon_gone_pending) {
		ctx->mon_gone_pending = false;
		return HDP_EV_KERNEL_GONE;
	}
	if (ctx->mon_family && ctx->mon_family != before)
		return HDP_EV_KERNEL_BACK;
	return 0;
}

static int monitor_dispatch(struct hdp_ctx *ctx, hdp_event_fn fn, void *data)
{
	int count = 0, err, kind;
	ssize_t len;

	if (ctx->mon_gone_pending) {
		ctx->mon_gone_pending = false;
		count++;
		err = no_disk_event(HDP_EV_KERNEL_GONE, 0, 0, fn, data);
		if (err)
			return err < 0 ? err : count;
		if (leaving(ctx))
			return count;
	}
	for (;;) {
		err = monitor_buffered(ctx, fn, data, &count);
		if (err)
			return err < 0 ? err : count;
		if (count >= HDP_DISPATCH_MAX)
			return count;
		len = recv_kernel(nl_socket_get_fd(ctx->mon), ctx->mon_buf,
				  HDP_MONITOR_BUF, ctx->mon_any_sender);
		if (!len || (len < 0 && errno == EINTR))
			continue;
		if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return count;
		if (len < 0 && errno == ENOBUFS) {
			monitor_overrun(ctx);
			count++;
			err = loss(0, 0, fn, data);
			if (err)
				return err < 0 ? err : count;
			if (leaving(ctx))
				return count;
			kind = monitor_resync(ctx);
			if (kind) {
				count++;
				err = no_disk_event((enum hdp_event_type)kind, 0, 0, fn, data);
				if (err)
					return err < 0 ? err : count;
				if (leaving(ctx))
					return count;
			}
			continue;
		}
		if (len < 0)
			return -ECOMM;	/* the socket failed, not a device */
		ctx->mon_off = 0;
		ctx->mon_len = (size_t)len;
	}
}

HDP_EXPORT int hdp_monitor_pending(struct hdp_ctx *ctx)
{
	struct pollfd pfd = { .events = POLLIN };

	if (!ctx->mon || ctx->close_pending || ctx->free_pending)
		return -EBADF;
	if (ctx->mon_gone_pending || ctx->mon_off < ctx->mon_len)
		return 1;
	pfd.fd = nl_socket_get_fd(ctx->mon);
	return poll(&pfd, 1, 0) > 0 ? 1 : 0;
}

/*
 * The callback may close the monitor or free the context: both wait until
 * the dispatch is done with them, and the dispatch stops after that call.
 */
HDP_EXPORT int hdp_monitor_dispatch(struct hdp_ctx *ctx, hdp_event_fn fn,
				    void *data)
{
	int ret;

	if (!ctx->mon || ctx->close_pending || ctx->free_pending)
		return -EBADF;
	if (ctx->dispatching)
		return -EBUSY;
	ctx->dispatching = true;
	ret = monitor_dispatch(ctx, fn, data);
	ctx->dispatching = false;
	if (ctx->free_pending) {
		hdp_free(ctx);
	} else if (ctx->close_pending) {
		ctx->close_pending = false;
		hdp_monitor_close(ctx);
	}
	return ret;
}
