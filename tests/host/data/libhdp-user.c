// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program built against an installed libhdp through pkg-config, shared
 * and static (tests/host/test-libhdp). It asks for a disk's state, which
 * goes through libnl to the kernel: on a kernel without hdprotect that
 * fails, and the program prints what the library says about it.
 */
#include <errno.h>
#include <stdio.h>

#include <hdp.h>

int main(void)
{
	struct hdp_disk *disk;
	struct hdp_ctx *ctx;
	int err;

	err = hdp_new(&ctx);
	if (err) {
		fprintf(stderr, "hdp_new: %s\n", hdp_strerror(err));
		return 1;
	}
	err = hdp_status(ctx, "sda", &disk);
	hdp_disk_free(disk);
	hdp_free(ctx);
	printf("status %s: %s\n", err ? "failed" : "ok", hdp_strerror(err));
	printf("state %s\n", hdp_state_name(HDP_DISK_PARKED));
	return 0;
}
