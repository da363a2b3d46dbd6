/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl guard's configuration, /etc/hdprotect.conf (hdpctl(8),
 * CONFIGURATION): "key = value" lines, '#' comments. Parsing only: no
 * device is looked at here, so that the host tests feed it text.
 */
#ifndef HDPCTL_CONF_H
#define HDPCTL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <hdp.h>

#include "detect.h"

#define GUARD_CONF_PATH		"/etc/hdprotect.conf"
/* A park's length after the last motion: see hdpctl-guard(8), timeout. */
#define GUARD_DEFAULT_TIMEOUT_MS	2000
/*
 * Its limits. A park must outlast a whole fall even when only the fall's
 * first sample calls for it (/dev/freefall tells of a fall once): a 1 m
 * drop falls for 0.45 s, so 0.5 s at least; a shorter one would re-park
 * again and again within one fall. At most the kernel's own limit of a
 * park's timeout, 30 s (DESIGN: the continuous hold's default cap).
 */
#define GUARD_TIMEOUT_MIN_MS		500
#define GUARD_TIMEOUT_MAX_MS		30000
/* How many disks and sources a configuration may name. */
#define GUARD_MAX_DISKS			64
#define GUARD_MAX_SOURCES		16

/**
 * struct guard_conf - what the guard protects, and how
 * @disks: the disks named (paths of block devices or names from
 *	/sys/block), NULL-terminated; NULL: "auto", every rotational,
 *	non-removable disk
 * @timeout_ms: the length of a park after the last motion
 * @method: how the disks park
 * @level: how readily it parks
 * @sources: the accelerometers named (an event device, an IIO device's
 *	name or directory, /dev/freefall, a position file), NULL-terminated;
 *	NULL: "auto", every accelerometer found
 */
struct guard_conf {
	char **disks;
	unsigned int timeout_ms;
	enum hdp_park_method method;
	enum detect_level level;
	char **sources;
};

/* The defaults: auto disks and sources, 2 s, auto method, medium. */
void conf_defaults(struct guard_conf *conf);

/**
 * conf_parse() - read a configuration
 * @f: the text
 * @name: its file's name, for messages
 * @conf: where to store it (defaults first); untouched on failure
 * @err: where to write what is wrong: the file, the line and the fix
 * @errlen: its size
 *
 * Every value is checked here, against hdpctl-guard(8)'s limits: a
 * timeout out of range, "auto" beside names, a disk or source that can
 * be no such thing, too many of them, control characters.
 *
 * Return: 0; -EINVAL for a line that is not understood or a value out
 * of range, with @err; -ENOMEM.
 */
int conf_parse(FILE *f, const char *name, struct guard_conf *conf,
	       char *err, size_t errlen);

/**
 * conf_load() - read a configuration file
 * @path: the file; a missing GUARD_CONF_PATH means the defaults, any
 *	other missing file is an error
 * @conf, @err, @errlen: as conf_parse()
 *
 * Return: as conf_parse(), or the negative errno of opening @path.
 */
int conf_load(const char *path, struct guard_conf *conf, char *err,
	      size_t errlen);

void conf_free(struct guard_conf *conf);

const char *conf_level_name(enum detect_level level);

#endif /* HDPCTL_CONF_H */
