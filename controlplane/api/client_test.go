package api_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"mnote/controlplane/api"
)

// The client sends the bearer token and escaped ids, and turns every
// failure into an *api.Error — the contract's JSON errors, and also bodies
// that are not (a proxy's page) — with Retry-After and the stale record.
func TestClientErrors(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", 500)
			return
		}
		switch r.PathValue("id") {
		case "a/b":
			w.Write([]byte(`{"id":"a/b","version":1}`))
		case "proxy":
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html>502 Bad Gateway</html>"))
		case "busy":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"rate_limited","message":"slow down"}}`))
		}
	})
	mux.HandleFunc("PUT /v1/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"error":{"code":"stale","message":"newer"},"session":{"id":"s","version":9}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &api.Client{BaseURL: srv.URL + "/", Token: "tok"}
	ctx := t.Context()

	rec, err := c.GetSession(ctx, "a/b")
	if err != nil || rec.ID != "a/b" {
		t.Fatalf("escaped id: %+v, %v", rec, err)
	}
	_, err = c.GetSession(ctx, "proxy")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != 502 || ae.Code != api.CodeInternal || ae.Message != "<html>502 Bad Gateway</html>" {
		t.Fatalf("proxy page: %#v", err)
	}
	_, err = c.GetSession(ctx, "busy")
	if !errors.As(err, &ae) || ae.Code != api.CodeRateLimited || ae.RetryAfter.Seconds() != 7 || !errors.Is(err, &api.Error{Status: 429}) {
		t.Fatalf("429: %#v", err)
	}
	_, err = c.PutSession(ctx, api.SessionRecord{ID: "s", Version: 3})
	if !errors.As(err, &ae) || ae.Code != api.CodeStale || ae.Session == nil || ae.Session.Version != 9 || api.ErrorCode(err) != api.CodeStale {
		t.Fatalf("409: %#v", err)
	}
	// ServeMux answers this DELETE with its plain-text 405.
	err = c.DeleteSession(ctx, "x")
	if api.IsNotFound(err) || !errors.As(err, &ae) || ae.Status != 405 || ae.Code != api.CodeMethodNotAllowed {
		t.Fatalf("405: %#v", err)
	}
	_, err = (&api.Client{BaseURL: "http://127.0.0.1:1", Token: "tok"}).Me(ctx)
	if err == nil || api.ErrorCode(err) != "" {
		t.Fatalf("unreachable server: %v; want a network error, not an *api.Error", err)
	}
}
