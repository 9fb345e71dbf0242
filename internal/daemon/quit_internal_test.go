package daemon

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/tray"
)

// quitting is a daemon whose tray's Quit is being clicked: its asks of
// the supervisor, its log, and whether it quit.
type quitting struct {
	d    *daemon
	quit chan struct{}
	mu   sync.Mutex
	log  bytes.Buffer
	// asked are the Options of each ask of the supervisor (StopSupervisor).
	asked []autostart.Options
}

func (q *quitting) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.log.Write(p)
}

// newQuitting is a daemon in proxy process mode whose supervisor answers
// an ask to stop with answer (held until release is closed, when not
// nil).
func newQuitting(t *testing.T, mode string, answer autostart.Result, err error, release chan struct{}) *quitting {
	q := &quitting{quit: make(chan struct{})}
	stop := func(_ context.Context, o autostart.Options) (autostart.Result, error) {
		q.mu.Lock()
		q.asked = append(q.asked, o)
		q.mu.Unlock()
		if release != nil {
			<-release
		}
		return answer, err
	}
	q.d = &daemon{stateDir: t.TempDir(), log: slog.New(slog.NewTextHandler(q, nil)),
		opts: Options{ProxyProcess: mode, Quit: func() { close(q.quit) }, StopSupervisor: stop}}
	return q
}

// click clicks Quit and waits for the daemon to quit.
func (q *quitting) click(t *testing.T, ctx context.Context) {
	t.Helper()
	q.d.command(ctx, tray.Command{Kind: tray.CmdQuit})
	select {
	case <-q.quit:
	case <-time.After(10 * time.Second):
		t.Fatal("the tray's Quit did not quit")
	}
}

func (q *quitting) said() (string, []autostart.Options) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.log.String(), q.asked
}

var stopped = autostart.Result{Kind: autostart.Systemd, Did: []string{"systemctl --user stop --no-block mcp-watchdog.service"}}

// The tray's Quit of a supervised daemon asks its supervisor to stop it,
// for this daemon's control socket, before it exits (an exit alone would
// be restarted a second later); a daemon serving its proxies itself or
// spawning its proxy process has no supervisor to ask: Quit only exits.
func TestQuitAsksTheSupervisorOnlyWhenSupervised(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", proxyproc.Spawn, proxyproc.Supervised} {
		q := newQuitting(t, mode, stopped, nil, nil)
		q.click(t, t.Context())
		log, asked := q.said()
		want := 0
		if mode == proxyproc.Supervised {
			want = 1
		}
		if len(asked) != want {
			t.Errorf("mode %q: the supervisor was asked %d times, want %d", mode, len(asked), want)
		}
		if len(asked) == 1 && asked[0].Control != control.SocketPath(q.d.stateDir) {
			t.Errorf("mode %q: asked for the control socket %q, want this daemon's", mode, asked[0].Control)
		}
		if strings.Contains(log, "WARN") {
			t.Errorf("mode %q: a warning on a Quit that holds:\n%s", mode, log)
		}
	}
	q := newQuitting(t, proxyproc.Supervised, stopped, nil, nil)
	q.d.opts.StopSupervisor = nil
	q.click(t, t.Context()) // nothing to ask with: it exits
}

// The ask runs off the loop and the daemon quits only once it is
// answered: launchd's bootout of the daemon's own agent answers only once
// the daemon has exited, which the loop must be free to do.
func TestQuitAsksOffTheLoop(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	q := newQuitting(t, proxyproc.Supervised, stopped, nil, release)
	done := make(chan struct{})
	go func() { defer close(done); q.d.command(t.Context(), tray.Command{Kind: tray.CmdQuit}) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop waits for the supervisor's answer")
	}
	select {
	case <-q.quit:
		t.Fatal("quit before the supervisor was asked")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-q.quit
}

// An ask the supervisor refuses still quits, and the log says the Quit
// may not hold: the supervisor starts the daemon again, and how to stop
// it by hand. One whose asker died of the stop it asked for (systemd
// signals the whole unit, the systemctl too) is no failure: the
// supervisor's SIGTERM, the end of ctx, says the stop came.
func TestQuitSaysWhenTheSupervisorWasNotAsked(t *testing.T) {
	t.Parallel()
	refused := autostart.Result{Kind: autostart.Systemd, Reason: "`systemctl --user stop --no-block mcp-watchdog.service` failed: exit status 1"}
	q := newQuitting(t, proxyproc.Supervised, refused, nil, nil)
	q.click(t, t.Context())
	log, _ := q.said()
	for _, want := range []string{"WARN", "Quit may not hold", "systemd starts it again", autostart.Systemd.StopCommand(), "exit status 1"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	q = newQuitting(t, proxyproc.Supervised, autostart.Result{Kind: autostart.LaunchAgent}, errors.New("no home"), nil)
	q.click(t, t.Context())
	if log, _ := q.said(); !strings.Contains(log, "launchd starts it again") || !strings.Contains(log, "no home") {
		t.Errorf("an ask that could not be made is not told:\n%s", log)
	}
	ctx, cancel := context.WithCancel(t.Context())
	killed := autostart.Result{Kind: autostart.Systemd, Reason: "`systemctl --user stop --no-block mcp-watchdog.service` failed: signal: terminated"}
	q = newQuitting(t, proxyproc.Supervised, killed, nil, nil)
	q.d.opts.StopSupervisor = func(context.Context, autostart.Options) (autostart.Result, error) { cancel(); return killed, nil }
	q.click(t, ctx)
	if log, _ := q.said(); strings.Contains(log, "WARN") {
		t.Errorf("a stop that came is told as failed:\n%s", log)
	}
}
