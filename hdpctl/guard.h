/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl guard: the daemon that reads the accelerometers and parks every
 * protected disk at once when the machine falls or takes a shock.
 */
#ifndef HDPCTL_GUARD_H
#define HDPCTL_GUARD_H

#include <stdbool.h>

/**
 * struct guard_opts - how the daemon was started
 * @config: the configuration file (GUARD_CONF_PATH by default)
 * @check: print what it would guard with, and exit
 * @verbose: log every renewal of a park and every device's answer
 */
struct guard_opts {
	const char *config;
	bool check;
	bool verbose;
};

/* Return: the exit status: 0 also when there is nothing to guard. */
int guard_main(const struct guard_opts *opts);

#endif /* HDPCTL_GUARD_H */
