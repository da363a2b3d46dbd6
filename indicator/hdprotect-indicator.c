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
 * A park is told in a notification (org.freedesktop.Notifications, by
 * libnotify) with its cause and disks, one per NOTE_GAP_US at most (a
 * long fall is one park, renewed); so are a loss of protection and its
 * return. The menu pauses the guard (1 minute, 10 minutes, or until
 * resumed, which is the guard's longest pause, an hour) and resumes it;
 * polkit decides, and a refusal is told in a notification.
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
#include <gtk/gtk.h>
#include <libayatana-appindicator/app-indicator.h>
#include <libnotify/notify.h>
#include <hdp.h>

#define _(s)	gettext(s)
#define N_(s)	(s)

#ifndef LOCALEDIR
#define LOCALEDIR	"/usr/share/locale"
#endif
#define DOMAIN		"hdprotect-indicator"
#define GUARD_NAME	"org.hdprotect.Guard1"
#define GUARD_PATH	"/org/hdprotect/Guard1"
#define GUARD_IFACE	"org.hdprotect.Guard1"
/* One park notification per 5 s at most. */
#define NOTE_GAP_US	(5 * G_USEC_PER_SEC)

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
	guint idle, watch;
	/* the guard */
	GDBusProxy *guard;
	/* what is shown */
	AppIndicator *ai;
	GtkWidget *menu, *state_item, *last_item, *disk_sep;
	GtkWidget *pause_items[3], *resume_item;
	GList *disk_items;
	enum look look;
	char why[256];
	/* notifications */
	NotifyNotification *note;
	guint64 park_seen;		/* LastPark's Time told last */
	gint64 note_us;			/* when the last park was told */
	GMainLoop *loop;
};

static void update(struct indicator *ind);

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

static void dispatch(struct indicator *ind)
{
	int ret = hdp_monitor_dispatch(ind->ctx, on_event, ind);

	if (ret < 0 && ret != -EAGAIN)
		g_warning("hdprotect's events: %s", hdp_strerror(ret));
	else if (!ind->idle && hdp_monitor_pending(ind->ctx) > 0)
		ind->idle = g_idle_add(on_pending, ind);
	update(ind);
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

/* ---- the guard's properties ---- */

/* A string property of the guard, or NULL (no guard, no such property). */
static char *guard_string(struct indicator *ind, const char *prop)
{
	GVariant *v;
	char *s = NULL;

	if (!ind->guard)
		return NULL;
	v = g_dbus_proxy_get_cached_property(ind->guard, prop);
	if (v && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
		s = g_variant_dup_string(v, NULL);
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

/* "14:32:05, free fall on /dev/input/event3: sda sdb (12.5 ms)" */
static bool last_park(struct indicator *ind, guint64 *time_us, char *buf, size_t len)
{
	GVariant *v = ind->guard ? g_dbus_proxy_get_cached_property(ind->guard, "LastPark") : NULL;
	const char *cause = "", *sensor = "";
	g_autofree char *disks = NULL;
	g_autofree const char **list = NULL;
	double ms = 0;
	char when[32] = "";
	struct tm tm;
	time_t t;

	*time_us = 0;
	if (!v)
		return false;
	if (!g_variant_is_of_type(v, G_VARIANT_TYPE("a{sv}")) ||
	    !g_variant_lookup(v, "Time", "t", time_us)) {
		g_variant_unref(v);
		return false;
	}
	g_variant_lookup(v, "Cause", "&s", &cause);
	g_variant_lookup(v, "Sensor", "&s", &sensor);
	g_variant_lookup(v, "LatencyMs", "d", &ms);
	if (g_variant_lookup(v, "Disks", "^a&s", &list))
		disks = g_strjoinv(" ", (char **)list);
	t = (time_t)(*time_us / G_USEC_PER_SEC);
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%X", &tm);
	/* TRANSLATORS: the last park: its time, cause, sensor, disks, delay */
	snprintf(buf, len, _("%s, %s on %s: %s (%.1f ms)"), when, cause, sensor,
		 disks ? disks : "", ms);
	g_variant_unref(v);
	return true;
}

/* ---- what is shown ---- */

static void notify(struct indicator *ind, const char *summary, const char *body,
		   const char *icon)
{
	GError *err = NULL;

	if (!ind->note)
		ind->note = notify_notification_new(summary, body, icon);
	else
		notify_notification_update(ind->note, summary, body, icon);
	notify_notification_set_category(ind->note, "device");
	notify_notification_set_hint(ind->note, "desktop-entry",
				     g_variant_new_string("hdprotect-indicator"));
	if (!notify_notification_show(ind->note, &err)) {
		g_warning("cannot show a notification: %s", err->message);
		g_error_free(err);
	}
}

/* How things are: the look and why, from the kernel and the guard. */
static enum look judge(struct indicator *ind, char *why, size_t len)
{
	g_autofree char *state = NULL, *reason = NULL;
	GHashTableIter it;
	gpointer value;
	bool parked = false, enabled = false;

	g_hash_table_iter_init(&it, ind->view);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hdp_disk *d = value;

		parked |= d->state == HDP_DISK_PARKED;
		enabled |= d->enabled;
	}
	state = guard_string(ind, "State");
	reason = guard_string(ind, "StateReason");
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
	if (!guard_running(ind) || !state) {
		snprintf(why, len, "%s", _("Not protected: the guard is not running"));
		return LOOK_UNPROTECTED;
	}
	if (!strcmp(state, "paused")) {
		/* TRANSLATORS: %s: the guard's words, "paused by uid 1000 for 60.000 s" */
		snprintf(why, len, _("Paused: %s"), reason ? reason : "");
		return LOOK_PAUSED;
	}
	if (!strcmp(state, "guarding")) {
		snprintf(why, len, "%s", _("Protected"));
		return LOOK_PROTECTED;
	}
	/* TRANSLATORS: %s: the guard's words, "no accelerometer; waiting for one" */
	snprintf(why, len, _("Not protected: %s"), reason ? reason : "");
	return LOOK_UNPROTECTED;
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(a, b);
}

/* The menu's disks: one line each, after the state's line. */
static void update_disks(struct indicator *ind)
{
	GList *names = g_list_sort(g_hash_table_get_keys(ind->view), by_name), *l;
	int pos = 1;

	g_list_free_full(ind->disk_items, (GDestroyNotify)gtk_widget_destroy);
	ind->disk_items = NULL;
	for (l = names; l; l = l->next) {
		const struct hdp_disk *d = g_hash_table_lookup(ind->view, l->data);
		char label[128];
		GtkWidget *item;

		snprintf(label, sizeof(label), "%s: %s", d->name,
			 d->state == HDP_DISK_PARKED ? _("parked") :
			 d->enabled ? _("protected") : _("not enabled"));
		item = gtk_menu_item_new_with_label(label);
		gtk_widget_set_sensitive(item, FALSE);
		gtk_menu_shell_insert(GTK_MENU_SHELL(ind->menu), item, pos++);
		gtk_widget_show(item);
		ind->disk_items = g_list_append(ind->disk_items, item);
	}
	g_list_free(names);
}

static void update(struct indicator *ind)
{
	char why[256], last[512], title[800];
	enum look look = judge(ind, why, sizeof(why));
	enum look was = ind->look;
	guint64 t = 0;
	bool paused = look == LOOK_PAUSED, guard = guard_running(ind);
	size_t i;

	update_disks(ind);
	gtk_menu_item_set_label(GTK_MENU_ITEM(ind->state_item), why);
	if (last_park(ind, &t, last, sizeof(last))) {
		char line[600];

		snprintf(line, sizeof(line), _("Last park: %s"), last);
		gtk_menu_item_set_label(GTK_MENU_ITEM(ind->last_item), line);
		gtk_widget_show(ind->last_item);
	} else {
		gtk_widget_hide(ind->last_item);
	}
	for (i = 0; i < G_N_ELEMENTS(ind->pause_items); i++)
		gtk_widget_set_sensitive(ind->pause_items[i], guard && !paused);
	gtk_widget_set_sensitive(ind->resume_item, guard && paused);
	snprintf(title, sizeof(title), "%s", why);
	app_indicator_set_title(ind->ai, title);
	if (look != was || strcmp(why, ind->why)) {
		app_indicator_set_icon_full(ind->ai, icons[look], why);
		app_indicator_set_attention_icon_full(ind->ai, icons[LOOK_PARKED], why);
		app_indicator_set_status(ind->ai, look == LOOK_PARKED ?
					 APP_INDICATOR_STATUS_ATTENTION :
					 APP_INDICATOR_STATUS_ACTIVE);
		snprintf(ind->why, sizeof(ind->why), "%s", why);
		ind->look = look;
	}
	/* A park of the guard's, new: told, once per NOTE_GAP_US at most. */
	if (t && t != ind->park_seen) {
		gint64 now = g_get_monotonic_time();

		if (ind->park_seen && now - ind->note_us >= NOTE_GAP_US) {
			notify(ind, _("Disks parked"), last, icons[LOOK_PARKED]);
			ind->note_us = now;
		}
		ind->park_seen = t;
	}
	/* Protection lost, or back (not at the start). */
	if (was != LOOK_NONE && (was == LOOK_UNPROTECTED) != (look == LOOK_UNPROTECTED)) {
		if (look == LOOK_UNPROTECTED)
			notify(ind, _("Disk protection lost"), why, icons[LOOK_UNPROTECTED]);
		else
			notify(ind, _("Disks protected again"), why, icons[LOOK_PROTECTED]);
	}
}

/* ---- the guard: follow it, pause it ---- */

static void on_guard_changed(GDBusProxy *proxy, GVariant *changed, GStrv invalidated,
			     gpointer data)
{
	(void)proxy, (void)changed, (void)invalidated;
	update(data);
}

static void on_owner(GObject *obj, GParamSpec *pspec, gpointer data)
{
	(void)obj, (void)pspec;
	update(data);
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
	notify(ind, _("The guard said no"), err->message, "dialog-error-symbolic");
	g_error_free(err);
}

static void call_guard(struct indicator *ind, const char *method, GVariant *args)
{
	if (!ind->guard)
		return;
	g_dbus_proxy_call(ind->guard, method, args,
			  G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, -1, NULL, on_called,
			  ind);
}

static void on_pause(GtkMenuItem *item, gpointer data)
{
	guint seconds = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(item), "seconds"));

	call_guard(data, "Pause", g_variant_new("(u)", seconds));
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
		guint seconds;
	} pauses[] = {
		{ N_("Pause for 1 minute"), 60 },
		{ N_("Pause for 10 minutes"), 600 },
		/* the guard's longest pause (MaxPause) */
		{ N_("Pause until resumed (1 hour at most)"), 3600 },
	};
	size_t i;

	ind->menu = gtk_menu_new();
	ind->state_item = add_item(ind, "", NULL);
	/* the disks come here (update_disks()) */
	ind->disk_sep = add_item(ind, NULL, NULL);
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

int main(int argc, char **argv)
{
	struct indicator ind = { .look = LOOK_NONE };
	const char *icon_dir = g_getenv("HDPROTECT_INDICATOR_ICONS");
	GError *err = NULL;
	int fd, ret;

	setlocale(LC_ALL, "");
	bindtextdomain(DOMAIN, LOCALEDIR);
	bind_textdomain_codeset(DOMAIN, "UTF-8");
	textdomain(DOMAIN);
	gtk_init(&argc, &argv);
	if (argc > 1) {
		fprintf(stderr, "usage: hdprotect-indicator\n");
		return 2;
	}
	notify_init("hdprotect-indicator");
	ind.loop = g_main_loop_new(NULL, FALSE);
	ind.view = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	ret = hdp_new(&ind.ctx);
	if (ret) {
		fprintf(stderr, "hdprotect-indicator: %s\n", hdp_strerror(ret));
		return 1;
	}
	/* The monitor first, then the list: no change falls in between. */
	fd = hdp_monitor_open(ind.ctx);
	if (fd < 0) {
		fprintf(stderr, "hdprotect-indicator: cannot listen to hdprotect's events: %s\n",
			hdp_strerror(fd));
		return 1;
	}
	fill_view(&ind);	/* without hdprotect, HDP_EV_KERNEL_GONE says so */
	ind.watch = g_unix_fd_add(fd, G_IO_IN, on_events, &ind);
	if (hdp_monitor_pending(ind.ctx) > 0)
		ind.idle = g_idle_add(on_pending, &ind);

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
	update(&ind);

	g_unix_signal_add(SIGINT, on_signal, &ind);
	g_unix_signal_add(SIGTERM, on_signal, &ind);
	g_main_loop_run(ind.loop);

	if (ind.note)
		g_object_unref(ind.note);
	notify_uninit();
	g_list_free(ind.disk_items);
	g_clear_object(&ind.guard);
	g_object_unref(ind.ai);
	g_source_remove(ind.watch);
	if (ind.idle)
		g_source_remove(ind.idle);
	hdp_free(ind.ctx);
	g_hash_table_destroy(ind.view);
	g_main_loop_unref(ind.loop);
	return 0;
}
