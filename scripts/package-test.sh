#!/usr/bin/env bash
# `make package-test`: the .deb as a person installs it, in a fresh Debian.
#
#  1. A minimal Debian (SUITE, default trixie) made with debootstrap once into
#     .cache/package-test/SUITE.base, then copied afresh for every run.
#  2. apt-get install ./mnote_*.deb there: apt must pull every library the
#     package needs from its Depends alone (nothing else is installed first).
#  3. mnote --version; /usr/bin/mnote links no GTK or WebKit; one headless
#     turn with the test agent (mnote prompt); mnote-app opens its window on
#     Xvfb (started through mnote with a folder) and the screenshot
#     (dist/package-window.png) is not blank.
#  4. apt-get purge mnote removes every file the package installed.
# Root only (chroot, mounts). Packages come from the mirror the host's apt
# uses; the host's CA certificates are copied in (a proxy may need them).
# Kills only what it started (its Xvfb and the app inside the chroot).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite=${SUITE:-trixie}
cache=$root/.cache/package-test
base=$cache/$suite.base
dir=$cache/$suite.run
say() { printf 'package-test: %s\n' "$*"; }
die() { printf 'package-test: FAIL: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "run as root (chroot, mount)"
mkdir -p "$cache"
deb=$(ls dist/mnote_*.deb 2>/dev/null | head -n 1) || true
[[ -n $deb ]] || die "no dist/mnote_*.deb: run make package"
agent=build/bin/mnote-testagent
[[ -x $agent ]] || die "$agent not found: run make build"

mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[[ -n $mirror ]] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[[ -n $mirror ]] || die "no Debian mirror in the host's apt sources"

umount_all() {
	for m in dev/pts dev sys proc; do
		! mountpoint -q "$dir/$m" 2>/dev/null || umount -l "$dir/$m" || true
	done
}
in_chroot() { chroot "$dir" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
xvfb_pid=
cleanup() {
	[[ -z $xvfb_pid ]] || kill "$xvfb_pid" 2>/dev/null || true
	umount_all
}
trap cleanup EXIT

# --- 1. a fresh Debian
if [[ ! -x $base/bin/bash ]]; then
	command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
	say "debootstrap $suite from $mirror (once)"
	rm -rf "$base.tmp"
	debootstrap --variant=minbase "$suite" "$base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed: $(tail -n 5 "$cache/debootstrap.log")"
	mv "$base.tmp" "$base"
fi
umount_all
rm -rf "$dir"
cp -a "$base" "$dir"
for m in proc sys dev dev/pts; do mount --bind "/$m" "$dir/$m"; done
cp /etc/resolv.conf "$dir/etc/resolv.conf"
cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/" 2>/dev/null || true
cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || true
for f in /etc/apt/apt.conf.d/*proxy* /etc/apt/apt.conf.d/99artifact-registry; do
	[[ -f $f ]] && cp "$f" "$dir/etc/apt/apt.conf.d/" || true
done
printf 'deb %s %s main\n' "$mirror" "$suite" >"$dir/etc/apt/sources.list"
cp "$deb" "$dir/tmp/"
cp "$agent" "$dir/usr/local/bin/mnote-testagent"
say "$(basename "$deb") into a fresh $suite"

# --- 2. install: apt pulls the dependencies
in_chroot apt-get update -q >"$cache/apt.log" 2>&1 || die "apt-get update: $(tail -n 5 "$cache/apt.log")"
before=$(in_chroot dpkg-query -W -f='${Package}\n' | wc -l)
in_chroot apt-get install -y -q "/tmp/$(basename "$deb")" >>"$cache/apt.log" 2>&1 ||
	die "apt-get install ./$(basename "$deb"): $(tail -n 10 "$cache/apt.log")"
after=$(in_chroot dpkg-query -W -f='${Package}\n' | wc -l)
say "installed with $((after - before - 1)) dependencies ($(in_chroot dpkg-query -W -f='${Installed-Size}' mnote) KiB installed)"

# --- 3. the installed app
v=$(in_chroot mnote --version) || die "mnote --version failed"
[[ $v == "mnote "* ]] || die "mnote --version printed '$v'"
say "$v"
! in_chroot ldd /usr/bin/mnote | grep -Eq 'libgtk|libwebkit' || die "/usr/bin/mnote links GTK or WebKit"
in_chroot ldd /usr/lib/mnote/mnote-app | grep -q 'not found' && die "mnote-app misses libraries: $(in_chroot ldd /usr/lib/mnote/mnote-app | grep 'not found')"
mkdir -p "$dir/tmp/home" "$dir/tmp/notes"
printf '# hello\n\nfrom the package test\n' >"$dir/tmp/notes/hello.md"
out=$(in_chroot env MNOTE_HOME=/tmp/home mnote prompt --agent-cmd mnote-testagent --cwd /tmp/notes "hello from the package") ||
	die "mnote prompt failed: $out"
[[ $out == *"echo: hello from the package"* ]] || die "the headless turn answered '$out'"
say "headless turn: $(tr '\n' ' ' <<<"$out" | cut -c1-80)"

in_chroot apt-get install -y -q --no-install-recommends xvfb xauth imagemagick x11-utils >>"$cache/apt.log" 2>&1 ||
	die "installing Xvfb for the screenshot: $(tail -n 5 "$cache/apt.log")"
chroot "$dir" env -i PATH=/usr/bin:/bin Xvfb :77 -screen 0 1280x800x24 -nolisten tcp >"$cache/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do [[ -e $dir/tmp/.X11-unix/X77 ]] && break; sleep 0.1; done
[[ -e $dir/tmp/.X11-unix/X77 ]] || die "Xvfb did not start: $(tail -n 3 "$cache/xvfb.log")"
in_chroot env DISPLAY=:77 MNOTE_HOME=/tmp/home GDK_BACKEND=x11 NO_AT_BRIDGE=1 setsid mnote /tmp/notes >"$cache/app.log" 2>&1 &
app=$!
shot=$root/dist/package-window.png
ok=
for _ in $(seq 60); do
	sleep 0.5
	kill -0 "$app" 2>/dev/null || die "the installed app exited: $(tail -n 20 "$cache/app.log")"
	in_chroot env DISPLAY=:77 import -window root /tmp/shot.png 2>/dev/null || continue
	c=$(in_chroot identify -format '%k' /tmp/shot.png)
	if ((c >= 16)) && grep -q 'page loaded' "$cache/app.log"; then ok=1; break; fi
done
cp "$dir/tmp/shot.png" "$shot" 2>/dev/null || true
[[ -n $ok ]] || die "the window stayed blank (see $shot, $cache/app.log)"
wmclass=$(in_chroot env DISPLAY=:77 sh -c 'for w in $(xprop -root _NET_CLIENT_LIST 2>/dev/null | grep -o "0x[0-9a-f]*"); do xprop -id $w WM_CLASS; done; xwininfo -root -tree | grep -i mnote | head -n 3')
say "window up ($c colours): $shot; $(tr '\n' ' ' <<<"$wmclass" | cut -c1-120)"
pkill_app() { in_chroot sh -c 'for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = mnote-app ] && kill -TERM ${p#/proc/}; done' || true; }
pkill_app
for _ in $(seq 50); do kill -0 "$app" 2>/dev/null || break; sleep 0.2; done
! kill -0 "$app" 2>/dev/null || die "the app did not exit on SIGTERM"
kill "$xvfb_pid" 2>/dev/null || true
wait "$xvfb_pid" 2>/dev/null || true
xvfb_pid=

# --- 4. remove
files=$(in_chroot dpkg-query -L mnote | while read -r f; do [[ -f $dir$f ]] && echo "$f"; done)
in_chroot apt-get purge -y -q mnote >>"$cache/apt.log" 2>&1 || die "apt-get purge mnote: $(tail -n 5 "$cache/apt.log")"
left=$(for f in $files; do [[ ! -e $dir$f ]] || echo "$f"; done)
[[ -z $left ]] || die "left after purge: $left"
[[ ! -e $dir/usr/lib/mnote ]] || die "/usr/lib/mnote left after purge"
say "removed cleanly ($(wc -w <<<"$files") files)"
say ok
