/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libhdp internals: the decoders of the kernel's messages (decode.c), kept
 * apart from the sockets (libhdp.c) so that tests can feed them messages
 * built in memory. Not exported from the shared library.
 */
#ifndef HDP_INTERNAL_H
#define HDP_INTERNAL_H

#include <linux/netlink.h>

#include "hdp.h"

/*
 * Decode a GET reply. Return: 0, or -EBADMSG if the message is malformed
 * or lacks the disk's name.
 */
int hdp_decode_disk(const struct nlmsghdr *nlh, struct hdp_disk *d);

/* An event and the disk it points at. */
struct hdp_event_buf {
	struct hdp_monitor_event ev;
	struct hdp_disk disk;
};

/*
 * Decode an HDPROTECT_CMD_EVENT message into @eb (@eb->ev.disk points at
 * @eb->disk). Return: 0; 1 for an event of a type this library does not
 * know (from a newer kernel: skip it, but count its sequence number,
 * which @eb->ev.seq holds); -EBADMSG.
 */
int hdp_decode_event(const struct nlmsghdr *nlh, struct hdp_event_buf *eb);

/*
 * An array of pointers to the @n objects of @size bytes at @v, NULL after
 * the last, with copies of the objects in the same block, which free()
 * releases. Return: the array, or NULL if out of memory.
 */
void *hdp_ptr_array(const void *v, size_t n, size_t size);

/*
 * Decode a PARK reply: one outcome per HDPROTECT_A_OUTCOME, in an array for
 * free(). Return: 0 (*@n may be 0, *@out then NULL), -ENOMEM, -EBADMSG.
 */
int hdp_decode_outcomes(const struct nlmsghdr *nlh, struct hdp_outcome **out,
			size_t *n);

/*
 * @d, a disk's state (a GET reply, or the disk of a PARKED event), answers
 * the outcome among @o of that disk and cookie, if it still waits (result
 * -EINPROGRESS) and @d's result is final: the outcome takes its result,
 * method and completion time. Return: whether an outcome was answered.
 */
bool hdp_outcome_answer(struct hdp_outcome *o, size_t n,
			const struct hdp_disk *d);

/*
 * As hdp_outcome_answer() with the disk of @ev, if @ev is a PARKED event
 * without RENEWED (the device's answer); any other event answers nothing.
 */
bool hdp_event_answers(struct hdp_outcome *o, size_t n,
		       const struct hdp_monitor_event *ev);

/*
 * For the unit tests: open @ctx's monitor on a generic netlink socket that
 * joins no group and takes messages of type @family as the family's
 * events, sent to its port by the kernel or, if @any_sender, by anyone.
 * Return: the socket's file descriptor, or a negative errno (-EBUSY if a
 * monitor is open).
 */
int hdp_monitor_open_raw(struct hdp_ctx *ctx, int family, bool any_sender);

/*
 * For the unit tests: send @ctx's requests to the port @port, as messages
 * of type @family, rather than to the kernel; the context's request
 * socket is made if need be. Return: 0, or a negative errno.
 */
int hdp_requests_raw(struct hdp_ctx *ctx, int family, uint32_t port);

/*
 * A monitor's event numbering: @seq arrived, *@next was expected (if
 * *@have). Return: how many events were lost before @seq (0 if none),
 * with the first lost in *@first; *@next and *@have move on. A number
 * from the past (a wrapped or restarted count) loses nothing.
 */
uint64_t hdp_seq_advance(uint64_t *next, bool *have, uint64_t seq,
			 uint64_t *first);

/*
 * The extended ACK message of an NLMSG_ERROR or NLMSG_DONE message into
 * @buf (empty if none), and into *@attr_off the offset in the request of
 * the attribute at fault (0 if none); @off is where the TLVs would start
 * after the header (the echoed request, unless capped).
 */
void hdp_extack_message(const struct nlmsghdr *nlh, size_t off, char *buf,
			size_t len, uint32_t *attr_off);

/*
 * The disk named by the HDPROTECT_A_DISK attribute at offset @off of the request
 * @req (an extended ACK's attr_off) into @name (HDP_NAME_MAX + 1 bytes).
 * Return: 0, or -ENOENT if no well-formed HDPROTECT_A_DISK is there.
 */
int hdp_request_disk(const struct nlmsghdr *req, uint32_t off, char *name);

/*
 * The name of a setting attribute (enabled, timeout_ms, method,
 * max_hold_ms) at offset @off of the request @req (an extended ACK's
 * attr_off), or NULL.
 */
const char *hdp_request_attr(const struct nlmsghdr *req, uint32_t off);

#endif /* HDP_INTERNAL_H */
