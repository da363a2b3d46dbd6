// SPDX-License-Identifier: GPL-2.0-only
/*
 * genl-resolve: print the id of a generic netlink family, through
 * libnl-genl-3, the way libhdp resolves "hdprotect".
 *
 *   genl-resolve FAMILY [GROUP]
 *
 * Prints "FAMILY ID" (and "GROUP ID"); exits 1 if the family or group is
 * unknown, 2 on a usage error.
 */
#include <stdio.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

int main(int argc, char **argv)
{
	struct nl_sock *sk;
	int id, grp = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: genl-resolve FAMILY [GROUP]\n");
		return 2;
	}
	sk = nl_socket_alloc();
	if (!sk) {
		fprintf(stderr, "genl-resolve: out of memory\n");
		return 1;
	}
	if (genl_connect(sk) < 0) {
		fprintf(stderr, "genl-resolve: cannot open a generic netlink socket\n");
		nl_socket_free(sk);
		return 1;
	}
	id = genl_ctrl_resolve(sk, argv[1]);
	if (id >= 0 && argc == 3)
		grp = genl_ctrl_resolve_grp(sk, argv[1], argv[2]);
	nl_socket_free(sk);
	if (id < 0) {
		fprintf(stderr, "genl-resolve: family %s: %s\n", argv[1], nl_geterror(id));
		return 1;
	}
	if (grp < 0) {
		fprintf(stderr, "genl-resolve: group %s of %s: %s\n", argv[2], argv[1],
			nl_geterror(grp));
		return 1;
	}
	printf("%s %d\n", argv[1], id);
	if (argc == 3)
		printf("%s %d\n", argv[2], grp);
	return 0;
}
