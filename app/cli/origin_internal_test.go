package cli

import (
	"net"
	"net/http/httptest"
	"testing"
)

// A loopback server behind a TLS proxy: pages and Host names of the
// --allow-origin origins are accepted, everything else foreign still not.
func TestAllowOrigin(t *testing.T) {
	extra, err := parseOrigins("https://notes.example.com, http://box.lan:8080")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{listen: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4321}, loopback: true, extra: extra}
	for _, c := range []struct {
		host, origin string
		hostOK, ok   bool
	}{
		{"127.0.0.1:4321", "http://127.0.0.1:4321", true, true},
		{"127.0.0.1:4321", "", true, true},
		{"notes.example.com", "https://notes.example.com", true, true},
		{"NOTES.example.com", "https://Notes.Example.com", true, true},
		{"box.lan:8080", "http://box.lan:8080", true, true},
		{"127.0.0.1:4321", "https://127.0.0.1:4321", true, false}, // not a page of ours
		{"127.0.0.1:4321", "http://notes.example.com.evil.test", true, false},
		{"127.0.0.1:4321", "https://evil.example", true, false},
		{"127.0.0.1:4321", "null", true, false},
		{"evil.example", "http://evil.example", false, false},
		{"box.lan:9999", "http://box.lan:9999", false, false},
	} {
		if got := s.hostAllowed(c.host); got != c.hostOK {
			t.Errorf("host %q: allowed %v, want %v", c.host, got, c.hostOK)
		}
		r := httptest.NewRequest("GET", "http://"+c.host+"/api/call", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := s.originAllowed(r); c.hostOK && got != c.ok {
			t.Errorf("host %q origin %q: allowed %v, want %v", c.host, c.origin, got, c.ok)
		}
	}
	for _, bad := range []string{"notes.example.com", "ftp://x", "https://x/path", "https://u:p@x", "https://x?q=1"} {
		if _, err := parseOrigins(bad); err == nil {
			t.Errorf("--allow-origin %q accepted", bad)
		}
	}
}
