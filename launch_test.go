//go:build !desktop

package main

import (
	"runtime"
	"slices"
	"testing"
)

// The window gets GTK's simple input context only on X11 with no input
// method configured (where GTK would pick XIM for a Chinese locale and
// WebKitGTK stop drawing); ibus, fcitx and Wayland are left alone.
func TestInputMethodEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	const simple = "GTK_IM_MODULE=gtk-im-context-simple"
	for _, c := range []struct {
		env  []string
		want bool
	}{
		{[]string{"LANG=zh_CN.UTF-8", "DISPLAY=:0"}, true},
		{[]string{"LANG=zh_CN.UTF-8", "DISPLAY=:0", "GTK_IM_MODULE=ibus", "XMODIFIERS=@im=ibus"}, false},
		{[]string{"LANG=zh_CN.UTF-8", "DISPLAY=:0", "XMODIFIERS=@im=fcitx"}, false},
		{[]string{"LANG=zh_CN.UTF-8", "DISPLAY=:0", "GTK_IM_MODULE=fcitx"}, false},
		{[]string{"LANG=zh_CN.UTF-8", "WAYLAND_DISPLAY=wayland-0", "DISPLAY=:0"}, false},
		{[]string{"LANG=zh_CN.UTF-8", "WAYLAND_DISPLAY=wayland-0", "GDK_BACKEND=x11", "DISPLAY=:0"}, true},
		{[]string{"LANG=zh_CN.UTF-8", "DISPLAY=:0", "GTK_IM_MODULE="}, true},
	} {
		got := inputMethodEnv(slices.Clone(c.env))
		if slices.Contains(got, simple) != c.want {
			t.Errorf("%q: %q", c.env, got)
		}
		if !slices.Equal(got[:len(c.env)], c.env) {
			t.Errorf("%q: the environment changed: %q", c.env, got)
		}
	}
}
