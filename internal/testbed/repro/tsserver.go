package repro

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// tsServer runs testdata/tsservers/server.mjs --mode stateful, the same
// way internal/testbed/tsserver does for tests, without a testing.TB. Its stdout
// reports LISTENING <url>, SESSION_START <id> and SESSION_END <id> <reason>.
type tsServer struct {
	proc  *proc
	url   string
	admin string // scheme://host:port

	listening chan string // the LISTENING url, sent once
	mu        sync.Mutex
	ended     map[string]time.Time // when each SESSION_END line was read
}

func startTSServer(node, dir string, idle time.Duration) (*tsServer, error) {
	idleMs := int64((idle + time.Millisecond - 1) / time.Millisecond)
	args := []string{"server.mjs", "--mode", "stateful", "--port", "0", "--idle-ms", fmt.Sprint(idleMs)}
	s := &tsServer{listening: make(chan string, 1), ended: make(map[string]time.Time)}
	p, err := startProc(node, dir, args, nil, s.onLine)
	if err != nil {
		return nil, err
	}
	s.proc = p
	t := time.NewTimer(startWithin)
	defer t.Stop()
	select {
	case s.url = <-s.listening:
	case <-p.done:
		return nil, fmt.Errorf("repro: TypeScript SDK server exited before listening: %v\n%s", p.err, p.stderr)
	case <-t.C:
		p.stop()
		return nil, fmt.Errorf("repro: TypeScript SDK server did not listen within %v\n%s", startWithin, p.stderr)
	}
	s.admin = strings.TrimSuffix(s.url, "/mcp")
	return s, nil
}

func (s *tsServer) onLine(line string, at time.Time) {
	if url, ok := strings.CutPrefix(line, "LISTENING "); ok {
		select {
		case s.listening <- url:
		default:
		}
		return
	}
	if rest, ok := strings.CutPrefix(line, "SESSION_END "); ok {
		id, _, _ := strings.Cut(rest, " ")
		s.mu.Lock()
		s.ended[id] = at
		s.mu.Unlock()
	}
}

func (s *tsServer) URL() string { return s.url }

func (s *tsServer) Live(ctx context.Context) ([]string, error) {
	var ids []string
	return ids, s.adminDo(ctx, http.MethodGet, "/admin/sessions", &ids)
}

func (s *tsServer) Ended(id string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.ended[id]
	return at, ok
}

func (s *tsServer) Forget(ctx context.Context) error {
	var out struct {
		Forgotten int `json:"forgotten"`
	}
	return s.adminDo(ctx, http.MethodPost, "/admin/forget", &out)
}

func (s *tsServer) Close() error { s.proc.stop(); return nil }

func (s *tsServer) Diagnostics() string { return s.proc.stderr.String() }

func (s *tsServer) adminDo(ctx context.Context, method, path string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callWithin)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.admin+path, nil)
	if err != nil {
		return fmt.Errorf("repro: admin %s: %w", path, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("repro: admin %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("repro: admin %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("repro: admin %s: HTTP %d: %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("repro: admin %s: %w", path, err)
	}
	return nil
}
