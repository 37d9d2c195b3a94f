//go:build !linux

package cloudsync_test

import "errors"

func loopbackUp() error { return errors.New("network namespaces are Linux only") }
