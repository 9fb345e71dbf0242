// Command trayapp shows the real Tray and Notifier fed by scripted views,
// for the desktop end-to-end test until (and besides) the daemon's own
// tray. It reads one word a line on stdin: healthy, lost, healing,
// recovered; it writes each menu Command as a JSON line on stdout and
// exits when stdin closes.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/tray"
)

const server = "nowledge-mem"

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t := tray.New(tray.Options{Logger: log})
	n := notify.New(notify.Options{Logger: log})
	go func() { _ = n.Run(ctx) }()
	go printCommands(ctx, t)
	t.Update(view(health.Healthy))
	go func() {
		defer cancel()
		feed(t, n)
	}()
	if err := t.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "trayapp:", err)
		os.Exit(1)
	}
}

func feed(t *tray.Tray, n *notify.Notifier) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		now := time.Now()
		switch sc.Text() {
		case "healthy":
			t.Update(view(health.Healthy))
		case "lost":
			n.Consider(health.Event{Time: now, Kind: health.EvSessionLost, Server: server,
				Detail: "session on " + server + " lost: 404 session not found", Facts: health.Loss{Incident: true}})
			t.Update(view(health.Lost))
		case "healing":
			t.Update(view(health.Healing))
		case "recovered":
			n.Consider(health.Event{Time: now, Kind: health.EvRecovered, Server: server,
				Detail: server + " recovered: the host reconnected", Facts: health.Recovery{Took: 1200 * time.Millisecond}})
			t.Update(view(health.Healthy))
		}
	}
}

func view(st health.State) tray.View {
	sess := health.SessionStatus{ID: "abcd…wxyz", Client: "dsh", IdleSeconds: 3*3600 + 12*60,
		ExpiresInSeconds: 8*3600 + 48*60, State: st, Current: true}
	return tray.View{Now: time.Now(), KeepWarm: map[string]bool{server: true}, Status: health.Status{
		Host: health.HostStatus{Name: host.Default().Name, Running: true, PID: 4242, Patch: "unpatched"},
		Servers: []health.ServerStatus{{Name: server, URL: "http://127.0.0.1:14242/mcp", Mode: health.Stateful,
			State: st, IdleTimeoutSeconds: 43200, Sessions: []health.SessionStatus{sess}}}}}
}

func printCommands(ctx context.Context, t *tray.Tray) {
	enc := json.NewEncoder(os.Stdout)
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-t.Commands():
			_ = enc.Encode(c)
		}
	}
}
