package desktop

import "mnote/internal/l10n"

// dialogWords are a native file dialog's title and buttons, in one
// language.
type dialogWords struct {
	Title, Accept, Cancel string
}

// wordsFor is the words of the folder dialog (save false) or the export's
// save dialog (save true) in the page's locale ("en", "zh-CN"), the
// system's when the page named none.
func wordsFor(locale string, save bool) dialogWords {
	l := l10n.Parse(locale)
	if locale == "" {
		l = l10n.FromEnv()
	}
	if save {
		return dialogWords{Title: l.T("dialog.export_title"), Accept: l.T("dialog.save"), Cancel: l.T("dialog.cancel")}
	}
	return dialogWords{Title: l.T("dialog.open_title"), Accept: l.T("dialog.open"), Cancel: l.T("dialog.cancel")}
}
