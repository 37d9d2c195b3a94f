package keys

import (
	"bytes"
	"crypto/sha512"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// safetyIterations is the number of SHA-512 rounds per side (Signal's).
const safetyIterations = 5200

// SafetyNumber is the number two people compare (read aloud, or side by
// side) to know that the devices each of them sees for the other are the
// real ones: 60 digits in 12 groups of 5. It is computed as Signal's
// numeric fingerprint: for each account, SHA-512 iterated 5200 times over
// a version, the account's keys (every device's signing and KEM keys, in
// device id order) and the account name; the first 30 bytes give 6 groups
// of 5 digits; the two halves are put in ascending order, so both people
// get the same number whichever side they compute it from. Any device
// added to or removed from either account changes it.
func SafetyNumber(accountA string, devicesA []DevicePublic, accountB string, devicesB []DevicePublic) (string, error) {
	a, err := safetyHalf(accountA, devicesA)
	if err != nil {
		return "", err
	}
	b, err := safetyHalf(accountB, devicesB)
	if err != nil {
		return "", err
	}
	halves := []string{a, b}
	slices.Sort(halves)
	return halves[0] + " " + halves[1], nil
}

func safetyHalf(account string, devices []DevicePublic) (string, error) {
	if len(devices) == 0 {
		return "", fmt.Errorf("safety number: %w: account %q without devices", ErrEncoding, account)
	}
	ds := slices.Clone(devices)
	slices.SortFunc(ds, func(x, y DevicePublic) int { return strings.Compare(x.DeviceID, y.DeviceID) })
	var keys bytes.Buffer
	for i, d := range ds {
		if err := d.Check(); err != nil {
			return "", fmt.Errorf("safety number: %w", err)
		}
		if d.Account != account {
			return "", fmt.Errorf("safety number: %w: device %s is of account %q, not %q", ErrEncoding, d.DeviceID, d.Account, account)
		}
		if i > 0 && ds[i-1].DeviceID == d.DeviceID {
			return "", fmt.Errorf("safety number: %w: device %s twice", ErrEncoding, d.DeviceID)
		}
		keys.Write(d.SignPub)
		keys.Write(d.KEMPub)
	}
	h := sha512.New()
	h.Write([]byte{0, 1}) // version
	h.Write(keys.Bytes())
	h.Write([]byte(account))
	digest := h.Sum(nil)
	for range safetyIterations {
		h.Reset()
		h.Write(digest)
		h.Write(keys.Bytes())
		digest = h.Sum(digest[:0])
	}
	groups := make([]string, 6)
	for i := range groups {
		var chunk [8]byte
		copy(chunk[3:], digest[i*5:i*5+5])
		groups[i] = fmt.Sprintf("%05d", binary.BigEndian.Uint64(chunk[:])%100000)
	}
	return strings.Join(groups, " "), nil
}
