package roster_test

import (
	"slices"
	"testing"
	"time"

	"mnote/collab/keys"
	"mnote/collab/roster"
)

var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// at is t0 plus i minutes.
func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

// must is v, for the steps a test builds on; an error there is a bug of
// the test's setup and panics (the test fails with its stack).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// account is an account with its devices and its verified device chain.
type account struct {
	name    string
	devices []*keys.Device
	chain   [][]byte
	list    *roster.DeviceList
}

func newAccount(t testing.TB, name string, n int) *account {
	t.Helper()
	a := &account{name: name}
	for i := range n {
		a.devices = append(a.devices, must(keys.NewDevice(name, name+" device", t0)))
		if i == 0 {
			a.push(t, must(roster.NewDeviceList(a.devices[0], t0)))
		} else {
			a.push(t, must(a.list.AddDevice(a.devices[0], a.devices[i].Public(), at(i))))
		}
	}
	return a
}

func (a *account) push(t testing.TB, b []byte) {
	t.Helper()
	a.chain = append(a.chain, b)
	a.list = must(roster.VerifyDevices(a.name, a.chain))
}

// session is a session roster being built.
type session struct {
	owner *account
	chain [][]byte
	r     *roster.Roster
}

func newSession(t testing.TB, owner *account, id string) *session {
	t.Helper()
	s := &session{owner: owner}
	s.push(t, must(roster.NewSession(owner.devices[0], owner.list, id, keys.NewEpochKey(), t0)))
	return s
}

func (s *session) push(t testing.TB, b []byte) {
	t.Helper()
	s.chain = append(s.chain, b)
	s.r = must(roster.Verify(s.chain, s.owner.list))
}

func (s *session) with(extra ...[]byte) [][]byte {
	return append(slices.Clone(s.chain), extra...)
}
