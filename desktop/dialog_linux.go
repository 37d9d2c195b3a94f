//go:build desktop && linux

package desktop

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <stdlib.h>

// One file dialog, run on GTK's main thread (mnote_run), waited for by the
// goroutine that asked (mnote_file_dialog). Wails' own dialogs have fixed
// English buttons ("_Cancel", "_Save"); this one takes them worded.
typedef struct {
	const char *title, *accept, *cancel, *dir, *name;
	int save;
	char *result;
	gboolean done;
	GMutex mu;
	GCond cond;
} mnote_dialog;

// The window the dialog belongs to: the active toplevel, else the first
// visible one (the app has one window).
static GtkWindow *mnote_parent(void) {
	GtkWindow *parent = NULL;
	GList *all = gtk_window_list_toplevels();
	for (GList *l = all; l; l = l->next) {
		GtkWindow *w = GTK_WINDOW(l->data);
		if (gtk_window_is_active(w)) { parent = w; break; }
		if (!parent && gtk_widget_get_visible(GTK_WIDGET(w)) && gtk_window_get_window_type(w) == GTK_WINDOW_TOPLEVEL) parent = w;
	}
	g_list_free(all);
	return parent;
}

static gboolean mnote_run(gpointer p) {
	mnote_dialog *d = p;
	GtkWidget *w = gtk_file_chooser_dialog_new(d->title, mnote_parent(),
		d->save ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
		d->cancel, GTK_RESPONSE_CANCEL, d->accept, GTK_RESPONSE_ACCEPT, NULL);
	GtkFileChooser *fc = GTK_FILE_CHOOSER(w);
	gtk_dialog_set_default_response(GTK_DIALOG(w), GTK_RESPONSE_ACCEPT);
	gtk_file_chooser_set_local_only(fc, TRUE);
	gtk_file_chooser_set_create_folders(fc, TRUE);
	if (d->save) gtk_file_chooser_set_do_overwrite_confirmation(fc, TRUE);
	if (d->dir && *d->dir) gtk_file_chooser_set_current_folder(fc, d->dir);
	if (d->save && d->name && *d->name) gtk_file_chooser_set_current_name(fc, d->name);
	char *result = NULL;
	if (gtk_dialog_run(GTK_DIALOG(w)) == GTK_RESPONSE_ACCEPT) result = gtk_file_chooser_get_filename(fc);
	gtk_widget_destroy(w);
	g_mutex_lock(&d->mu);
	d->result = result;
	d->done = TRUE;
	g_cond_signal(&d->cond);
	g_mutex_unlock(&d->mu);
	return G_SOURCE_REMOVE;
}

// mnote_file_dialog shows the dialog and returns the chosen path (g_free
// it) or NULL when cancelled. It must not run on GTK's main thread.
static char *mnote_file_dialog(const char *title, const char *accept, const char *cancel, const char *dir, const char *name, int save) {
	mnote_dialog d = { title, accept, cancel, dir, name, save, NULL, FALSE };
	g_mutex_init(&d.mu);
	g_cond_init(&d.cond);
	g_idle_add(mnote_run, &d);
	g_mutex_lock(&d.mu);
	while (!d.done) g_cond_wait(&d.cond, &d.mu);
	g_mutex_unlock(&d.mu);
	g_mutex_clear(&d.mu);
	g_cond_clear(&d.cond);
	return d.result;
}
*/
import "C"

import (
	"context"
	"unsafe"
)

// fileDialog shows GTK's file dialog, worded w: a folder to open, or
// (save) the file to save an export named name in dir. "" is cancelled.
// The caller is not on GTK's main thread (the window's Call runs on the
// link's goroutines), which the dialog runs on.
func fileDialog(_ context.Context, w dialogWords, save bool, dir, name string) (string, error) {
	cs := func(s string) *C.char { return C.CString(s) }
	title, accept, cancel, cdir, cname := cs(w.Title), cs(w.Accept), cs(w.Cancel), cs(dir), cs(name)
	defer func() {
		for _, p := range []*C.char{title, accept, cancel, cdir, cname} {
			C.free(unsafe.Pointer(p))
		}
	}()
	s := C.int(0)
	if save {
		s = 1
	}
	res := C.mnote_file_dialog(title, accept, cancel, cdir, cname, s)
	if res == nil {
		return "", nil
	}
	defer C.g_free(C.gpointer(res))
	return C.GoString(res), nil
}
