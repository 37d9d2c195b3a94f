package desktop

import "testing"

// The native dialogs speak the page's language: title and buttons (GTK's
// own would be English whatever the page's), the system's when the page
// named none.
func TestDialogWords(t *testing.T) {
	for _, c := range []struct {
		locale string
		save   bool
		want   dialogWords
	}{
		{"zh-CN", true, dialogWords{"导出会话", "保存", "取消"}},
		{"zh-CN", false, dialogWords{"打开笔记文件夹", "打开", "取消"}},
		{"en", true, dialogWords{"Export the session", "_Save", "_Cancel"}},
		{"en", false, dialogWords{"Open a folder of notes", "_Open", "_Cancel"}},
	} {
		if got := wordsFor(c.locale, c.save); got != c.want {
			t.Errorf("wordsFor(%q, %v) = %+v, want %+v", c.locale, c.save, got, c.want)
		}
	}
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	if got := wordsFor("", true); got.Accept != "保存" {
		t.Errorf("the system's language (zh_CN): %+v", got)
	}
	t.Setenv("LC_ALL", "en_US.UTF-8")
	if got := wordsFor("", true); got.Accept != "_Save" {
		t.Errorf("the system's language (en_US): %+v", got)
	}
}
