/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hdpctl's side of the guard's D-Bus interface (bus.h): pause, resume,
 * and the guard's state for hdpctl status.
 */
#ifndef HDPCTL_BUSCLIENT_H
#define HDPCTL_BUSCLIENT_H

#include <stddef.h>
#include <stdio.h>

/**
 * guard_call() - call one of the guard's methods
 * @method: "Pause", "Resume" or "SetSensitivity"
 * @seconds: Pause's argument; @level: SetSensitivity's
 * @err: @len: what went wrong, for a person
 *
 * Return: 0; -ESRCH when no guard is on the system bus (or there is no
 * bus); -EACCES when refused; another negative errno, with @err.
 */
int guard_call(const char *method, unsigned int seconds, const char *level,
	       char *err, size_t len);

/**
 * guard_print_state() - the guard's state, as hdpctl status prints it
 * Return: 0; -ESRCH when no guard is on the system bus; else a negative
 * errno. Prints nothing unless 0.
 */
int guard_print_state(FILE *out);

#endif /* HDPCTL_BUSCLIENT_H */
