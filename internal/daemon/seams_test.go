package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/stream"
)

// flakySource is a source a test registers: its first run fails, its
// second panics, its third emits a warning and then watches until the
// daemon stops. The supervisor must bring it back each time.
type flakySource struct {
	runs   atomic.Int32
	detail string
}

func (s *flakySource) Name() string { return "test source" }

func (s *flakySource) Run(ctx context.Context, emit emitFunc) error {
	switch s.runs.Add(1) {
	case 1:
		return errors.New("first run fails")
	case 2:
		panic("second run panics")
	}
	sig := health.Warning{Detail: s.detail}
	emit(signalIn{o: sig})
	<-ctx.Done()
	return nil
}

// A new source is one type and a registration: a test-only one, run by
// the real daemon under its supervisor, failing and panicking first, has
// its signal applied by the loop and journaled.
func TestANewSourceIsOneRegistration(t *testing.T) {
	dir := t.TempDir()
	src := &flakySource{detail: "from the test-only source"}
	cfg := testConfig(t, dir)
	o := Options{Home: t.TempDir(), sources: []source{src}}
	serveUntilCleanup(t, cfg, dir, o)
	waitUntil(t, 20*time.Second, "the test source's warning in the journal", func() bool {
		return journaled(t, dir, health.EvWarning, src.detail)
	})
	if n := src.runs.Load(); n != 3 {
		t.Fatalf("the source ran %d times, want 3 (a failure and a panic, each started again)", n)
	}
}

// slowFace is a face a test registers: it holds its first publication
// until released, then notes the journaled warnings it is handed.
type slowFace struct {
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	said    []string
	told    []string
}

func (f *slowFace) Name() string { return "test face" }

func (f *slowFace) Take(p stream.Publication) {
	f.once.Do(func() { <-f.release })
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := p.Event()
	if ev.Kind != health.EvWarning {
		return
	}
	switch p.(type) {
	case stream.Said:
		f.said = append(f.said, ev.Detail)
	case stream.Journaled:
		f.told = append(f.told, ev.Detail)
	}
}

func (f *slowFace) saw(detail string) (said, told bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.said, detail), slices.Contains(f.told, detail)
}

// A new face is one type and a registration: a test-only one follows the
// real loop's stream, said and journaled, and while it is stuck the loop
// goes on journaling (a slow face blocks nobody).
func TestANewFaceIsOneRegistration(t *testing.T) {
	dir := t.TempDir()
	src := &flakySource{detail: "for the test-only face"}
	src.runs.Store(2) // no failures this time: it emits at once
	face := &slowFace{release: make(chan struct{})}
	o := Options{Home: t.TempDir(), sources: []source{src}, faces: []stream.Face{face}}
	serveUntilCleanup(t, testConfig(t, dir), dir, o)
	waitUntil(t, 20*time.Second, "the warning journaled while the face is stuck", func() bool {
		return journaled(t, dir, health.EvWarning, src.detail)
	})
	if said, told := face.saw(src.detail); said || told {
		t.Fatal("the stuck face took the warning")
	}
	close(face.release)
	waitUntil(t, 20*time.Second, "the face to take the warning, said and journaled", func() bool {
		said, told := face.saw(src.detail)
		return said && told
	})
}

// The Done-when of the seams: a new source and a new face are one file
// each (seam_source_test.go, seam_face_test.go) and a registration. The
// source's typed observation reaches the model (the status the control
// socket answers shows the announced timeout), and the event the model
// makes of it reaches the face through the stream.
func TestANewSourceAndFaceAreOneFileEach(t *testing.T) {
	dir := t.TempDir()
	const announced = 42 * time.Minute
	face := &modeFace{}
	o := Options{Home: t.TempDir(),
		sources: []source{announceSource{server: "mem", timeout: announced}},
		faces:   []stream.Face{face}}
	serveUntilCleanup(t, testConfig(t, dir), dir, o)
	waitUntil(t, 20*time.Second, "the model to hold the announced timeout", func() bool {
		return modelTimeout(t, dir, "mem") == int64(announced.Seconds())
	})
	waitUntil(t, 20*time.Second, "the face to take the server_mode event", func() bool {
		got, ok := face.timeoutSeen("mem")
		return ok && got == announced.Seconds()
	})
}

// modelTimeout is server's idle timeout in the status the control socket
// answers; -1 while the socket does not answer yet.
func modelTimeout(t *testing.T, dir, server string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	raw, err := control.Dial(control.SocketPath(dir)).Status(ctx)
	if err != nil {
		return -1
	}
	var st health.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("status: %v: %s", err, raw)
	}
	for _, s := range st.Servers {
		if s.Name == server {
			return s.IdleTimeoutSeconds
		}
	}
	return -1
}

// serveUntilCleanup runs the real daemon until the test ends, and fails
// the test if it then returns an error.
func serveUntilCleanup(t *testing.T, cfg config.Config, dir string, o Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, cfg, dir, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

func journaled(t *testing.T, dir string, kind health.EventKind, detail string) bool {
	t.Helper()
	recs, err := journal.ReadTail(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind == kind && strings.Contains(r.Detail, detail) {
			return true
		}
	}
	return false
}

// testConfig is a config of one host watched by its log alone and one
// server nothing answers for, on loopback.
func testConfig(t *testing.T, dir string) config.Config {
	t.Helper()
	path := filepath.Join(dir, "config.toml")
	body := fmt.Sprintf(`
[host]
name = "DSH"
logs = [%q]
process = ""
port = 0

[[server]]
name = "mem"
url = "http://%s/mcp"
`, filepath.Join(dir, "host-*.log"), closedPort(t))
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Notify = false
	return cfg
}

// closedPort is a loopback address nothing listens on (at the time).
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitUntil polls cond until it holds, failing the test after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
