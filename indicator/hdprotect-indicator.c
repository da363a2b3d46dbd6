// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdprotect-indicator: the disks' protection in the desktop's panel.
 *
 * One StatusNotifierItem, through libayatana-appindicator3: Debian's
 * library for it, which exports the menu over D-Bus (dbusmenu) for the
 * panels that show StatusNotifierItems (KDE, GNOME with its AppIndicator
 * extension, Xfce, MATE, LXQt), registers again when the panel's
 * watcher restarts, and falls back to an XEmbed tray icon where there is
 * no watcher. (A StatusNotifierItem of our own over GDBus would add a
 * tooltip, which the library lacks, at the cost of a dbusmenu server of
 * our own: the menu's first lines say what a tooltip would, and the
 * item's title sums it up.)
 *
 * Its icon is one of four (icons/, the freedesktop icon naming spec's
 * "-symbolic" status icons): protected, parked, paused and not
 * protected. What it shows comes from two places:
 *  - the kernel, through libhdp's monitor (as libhdp/examples/hdp-applet.c
 *    does it): the disks under protection, parked or not, by whoever;
 *    listed again after a loss of events or when hdprotect comes back;
 *  - the guard, through its D-Bus interface (org.hdprotect.Guard1): a
 *    GDBusProxy that follows the name, so that a guard that appears,
 *    vanishes or restarts is seen.
 * A park of the guard's is told in a notification
 * (org.freedesktop.Notifications, by libnotify) with its cause and
 * disks, one per NOTE_GAP_US at most (a long fall is one park, renewed).
 * A loss of protection (no hdprotect, no disk enabled, no guard, or the
 * guard protects nothing) is told once it has lasted LOSS_MS, so that a
 * guard restarting or an indicator started before the guard says
 * nothing; its end is told only after a loss was. A pause is the user's
 * and no loss. The menu pauses the guard (1 minute, 10 minutes, or until
 * resumed: the guard's longest pause, MaxPause) and resumes it; polkit
 * decides (its agent may ask for a password), and a refusal is told.
 *
 * Changes are shown from one idle callback (update_soon()): a long fall's
 * renewals, tens of events a second, cost one look. A disk's line in the
 * menu is made once and relabelled, so that an open menu does not flicker
 * in the panel. One indicator runs per session (its name on the session
 * bus, INDICATOR_NAME).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libintl.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <libayatana-appindicator/app-indicator.h>
#include <libnotify/notify.h>
#include <hdp.h>

#ifndef LOCALEDIR
#define LOCALEDIR	"/usr/share/locale"
#endif
#define DOMAIN		"hdprotect-indicator"
#define GUARD_NAME	"org.hdprotect.Guard1"
#define GUARD_PATH	"/org/hdprotect/Guard1"
#define GUARD_IFACE	"org.hdprotect.Guard1"
#define INDICATOR_NAME	"org.hdprotect.Indicator"
/* One park notification per 5 s at most. */
#define NOTE_GAP_US	(5 * G_USEC_PER_SEC)
/* A loss of protection is told once it lasted that long. */
#define LOSS_MS		5000
/* The monitor opened again after a failure, that often. */
#define REOPEN_S	5
/* A method call may wait for polkit's agent: the guard waits 120 s. */
#define CALL_MS		130000

enum look {
	LOOK_NONE,		/* nothing shown yet */
	LOOK_PROTECTED,
	LOOK_PARKED,
	LOOK_PAUSED,
	LOOK_UNPROTECTED,
};

static const char *const icons[] = {
	[LOOK_PROTECTED] = "hdprotect-protected-symbolic",
	[LOOK_PARKED] = "hdprotect-parked-symbolic",
	[LOOK_PAUSED] = "hdprotect-paused-symbolic",
	[LOOK_UNPROTECTED] = "hdprotect-unprotected-symbolic",
};

struct indicator {
	/* the kernel's view */
	struct hdp_ctx *ctx;
	GHashTable *view;		/* disk name -> struct hdp_disk */
	bool kernel;			/* hdprotect is there */
	guint idle, watch, reopen;
	/* the guard */
	GDBusProxy *guard;
	/* what is shown */
	AppIndicator *ai;
	GtkWidget *menu, *state_item, *last_item;
	GtkWidget *pause_items[3], *resume_item;
	GHashTable *disk_items;		/* disk name -> its menu item */
	enum look look;
	char why[256];
	guint update_idle;
	/* notifications: parks, protection lost or back, refusals */
	NotifyNotification *note_park, *note_state, *note_error;
	bool park_baseline;		/* LastPark seen once with a guard */
	guint64 park_seen;		/* LastPark's Time seen last */
	gint64 note_us;			/* when the last park was told */
	guint loss_timer;		/* a loss that has not lasted LOSS_MS */
	bool loss_told;
	bool ever_protected;		/* (a machine never protected loses nothing) */
	GMainLoop *loop;
};

static void update_soon(struct indicator *ind);
static void open_monitor(struct indicator *ind);

/* ---- the kernel: libhdp's monitor ---- */

static void put_disk(GHashTable *view, const struct hdp_disk *d)
{
	g_hash_table_replace(view, g_strdup(d->name), g_memdup2(d, sizeof(*d)));
}

static int fill_view(struct indicator *ind)
{
	struct hdp_disk **disks;
	size_t i;
	int err;

	err = hdp_list(ind->ctx, &disks, NULL);
	if (err)
		return err;
	g_hash_table_remove_all(ind->view);
	for (i = 0; disks[i]; i++)
		if (disks[i]->state != HDP_DISK_GONE)
			put_disk(ind->view, disks[i]);
	hdp_disks_free(disks);
	ind->kernel = true;
	return 0;
}

static int on_event(const struct hdp_monitor_event *ev, void *data)
{
	struct indicator *ind = data;
	const char *name = ev->disk->name;

	switch (ev->type) {
	case HDP_EV_KERNEL_GONE:
		g_hash_table_remove_all(ind->view);
		ind->kernel = false;
		break;
	case HDP_EV_LOSS:
	case HDP_EV_KERNEL_BACK:
		if (fill_view(ind))
			g_hash_table_remove_all(ind->view);
		break;
	case HDP_EV_REMOVED:
		g_hash_table_remove(ind->view, name);
		break;
	case HDP_EV_PARKED:
	case HDP_EV_UNPARKED:
	case HDP_EV_CHANGED:
	case HDP_EV_ADDED:
		/* (a disk parked through unload_heads has no item: not shown) */
		if (ev->type == HDP_EV_ADDED || g_hash_table_contains(ind->view, name))
			put_disk(ind->view, ev->disk);
		break;
	default:
		break;
	}
	return 0;
}

static gboolean on_pending(gpointer data);

static gboolean on_reopen(gpointer data)
{
	struct indicator *ind = data;

	ind->reopen = 0;
	open_monitor(ind);
	return G_SOURCE_REMOVE;
}

static void dispatch(struct indicator *ind)
{
	int ret = hdp_monitor_dispatch(ind->ctx, on_event, ind);

	if (ret < 0 && ret != -EAGAIN) {
		/* Not a loop of failures: closed, and opened again later. */
		g_warning("hdprotect's events: %s; listening again in %d s", hdp_strerror(ret),
			  REOPEN_S);
		if (ind->watch)
			g_source_remove(ind->watch);
		ind->watch = 0;
		hdp_monitor_close(ind->ctx);
		g_hash_table_remove_all(ind->view);
		ind->kernel = false;
		if (!ind->reopen)
			ind->reopen = g_timeout_add_seconds(REOPEN_S, on_reopen, ind);
	} else if (!ind->idle && hdp_monitor_pending(ind->ctx) > 0) {
		ind->idle = g_idle_add(on_pending, ind);
	}
	update_soon(ind);
}

static gboolean on_pending(gpointer data)
{
	struct indicator *ind = data;

	ind->idle = 0;
	dispatch(ind);
	return G_SOURCE_REMOVE;
}

static gboolean on_events(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd, (void)cond;
	dispatch(data);
	return G_SOURCE_CONTINUE;
}

/* The monitor first, then the list: no change falls in between. */
static void open_monitor(struct indicator *ind)
{
	int fd = hdp_monitor_open(ind->ctx);

	if (fd < 0) {
		g_warning("cannot listen to hdprotect's events: %s; trying again in %d s",
			  hdp_strerror(fd), REOPEN_S);
		ind->reopen = g_timeout_add_seconds(REOPEN_S, on_reopen, ind);
		return;
	}
	fill_view(ind);	/* without hdprotect, HDP_EV_KERNEL_GONE says so */
	ind->watch = g_unix_fd_add(fd, G_IO_IN, on_events, ind);
	if (hdp_monitor_pending(ind->ctx) > 0 && !ind->idle)
		ind->idle = g_idle_add(on_pending, ind);
	update_soon(ind);
}

/* ---- the guard's properties ---- */

/* A property of the guard of @type, or NULL (no guard, no such property). */
static GVariant *guard_prop(struct indicator *ind, const char *prop, const GVariantType *type)
{
	GVariant *v;

	if (!ind->guard)
		return NULL;
	v = g_dbus_proxy_get_cached_property(ind->guard, prop);
	if (v && !g_variant_is_of_type(v, type)) {
		g_variant_unref(v);
		v = NULL;
	}
	return v;
}

static char *guard_string(struct indicator *ind, const char *prop)
{
	GVariant *v = guard_prop(ind, prop, G_VARIANT_TYPE_STRING);
	char *s = v ? g_variant_dup_string(v, NULL) : NULL;

	if (v)
		g_variant_unref(v);
	return s;
}

static bool guard_running(struct indicator *ind)
{
	char *owner = ind->guard ? g_dbus_proxy_get_name_owner(ind->guard) : NULL;
	bool running = owner != NULL;

	g_free(owner);
	return running;
}

/* A time in µs since the epoch, as the locale writes a time of day. */
static char *time_of_day(guint64 us)
{
	GDateTime *dt = g_date_time_new_from_unix_local((gint64)(us / G_USEC_PER_SEC));
	char *s = dt ? g_date_time_format(dt, "%X") : NULL;

	if (dt)
		g_date_time_unref(dt);
	return s ? s : g_strdup("?");
}

/* "14:32:05, free fall on /dev/input/event3: sda sdb (12.5 ms)" */
static bool last_park(struct indicator *ind, guint64 *time_us, char *buf, size_t len)
{
	GVariant *v = guard_prop(ind, "LastPark", G_VARIANT_TYPE("a{sv}"));
	const char *cause = "", *sensor = "";
	g_autofree char *disks = NULL, *when = NULL;
	g_autofree const char **list = NULL;
	double ms = 0;

	*time_us = 0;
	if (!v)
		return false;
	if (!g_variant_lookup(v, "Time", "t", time_us)) {
		g_variant_unref(v);
		return false;
	}
	g_variant_lookup(v, "Cause", "&s", &cause);
	g_variant_lookup(v, "Sensor", "&s", &sensor);
	g_variant_lookup(v, "LatencyMs", "d", &ms);
	if (g_variant_lookup(v, "Disks", "^a&s", &list))
		disks = g_strjoinv(" ", (char **)list);
	when = time_of_day(*time_us);
	/* TRANSLATORS: the last park: its time, its cause (the guard's words:
	 * "free fall", "shock", "tilt"), the sensor, the disks, the delay */
	snprintf(buf, len, _("%s, %s on %s: %s (%.1f ms)"), when, cause, sensor,
		 disks ? disks : "", ms);
	g_variant_unref(v);
	return true;
}

/* ---- what is shown ---- */

static void notify(NotifyNotification **note, const char *summary, const char *body,
		   const char *icon, const char *category, bool transient)
{
	GError *err = NULL;

	if (!*note)
		*note = notify_notification_new(summary, body, icon);
	else
		notify_notification_update(*note, summary, body, icon);
	notify_notification_set_category(*note, category);
	notify_notification_set_hint(*note, "desktop-entry",
				     g_variant_new_string("hdprotect-indicator"));
	if (transient)
		notify_notification_set_hint(*note, "transient", g_variant_new_boolean(TRUE));
	if (!notify_notification_show(*note, &err)) {
		g_warning("cannot show a notification: %s", err->message);
		g_error_free(err);
	}
}

/*
 * How things are: the look and why, from the kernel and the guard; and
 * whether the disks are protected (a park and a pause are no loss).
 */
static enum look judge(struct indicator *ind, char *why, size_t len, bool *protected)
{
	g_autofree char *state = NULL, *reason = NULL, *until = NULL;
	GVariant *v;
	GHashTableIter it;
	gpointer value;
	bool parked = false, enabled = false;

	g_hash_table_iter_init(&it, ind->view);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hdp_disk *d = value;

		parked |= d->state == HDP_DISK_PARKED;
		enabled |= d->enabled;
	}
	state = guard_running(ind) ? guard_string(ind, "State") : NULL;
	reason = guard_string(ind, "StateReason");
	*protected = ind->kernel && enabled && state &&
		     (!strcmp(state, "guarding") || !strcmp(state, "parked") ||
		      !strcmp(state, "paused"));
	if (parked || (state && !strcmp(state, "parked"))) {
		snprintf(why, len, "%s", _("Parked: the disks' heads are off the platters"));
		return LOOK_PARKED;
	}
	if (!ind->kernel) {
		snprintf(why, len, "%s", _("Not protected: hdprotect is not loaded"));
		return LOOK_UNPROTECTED;
	}
	if (!enabled) {
		snprintf(why, len, "%s", _("Not protected: no disk is enabled"));
		return LOOK_UNPROTECTED;
	}
	if (!state) {
		snprintf(why, len, "%s", _("Not protected: the guard is not running"));
		return LOOK_UNPROTECTED;
	}
	if (!strcmp(state, "paused")) {
		guint64 us = 0;

		v = guard_prop(ind, "PausedUntil", G_VARIANT_TYPE_UINT64);
		if (v) {
			us = g_variant_get_uint64(v);
			g_variant_unref(v);
		}
		until = time_of_day(us);
		/* TRANSLATORS: %s: a time of day */
		snprintf(why, len, _("Paused until %s"), until);
		return LOOK_PAUSED;
	}
	if (!strcmp(state, "guarding")) {
		snprintf(why, len, "%s", _("Protected"));
		return LOOK_PROTECTED;
	}
	/* TRANSLATORS: %s: the guard's reason, in its words (English) */
	snprintf(why, len, _("Not protected: %s"), reason ? reason : "");
	return LOOK_UNPROTECTED;
}

/* The menu's disks: one line each after the state's, made once, relabelled. */
static void update_disks(struct indicator *ind)
{
	GList *names = g_list_sort(g_hash_table_get_keys(ind->view), (GCompareFunc)strcmp), *l;
	GHashTableIter it;
	gpointer key, value;
	int pos = 1;

	/* Disks gone from the view: their lines go. */
	g_hash_table_iter_init(&it, ind->disk_items);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		if (!g_hash_table_contains(ind->view, key)) {
			gtk_widget_destroy(value);
			g_hash_table_iter_remove(&it);
		}
	}
	for (l = names; l; l = l->next, pos++) {
		const struct hdp_disk *d = g_hash_table_lookup(ind->view, l->data);
		GtkWidget *item = g_hash_table_lookup(ind->disk_items, d->name);
		char label[128];

		/* TRANSLATORS: a disk's line: its name, and its state */
		snprintf(label, sizeof(label), _("%s: %s"), d->name,
			 d->state == HDP_DISK_PARKED ? C_("disk", "parked") :
			 d->enabled ? C_("disk", "protected") : C_("disk", "not enabled"));
		if (!item) {
			item = gtk_menu_item_new_with_label(label);
			gtk_widget_set_sensitive(item, FALSE);
			gtk_menu_shell_insert(GTK_MENU_SHELL(ind->menu), item, pos);
			gtk_widget_show(item);
			g_hash_table_insert(ind->disk_items, g_strdup(d->name), item);
		} else if (strcmp(gtk_menu_item_get_label(GTK_MENU_ITEM(item)), label)) {
			gtk_menu_item_set_label(GTK_MENU_ITEM(item), label);
		}
	}
	g_list_free(names);
}

static void set_label(GtkWidget *item, const char *label)
{
	if (strcmp(gtk_menu_item_get_label(GTK_MENU_ITEM(item)), label))
		gtk_menu_item_set_label(GTK_MENU_ITEM(item), label);
}

static gboolean on_loss(gpointer data)
{
	struct indicator *ind = data;

	ind->loss_timer = 0;
	ind->loss_told = true;
	notify(&ind->note_state, _("Disk protection lost"), ind->why, icons[LOOK_UNPROTECTED],
	       "device.error", false);
	return G_SOURCE_REMOVE;
}

static void update(struct indicator *ind)
{
	char why[256], last[512], line[600];
	bool protected, guard = guard_running(ind), paused;
	enum look look = judge(ind, why, sizeof(why), &protected);
	g_autofree char *state = guard ? guard_string(ind, "State") : NULL;
	guint64 t = 0;
	size_t i;

	paused = state && !strcmp(state, "paused");
	update_disks(ind);
	set_label(ind->state_item, why);
	if (last_park(ind, &t, last, sizeof(last))) {
		snprintf(line, sizeof(line), _("Last park: %s"), last);
		set_label(ind->last_item, line);
		gtk_widget_show(ind->last_item);
	} else {
		gtk_widget_hide(ind->last_item);
	}
	for (i = 0; i < G_N_ELEMENTS(ind->pause_items); i++)
		gtk_widget_set_sensitive(ind->pause_items[i], guard && !paused);
	gtk_widget_set_sensitive(ind->resume_item, guard && paused);
	if (look != ind->look || strcmp(why, ind->why)) {
		app_indicator_set_title(ind->ai, why);
		app_indicator_set_icon_full(ind->ai, icons[look], why);
		app_indicator_set_attention_icon_full(ind->ai, icons[LOOK_PARKED], why);
		app_indicator_set_status(ind->ai, look == LOOK_PARKED ?
					 APP_INDICATOR_STATUS_ATTENTION :
					 APP_INDICATOR_STATUS_ACTIVE);
		snprintf(ind->why, sizeof(ind->why), "%s", why);
		ind->look = look;
	}
	/*
	 * A park of the guard's, new since the first look at a guard (the
	 * park before the indicator started is not news): told, once per
	 * NOTE_GAP_US at most.
	 */
	if (guard && state) {
		if (ind->park_baseline && t && t != ind->park_seen &&
		    g_get_monotonic_time() - ind->note_us >= NOTE_GAP_US) {
			notify(&ind->note_park, _("Disks parked"), last, icons[LOOK_PARKED],
			       "device", true);
			ind->note_us = g_get_monotonic_time();
		}
		ind->park_seen = t;
		ind->park_baseline = true;
	}
	/* A loss, told once it lasted; its end, if it was told. */
	ind->ever_protected |= protected;
	if (!protected && ind->ever_protected && !ind->loss_timer && !ind->loss_told)
		ind->loss_timer = g_timeout_add(LOSS_MS, on_loss, ind);
	if (protected && ind->loss_timer) {
		g_source_remove(ind->loss_timer);
		ind->loss_timer = 0;
	}
	if (protected && ind->loss_told) {
		ind->loss_told = false;
		notify(&ind->note_state, _("Disks protected again"), why, icons[LOOK_PROTECTED],
		       "device", false);
	}
}

static gboolean on_update(gpointer data)
{
	struct indicator *ind = data;

	ind->update_idle = 0;
	update(ind);
	return G_SOURCE_REMOVE;
}

/* Shown once the events and signals queued now are handled. */
static void update_soon(struct indicator *ind)
{
	if (!ind->update_idle)
		ind->update_idle = g_idle_add(on_update, ind);
}

/* ---- the guard: follow it, pause it ---- */

static void on_guard_changed(GDBusProxy *proxy, GVariant *changed, GStrv invalidated,
			     gpointer data)
{
	(void)proxy, (void)changed, (void)invalidated;
	update_soon(data);
}

static void on_owner(GObject *obj, GParamSpec *pspec, gpointer data)
{
	(void)obj, (void)pspec;
	update_soon(data);
}

static void on_called(GObject *obj, GAsyncResult *res, gpointer data)
{
	struct indicator *ind = data;
	GError *err = NULL;
	GVariant *ret;

	ret = g_dbus_proxy_call_finish(G_DBUS_PROXY(obj), res, &err);
	if (ret) {
		g_variant_unref(ret);
		return;
	}
	g_dbus_error_strip_remote_error(err);
	notify(&ind->note_error, _("The guard did not do it"), err->message,
	       "dialog-error-symbolic", "device.error", false);
	g_error_free(err);
}

static void call_guard(struct indicator *ind, const char *method, GVariant *args)
{
	if (!ind->guard)
		return;
	g_dbus_proxy_call(ind->guard, method, args,
			  G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, CALL_MS, NULL,
			  on_called, ind);
}

static void on_pause(GtkMenuItem *item, gpointer data)
{
	struct indicator *ind = data;
	guint seconds = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(item), "seconds"));
	GVariant *max;

	/* "until resumed": the guard's longest pause */
	if (!seconds) {
		max = guard_prop(ind, "MaxPause", G_VARIANT_TYPE_UINT32);
		seconds = max ? g_variant_get_uint32(max) : 3600;
		if (max)
			g_variant_unref(max);
	}
	call_guard(ind, "Pause", g_variant_new("(u)", seconds));
}

static void on_resume(GtkMenuItem *item, gpointer data)
{
	(void)item;
	call_guard(data, "Resume", NULL);
}

static void on_quit(GtkMenuItem *item, gpointer data)
{
	struct indicator *ind = data;

	(void)item;
	g_main_loop_quit(ind->loop);
}

static gboolean on_signal(gpointer data)
{
	struct indicator *ind = data;

	g_main_loop_quit(ind->loop);
	return G_SOURCE_CONTINUE;
}

static GtkWidget *add_item(struct indicator *ind, const char *label, GCallback cb)
{
	GtkWidget *item = label ? gtk_menu_item_new_with_label(label) :
			  gtk_separator_menu_item_new();

	if (cb)
		g_signal_connect(item, "activate", cb, ind);
	else if (label)
		gtk_widget_set_sensitive(item, FALSE);
	gtk_menu_shell_append(GTK_MENU_SHELL(ind->menu), item);
	gtk_widget_show(item);
	return item;
}

static void build_menu(struct indicator *ind)
{
	static const struct {
		const char *label;
		guint seconds;		/* 0: the guard's longest (MaxPause) */
	} pauses[] = {
		{ N_("Pause for 1 minute"), 60 },
		{ N_("Pause for 10 minutes"), 600 },
		{ N_("Pause until resumed (1 hour at most)"), 0 },
	};
	size_t i;

	ind->menu = gtk_menu_new();
	ind->state_item = add_item(ind, "", NULL);
	/* the disks come here (update_disks()) */
	add_item(ind, NULL, NULL);
	ind->last_item = add_item(ind, "", NULL);
	add_item(ind, NULL, NULL);
	for (i = 0; i < G_N_ELEMENTS(pauses); i++) {
		ind->pause_items[i] = add_item(ind, _(pauses[i].label), G_CALLBACK(on_pause));
		g_object_set_data(G_OBJECT(ind->pause_items[i]), "seconds",
				  GUINT_TO_POINTER(pauses[i].seconds));
	}
	ind->resume_item = add_item(ind, _("Resume protection"), G_CALLBACK(on_resume));
	add_item(ind, NULL, NULL);
	add_item(ind, _("Quit"), G_CALLBACK(on_quit));
}

static void on_name_lost(GDBusConnection *conn, const char *name, gpointer data)
{
	struct indicator *ind = data;

	/* (with no session bus, no name: the indicator runs all the same) */
	if (!conn)
		return;
	fprintf(stderr, "hdprotect-indicator: already running in this session (%s)\n", name);
	g_main_loop_quit(ind->loop);
}

int main(int argc, char **argv)
{
	struct indicator ind = { .look = LOOK_NONE };
	const char *icon_dir = g_getenv("HDPROTECT_INDICATOR_ICONS");
	GError *err = NULL;
	guint own;
	int ret;

	setlocale(LC_ALL, "");
	bindtextdomain(DOMAIN, LOCALEDIR);
	bind_textdomain_codeset(DOMAIN, "UTF-8");
	textdomain(DOMAIN);
	if (!gtk_init_check(&argc, &argv)) {
		fprintf(stderr, "hdprotect-indicator: no display: it runs in a desktop session\n");
		return 1;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: hdprotect-indicator\n");
		return 2;
	}
	notify_init("hdprotect-indicator");
	ind.loop = g_main_loop_new(NULL, FALSE);
	ind.view = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	ind.disk_items = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	own = g_bus_own_name(G_BUS_TYPE_SESSION, INDICATOR_NAME, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
			     NULL, NULL, on_name_lost, &ind, NULL);

	ret = hdp_new(&ind.ctx);
	if (ret) {
		fprintf(stderr, "hdprotect-indicator: %s\n", hdp_strerror(ret));
		return 1;
	}
	ind.guard = g_dbus_proxy_new_for_bus_sync(G_BUS_TYPE_SYSTEM,
						  G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START, NULL,
						  GUARD_NAME, GUARD_PATH, GUARD_IFACE, NULL, &err);
	if (!ind.guard) {
		g_warning("no system bus: the guard cannot be followed (%s)", err->message);
		g_clear_error(&err);
	} else {
		g_signal_connect(ind.guard, "g-properties-changed", G_CALLBACK(on_guard_changed),
				 &ind);
		g_signal_connect(ind.guard, "notify::g-name-owner", G_CALLBACK(on_owner), &ind);
	}

	ind.ai = app_indicator_new("hdprotect-indicator", icons[LOOK_UNPROTECTED],
				   APP_INDICATOR_CATEGORY_HARDWARE);
	if (icon_dir)
		app_indicator_set_icon_theme_path(ind.ai, icon_dir);
	build_menu(&ind);
	app_indicator_set_menu(ind.ai, GTK_MENU(ind.menu));
	app_indicator_set_status(ind.ai, APP_INDICATOR_STATUS_ACTIVE);
	open_monitor(&ind);
	update(&ind);

	g_unix_signal_add(SIGINT, on_signal, &ind);
	g_unix_signal_add(SIGTERM, on_signal, &ind);
	g_main_loop_run(ind.loop);

	g_bus_unown_name(own);
	g_clear_object(&ind.note_park);
	g_clear_object(&ind.note_state);
	g_clear_object(&ind.note_error);
	notify_uninit();
	g_clear_object(&ind.guard);
	g_object_unref(ind.ai);
	if (ind.watch)
		g_source_remove(ind.watch);
	if (ind.idle)
		g_source_remove(ind.idle);
	if (ind.reopen)
		g_source_remove(ind.reopen);
	if (ind.update_idle)
		g_source_remove(ind.update_idle);
	if (ind.loss_timer)
		g_source_remove(ind.loss_timer);
	hdp_free(ind.ctx);
	g_hash_table_destroy(ind.disk_items);
	g_hash_table_destroy(ind.view);
	g_main_loop_unref(ind.loop);
	return 0;
}
