package controlplane

import "testing"

// The failed-authentication limit keys an IPv4 client by its address and
// an IPv6 one by its /64 (a host picks addresses from a whole /64, so a
// per-address key would let it walk around the limit).
func TestClientNet(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:4242":                   "192.0.2.7",
		"[::ffff:192.0.2.7]:1":             "192.0.2.7",
		"[2001:db8:1:2:aaaa::1]:443":       "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:1:2:3%eth0]:1": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":            "2001:db8:1:3::/64",
		"not an address":                   "not an address",
	} {
		if got := clientNet(in); got != want {
			t.Errorf("clientNet(%q) = %q, want %q", in, got, want)
		}
	}
}
