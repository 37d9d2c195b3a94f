package cloudsync

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"mnote/controlplane/api"
)

// explained is a failure to talk to the control plane with the user's
// next step. It wraps the failure, so errors.As still finds the
// *api.Error or the network error under it.
type explained struct {
	err  error
	next string
}

func (e *explained) Error() string { return e.err.Error() + "; " + e.next }
func (e *explained) Unwrap() error { return e.err }

// explain adds to err, a failure of a call to the control plane, what
// the user can do about it: a token refused (401/403), a server that
// fails (5xx) or asks to wait (429), a URL that does not answer. Other
// errors (a 400, a local failure) are returned as they are.
func explain(err error) error {
	if err == nil {
		return nil
	}
	var done *explained
	if errors.As(err, &done) {
		return err
	}
	var (
		ae *api.Error
		ue *url.Error
	)
	switch {
	case errors.As(err, &ae):
		switch {
		case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
			return &explained{err, "the control plane refused the token: set a new one in Settings (or with 'mnote sync set --url URL --token-stdin')"}
		case ae.Status == http.StatusTooManyRequests:
			return &explained{err, fmt.Sprintf("the control plane asks to wait; try again in %s", max(ae.RetryAfter, time.Second))}
		case ae.Status >= 500:
			return &explained{err, "the control plane failed; try again later (if it goes on, tell whoever runs it)"}
		}
	case errors.As(err, &ue):
		return &explained{err, "cannot reach the control plane: check the URL in Settings and the network"}
	}
	return err
}
