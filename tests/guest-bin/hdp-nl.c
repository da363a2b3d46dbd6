// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdp-nl: a test client of the "hdprotect" generic netlink family, through
 * libnl-genl-3, so that guest tests can drive it and check its answers.
 *
 *   hdp-nl [--as-uid=UID] COMMAND ...
 *   hdp-nl get [DISK]              GET (no DISK: no attribute, no dump)
 *   hdp-nl dump [DISK] [pause=FILE]   GET with NLM_F_DUMP; pause: read
 *                                  4 KiB at a time, and after the first
 *                                  reply make FILE.ready and wait for
 *                                  FILE.go; an NLM_F_DUMP_INTR reply
 *                                  prints "dump-interrupted" before "ok"
 *   hdp-nl set DISK [enabled=N] [timeout=MS] [method=auto|unload|standby|N]
 *                  [max_hold=MS]
 *   hdp-nl park [DISK...] [timeout=MS] [each] [wait] [unpark]
 *                                  one PARK naming every DISK (each: one
 *                                  PARK per DISK in turn); wait: join the
 *                                  events group first and, after the
 *                                  reply, print the PARKED event that
 *                                  answers each outcome still in progress
 *                                  ("answer " first; "answers-missing N"
 *                                  if some did not come within 10 s);
 *                                  unpark: then an UNPARK of every disk
 *                                  on the same socket, which ends only
 *                                  that socket's holds
 *   hdp-nl unpark [DISK] [all]     all: every hold (HDPROTECT_A_ALL), not
 *                                  only this socket's
 *   hdp-nl raw CMD [FLAGS] SPEC...  hand-made message; CMD is a number or
 *                                  get, set, park, unpark, event; TYPE a
 *                                  number or an attribute's printed name
 *                                  (disk, enabled, timeout_ms...); SPEC is
 *                                  s:TYPE:TEXT,
 *                                  n:TYPE:TEXT (no NUL), z:TYPE:TEXT (each |
 *                                  a NUL, and one at the end),
 *                                  u8|u16|u32|u64:TYPE:V,
 *                                  flag:TYPE, rep:TYPE:N:C, trunc:K, ver:V, dump
 *   hdp-nl listen [count=N] [timeout=S] [ready=FILE] [check-seq] [quiet] [latency]
 *                 [stall=FILE]     stall: read nothing until FILE exists,
 *                                  with the smallest buffer; success if
 *                                  the kernel dropped events (overrun)
 *   hdp-nl listeners N count=M [timeout=S] [ready=FILE] [latency]
 *   hdp-nl pipes N count=M [gap=US]   the floor of listeners' latency:
 *                                  N processes each blocked reading its
 *                                  own pipe, and every GAP us (default
 *                                  20000) one write of the time to each
 *                                  pipe in turn; prints what listeners
 *                                  latency prints, for that time
 *   hdp-nl fuzz seed=S count=N [disk=NAME]...   ends with "fuzz model
 *                                  disk=D k=v..." per disk (what the
 *                                  accepted SETs set last, which the
 *                                  kernel must show), then "fuzz done ..."
 *   hdp-nl batch                   the requests of standard input, one per
 *                                  line, each output after "> REQUEST"
 *
 * A request prints its replies, one line of key=value pairs per disk
 * ("outcome " first for a park's outcomes), then one final line: "ok", or
 * "ERRNAME: extack message" ("ERRNAME: -" without a message;
 * "ERRNAME-in-NLMSG_DONE: ..." for an error a dump gave in its end
 * message instead of an error message); a raw
 * request the kernel does not answer within 10 s ends with "noanswer".
 * Exits 0 on success, 1 on a failed request or test, 2 on a usage error.
 * --as-uid drops to UID (groups, gid and uid) before anything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hdprotect.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#define PROG		"hdp-nl"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RAW_WAIT_MS	10000
#define FUZZ_WAIT_MS	2000

static const char usage_text[] =
	"usage: hdp-nl [--as-uid=UID] COMMAND ...\n"
	"  get [DISK] | dump [DISK] [pause=FILE] | unpark [DISK] [all]\n"
	"  park [DISK...] [timeout=MS] [each] [wait] [unpark]\n"
	"  set DISK [enabled=N] [timeout=MS] [method=auto|unload|standby|N] [max_hold=MS]\n"
	"  raw CMD [FLAGS] SPEC...   CMD: N|get|set|park|unpark|event; TYPE: N or a key (disk...)\n"
	"                            SPEC: s:TYPE:TEXT n:TYPE:TEXT z:TYPE:A|B u8:TYPE:V u16:TYPE:V\n"
	"                            u32:TYPE:V u64:TYPE:V flag:TYPE rep:TYPE:N:C\n"
	"                            trunc:K ver:V dump\n"
	"  listen [count=N] [timeout=S] [ready=FILE] [check-seq] [quiet] [latency]\n"
	"         [stall=FILE]\n"
	"  listeners N count=M [timeout=S] [ready=FILE] [latency]\n"
	"  pipes N count=M [gap=US]\n"
	"  fuzz seed=S count=N [disk=NAME]...\n"
	"  batch                     requests from standard input, one per line\n";

/* An open generic netlink socket and the family's ids. */
struct hdp {
	struct nl_sock *sk;
	int family;
	int group;
};

/* What came back for one request. */
struct rx {
	int family;
	unsigned int seq;
	int print;		/* print the replies */
	int done;		/* ACK, error or NLMSG_DONE seen */
	int noanswer;		/* nothing within the wait */
	int error;		/* 0 or a negative errno */
	int error_in_done;	/* the error came in NLMSG_DONE, not an ACK */
	int bad;		/* a reply did not parse */
	int intr;		/* a dump reply had NLM_F_DUMP_INTR */
	const char *pause;	/* wait on this file after the first reply */
	char ext[256];		/* extended ACK message, "" if none */
	uint64_t cookie;	/* a PARK reply's cookie */
	int pending;		/* its outcomes still in progress */
};

/* A growing array of latency samples, in nanoseconds. */
struct samples {
	int64_t *v;
	size_t n, cap;
};

/* One listener's settings and results. */
struct listen {
	long count;		/* 0: unlimited */
	int timeout_s;
	const char *ready;	/* file to create once subscribed */
	int ready_fd;		/* or pipe to write a byte to, -1 if none */
	int check_seq, quiet, latency;
	const char *prefix;	/* "" or "child I " */
	const char *lat_file;	/* write the samples there (children) */
	const char *stall;	/* read nothing until this file exists */
	int family;
	unsigned long events, gaps, overruns;
	uint64_t first_seq, last_seq;
	int have_seq, bad;
	struct samples lat;
	struct samples lat_seq;	/* the event number of each sample */
	int64_t cpu0_ns;	/* own CPU time when the first event came */
};

/* This process's CPU time (user and system) in nanoseconds. */
static int64_t own_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define NAMES(a)	a, ARRAY_SIZE(a)
static const char *const state_names[] = { "idle", "parked", "gone" };
static const char *const method_names[] = { "auto", "unload", "standby" };
static const char *const event_names[] = {
	NULL, "parked", "unparked", "added", "removed", "changed",
};
static const char *const reason_names[] = {
	"request", "timeout", "unload_heads", "disable", "removal", "error", "cap",
};
static const char *const holder_names[] = {
	"configfs", "unload_heads", "netlink",
};

/* How an attribute is parsed, printed and fuzzed. */
enum kind { K_BYTES, K_ENUM, K_U32, K_S32, K_U64, K_STR, K_FLAG, K_MASK, K_NEST };

/* The family's attributes, in the order they are printed. */
static const struct field {
	int attr;
	const char *key;
	enum kind kind;
	const char *const *names;	/* names of enum values, or NULL */
	size_t nnames;
} fields[] = {
	{ HDPROTECT_A_EVENT, "event", K_ENUM, NAMES(event_names) },
	{ HDPROTECT_A_SEQ, "seq", K_U64, NULL, 0 },
	{ HDPROTECT_A_DISK, "disk", K_STR, NULL, 0 },
	{ HDPROTECT_A_MAJOR, "major", K_U32, NULL, 0 },
	{ HDPROTECT_A_MINOR, "minor", K_U32, NULL, 0 },
	{ HDPROTECT_A_STATE, "state", K_ENUM, NAMES(state_names) },
	{ HDPROTECT_A_ENABLED, "enabled", K_U32, NULL, 0 },
	{ HDPROTECT_A_TIMEOUT_MS, "timeout_ms", K_U32, NULL, 0 },
	{ HDPROTECT_A_METHOD, "method", K_ENUM, NAMES(method_names) },
	{ HDPROTECT_A_METHODS, "methods", K_MASK, NAMES(method_names) },
	{ HDPROTECT_A_REMAINING_MS, "remaining_ms", K_U32, NULL, 0 },
	{ HDPROTECT_A_LAST_METHOD, "last_method", K_ENUM, NAMES(method_names) },
	{ HDPROTECT_A_RESULT, "result", K_S32, NULL, 0 },
	{ HDPROTECT_A_REASON, "reason", K_ENUM, NAMES(reason_names) },
	{ HDPROTECT_A_PARK_MS, "park_ms", K_U32, NULL, 0 },
	{ HDPROTECT_A_RENEWED, "renewed", K_FLAG, NULL, 0 },
	{ HDPROTECT_A_PARKS, "parks", K_U64, NULL, 0 },
	{ HDPROTECT_A_FAILURES, "failures", K_U64, NULL, 0 },
	{ HDPROTECT_A_LAST_PARK_NS, "last_park_ns", K_U64, NULL, 0 },
	{ HDPROTECT_A_REQUEST_NS, "request_ns", K_U64, NULL, 0 },
	{ HDPROTECT_A_COMPLETE_NS, "complete_ns", K_U64, NULL, 0 },
	{ HDPROTECT_A_DEADLINE_NS, "deadline_ns", K_U64, NULL, 0 },
	{ HDPROTECT_A_OUTCOME, "outcome", K_NEST, NULL, 0 },
	{ HDPROTECT_A_COOKIE, "cookie", K_U64, NULL, 0 },
	{ HDPROTECT_A_EVENT_NS, "event_ns", K_U64, NULL, 0 },
	{ HDPROTECT_A_MAX_HOLD_MS, "max_hold_ms", K_U32, NULL, 0 },
	{ HDPROTECT_A_HOLDS, "holds", K_U32, NULL, 0 },
	{ HDPROTECT_A_COOLDOWN_MS, "cooldown_ms", K_U32, NULL, 0 },
	{ HDPROTECT_A_HOLDER, "holder", K_ENUM, NAMES(holder_names) },
	{ HDPROTECT_A_HOLDER_PORTID, "holder_portid", K_U32, NULL, 0 },
	{ HDPROTECT_A_ALL, "all", K_FLAG, NULL, 0 },
};
#define NFIELDS		ARRAY_SIZE(fields)

static const struct {
	int err;
	const char *name;
} errnames[] = {
	{ EINVAL, "EINVAL" }, { ERANGE, "ERANGE" }, { EPERM, "EPERM" },
	{ EACCES, "EACCES" }, { ENODEV, "ENODEV" }, { ENOENT, "ENOENT" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EBUSY, "EBUSY" }, { EIO, "EIO" },
	{ EEXIST, "EEXIST" }, { ENOMEM, "ENOMEM" }, { ENOBUFS, "ENOBUFS" },
	{ EMSGSIZE, "EMSGSIZE" }, { EUSERS, "EUSERS" },
};

/* Print the usage on standard error; returns the exit code 2. */
static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

/* The symbolic name of errno ERR (positive), or "errnoN" in BUF. */
static const char *errname(int err, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errnames); i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	snprintf(buf, len, "errno%d", err);
	return buf;
}

/*
 * Parse S as an integer of BITS bits: unsigned, or negative down to the
 * signed minimum (stored in two's complement). 0 on success, -1 if not.
 */
static int parse_num(const char *s, int bits, uint64_t *out)
{
	uint64_t max = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
	unsigned long long u;
	long long v;
	char *end;

	errno = 0;
	if (*s == '-') {
		v = strtoll(s, &end, 0);
		if (errno || end == s || *end ||
		    (bits < 64 && v < -(1LL << (bits - 1))))
			return -1;
		*out = (uint64_t)v & max;
		return 0;
	}
	u = strtoull(s, &end, 0);
	if (errno || end == s || *end || u > max)
		return -1;
	*out = u;
	return 0;
}

/* The value of ARG if it is "KEY=value", else NULL. */
static const char *opt(const char *arg, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) || arg[n] != '=')
		return NULL;
	return arg + n + 1;
}

/* Parse an option value as a number of BITS bits in [MIN, ...]. */
static int opt_num(const char *val, int bits, uint64_t min, uint64_t *out)
{
	return val && !parse_num(val, bits, out) && *out >= min ? 0 : -1;
}

/* Append " fmt..." to the line being printed (no space before the first). */
__attribute__((format(printf, 2, 3)))
static void field(const char **sep, const char *fmt, ...)
{
	va_list ap;

	fputs(*sep, stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	*sep = " ";
}

/* Print KEY=name of enum value V, or KEY=V if it has no name. */
static void field_enum(const char **sep, const char *key, unsigned int v,
		       const char *const *names, size_t n)
{
	if (v < n && names[v])
		field(sep, "%s=%s", key, names[v]);
	else
		field(sep, "%s=%u", key, v);
}

/* Print KEY=a,b,... from a mask of 1 << enum value ("none" if 0). */
static void field_mask(const char **sep, const struct field *f, uint32_t mask)
{
	const char *comma = "";
	unsigned int bit;

	field(sep, "%s=%s", f->key, mask ? "" : "none");
	for (bit = 0; bit < 32; bit++) {
		if (!(mask & (1U << bit)))
			continue;
		if (bit < f->nnames)
			printf("%s%s", comma, f->names[bit]);
		else
			printf("%s%u", comma, bit);
		comma = ",";
	}
}

/* Print one disk's attributes (a reply, an event or an outcome) as a line. */
static void print_disk(const char *prefix, struct nlattr **tb)
{
	const struct field *f;
	const char *sep = "";
	struct nlattr *a;

	fputs(prefix, stdout);
	for (f = fields; f < fields + NFIELDS; f++) {
		a = tb[f->attr];
		if (!a)
			continue;
		if (f->kind == K_ENUM)
			field_enum(&sep, f->key, nla_get_u32(a), f->names, f->nnames);
		else if (f->kind == K_U32)
			field(&sep, "%s=%u", f->key, nla_get_u32(a));
		else if (f->kind == K_S32)
			field(&sep, "%s=%d", f->key, (int32_t)nla_get_u32(a));
		else if (f->kind == K_U64)
			field(&sep, "%s=%" PRIu64, f->key, (uint64_t)nla_get_u64(a));
		else if (f->kind == K_STR)
			field(&sep, "%s=%s", f->key, nla_get_string(a));
		else if (f->kind == K_FLAG)
			field(&sep, "%s=1", f->key);
		else if (f->kind == K_MASK)
			field_mask(&sep, f, nla_get_u32(a));
	}
	putchar('\n');
}

/* The libnl policy of the attributes, from the fields table. */
static void make_policy(struct nla_policy *policy)
{
	static const uint16_t nla[] = {
		[K_ENUM] = NLA_U32, [K_U32] = NLA_U32, [K_S32] = NLA_U32,
		[K_U64] = NLA_U64, [K_STR] = NLA_STRING, [K_FLAG] = NLA_FLAG,
		[K_MASK] = NLA_U32, [K_NEST] = NLA_NESTED,
	};
	size_t i;

	memset(policy, 0, (HDPROTECT_A_MAX + 1) * sizeof(*policy));
	for (i = 0; i < NFIELDS; i++)
		policy[fields[i].attr].type = nla[fields[i].kind];
}

/*
 * Parse a message of the family into TB; returns its genl header, or NULL
 * (with a message on stderr) if it is not one or does not parse.
 */
static struct genlmsghdr *parse_msg(struct nlmsghdr *nlh, int family,
				    struct nlattr **tb)
{
	struct nla_policy policy[HDPROTECT_A_MAX + 1];
	struct genlmsghdr *gnlh;
	int err;

	if (nlh->nlmsg_type != family)
		return NULL;
	make_policy(policy);
	if (!genlmsg_valid_hdr(nlh, 0)) {
		fprintf(stderr, PROG ": malformed reply: short header\n");
		return NULL;
	}
	gnlh = nlmsg_data(nlh);
	err = nla_parse(tb, HDPROTECT_A_MAX, genlmsg_attrdata(gnlh, 0),
			genlmsg_attrlen(gnlh, 0), policy);
	if (err < 0) {
		fprintf(stderr, PROG ": malformed reply: %s\n", nl_geterror(err));
		return NULL;
	}
	return gnlh;
}

/*
 * Print a reply: its disk line if any, then one line per HDPROTECT_A_OUTCOME;
 * note a PARK reply's cookie and outcomes in progress in RX.
 */
static int print_reply(struct nlmsghdr *nlh, int family, struct rx *rx)
{
	struct nlattr *tb[HDPROTECT_A_MAX + 1], *otb[HDPROTECT_A_MAX + 1], *a;
	struct genlmsghdr *gnlh = parse_msg(nlh, family, tb);
	struct nla_policy policy[HDPROTECT_A_MAX + 1];
	int i, rem, disk = 0;

	if (!gnlh)
		return -1;
	make_policy(policy);
	for (i = 0; i <= HDPROTECT_A_MAX; i++)
		disk |= tb[i] && i != HDPROTECT_A_OUTCOME;
	if (disk)
		print_disk("", tb);
	if (tb[HDPROTECT_A_COOKIE])
		rx->cookie = nla_get_u64(tb[HDPROTECT_A_COOKIE]);
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(a) != HDPROTECT_A_OUTCOME)
			continue;
		if (nla_parse_nested(otb, HDPROTECT_A_MAX, a, policy) < 0) {
			fprintf(stderr, PROG ": malformed outcome\n");
			return -1;
		}
		print_disk("outcome ", otb);
		if (otb[HDPROTECT_A_RESULT] &&
		    (int32_t)nla_get_u32(otb[HDPROTECT_A_RESULT]) == -EINPROGRESS)
			rx->pending++;
	}
	return 0;
}

/* Copy the NLMSGERR_ATTR_MSG of the TLVs at OFF in NLH into rx->ext. */
static void parse_extack(struct rx *rx, struct nlmsghdr *nlh, size_t off)
{
	struct nlattr *a;
	int rem;

	off = NLMSG_HDRLEN + NLMSG_ALIGN(off);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return;
	nla_for_each_attr(a, (struct nlattr *)((char *)nlh + off),
			  (int)(nlh->nlmsg_len - off), rem) {
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0)
			snprintf(rx->ext, sizeof(rx->ext), "%.*s",
				 (int)strnlen(nla_data(a), nla_len(a)),
				 (const char *)nla_data(a));
	}
}

/* Skip what does not answer the request in flight (late answers). */
static int seq_cb(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	return nlmsg_hdr(msg)->nlmsg_seq == rx->seq ? NL_OK : NL_SKIP;
}

/*
 * Make PAUSE.ready, then wait up to 60 s for PAUSE.go; -1 if it did not
 * come.
 */
static int pause_on(const char *pause)
{
	char path[4096];
	int fd, i;

	snprintf(path, sizeof(path), "%s.ready", pause);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s.go", pause);
	for (i = 0; i < 6000; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		poll(NULL, 0, 10);
	}
	fprintf(stderr, PROG ": %s did not appear within 60 s\n", path);
	return -1;
}

/* A reply: print it if asked to; pause after the first if asked to. */
static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	if (nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP_INTR)
		rx->intr = 1;
	if (rx->print && print_reply(nlmsg_hdr(msg), rx->family, rx) < 0)
		rx->bad = 1;
	if (rx->pause) {
		fflush(stdout);
		if (pause_on(rx->pause) < 0)
			rx->bad = 1;
		rx->pause = NULL;
	}
	return NL_OK;
}

/* The ACK: the request succeeded. */
static int ack_cb(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	(void)msg;
	rx->done = 1;
	rx->error = 0;
	return NL_STOP;
}

/* The end of a dump: its error code, then maybe extended ACK TLVs. */
static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct rx *rx = arg;
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		parse_extack(rx, nlh, sizeof(int));
	}
	rx->done = 1;
	rx->error = err;
	rx->error_in_done = !!err;
	return NL_STOP;
}

/* An error: the errno, and the message after the (maybe capped) echo. */
static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	size_t off = sizeof(*e);
	struct rx *rx = arg;

	(void)nla;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len > NLMSG_HDRLEN)
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	parse_extack(rx, nlh, off);
	rx->done = 1;
	rx->error = e->error;
	return NL_STOP;
}

/* Open a socket with extended ACKs and resolve the family (and group). */
static int hdp_open(struct hdp *h, int want_group)
{
	int one = 1;

	memset(h, 0, sizeof(*h));
	h->sk = nl_socket_alloc();
	if (!h->sk) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	if (genl_connect(h->sk) < 0) {
		fprintf(stderr, PROG ": cannot open a generic netlink socket\n");
		goto fail;
	}
	if (setsockopt(nl_socket_get_fd(h->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		       &one, sizeof(one)) < 0)
		fprintf(stderr, PROG ": NETLINK_EXT_ACK: %s\n", strerror(errno));
	h->family = genl_ctrl_resolve(h->sk, HDPROTECT_GENL_NAME);
	if (h->family == -NLE_OBJ_NOTFOUND) {
		fprintf(stderr, PROG ": generic netlink family " HDPROTECT_GENL_NAME
			" not found (is the hdprotect module loaded?)\n");
		goto fail;
	}
	if (h->family < 0) {
		fprintf(stderr, PROG ": cannot resolve family " HDPROTECT_GENL_NAME ": %s\n",
			nl_geterror(h->family));
		goto fail;
	}
	if (!want_group)
		return 0;
	h->group = genl_ctrl_resolve_grp(h->sk, HDPROTECT_GENL_NAME, HDPROTECT_GENL_MCGRP_EVENTS);
	if (h->group >= 0)
		return 0;
	fprintf(stderr, PROG ": family " HDPROTECT_GENL_NAME " has no group "
		HDPROTECT_GENL_MCGRP_EVENTS ": %s\n", nl_geterror(h->group));
fail:
	nl_socket_free(h->sk);
	h->sk = NULL;
	return -1;
}

/* A GET/SET/... message (family filled in when sent), NLM_F_ACK set. */
static struct nl_msg *new_msg(size_t size, int flags, int cmd, int version)
{
	struct nl_msg *msg = nlmsg_alloc_size(size);

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 0, 0,
				flags | NLM_F_ACK, cmd, version)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg)
		fprintf(stderr, PROG ": out of memory\n");
	return msg;
}

/*
 * Send MSG and read until its ACK, error or NLMSG_DONE, waiting at most
 * WAIT_MS for each read (-1: forever). The outcome is left in RX.
 */
static void transact(struct hdp *h, struct nl_msg *msg, struct rx *rx, int wait_ms)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(h->sk), .events = POLLIN };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	rx->family = h->family;
	if (!cb) {
		rx->error = -ENOMEM;
		return;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, seq_cb, rx);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, rx);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, rx);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, rx);
	nl_cb_err(cb, NL_CB_CUSTOM, err_cb, rx);
	nlmsg_hdr(msg)->nlmsg_type = h->family;
	errno = 0;
	ret = nl_send_auto(h->sk, msg);
	if (ret < 0) {
		rx->error = errno ? -errno : -EIO;
		fprintf(stderr, PROG ": send: %s\n", nl_geterror(ret));
		goto out;
	}
	rx->seq = nlmsg_hdr(msg)->nlmsg_seq;
	while (!rx->done) {
		ret = poll(&pfd, 1, wait_ms);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			rx->error = -errno;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			break;
		}
		if (ret == 0) {
			rx->noanswer = 1;
			break;
		}
		errno = 0;
		ret = nl_recvmsgs(h->sk, cb);
		if (ret >= 0 || rx->done)
			continue;
		if (ret == -NLE_AGAIN) {
			rx->noanswer = 1;
			break;
		}
		rx->error = errno ? -errno : -EIO;
		fprintf(stderr, PROG ": receive: %s\n", nl_geterror(ret));
		break;
	}
out:
	nl_cb_put(cb);
}

/* Print the final line of a request; returns the exit code. */
static int print_outcome(const struct rx *rx)
{
	char buf[32];

	if (rx->noanswer) {
		fprintf(stderr, PROG ": no answer\n");
		puts("noanswer");
		return 1;
	}
	if (!rx->error) {
		if (rx->intr)
			puts("dump-interrupted");
		puts("ok");
		return rx->bad;
	}
	/* A request's error comes as an error message; in NLMSG_DONE it is
	 * a dump's, which stock clients do not read: say so. */
	printf("%s%s: %s\n", errname(-rx->error, buf, sizeof(buf)),
	       rx->error_in_done ? "-in-NLMSG_DONE" : "", rx->ext[0] ? rx->ext : "-");
	return 1;
}

/*
 * Open, send the N messages MSGS (freed) one after another until one
 * fails, print the replies and the outcome; the exit code.
 */
static int run_requests(struct nl_msg **msgs, int n, int wait_ms)
{
	struct rx rx = { .print = 1 };
	struct hdp h;
	int i, code = 1;

	if (hdp_open(&h, 0) == 0) {
		for (i = 0; i < n && !rx.error && !rx.noanswer; i++) {
			memset(&rx, 0, sizeof(rx));
			rx.print = 1;
			transact(&h, msgs[i], &rx, wait_ms);
		}
		nl_socket_free(h.sk);
		code = print_outcome(&rx);
	}
	for (i = 0; i < n; i++)
		nlmsg_free(msgs[i]);
	return code;
}

/* Open, send MSG (freed), print replies and outcome; the exit code. */
static int run_request(struct nl_msg *msg, int wait_ms)
{
	return run_requests(&msg, 1, wait_ms);
}

/* get [DISK], dump, unpark [DISK]: at most a disk name. */
static int cmd_simple(int argc, char **argv, int cmd, int flags)
{
	struct nl_msg *msg;

	if (argc > ((flags & NLM_F_DUMP) ? 1 : 2))
		return usage();
	msg = new_msg(4096 + (argc > 1 ? strlen(argv[1]) : 0), flags, cmd, HDPROTECT_GENL_VERSION);
	if (!msg)
		return 1;
	if (argc > 1 && nla_put_string(msg, HDPROTECT_A_DISK, argv[1]) < 0) {
		nlmsg_free(msg);
		return usage();
	}
	return run_request(msg, -1);
}

/* get [DISK] */
static int cmd_get(int argc, char **argv)
{
	return cmd_simple(argc, argv, HDPROTECT_CMD_GET, 0);
}

/*
 * dump [DISK] [pause=FILE]: with pause, the socket reads 4 KiB at a time,
 * so that the kernel builds the dump in parts of at most 4 KiB.
 */
static int cmd_dump(int argc, char **argv)
{
	struct rx rx = { .print = 1 };
	const char *disk = NULL, *v;
	struct nl_msg *msg;
	struct hdp h;
	int i, code;

	for (i = 1; i < argc; i++) {
		if ((v = opt(argv[i], "pause")) && *v)
			rx.pause = v;
		else if (!disk && !strchr(argv[i], '='))
			disk = argv[i];
		else
			return usage();
	}
	msg = new_msg(4096, NLM_F_DUMP, HDPROTECT_CMD_GET, HDPROTECT_GENL_VERSION);
	if (!msg)
		return 1;
	if (disk && nla_put_string(msg, HDPROTECT_A_DISK, disk) < 0) {
		nlmsg_free(msg);
		return usage();
	}
	if (hdp_open(&h, 0) < 0) {
		nlmsg_free(msg);
		return 1;
	}
	/*
	 * The kernel sizes a dump's parts by the largest read the socket
	 * ever made: the family's resolution read more, so dump on a new
	 * socket that has only ever read 4 KiB at a time.
	 */
	if (rx.pause) {
		struct nl_sock *sk = nl_socket_alloc();

		if (!sk || genl_connect(sk) < 0) {
			fprintf(stderr, PROG ": cannot open a generic netlink socket\n");
			nl_socket_free(sk);
			nl_socket_free(h.sk);
			nlmsg_free(msg);
			return 1;
		}
		nl_socket_disable_msg_peek(sk);
		nl_socket_set_msg_buf_size(sk, 4096);
		nl_socket_free(h.sk);
		h.sk = sk;
	}
	transact(&h, msg, &rx, -1);
	nl_socket_free(h.sk);
	nlmsg_free(msg);
	code = print_outcome(&rx);
	return code;
}

/* unpark [DISK] [all] */
static int cmd_unpark(int argc, char **argv)
{
	struct nl_msg *msg;
	const char *disk = NULL;
	int i, all = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "all") && !all)
			all = 1;
		else if (!disk)
			disk = argv[i];
		else
			return usage();
	}
	msg = new_msg(4096 + (disk ? strlen(disk) : 0), 0, HDPROTECT_CMD_UNPARK,
		      HDPROTECT_GENL_VERSION);
	if (!msg)
		return 1;
	if ((disk && nla_put_string(msg, HDPROTECT_A_DISK, disk) < 0) ||
	    (all && nla_put_flag(msg, HDPROTECT_A_ALL) < 0)) {
		nlmsg_free(msg);
		return usage();
	}
	return run_request(msg, -1);
}

/* The number of method V, a name or a number; -1 if neither. */
static int parse_method(const char *v, uint64_t *n)
{
	for (*n = 0; *n < ARRAY_SIZE(method_names); (*n)++)
		if (!strcmp(v, method_names[*n]))
			return 0;
	return opt_num(v, 8, 0, n);
}

/* set DISK [enabled=N] [timeout=MS] [method=NAME|N] */
static int cmd_set(int argc, char **argv)
{
	struct nl_msg *msg;
	const char *v;
	uint64_t n;
	int i, err = 0;

	if (argc < 2)
		return usage();
	msg = new_msg(4096 + strlen(argv[1]), 0, HDPROTECT_CMD_SET, HDPROTECT_GENL_VERSION);
	if (!msg)
		return 1;
	err = nla_put_string(msg, HDPROTECT_A_DISK, argv[1]);
	for (i = 2; i < argc && !err; i++) {
		if ((v = opt(argv[i], "enabled"))) {
			err = opt_num(v, 32, 0, &n) ?: nla_put_u32(msg, HDPROTECT_A_ENABLED, n);
		} else if ((v = opt(argv[i], "timeout"))) {
			err = opt_num(v, 32, 0, &n) ?: nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, n);
		} else if ((v = opt(argv[i], "method"))) {
			err = parse_method(v, &n) ?: nla_put_u32(msg, HDPROTECT_A_METHOD, n);
		} else if ((v = opt(argv[i], "max_hold"))) {
			err = opt_num(v, 32, 0, &n) ?: nla_put_u32(msg, HDPROTECT_A_MAX_HOLD_MS, n);
		} else {
			err = -1;
		}
	}
	if (err) {
		nlmsg_free(msg);
		return usage();
	}
	return run_request(msg, -1);
}

/* A PARK of DISK (NULL: every enabled disk), with timeout MS if TIMEOUT. */
static struct nl_msg *park_msg(const char *disk, int timeout, uint32_t ms)
{
	struct nl_msg *msg;

	msg = new_msg(4096 + (disk ? strlen(disk) : 0), 0, HDPROTECT_CMD_PARK, HDPROTECT_GENL_VERSION);
	if (msg && ((disk && nla_put_string(msg, HDPROTECT_A_DISK, disk) < 0) ||
		    (timeout && nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, ms) < 0))) {
		fprintf(stderr, PROG ": message too long\n");
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

static int any_seq_cb(struct nl_msg *msg, void *arg);

/* What park ... wait waits for: the answers to one PARK's cookie. */
struct answers {
	int family;
	uint64_t cookie;
	int pending;
	int bad;
};

/* A PARKED event without RENEWED that carries the cookie: print it. */
static int answer_cb(struct nl_msg *msg, void *arg)
{
	struct answers *an = arg;
	struct nlattr *tb[HDPROTECT_A_MAX + 1];

	if (!parse_msg(nlmsg_hdr(msg), an->family, tb)) {
		an->bad = 1;
		return NL_OK;
	}
	if (!tb[HDPROTECT_A_EVENT] || nla_get_u32(tb[HDPROTECT_A_EVENT]) != HDPROTECT_EVENT_PARKED ||
	    tb[HDPROTECT_A_RENEWED] || !tb[HDPROTECT_A_COOKIE] ||
	    nla_get_u64(tb[HDPROTECT_A_COOKIE]) != an->cookie)
		return NL_OK;
	print_disk("answer ", tb);
	an->pending--;
	return NL_OK;
}

/*
 * Send the PARK MSG (freed) with a listener joined first; print the reply,
 * then the answers to its outcomes in progress, then the final line.
 */
static int park_wait(struct nl_msg *msg)
{
	struct answers an = { 0 };
	struct rx rx = { .print = 1 };
	struct pollfd pfd = { .events = POLLIN };
	struct nl_cb *cb = NULL;
	struct hdp h, ev;
	int ret, code = 1;

	if (hdp_open(&ev, 1) < 0) {
		nlmsg_free(msg);
		return 1;
	}
	nl_socket_disable_seq_check(ev.sk);
	nl_socket_set_buffer_size(ev.sk, 4 << 20, 0);
	if (nl_socket_add_membership(ev.sk, ev.group) < 0 ||
	    !(cb = nl_cb_alloc(NL_CB_DEFAULT)) || hdp_open(&h, 0) < 0) {
		fprintf(stderr, PROG ": cannot listen to " HDPROTECT_GENL_MCGRP_EVENTS "\n");
		goto out;
	}
	transact(&h, msg, &rx, -1);
	nl_socket_free(h.sk);
	an.family = ev.family;
	an.cookie = rx.cookie;
	an.pending = rx.error ? 0 : rx.pending;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq_cb, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, answer_cb, &an);
	pfd.fd = nl_socket_get_fd(ev.sk);
	while (an.pending > 0) {
		ret = poll(&pfd, 1, 10000);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0 || nl_recvmsgs(ev.sk, cb) < 0)
			break;
	}
	if (an.pending > 0)
		printf("answers-missing %d\n", an.pending);
	code = print_outcome(&rx) || an.pending > 0 || an.bad;
out:
	nl_cb_put(cb);
	nl_socket_free(ev.sk);
	nlmsg_free(msg);
	return code;
}

/*
 * park [DISK]... [timeout=MS] [each] [wait]: one PARK naming every DISK,
 * or with each one per DISK in turn, stopping at the first that fails.
 */
static int cmd_park(int argc, char **argv)
{
	int i, n = 0, timeout = 0, each = 0, wait = 0, unpark = 0;
	struct nl_msg **msgs;
	const char *v;
	uint64_t ms = 0;

	for (i = 1; i < argc; i++) {
		if ((v = opt(argv[i], "timeout"))) {
			if (opt_num(v, 32, 0, &ms))
				return usage();
			timeout = 1;
		}
		each |= !strcmp(argv[i], "each");
		wait |= !strcmp(argv[i], "wait");
		unpark |= !strcmp(argv[i], "unpark");
	}
	if (each && wait)
		return usage();
	if (wait && unpark)
		return usage();
	msgs = calloc(argc + 1, sizeof(*msgs));
	if (!msgs)
		return 1;
	for (i = 1; i < argc; i++) {
		if (opt(argv[i], "timeout") || !strcmp(argv[i], "each") ||
		    !strcmp(argv[i], "wait") || !strcmp(argv[i], "unpark"))
			continue;
		if (!each && n) {
			if (nla_put_string(msgs[0], HDPROTECT_A_DISK, argv[i]) < 0)
				goto fail;
			continue;
		}
		msgs[n] = park_msg(argv[i], timeout, ms);
		if (!msgs[n++])
			goto fail;
	}
	if (!n) {
		msgs[0] = park_msg(NULL, timeout, ms);
		if (!msgs[n++])
			goto fail;
	}
	/* unpark: then an UNPARK of every disk, from the same socket. */
	if (unpark) {
		msgs[n] = new_msg(4096, 0, HDPROTECT_CMD_UNPARK, HDPROTECT_GENL_VERSION);
		if (!msgs[n++])
			goto fail;
	}
	i = wait ? park_wait(msgs[0]) : run_requests(msgs, n, -1);
	free(msgs);
	return i;
fail:
	fprintf(stderr, PROG ": message too long\n");
	while (n--)
		nlmsg_free(msgs[n]);
	free(msgs);
	return 1;
}

/* The attribute number of TYPE, a number or a field's key; -1 if neither. */
static int attr_num(const char *type, uint64_t *t)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++) {
		if (!strcmp(type, fields[i].key)) {
			*t = fields[i].attr;
			return 0;
		}
	}
	return parse_num(type, 16, t);
}

/* The command number of NAME, a number or a command's name; -1 if neither. */
static int cmd_num(const char *name, uint64_t *cmd)
{
	static const struct { const char *name; int cmd; } cmds[] = {
		{ "get", HDPROTECT_CMD_GET }, { "set", HDPROTECT_CMD_SET },
		{ "park", HDPROTECT_CMD_PARK }, { "unpark", HDPROTECT_CMD_UNPARK },
		{ "event", HDPROTECT_CMD_EVENT },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(name, cmds[i].name)) {
			*cmd = cmds[i].cmd;
			return 0;
		}
	}
	return parse_num(name, 8, cmd);
}

/* Add one raw SPEC attribute to MSG; -1 if SPEC is not one. */
static int raw_attr(struct nl_msg *msg, const char *spec)
{
	static const struct { const char *kind; int bits; } ints[] = {
		{ "u8", 8 }, { "u16", 16 }, { "u32", 32 }, { "u64", 64 },
	};
	char *kind = strdup(spec), *type, *val, *c, *buf;
	uint64_t t, v, n;
	int err = -1;
	size_t i;

	if (!kind)
		return -1;
	type = strchr(kind, ':');
	if (!type)
		goto out;
	*type++ = '\0';
	val = strchr(type, ':');
	if (val)
		*val++ = '\0';
	if (attr_num(type, &t))
		goto out;
	if (!strcmp(kind, "flag") && !val) {
		err = nla_put(msg, t, 0, NULL);
	} else if ((!strcmp(kind, "s") || !strcmp(kind, "n")) && val) {
		err = nla_put(msg, t, strlen(val) + (kind[0] == 's'), val);
	} else if (!strcmp(kind, "z") && val) {
		n = strlen(val) + 1;
		for (c = val; *c; c++)
			if (*c == '|')
				*c = '\0';
		err = nla_put(msg, t, n, val);
	} else if (!strcmp(kind, "rep") && val && (c = strchr(val, ':'))) {
		*c++ = '\0';
		if (parse_num(val, 16, &n) || n > 65531 || strlen(c) != 1)
			goto out;
		buf = malloc(n + 1);
		if (!buf)
			goto out;
		memset(buf, c[0], n);
		err = nla_put(msg, t, n, buf);
		free(buf);
	} else {
		for (i = 0; i < ARRAY_SIZE(ints); i++) {
			if (strcmp(kind, ints[i].kind) || !val || parse_num(val, ints[i].bits, &v))
				continue;
			if (ints[i].bits == 8)
				err = nla_put_u8(msg, t, v);
			else if (ints[i].bits == 16)
				err = nla_put_u16(msg, t, v);
			else if (ints[i].bits == 32)
				err = nla_put_u32(msg, t, v);
			else
				err = nla_put_u64(msg, t, v);
		}
	}
out:
	free(kind);
	return err < 0 ? -1 : 0;
}

/* raw CMD [FLAGS] SPEC... */
static int cmd_raw(int argc, char **argv)
{
	uint64_t cmd, flags = 0, ver = HDPROTECT_GENL_VERSION, trunc = 0;
	size_t size = 1024;
	struct nl_msg *msg;
	int i, first = 2;

	if (argc < 2 || cmd_num(argv[1], &cmd))
		return usage();
	if (argc > 2 && !parse_num(argv[2], 16, &flags))
		first = 3;
	for (i = first; i < argc; i++) {
		size += strlen(argv[i]) + 8;
		if (!strcmp(argv[i], "dump"))
			flags |= NLM_F_DUMP;
		if (!strncmp(argv[i], "ver:", 4) && parse_num(argv[i] + 4, 8, &ver))
			return usage();
		if (!strncmp(argv[i], "trunc:", 6) && parse_num(argv[i] + 6, 16, &trunc))
			return usage();
		if (!strncmp(argv[i], "rep:", 4))
			size += 65536;
	}
	msg = new_msg(size, flags, cmd, ver);
	if (!msg)
		return 1;
	for (i = first; i < argc; i++) {
		if (!strcmp(argv[i], "dump") || !strncmp(argv[i], "ver:", 4) ||
		    !strncmp(argv[i], "trunc:", 6))
			continue;
		if (raw_attr(msg, argv[i]) < 0) {
			fprintf(stderr, PROG ": bad SPEC %s\n", argv[i]);
			nlmsg_free(msg);
			return usage();
		}
	}
	if (trunc > nlmsg_hdr(msg)->nlmsg_len - NLMSG_HDRLEN) {
		fprintf(stderr, PROG ": trunc:%" PRIu64 " is longer than the message\n", trunc);
		nlmsg_free(msg);
		return usage();
	}
	nlmsg_hdr(msg)->nlmsg_len -= trunc;
	return run_request(msg, RAW_WAIT_MS);
}

/* Add V to S; a sample that finds no memory is dropped. */
static void samples_add(struct samples *s, int64_t v)
{
	int64_t *nv;

	if (s->n == s->cap) {
		nv = realloc(s->v, (s->cap ? 2 * s->cap : 256) * sizeof(*nv));
		if (!nv)
			return;
		s->v = nv;
		s->cap = s->cap ? 2 * s->cap : 256;
	}
	s->v[s->n++] = v;
}

/* qsort order of int64_t. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank P percentile of the N sorted samples V. */
static int64_t percentile(const int64_t *v, size_t n, size_t p)
{
	size_t r = (n * p + 99) / 100;

	return n ? v[r ? r - 1 : 0] : 0;
}

/* Print "PREFIXlatency_us p50=X p99=Y max=Z n=N" of S (sorts S). */
static void samples_print(const char *prefix, struct samples *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_i64);
	printf("%slatency_us p50=%" PRId64 " p99=%" PRId64 " max=%" PRId64 " n=%zu\n",
	       prefix, percentile(s->v, s->n, 50) / 1000, percentile(s->v, s->n, 99) / 1000,
	       s->n ? s->v[s->n - 1] / 1000 : 0, s->n);
}

/* Let every multicast message through (events have sequence number 0). */
static int any_seq_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/* One event: print it, check its sequence number, time it. */
static int event_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[HDPROTECT_A_MAX + 1];
	struct genlmsghdr *gnlh;
	struct listen *l = arg;
	struct timespec ts;
	uint64_t seq;
	int ev;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	gnlh = parse_msg(nlh, l->family, tb);
	if (!gnlh) {
		l->bad |= nlh->nlmsg_type == l->family;
		return NL_OK;
	}
	if (gnlh->cmd != HDPROTECT_CMD_EVENT)
		return NL_OK;
	if (!l->events++)
		l->cpu0_ns = own_cpu_ns();
	if (!l->quiet)
		print_disk("", tb);
	if (tb[HDPROTECT_A_SEQ]) {
		seq = nla_get_u64(tb[HDPROTECT_A_SEQ]);
		if (l->check_seq && l->have_seq && seq != l->last_seq + 1) {
			fprintf(stderr, "%sseq gap: got %" PRIu64 " after %" PRIu64 "\n",
				l->prefix, seq, l->last_seq);
			l->gaps++;
		}
		if (!l->have_seq)
			l->first_seq = seq;
		l->have_seq = 1;
		l->last_seq = seq;
	} else if (l->check_seq) {
		fprintf(stderr, "%sevent without seq\n", l->prefix);
		l->gaps++;
	}
	ev = tb[HDPROTECT_A_EVENT] ? nla_get_u32(tb[HDPROTECT_A_EVENT]) : 0;
	/* From the change (the event's own time) to its receipt here. */
	if (l->latency && tb[HDPROTECT_A_EVENT_NS] && tb[HDPROTECT_A_SEQ] &&
	    (ev == HDPROTECT_EVENT_PARKED || ev == HDPROTECT_EVENT_UNPARKED)) {
		samples_add(&l->lat, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec -
			    (int64_t)nla_get_u64(tb[HDPROTECT_A_EVENT_NS]));
		samples_add(&l->lat_seq, (int64_t)nla_get_u64(tb[HDPROTECT_A_SEQ]));
	}
	return NL_OK;
}

/* Tell whoever waits that we are subscribed: a file or a pipe byte. */
static int signal_ready(struct listen *l)
{
	int fd;

	if (l->ready) {
		fd = open(l->ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, PROG ": %s: %s\n", l->ready, strerror(errno));
			return -1;
		}
		close(fd);
	}
	if (l->ready_fd >= 0) {
		if (write(l->ready_fd, "r", 1) != 1)
			return -1;
		close(l->ready_fd);
		l->ready_fd = -1;
	}
	return 0;
}

/*
 * Write the latency samples to l->lat_file for the parent to read: pairs
 * of the event's number and its latency, then the pair (-1, CPU time
 * spent from the first event on) and (-2, events after the first).
 */
static void save_samples(const struct listen *l)
{
	FILE *fp = fopen(l->lat_file, "w");
	int64_t tail[4] = { -1, own_cpu_ns() - l->cpu0_ns, -2,
			    l->events ? (int64_t)l->events - 1 : 0 };
	size_t i;
	int bad = !fp;

	for (i = 0; fp && i < l->lat.n && i < l->lat_seq.n; i++)
		bad |= fwrite(&l->lat_seq.v[i], sizeof(int64_t), 1, fp) != 1 ||
		       fwrite(&l->lat.v[i], sizeof(int64_t), 1, fp) != 1;
	if (fp)
		bad |= fwrite(tail, sizeof(tail), 1, fp) != 1;
	if (bad)
		fprintf(stderr, PROG ": %s: %s\n", l->lat_file, strerror(errno));
	if (fp)
		fclose(fp);
}

/* Join the events group and read events until done; the exit code. */
static int listen_run(struct listen *l)
{
	struct pollfd pfd = { .events = POLLIN };
	int ret, timed_out = 0, code = 1;
	struct nl_cb *cb = NULL;
	struct hdp h;

	if (hdp_open(&h, 1) < 0)
		return 1;
	/* A line per event, out at once: a test may stop the listener. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	l->family = h.family;
	nl_socket_disable_seq_check(h.sk);
	/* A stalled listener gets the smallest buffer the kernel allows. */
	ret = nl_socket_set_buffer_size(h.sk, l->stall ? 1 : 4 << 20, 0);
	if (ret < 0)
		fprintf(stderr, PROG ": buffer size: %s\n", nl_geterror(ret));
	/* One recvmsg() per message into a fixed buffer, as libhdp reads. */
	nl_socket_disable_msg_peek(h.sk);
	nl_socket_set_msg_buf_size(h.sk, 16384);
	ret = nl_socket_add_membership(h.sk, h.group);
	if (ret < 0) {
		fprintf(stderr, PROG ": join " HDPROTECT_GENL_MCGRP_EVENTS ": %s\n", nl_geterror(ret));
		goto out;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb || signal_ready(l) < 0)
		goto out;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq_cb, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, event_cb, l);
	pfd.fd = nl_socket_get_fd(h.sk);
	while (l->stall && access(l->stall, F_OK) < 0)
		usleep(100000);
	while (!l->count || (long)l->events < l->count) {
		ret = poll(&pfd, 1, l->timeout_s * 1000);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			l->bad = 1;
			break;
		}
		if (ret == 0) {
			timed_out = 1;
			break;
		}
		errno = 0;
		ret = nl_recvmsgs(h.sk, cb);
		if (ret < 0 && (errno == ENOBUFS || ret == -NLE_NOMEM)) {
			fprintf(stderr, "%soverrun\n", l->prefix);
			l->overruns++;
		} else if (ret < 0) {
			fprintf(stderr, PROG ": %sreceive: %s\n", l->prefix, nl_geterror(ret));
			l->bad = 1;
			break;
		}
	}
	if (timed_out && l->count)
		fprintf(stderr, "%stimeout after %lu events\n", l->prefix, l->events);
	printf("%sevents=%lu gaps=%lu first_seq=%" PRIu64 " last_seq=%" PRIu64
	       " overruns=%lu\n", l->prefix, l->events, l->gaps, l->first_seq,
	       l->last_seq, l->overruns);
	/* Saved before printing: samples_print() sorts the latencies. */
	if (l->latency && l->lat_file)
		save_samples(l);
	if (l->latency)
		samples_print(l->prefix, &l->lat);
	if (l->stall)	/* success: the kernel dropped events, it did not wait */
		code = !l->overruns || l->bad;
	else
		code = (timed_out && l->count) || l->gaps || l->overruns || l->bad;
out:
	if (cb)
		nl_cb_put(cb);
	nl_socket_free(h.sk);
	free(l->lat.v);
	free(l->lat_seq.v);
	return code;
}

/* Parse listen's and listeners' options into L; -1 on a usage error. */
static int listen_opts(struct listen *l, int argc, char **argv, int listeners)
{
	uint64_t n;
	const char *v;
	int i;

	for (i = 0; i < argc; i++) {
		if ((v = opt(argv[i], "count"))) {
			if (opt_num(v, 31, 0, &n))
				return -1;
			l->count = n;
		} else if ((v = opt(argv[i], "timeout"))) {
			if (opt_num(v, 31, 0, &n) || n > 2000000)
				return -1;
			l->timeout_s = n;
		} else if ((v = opt(argv[i], "ready"))) {
			l->ready = v;
		} else if (!strcmp(argv[i], "latency")) {
			l->latency = 1;
		} else if (!listeners && !strcmp(argv[i], "check-seq")) {
			l->check_seq = 1;
		} else if (!listeners && !strcmp(argv[i], "quiet")) {
			l->quiet = 1;
		} else if (!listeners && (v = opt(argv[i], "stall"))) {
			l->stall = v;
		} else {
			return -1;
		}
	}
	return 0;
}

/* listen [count=N] [timeout=S] [ready=FILE] [check-seq] [quiet] [latency] */
static int cmd_listen(int argc, char **argv)
{
	struct listen l = { .timeout_s = 10, .ready_fd = -1, .prefix = "" };

	if (listen_opts(&l, argc - 1, argv + 1, 0) < 0)
		return usage();
	return listen_run(&l);
}

/* Child I of listeners: listen count=M check-seq quiet [latency]. */
static int child_listen(const struct listen *opts, int i, int ready_fd)
{
	struct listen l = *opts;
	char prefix[32], file[64];
	int code;

	snprintf(prefix, sizeof(prefix), "child %d ", i);
	snprintf(file, sizeof(file), "/tmp/hdp-nl-lat.%d", (int)getpid());
	l.prefix = prefix;
	l.lat_file = file;
	l.ready = NULL;
	l.ready_fd = ready_fd;
	l.check_seq = 1;
	l.quiet = 1;
	code = listen_run(&l);
	fflush(stdout);
	fflush(stderr);
	return code;
}

/*
 * Add the samples a child left in its file to ALL, their event numbers to
 * SEQ, its CPU time after its first event to *CPU_NS and the events it
 * counts to *CPU_EVENTS, and delete the file.
 */
static void collect_samples(struct samples *all, struct samples *seq, pid_t pid,
			    int64_t *cpu_ns, int64_t *cpu_events)
{
	char file[64];
	int64_t v[2];
	FILE *fp;

	snprintf(file, sizeof(file), "/tmp/hdp-nl-lat.%d", (int)pid);
	fp = fopen(file, "r");
	if (!fp)
		return;
	while (fread(v, sizeof(v), 1, fp) == 1) {
		if (v[0] == -1) {
			*cpu_ns += v[1];
		} else if (v[0] == -2) {
			*cpu_events += v[1];
		} else {
			samples_add(seq, v[0]);
			samples_add(all, v[1]);
		}
	}
	fclose(fp);
	unlink(file);
}

/* qsort order of (event number, latency) pairs. */
static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) :
			      (x[1] > y[1]) - (x[1] < y[1]);
}

/*
 * Print the latency of each event to its first and to its last listener
 * ("first_", "last_" lines as samples_print()).
 */
static void first_last_print(const struct samples *all, const struct samples *seq)
{
	struct samples first = { 0 }, last = { 0 };
	int64_t *p;
	size_t i, n = all->n < seq->n ? all->n : seq->n;

	p = malloc(2 * n * sizeof(*p) + 1);
	if (!p)
		return;
	for (i = 0; i < n; i++) {
		p[2 * i] = seq->v[i];
		p[2 * i + 1] = all->v[i];
	}
	qsort(p, n, 2 * sizeof(*p), cmp_pair);
	for (i = 0; i < n; i++) {
		if (!i || p[2 * i] != p[2 * i - 2])
			samples_add(&first, p[2 * i + 1]);
		if (i == n - 1 || p[2 * i] != p[2 * i + 2])
			samples_add(&last, p[2 * i + 1]);
	}
	samples_print("first_", &first);
	samples_print("last_", &last);
	free(first.v);
	free(last.v);
	free(p);
}

/* listeners N count=M [timeout=S] [ready=FILE] [latency] */
static int cmd_listeners(int argc, char **argv)
{
	struct listen l = { .timeout_s = 10, .ready_fd = -1, .prefix = "" };
	int i, n, started, ready = 0, complete = 0, st, pfd[2];
	struct samples all = { 0 }, all_seq = { 0 };
	int64_t cpu_ns = 0, cpu_events = 0;
	struct rusage ru;
	ssize_t got;
	uint64_t nn;
	pid_t *pids, w;
	char buf[64];

	if (argc < 2 || parse_num(argv[1], 16, &nn) || nn < 1 || nn > 4096 ||
	    listen_opts(&l, argc - 2, argv + 2, 1) < 0 || !l.count)
		return usage();
	n = nn;
	pids = calloc(n, sizeof(*pids));
	if (!pids || pipe(pfd) < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		free(pids);
		return 1;
	}
	fflush(stdout);
	fflush(stderr);
	for (started = 0; started < n; started++) {
		pids[started] = fork();
		if (pids[started] < 0) {
			fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
			break;
		}
		if (!pids[started]) {
			close(pfd[0]);
			_exit(child_listen(&l, started, pfd[1]));
		}
	}
	close(pfd[1]);
	while (ready < n && (got = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (got < 0 && errno != EINTR)
			break;
		if (got > 0)
			ready += got;
	}
	close(pfd[0]);
	if (ready < n)
		fprintf(stderr, PROG ": only %d of %d listeners subscribed\n", ready, n);
	else if (l.ready && signal_ready(&l) < 0)
		ready = 0;
	for (i = 0; i < started; i++) {
		do
			w = waitpid(pids[i], &st, 0);
		while (w < 0 && errno == EINTR);
		complete += w > 0 && WIFEXITED(st) && !WEXITSTATUS(st);
		if (l.latency)
			collect_samples(&all, &all_seq, pids[i], &cpu_ns, &cpu_events);
	}
	printf("listeners=%d complete=%d failed=%d\n", n, complete, n - complete);
	if (l.latency) {
		first_last_print(&all, &all_seq);
		samples_print("", &all);
		/*
		 * What one listener spends on one event: start-up included,
		 * and from its first event on (steady).
		 */
		if (!getrusage(RUSAGE_CHILDREN, &ru) && all.n)
			printf("listener_cpu_us per_event=%.1f steady=%.1f\n",
			       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 / all.n +
			       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / (double)all.n,
			       cpu_events ? cpu_ns / 1e3 / cpu_events : 0.0);
	}
	free(all.v);
	free(all_seq.v);
	free(pids);
	return complete == n && ready == n ? 0 : 1;
}

/*
 * Child of pipes: read COUNT (number, time) pairs from FD, each a sample
 * of its latency, and leave them for collect_samples().
 */
static int child_pipe(int fd, long count)
{
	struct listen l = { .count = count };
	char file[64];
	int64_t m[2];
	struct timespec ts;
	ssize_t got;

	snprintf(file, sizeof(file), "/tmp/hdp-nl-lat.%d", (int)getpid());
	l.lat_file = file;
	while ((long)l.events < count) {
		got = read(fd, m, sizeof(m));
		if (got < 0 && errno == EINTR)
			continue;
		if (got != sizeof(m))
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!l.events++)
			l.cpu0_ns = own_cpu_ns();
		samples_add(&l.lat, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - m[1]);
		samples_add(&l.lat_seq, m[0]);
	}
	save_samples(&l);
	free(l.lat.v);
	free(l.lat_seq.v);
	return (long)l.events == count ? 0 : 1;
}

/* pipes N count=M [gap=US] */
static int cmd_pipes(int argc, char **argv)
{
	struct samples all = { 0 }, all_seq = { 0 };
	int64_t cpu_ns = 0, cpu_events = 0, m[2];
	int i, n, started, complete = 0, st, (*fds)[2];
	uint64_t nn, count = 0, gap = 20000;
	struct timespec ts;
	pid_t *pids, w;
	const char *v;
	long e;

	if (argc < 2 || parse_num(argv[1], 16, &nn) || nn < 1 || nn > 4096)
		return usage();
	for (i = 2; i < argc; i++) {
		if ((v = opt(argv[i], "count"))) {
			if (parse_num(v, 31, &count))
				return usage();
		} else if ((v = opt(argv[i], "gap"))) {
			if (parse_num(v, 31, &gap))
				return usage();
		} else {
			return usage();
		}
	}
	if (!count)
		return usage();
	n = nn;
	pids = calloc(n, sizeof(*pids));
	fds = calloc(n, sizeof(*fds));
	if (!pids || !fds) {
		fprintf(stderr, PROG ": %s\n", strerror(errno));
		free(pids);
		free(fds);
		return 1;
	}
	fflush(stdout);
	fflush(stderr);
	for (started = 0; started < n; started++) {
		if (pipe(fds[started]) < 0) {
			fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
			break;
		}
		pids[started] = fork();
		if (pids[started] < 0) {
			fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
			close(fds[started][0]);
			close(fds[started][1]);
			break;
		}
		if (!pids[started]) {
			for (i = 0; i <= started; i++)
				close(fds[i][1]);
			_exit(child_pipe(fds[started][0], count));
		}
		close(fds[started][0]);
	}
	for (e = 0; started == n && e < (long)count; e++) {
		usleep(gap);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		m[0] = e;
		m[1] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		for (i = 0; i < n; i++)
			if (write(fds[i][1], m, sizeof(m)) != sizeof(m))
				fprintf(stderr, PROG ": pipe %d: %s\n", i, strerror(errno));
	}
	for (i = 0; i < started; i++)
		close(fds[i][1]);
	for (i = 0; i < started; i++) {
		do
			w = waitpid(pids[i], &st, 0);
		while (w < 0 && errno == EINTR);
		complete += w > 0 && WIFEXITED(st) && !WEXITSTATUS(st);
		collect_samples(&all, &all_seq, pids[i], &cpu_ns, &cpu_events);
	}
	printf("pipes=%d complete=%d failed=%d\n", n, complete, n - complete);
	first_last_print(&all, &all_seq);
	samples_print("", &all);
	printf("listener_cpu_us steady=%.1f\n",
	       cpu_events ? cpu_ns / 1e3 / cpu_events : 0.0);
	free(all.v);
	free(all_seq.v);
	free(pids);
	free(fds);
	return complete == n ? 0 : 1;
}

/* What the accepted SET requests made of one disk's settings. */
struct fuzz_model {
	int has_enabled, has_timeout, has_method;
	unsigned int enabled, timeout_ms, method;
};

/*
 * The fuzzer's private xorshift64* generator, its disk names, and for
 * each disk the settings the kernel must have after the run.
 */
struct fuzz {
	uint64_t s;
	const char **disks;
	struct fuzz_model *model;
	int ndisks;
};

/* The kind of attribute TYPE, K_BYTES if the family has none such. */
static enum kind attr_kind(int type)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		if (fields[i].attr == type)
			return fields[i].kind;
	return K_BYTES;
}

/* The next 64 random bits (xorshift64*). */
static uint64_t rnd(struct fuzz *f)
{
	f->s ^= f->s >> 12;
	f->s ^= f->s << 25;
	f->s ^= f->s >> 27;
	return f->s * 0x2545f4914f6cdd1dULL;
}

/* A random number in 0..N-1. */
static uint32_t below(struct fuzz *f, uint32_t n)
{
	return n ? (uint32_t)(rnd(f) >> 32) % n : 0;
}

/* LEN random characters in BUF, then a NUL if NUL; the size written. */
static int rnd_string(struct fuzz *f, char *buf, int len, int nul)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789/.-_ \n";
	int i;

	for (i = 0; i < len; i++)
		buf[i] = below(f, 10) ? chars[below(f, 36)] : chars[below(f, sizeof(chars) - 1)];
	if (nul)
		buf[len++] = '\0';
	return len;
}

/* One of the disk names (a short random name if none), with its NUL. */
static int rnd_disk(struct fuzz *f, char *buf)
{
	if (!f->ndisks)
		return rnd_string(f, buf, 1 + below(f, 8), 1);
	snprintf(buf, 301, "%s", f->disks[below(f, f->ndisks)]);
	return strlen(buf) + 1;
}

/* A well-formed value of KIND in BUF (random bytes if none); its size. */
static int rnd_value(struct fuzz *f, enum kind kind, unsigned char *buf)
{
	static const uint32_t u32s[] = { 0, 1, HDPROTECT_MAX_TIMEOUT_MS, HDPROTECT_MAX_TIMEOUT_MS + 1 };
	uint64_t v64;
	uint32_t v32;
	int i, len;

	switch (kind) {
	case K_ENUM:
		v32 = below(f, 10) < 8 ? below(f, 4) : below(f, 2) ? below(f, 256) : (uint32_t)rnd(f);
		memcpy(buf, &v32, 4);
		return 4;
	case K_U32:
	case K_S32:
	case K_MASK:
		v32 = below(f, 3) ? u32s[below(f, 4)] : below(f, 2) ? (uint32_t)rnd(f) : 2 + below(f, 49);
		memcpy(buf, &v32, 4);
		return 4;
	case K_U64:
		v64 = below(f, 2) ? rnd(f) : below(f, 100);
		memcpy(buf, &v64, 8);
		return 8;
	case K_STR:
		return rnd_disk(f, (char *)buf);
	case K_FLAG:
	case K_NEST:
		return 0;
	case K_BYTES:
		break;
	}
	len = below(f, 65);
	for (i = 0; i < len; i++)
		buf[i] = rnd(f);
	return len;
}

/*
 * Add one random attribute to MSG, nested ones only above DEPTH 2. A
 * top-level 4-byte HDPROTECT_A_TIMEOUT_MS of a PARK, or an accepted one of a
 * SET, is kept to 1..50 ms so that no park lasts long.
 */
static int fuzz_attr(struct nl_msg *msg, struct fuzz *f, int cmd, int depth)
{
	int type = below(f, 5) ? 1 + below(f, HDPROTECT_A_MAX) :
		   below(f, HDPROTECT_A_MAX + 7);
	int pick = below(f, 100), len, n;
	enum kind kind = attr_kind(type);
	unsigned char buf[320];
	struct nlattr *nest;
	uint32_t ms;

	if ((pick >= 95 || (pick < 35 && kind == K_NEST)) && depth < 2) {
		nest = nla_nest_start(msg, type);
		if (!nest)
			return -1;
		for (n = below(f, 4); n > 0; n--)
			if (fuzz_attr(msg, f, cmd, depth + 1) < 0)
				return -1;
		return nla_nest_end(msg, nest);
	}
	if (pick < 35)			/* well-formed for the type */
		len = rnd_value(f, kind, buf);
	else if (pick < 50)		/* a disk name */
		len = rnd_disk(f, (char *)buf);
	else if (pick < 60)		/* a string, with or without NUL */
		len = rnd_string(f, (char *)buf, below(f, 40), below(f, 2));
	else if (pick < 70)		/* an over-long string */
		len = rnd_string(f, (char *)buf, 40 + below(f, 261), below(f, 2));
	else if (pick < 80 || pick >= 95)	/* nothing */
		len = 0;
	else				/* random bytes */
		len = rnd_value(f, K_BYTES, buf);
	if (!depth && type == HDPROTECT_A_TIMEOUT_MS && len == 4) {
		memcpy(&ms, buf, 4);
		if (cmd == HDPROTECT_CMD_PARK ||
		    (cmd == HDPROTECT_CMD_SET && ms >= 1 && ms <= HDPROTECT_MAX_TIMEOUT_MS))
			ms = 1 + below(f, 50);
		memcpy(buf, &ms, 4);
	}
	return nla_put(msg, type, len, buf);
}

/*
 * A well-formed request (one message in eight): a command of the family
 * with a disk of the list and valid values, so that the state changes
 * often and the model of the SETs has something to check. Parks last
 * 1..50 ms.
 */
static struct nl_msg *fuzz_wellformed(struct fuzz *f)
{
	int cmd = 1 + below(f, 4);
	char disk[320];
	struct nl_msg *msg;
	int err = 0;

	msg = new_msg(4096, 0, cmd, HDPROTECT_GENL_VERSION);
	if (!msg)
		return NULL;
	rnd_disk(f, disk);
	if (cmd != HDPROTECT_CMD_PARK && cmd != HDPROTECT_CMD_UNPARK ? 1 : below(f, 4))
		err = nla_put_string(msg, HDPROTECT_A_DISK, disk);
	if (cmd == HDPROTECT_CMD_SET) {
		if (below(f, 2))
			err = err ?: nla_put_u32(msg, HDPROTECT_A_ENABLED, below(f, 2));
		if (below(f, 2))
			err = err ?: nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 1 + below(f, 50));
		if (below(f, 2))
			err = err ?: nla_put_u32(msg, HDPROTECT_A_METHOD, below(f, 3));
	}
	if (cmd == HDPROTECT_CMD_PARK && below(f, 2))
		err = err ?: nla_put_u32(msg, HDPROTECT_A_TIMEOUT_MS, 1 + below(f, 50));
	if (err) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* A random message: command, flags, version, attributes, truncation. */
static struct nl_msg *fuzz_msg(struct fuzz *f)
{
	int cmd = below(f, 5) ? 1 + below(f, 4) : below(f, 9);
	int flags = 0, ver = HDPROTECT_GENL_VERSION, n, attrs;
	struct nl_msg *msg;

	if (!below(f, 8))
		return fuzz_wellformed(f);

	n = below(f, 10);
	if (n < 2)
		flags = NLM_F_DUMP;
	else if (n == 2)
		flags = below(f, 16) << 8 | (below(f, 2) ? NLM_F_ECHO : 0);
	if (!below(f, 10))
		ver = below(f, 256);
	msg = new_msg(32768, flags, cmd, ver);
	if (!msg)
		return NULL;
	for (n = below(f, 7); n > 0; n--)
		if (fuzz_attr(msg, f, cmd, 0) < 0)
			break;
	attrs = nlmsg_hdr(msg)->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	if (attrs > 0 && !below(f, 10))
		nlmsg_hdr(msg)->nlmsg_len -= 1 + below(f, attrs < 8 ? attrs : 8);
	return msg;
}

/*
 * The kernel accepted MSG: if it is a SET, note in the model what it set.
 * A message the kernel accepted is well-formed at its (maybe truncated)
 * length, and where an attribute repeats, the last one counts, in the
 * kernel as in nla_parse().
 */
static void fuzz_accepted(struct fuzz *f, struct nl_msg *msg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[HDPROTECT_A_MAX + 1];
	struct fuzz_model *m = NULL;
	int i;

	if (gnlh->cmd != HDPROTECT_CMD_SET || (nlh->nlmsg_flags & NLM_F_DUMP) ||
	    genlmsg_parse(nlh, 0, tb, HDPROTECT_A_MAX, NULL) < 0 || !tb[HDPROTECT_A_DISK])
		return;
	for (i = 0; i < f->ndisks; i++)
		if (!strcmp(nla_data(tb[HDPROTECT_A_DISK]), f->disks[i]))
			m = &f->model[i];
	if (!m)
		return;
	if (tb[HDPROTECT_A_ENABLED]) {
		m->has_enabled = 1;
		m->enabled = nla_get_u32(tb[HDPROTECT_A_ENABLED]);
	}
	if (tb[HDPROTECT_A_TIMEOUT_MS]) {
		m->has_timeout = 1;
		m->timeout_ms = nla_get_u32(tb[HDPROTECT_A_TIMEOUT_MS]);
	}
	if (tb[HDPROTECT_A_METHOD]) {
		m->has_method = 1;
		m->method = nla_get_u32(tb[HDPROTECT_A_METHOD]);
	}
}

/* Print the model: "fuzz model disk=D [enabled=E] [timeout_ms=T] [method=M]". */
static void fuzz_print_model(const struct fuzz *f)
{
	const struct fuzz_model *m;
	int i;

	for (i = 0; i < f->ndisks; i++) {
		m = &f->model[i];
		printf("fuzz model disk=%s", f->disks[i]);
		if (m->has_enabled)
			printf(" enabled=%u", m->enabled);
		if (m->has_timeout)
			printf(" timeout_ms=%u", m->timeout_ms);
		if (m->has_method)
			printf(" method=%s", m->method < ARRAY_SIZE(method_names) ?
			       method_names[m->method] : "?");
		printf("\n");
	}
}

/* Seed the fuzzer's generator with splitmix64 of SEED (never 0). */
static void fuzz_seed(struct fuzz *f, uint64_t seed)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	f->s = (z ^ (z >> 31)) ?: 1;
}

/* fuzz seed=S count=N [disk=NAME]... */
static int cmd_fuzz(int argc, char **argv)
{
	/* Outcomes counted: these errnos, then other, then noanswer. */
	static const int errs[] = { 0, EINVAL, ERANGE, EPERM, ENOENT, ENODEV, EOPNOTSUPP };
	const size_t nerrs = ARRAY_SIZE(errs);
	unsigned long tally[ARRAY_SIZE(errs) + 2] = { 0 };
	struct timeval tv = { .tv_sec = FUZZ_WAIT_MS / 1000 };
	int i, have_seed = 0, have_count = 0, err = 0;
	uint64_t seed = 0, count = 0, sent;
	struct fuzz f = { 0 };
	struct nl_msg *msg;
	struct hdp h;
	const char *v;
	struct rx rx;
	size_t j;

	f.disks = calloc(argc, sizeof(*f.disks));
	f.model = calloc(argc, sizeof(*f.model));
	if (!f.disks || !f.model) {
		free(f.disks);
		free(f.model);
		return 1;
	}
	for (i = 1; i < argc && !err; i++) {
		if ((v = opt(argv[i], "seed"))) {
			err = parse_num(v, 64, &seed);
			have_seed = 1;
		} else if ((v = opt(argv[i], "count"))) {
			err = parse_num(v, 32, &count);
			have_count = 1;
		} else if ((v = opt(argv[i], "disk")) && *v)
			f.disks[f.ndisks++] = v;
		else
			err = -1;
	}
	if (err || !have_seed || !have_count) {
		free(f.disks);
		free(f.model);
		return usage();
	}
	printf("fuzz seed=%" PRIu64 " count=%" PRIu64 "\n", seed, count);
	fflush(stdout);
	fuzz_seed(&f, seed);
	if (hdp_open(&h, 0) < 0) {
		free(f.disks);
		free(f.model);
		return 1;
	}
	if (setsockopt(nl_socket_get_fd(h.sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		fprintf(stderr, PROG ": SO_RCVTIMEO: %s\n", strerror(errno));
	for (sent = 0; sent < count; sent++) {
		memset(&rx, 0, sizeof(rx));
		msg = fuzz_msg(&f);
		if (msg) {
			transact(&h, msg, &rx, FUZZ_WAIT_MS);
			if (!rx.noanswer && !rx.error)
				fuzz_accepted(&f, msg);
			nlmsg_free(msg);
		} else {
			rx.error = -ENOMEM;
		}
		if (rx.noanswer) {
			tally[nerrs + 1]++;
			continue;
		}
		for (j = 0; j < nerrs && errs[j] != -rx.error; j++)
			;
		tally[j]++;		/* tally[nerrs]: other */
	}
	fuzz_print_model(&f);
	printf("fuzz done sent=%" PRIu64 " ok=%lu einval=%lu erange=%lu eperm=%lu enoent=%lu "
	       "enodev=%lu eopnotsupp=%lu other=%lu noanswer=%lu\n", sent, tally[0],
	       tally[1], tally[2], tally[3], tally[4], tally[5], tally[6], tally[7], tally[8]);
	nl_socket_free(h.sk);
	free(f.disks);
	free(f.model);
	return 0;
}

static int cmd_batch(int argc, char **argv);

/* The commands, after the optional --as-uid; the first six are requests. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "get", cmd_get }, { "dump", cmd_dump }, { "unpark", cmd_unpark },
	{ "set", cmd_set }, { "park", cmd_park }, { "raw", cmd_raw },
	{ "listen", cmd_listen }, { "listeners", cmd_listeners },
	{ "pipes", cmd_pipes }, { "fuzz", cmd_fuzz },
	{ "batch", cmd_batch },
};

/*
 * batch: run the requests (get, dump, unpark, set, park, raw) of standard
 * input, one per line, each output after a line "> REQUEST". One process
 * for many requests: starting a program is slow in an emulated guest.
 */
static int cmd_batch(int argc, char **argv)
{
	char line[4096], *args[64], *save, *tok;
	int n, code = 0;
	size_t i;

	(void)argv;
	if (argc != 1)
		return usage();
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		printf("> %s\n", line);
		n = 0;
		for (tok = strtok_r(line, " \t", &save); tok && n < 63;
		     tok = strtok_r(NULL, " \t", &save))
			args[n++] = tok;
		args[n] = NULL;
		for (i = 0; n && i < 6; i++)
			if (!strcmp(args[0], commands[i].name))
				break;
		if (!n || i == 6) {
			printf("usage\n");
			code = 2;
		} else if (commands[i].run(n, args)) {
			code = 1;
		}
		fflush(stdout);
	}
	return code;
}

int main(int argc, char **argv)
{
	const char *v;
	uint64_t uid;
	size_t i;

	if (argc > 1 && (v = opt(argv[1], "--as-uid"))) {
		if (parse_num(v, 32, &uid))
			return usage();
		if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0) {
			fprintf(stderr, PROG ": --as-uid=%s: %s\n", v, strerror(errno));
			return 1;
		}
		argc--;
		argv++;
	}
	for (i = 0; argc > 1 && i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return usage();
}
