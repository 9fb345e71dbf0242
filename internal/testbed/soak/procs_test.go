package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/demoserver/truth"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/internal/testbed/sockhold"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// Server kinds of the soak.
const (
	KindGo      = "go"       // the Go SDK (internal/demoserver), 404 "session not found"
	KindTS404   = "ts-404"   // the TypeScript SDK, 404 -32001
	KindTSQuirk = "ts-quirk" // TypeScript, 400 "No valid session ID provided"
)

// ServerSpec is one soak server.
type ServerSpec struct {
	Name     string
	Kind     string
	Idle     time.Duration
	KeepWarm bool
}

// serverProc is one server: its files, its port, and the running process.
type serverProc struct {
	spec       ServerSpec
	log, store string
	port       int
	url        string
	onEvent    func(ServerEvent)
	onCall     func(Execution)

	goCmd *exec.Cmd // KindGo
	goOut *tailbuf.Buffer
	goEnd chan struct{}
	ts    *tsserver.Server // the TypeScript kinds
}

// start runs the server (on its old port after a kill) and waits until it
// listens; its store is then rewritten empty by the server itself.
func (s *serverProc) start(demoserverBin string) error {
	if s.spec.Kind != KindGo {
		mode := tsserver.Stateful
		if s.spec.Kind == KindTSQuirk {
			mode = tsserver.Quirk
		}
		ts, err := tsserver.Launch(tsserver.Options{Mode: mode, IdleTimeout: s.spec.Idle, Port: s.port,
			LogPath: s.log, StorePath: s.store, OnEvent: s.record})
		if err != nil {
			return err
		}
		s.ts, s.url = ts, ts.URL()
		return s.notePort()
	}
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	cmd := exec.Command(demoserverBin, "-addr", addr, "-idle", s.spec.Idle.String(), "-store", s.store, "-log", s.log, "-events")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.goOut = &tailbuf.Buffer{Max: 16 << 10}
	cmd.Stderr = s.goOut
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start demoserver: %w", err)
	}
	s.goCmd, s.goEnd = cmd, make(chan struct{})
	ready := make(chan string, 1)
	go s.readGo(out, ready)
	select {
	case s.url = <-ready:
	case <-time.After(30 * time.Second):
		return fmt.Errorf("demoserver %s did not print its URL: %s", s.spec.Name, s.goOut.String())
	}
	return s.notePort()
}

func (s *serverProc) notePort() error {
	if s.port != 0 {
		return nil
	}
	_, err := fmt.Sscanf(s.url, "http://127.0.0.1:%d/mcp", &s.port)
	return err
}

// readGo reads the demoserver's stdout: the URL, then session and call
// lines.
func (s *serverProc) readGo(out io.Reader, ready chan<- string) {
	defer close(s.goEnd)
	sc := bufio.NewScanner(out)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			ready <- strings.TrimSpace(line)
			continue
		}
		if e, ok := truth.Parse(line, time.Now()); ok {
			s.record(e)
		}
	}
	_ = s.goCmd.Wait()
}

// record takes a line of either kind of server (they print the same).
func (s *serverProc) record(e tsserver.Event) {
	if e.Kind == truth.Call {
		s.onCall(Execution{At: e.At, Server: s.spec.Name, Session: e.ID, Text: e.Text})
		return
	}
	ev := ServerEvent{At: e.At, Server: s.spec.Name, ID: e.ID, Client: e.Client, Reason: normalReason(e.Reason), Start: e.Kind == truth.Start}
	s.onEvent(ev)
}

// kill is kill -9: the server says nothing, its store stays as it was.
func (s *serverProc) kill() {
	if s.ts != nil {
		s.ts.Kill()
		return
	}
	_ = s.goCmd.Process.Kill()
	<-s.goEnd
}

// clientProc is a soak client process (RunClient in a re-executed test
// binary); the host's is found by the watchdog through its token.
type clientProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startClient starts a soak client process; stdout, when not nil,
// receives what it writes there (an unpatched client's calls).
func startClient(token string, cfg ClientConfig, stdout io.Writer) (*clientProc, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(os.Args[0])
	cmd.Args = []string{token} // runs as token: the watcher matches argv[0]
	cmd.Env = append(os.Environ(), roleEnv+"=client", clientConfigEnv+"="+string(b))
	cmd.Stdout = stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start soak client: %w", err)
	}
	c := &clientProc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }()
	return c, nil
}

// kill is kill -9, reaped at once so the watchdog never sees a zombie.
func (c *clientProc) kill() {
	_ = c.cmd.Process.Kill()
	<-c.done
}

// supervisedDaemon is the real daemon and its proxy process, each under a
// supervisor that holds its sockets and starts it again after every exit
// (sockhold), as systemd does with the units `watchdog autostart enable`
// writes: the proxy process (`watchdog proxy`) with the proxies' sockets,
// the daemon (`watchdog run --proxy-process supervised`) with its control
// socket.
type supervisedDaemon struct {
	h      *sockhold.Holder // the daemon's
	proxyH *sockhold.Holder // the proxy process's
	socket string
}

// startSupervised starts both supervisors and waits until the daemon
// answers and says the proxy process serves every proxy.
func startSupervised(bin string, env []string, cfg, state string, proxies []string, stderr io.Writer) (*supervisedDaemon, error) {
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	sock := filepath.Join(state, "watchdog.sock")
	names := []string{}
	for _, p := range proxies {
		names = append(names, sockact.ProxyName(p))
	}
	command := func(args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			cmd := exec.Command(bin, append(args, "--config", cfg, "--state-dir", state)...)
			cmd.Env, cmd.Stderr = env, stderr
			return cmd
		}
	}
	ph, err := sockhold.Start(sockhold.Options{TCP: proxies, Names: names, Command: command("proxy")})
	if err != nil {
		return nil, err
	}
	h, err := sockhold.Start(sockhold.Options{Unix: []string{sock}, Names: []string{sockact.ControlName},
		Command: command("run", "--headless", "--proxy-process", "supervised")})
	if err != nil {
		ph.Stop(syscall.SIGKILL, time.Second)
		return nil, err
	}
	d := &supervisedDaemon{h: h, proxyH: ph, socket: sock}
	err = d.waitReady()
	if err == nil {
		err = d.waitServed()
	}
	if err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

// stop ends both at once (a soak that failed half way).
func (d *supervisedDaemon) stop() {
	d.h.Stop(syscall.SIGKILL, time.Second)
	d.proxyH.Stop(syscall.SIGKILL, time.Second)
}

// waitReady waits until a daemon answers on the control socket. The
// supervisor holds it: a request made while the daemon restarts waits in
// its queue, and is answered by the new one.
func (d *supervisedDaemon) waitReady() error {
	return d.waitStatus("answered", func(json.RawMessage) bool { return true })
}

// waitServed waits until the daemon says every proxy is served: the proxy
// process runs and the daemon is linked to it.
func (d *supervisedDaemon) waitServed() error {
	return d.waitStatus("said every proxy is served", func(raw json.RawMessage) bool {
		var st struct {
			Servers []struct {
				Listen string `json:"proxy_listen"`
				Served bool   `json:"proxy_served"`
			} `json:"servers"`
		}
		if json.Unmarshal(raw, &st) != nil {
			return false
		}
		for _, s := range st.Servers {
			if s.Listen != "" && !s.Served {
				return false
			}
		}
		return true
	})
}

func (d *supervisedDaemon) waitStatus(what string, ok func(json.RawMessage) bool) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		raw, err := control.Dial(d.socket).Status(ctx)
		cancel()
		if err == nil && ok(raw) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the watchdog never %s on %s (%d starts, %d of the proxy process): %v", what, d.socket, d.h.Starts(), d.proxyH.Starts(), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killProxy kills the proxy process -9 and waits until its supervisor has
// started it again and the daemon says it serves every proxy; it returns
// the span between.
func (d *supervisedDaemon) killProxy() (Span, error) {
	at := time.Now()
	n := d.proxyH.Starts()
	d.proxyH.Kill()
	err := d.proxyH.WaitStarts(n+1, 30*time.Second)
	if err == nil {
		err = d.waitServed()
	}
	return Span{From: at, To: time.Now()}, err
}

// kill kills the daemon -9 and runs then before the supervisor starts it
// again; it returns the instant of the kill.
func (d *supervisedDaemon) kill(then func()) time.Time {
	at := time.Now()
	d.h.KillThen(then)
	return at
}

// crashes are the daemon's and the proxy process's exits the soak did
// not cause.
func (d *supervisedDaemon) crashes() []time.Time {
	var out []time.Time
	for _, e := range append(d.h.Exits(), d.proxyH.Exits()...) {
		if !e.Killed {
			out = append(out, e.At)
		}
	}
	return out
}

// crash stops the supervisors and makes the Go runtime print every
// goroutine (SIGQUIT), the output a crash leaves behind.
func (d *supervisedDaemon) crash() {
	d.h.Stop(syscall.SIGQUIT, 10*time.Second)
	d.proxyH.Stop(syscall.SIGQUIT, 10*time.Second)
}

// normalReason: the Go server says idle_timeout where the TypeScript ones
// say idle.
func normalReason(r string) string {
	if r == "idle_timeout" {
		return "idle"
	}
	return r
}
