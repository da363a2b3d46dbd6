// SPDX-License-Identifier: GPL-2.0-only
/*
 * /etc/hdprotect.conf: one "key = value" per line, '#' starts a comment,
 * blank lines are ignored, a key given twice takes its last value. The
 * keys: disks, timeout, method, sensitivity, sources (hdpctl(8)). Lists
 * are separated by spaces. Anything else is refused with the file, the
 * line and what is allowed, and the configuration in force stays.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "format.h"

void conf_defaults(struct guard_conf *conf)
{
	*conf = (struct guard_conf){
		.timeout_ms = GUARD_DEFAULT_TIMEOUT_MS,
		.method = HDP_PARK_AUTO,
		.level = DETECT_MEDIUM,
	};
}

static void free_list(char **list)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

void conf_free(struct guard_conf *conf)
{
	free_list(conf->disks);
	free_list(conf->sources);
	conf->disks = conf->sources = NULL;
}

const char *conf_level_name(enum detect_level level)
{
	switch (level) {
	case DETECT_LOW:
		return "low";
	case DETECT_HIGH:
		return "high";
	default:
		return "medium";
	}
}

static int __attribute__((format(printf, 5, 6)))
bad(char *err, size_t errlen, const char *name, unsigned int line,
    const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "%s, line %u: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

/*
 * A disk: a name from /sys/block (no '/', at most HDP_NAME_MAX bytes) or
 * the absolute path of its device node. A source: an absolute path, or
 * an IIO device's name, iio:deviceN.
 */
static const char *bad_word(const char *key, const char *w)
{
	size_t n;

	if (*w == '/')
		return strlen(w) < PATH_MAX ? NULL : "is too long a path";
	if (*key == 'd')
		return strchr(w, '/') ? "is neither a name from /sys/block nor an absolute path" :
		       strlen(w) > HDP_NAME_MAX ? "is too long for a disk's name" : NULL;
	if (strncmp(w, "iio:device", 10))
		return "is neither an absolute path nor an IIO device's name (iio:deviceN)";
	n = strspn(w + 10, "0123456789");
	return n && !w[10 + n] && n < 10 ? NULL : "is not an IIO device's name (iio:deviceN)";
}

/* "auto" is NULL; else the words of @v, NULL-terminated, each checked. */
static int parse_list(const char *key, char *v, char ***out, const char *name,
		      unsigned int line, char *err, size_t errlen)
{
	size_t n = 0, max = *key == 'd' ? GUARD_MAX_DISKS : GUARD_MAX_SOURCES;
	char **list = NULL, **grown, *w, *save;
	const char *why;

	if (!strcmp(v, "auto")) {
		*out = NULL;
		return 0;
	}
	for (w = strtok_r(v, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		why = !strcmp(w, "auto") ? "is not alone: 'auto' or names, not both" :
		      n == max ? "is one too many" : bad_word(key, w);
		if (why) {
			free_list(list);
			return bad(err, errlen, name, line, "%s: '%s' %s%s", key, w, why,
				   n == max ? (*key == 'd' ? " (at most 64 disks)" :
					       " (at most 16 sources)") : "");
		}
		grown = realloc(list, (n + 2) * sizeof(*list));
		if (!grown)
			goto nomem;
		list = grown;
		list[n] = strdup(w);
		if (!list[n])
			goto nomem;
		list[++n] = NULL;
	}
	*out = list;
	return 0;
nomem:
	free_list(list);
	return -ENOMEM;
}

/* One line's "key = value" into @c; 1 if the line is understood. */
static int parse_line(char *l, struct guard_conf *c, const char *name,
		      unsigned int n, char *err, size_t errlen)
{
	char *key, *v, *eq, **list = NULL, *p;
	int ret;

	eq = strchr(l, '=');
	if (!eq)
		return bad(err, errlen, name, n,
			   "'%s' is not 'key = value' (keys: disks, timeout, method, sensitivity, sources)",
			   l);
	*eq = '\0';
	key = trim(l);
	v = trim(eq + 1);
	if (!*v)
		return bad(err, errlen, name, n, "%s has no value", key);
	for (p = v; *p; p++)
		if ((unsigned char)*p < ' ' && *p != '\t')
			return bad(err, errlen, name, n,
				   "%s: its value holds a control character (byte %u)", key,
				   (unsigned char)*p);
	if (!strcmp(key, "disks") || !strcmp(key, "sources")) {
		ret = parse_list(key, v, &list, name, n, err, errlen);
		if (ret)
			return ret;
		if (*key == 'd') {
			free_list(c->disks);
			c->disks = list;
		} else {
			free_list(c->sources);
			c->sources = list;
		}
	} else if (!strcmp(key, "timeout")) {
		unsigned int ms = 0;

		ret = hdpctl_parse_seconds(v, &ms);
		if (ret == -EINVAL)
			return bad(err, errlen, name, n,
				   "timeout '%s' is not a number of seconds (0.5 to 30, at most 3 decimals)",
				   v);
		if (ret || ms < GUARD_TIMEOUT_MIN_MS || ms > GUARD_TIMEOUT_MAX_MS)
			return bad(err, errlen, name, n,
				   "timeout '%s' is out of range: 0.5 to 30 seconds (a park must outlast a 1 m fall, 0.45 s; the kernel holds a park 30 s at most)",
				   v);
		c->timeout_ms = ms;
	} else if (!strcmp(key, "method")) {
		if (hdp_method_from_name(v, &c->method))
			return bad(err, errlen, name, n,
				   "method '%s' is not auto, unload or standby", v);
	} else if (!strcmp(key, "sensitivity")) {
		if (!strcmp(v, "low"))
			c->level = DETECT_LOW;
		else if (!strcmp(v, "medium"))
			c->level = DETECT_MEDIUM;
		else if (!strcmp(v, "high"))
			c->level = DETECT_HIGH;
		else
			return bad(err, errlen, name, n,
				   "sensitivity '%s' is not low, medium or high", v);
	} else {
		return bad(err, errlen, name, n,
			   "unknown key '%s' (keys: disks, timeout, method, sensitivity, sources)",
			   key);
	}
	return 0;
}

int conf_parse(FILE *f, const char *name, struct guard_conf *conf,
	       char *err, size_t errlen)
{
	struct guard_conf c;
	char *line = NULL, *l;
	size_t cap = 0;
	unsigned int n = 0;
	int ret = 0;

	conf_defaults(&c);
	while (getline(&line, &cap, f) >= 0) {
		n++;
		l = line + strcspn(line, "#");
		*l = '\0';
		l = trim(line);
		if (!*l)
			continue;
		ret = parse_line(l, &c, name, n, err, errlen);
		if (ret)
			break;
	}
	free(line);
	if (ret) {
		conf_free(&c);
		return ret;
	}
	conf_free(conf);
	*conf = c;
	return 0;
}

int conf_load(const char *path, struct guard_conf *conf, char *err,
	      size_t errlen)
{
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (ret == -ENOENT && !strcmp(path, GUARD_CONF_PATH)) {
			conf_free(conf);
			conf_defaults(conf);
			return 0;
		}
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = conf_parse(f, path, conf, err, errlen);
	fclose(f);
	return ret;
}
