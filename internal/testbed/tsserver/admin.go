package tsserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// adminTimeout bounds one admin request; the server answers them at once.
const adminTimeout = 30 * time.Second

// Sessions lists the ids of the server's live sessions (always empty when stateless).
func (s *Server) Sessions(t testing.TB) []string {
	t.Helper()
	var ids []string
	s.adminCall(t, http.MethodGet, "/admin/sessions", &ids)
	return ids
}

// Forget closes and forgets every session, as a restart would; each is logged as
// SESSION_END <id> forgotten. Later requests with those ids get the mode's
// unknown-session answer.
func (s *Server) Forget(t testing.TB) {
	t.Helper()
	var out struct {
		Forgotten int `json:"forgotten"`
	}
	s.adminCall(t, http.MethodPost, "/admin/forget", &out)
}

// Count is how many times the count tool has run in this process, without running it.
func (s *Server) Count(t testing.TB) int {
	t.Helper()
	var out struct {
		Count int `json:"count"`
	}
	s.adminCall(t, http.MethodGet, "/admin/count", &out)
	return out.Count
}

func (s *Server) adminCall(t testing.TB, method, path string, out any) {
	t.Helper()
	if err := adminDo(s.admin+path, method, out); err != nil {
		t.Fatalf("tsserver: %s %s: %v", method, path, err)
	}
}

func adminDo(url, method string, out any) error {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: adminTimeout}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode %q: %w", body, err)
	}
	return nil
}
