// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hdp-applet: a live view of every protected disk's state, as a desktop
 * applet keeps it, with libhdp and a GLib main loop.
 *
 * The pattern:
 *  1. hdp_monitor_open() first, then hdp_list() to fill the view: a change
 *     made between the two is then both in the list and queued as an
 *     event, never in neither. Applying it again does no harm, since
 *     every event carries the disk's whole state right after the change.
 *  2. Watch the monitor's descriptor in the main loop; when it is
 *     readable, hdp_monitor_dispatch() hands each pending event to
 *     apply_event(), which updates the view.
 *  3. On HDP_EV_LOSS events were lost: throw the view away and list the
 *     disks again. The monitor stays open, so nothing falls in between.
 *  4. On HDP_EV_KERNEL_GONE hdprotect went away (its module unloaded), or
 *     was not there at the start: empty the view and wait. On
 *     HDP_EV_KERNEL_BACK list the disks again, as after a loss.
 *  5. One dispatch hands over at most 64 events, so that a flood does not
 *     starve the main loop; if hdp_monitor_pending() says more wait in
 *     the library, an idle callback dispatches again.
 *
 * Output, flushed line by line: "listening: N disks" once the view is
 * filled, "view: DISK STATE" for every change applied to it (STATE is
 * idle, parked or gone, or "removed" when the disk left the view),
 * "resync: N disks" after a loss or when hdprotect is back, "waiting:
 * hdprotect is gone" when it goes. With --print-view, the view when
 * quitting: one JSON object per disk, sorted by name, then "end of view".
 *
 * Build: cc hdp-applet.c $(pkg-config --cflags --libs libhdp glib-2.0)
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib-unix.h>
#include <hdp.h>

struct applet {
	struct hdp_ctx *ctx;
	GHashTable *view;	/* disk name -> struct hdp_disk */
	GMainLoop *loop;
	gint count;		/* quit after so many events; 0: never */
	gint applied;		/* events applied so far */
	int err;		/* the libhdp error that stopped us, or 0 */
	guint idle;		/* the idle dispatch of pending events, or 0 */
	bool timed_out;		/* --timeout passed before --count events */
};

/* Say what failed and why, in the library's and the kernel's words. */
static void fail(struct applet *app, const char *what, int err)
{
	const char *kmsg = hdp_kernel_message(app->ctx);

	fprintf(stderr, "hdp-applet: %s: %s", what, hdp_strerror(err));
	if (kmsg)
		fprintf(stderr, " (kernel: %s)", kmsg);
	fputc('\n', stderr);
	app->err = err;
	g_main_loop_quit(app->loop);
}

/* A copy of the members this program knows (see hdp.h), by name. */
static void put_disk(GHashTable *view, const struct hdp_disk *disk)
{
	g_hash_table_replace(view, g_strdup(disk->name),
			     g_memdup2(disk, sizeof(*disk)));
}

/*
 * The view afresh from hdp_list(). A disk that went away keeps its item,
 * listed in state "gone", until the item is removed; its HDP_EV_REMOVED
 * took it out of the view already, so it is left out here too.
 */
static int fill_view(struct applet *app)
{
	struct hdp_disk **disks;
	size_t i;
	int err;

	err = hdp_list(app->ctx, &disks, NULL);
	if (err)
		return err;
	g_hash_table_remove_all(app->view);
	for (i = 0; disks[i]; i++)
		if (disks[i]->state != HDP_DISK_GONE)
			put_disk(app->view, disks[i]);
	hdp_disks_free(disks);
	return 0;
}

/* Called by hdp_monitor_dispatch(): 0 to go on, 1 to stop (quitting). */
static int apply_event(const struct hdp_monitor_event *ev, void *data)
{
	struct applet *app = data;
	const char *name = ev->disk->name;
	int err;

	switch (ev->type) {
	case HDP_EV_KERNEL_GONE:
		g_hash_table_remove_all(app->view);
		printf("waiting: hdprotect is gone\n");
		break;
	case HDP_EV_LOSS:
	case HDP_EV_KERNEL_BACK:
		err = fill_view(app);
		if (err) {
			fail(app, "cannot list the disks again", err);
			return 1;
		}
		printf("resync: %u disks\n", g_hash_table_size(app->view));
		break;
	case HDP_EV_REMOVED:
		/* The item was removed, or the disk went away: gone either way. */
		if (!g_hash_table_remove(app->view, name))
			return 0;
		printf("view: %s removed\n", name);
		break;
	case HDP_EV_PARKED:
	case HDP_EV_UNPARKED:
	case HDP_EV_CHANGED:
	case HDP_EV_ADDED:
		/*
		 * The view holds the disks under protection, those hdp_list()
		 * returns. Events also come for a disk without an item (one
		 * parked through libata's unload_heads): not in the view,
		 * they are ignored, as a list would not show the disk either.
		 */
		if (ev->type != HDP_EV_ADDED &&
		    !g_hash_table_contains(app->view, name))
			return 0;
		put_disk(app->view, ev->disk);
		printf("view: %s %s\n", name, hdp_state_name(ev->disk->state));
		break;
	default:
		return 0;
	}
	fflush(stdout);
	if (++app->applied == app->count) {
		g_main_loop_quit(app->loop);
		return 1;
	}
	return 0;
}

static gboolean on_pending(gpointer data);

/* Hand the pending events over; leave the rest to an idle callback. */
static void dispatch(struct applet *app)
{
	int ret = hdp_monitor_dispatch(app->ctx, apply_event, app);

	if (ret < 0)
		fail(app, "cannot read the kernel's events", ret);
	else if (!app->idle && hdp_monitor_pending(app->ctx) > 0)
		app->idle = g_idle_add(on_pending, app);
}

static gboolean on_pending(gpointer data)
{
	struct applet *app = data;

	app->idle = 0;
	dispatch(app);
	return G_SOURCE_REMOVE;
}

static gboolean on_events(gint fd G_GNUC_UNUSED,
			  GIOCondition condition G_GNUC_UNUSED, gpointer data)
{
	dispatch(data);
	return G_SOURCE_CONTINUE;
}

static gboolean on_signal(gpointer data)
{
	struct applet *app = data;

	g_main_loop_quit(app->loop);
	return G_SOURCE_CONTINUE;
}

static gboolean on_timeout(gpointer data)
{
	struct applet *app = data;

	if (app->count) {
		fprintf(stderr, "hdp-applet: timed out after %d of %d events\n",
			app->applied, app->count);
		app->timed_out = true;
	}
	g_main_loop_quit(app->loop);
	return G_SOURCE_REMOVE;
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(a, b);
}

/* Kernel disk names need no JSON escaping: no quotes, no backslashes. */
static void print_view(GHashTable *view)
{
	GList *names = g_list_sort(g_hash_table_get_keys(view), by_name);
	const struct hdp_disk *d;
	GList *l;

	for (l = names; l; l = l->next) {
		d = g_hash_table_lookup(view, l->data);
		printf("{\"disk\":\"%s\",\"state\":\"%s\",\"enabled\":%s,"
		       "\"timeout_ms\":%u,\"method\":\"%s\",\"parks\":%" PRIu64
		       ",\"failures\":%" PRIu64 ",\"last_result\":%d}\n",
		       d->name, hdp_state_name(d->state),
		       d->enabled ? "true" : "false", d->timeout_ms,
		       hdp_method_name(d->method), d->parks, d->failures,
		       d->last_result);
	}
	puts("end of view");
	g_list_free(names);
}

/* Exit status 2, as for hdpctl's usage errors. */
static int usage(const char *why)
{
	fprintf(stderr, "hdp-applet: %s\nTry 'hdp-applet --help'.\n", why);
	return 2;
}

int main(int argc, char **argv)
{
	struct applet app = { 0 };
	gboolean print = FALSE;
	gdouble timeout = 0;
	gint buffer = 0;
	GOptionEntry entries[] = {
		{ "count", 0, 0, G_OPTION_ARG_INT, &app.count,
		  "Quit after N events were applied (losses included)", "N" },
		{ "print-view", 0, 0, G_OPTION_ARG_NONE, &print,
		  "When quitting, print the view as JSON lines", NULL },
		{ "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout,
		  "Quit after S seconds; exit 1 if --count was not reached", "S" },
		{ "buffer", 0, 0, G_OPTION_ARG_INT, &buffer,
		  "The event socket's buffer in bytes (default: libhdp's)", "BYTES" },
		G_OPTION_ENTRY_NULL
	};
	GOptionContext *options;
	GError *error = NULL;
	gboolean parsed;
	guint watch = 0;
	int fd, err;

	options = g_option_context_new("- show the state of protected disks live");
	g_option_context_add_main_entries(options, entries, NULL);
	parsed = g_option_context_parse(options, &argc, &argv, &error);
	g_option_context_free(options);
	if (!parsed) {
		err = usage(error->message);
		g_error_free(error);
		return err;
	}
	if (argc > 1)
		return usage("no arguments are taken, only options");
	if (app.count < 0)
		return usage("--count takes a number of events, 0 or more");
	if (timeout < 0 || timeout > G_MAXUINT / 1000)
		return usage("--timeout takes seconds, 0 or more");

	err = hdp_new(&app.ctx);
	if (err) {
		fprintf(stderr, "hdp-applet: %s\n", hdp_strerror(err));
		return 1;
	}
	app.view = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	app.loop = g_main_loop_new(NULL, FALSE);

	err = buffer ? hdp_monitor_set_buffer(app.ctx, (size_t)buffer) : 0;
	if (buffer < 0 || err) {
		hdp_free(app.ctx);
		return usage("--buffer takes bytes, 16384 or more");
	}
	fd = hdp_monitor_open(app.ctx);
	if (fd < 0)
		fail(&app, "cannot listen to the kernel's events", fd);
	/* Without hdprotect, HDP_EV_KERNEL_GONE comes first: nothing to list. */
	else if ((err = fill_view(&app)) && err != -EPROTONOSUPPORT)
		fail(&app, "cannot list the disks", err);
	if (!app.err) {
		printf("listening: %u disks\n", g_hash_table_size(app.view));
		fflush(stdout);
		watch = g_unix_fd_add(fd, G_IO_IN, on_events, &app);
		/* Without hdprotect, HDP_EV_KERNEL_GONE waits already. */
		if (hdp_monitor_pending(app.ctx) > 0)
			app.idle = g_idle_add(on_pending, &app);
		g_unix_signal_add(SIGINT, on_signal, &app);
		g_unix_signal_add(SIGTERM, on_signal, &app);
		if (timeout > 0)
			g_timeout_add((guint)(timeout * 1000), on_timeout, &app);
		g_main_loop_run(app.loop);
		/* The descriptor is the context's: stop watching it first. */
		g_source_remove(watch);
		if (app.idle)
			g_source_remove(app.idle);
	}
	if (print && !app.err)
		print_view(app.view);

	hdp_free(app.ctx);
	g_hash_table_destroy(app.view);
	g_main_loop_unref(app.loop);
	return app.err || app.timed_out ? 1 : 0;
}
