package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func serverTable(name, url string, logs []string, store string) string {
	q := make([]string, len(logs))
	for i, l := range logs {
		q[i] = fmt.Sprintf("%q", l)
	}
	s := fmt.Sprintf("\n[[server]]\nname = %q\nurl = %q\nlogs = [%s]\nidle_timeout = \"1s\"\n", name, url, strings.Join(q, ", "))
	if store != "" {
		s += fmt.Sprintf("store = %q\n", store)
	}
	return s
}

const hostTable = "notify = false\n[host]\nprocess = \"\"\nport = 0\n"

// latencyServers spreads lineLatency's rounds so that no server sees more
// than the model's flap limit (40 incidents a minute): past it, the rounds
// are counted into one flapping incident and no recovered is journaled.
const latencyServers = 25

// lineLatency: a loss line and a reconnect line alternate, each round in
// the next server's log; each line gives one event (session_lost,
// recovered).
// With files and servers above its own 25, the rest are idle ones (as in
// idle), so the latency is measured on a daemon that follows that many.
func (b *bench) lineLatency(ctx context.Context, samples, files, servers int) error {
	cfg := hostTable
	logs := make([]string, latencyServers)
	for i := range logs {
		logs[i] = filepath.Join(b.dir, fmt.Sprintf("server%02d.log", i))
		cfg += serverTable(fmt.Sprintf("mem%02d", i), fmt.Sprintf("http://127.0.0.1:9/mcp%02d", i), logs[i:i+1], "")
	}
	load := ""
	if servers > latencyServers {
		extra, err := idleConfig(filepath.Join(b.dir, "load"), max(files-latencyServers, 0), servers-latencyServers)
		if err != nil {
			return err
		}
		cfg += strings.TrimPrefix(extra, hostTable)
		load = fmt.Sprintf(", %d files and %d servers followed", max(files, latencyServers), servers)
	}
	d, err := b.start(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.stop()
	var lat []time.Duration
	for i := range samples {
		line, kind := "WARN Session not found session_id=bench", "session_lost"
		if i%2 == 1 {
			line, kind = "INFO Reconnected to MCP server", "recovered"
		}
		wrote, err := appendLine(logs[i/2%latencyServers], fmt.Sprintf("%s %s", time.Now().UTC().Format(time.RFC3339Nano), line))
		if err != nil {
			return err
		}
		at, err := d.next(ctx, kind, 10*time.Second)
		if err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		lat = append(lat, at.Sub(wrote))
	}
	p50, p99 := percentiles(lat)
	fmt.Printf("| line written → journal event (%d samples%s) | p50 %s, p99 %s | p99 ≤ 10ms | %s |\n", samples, load, ms(p50), ms(p99), verdict(p99 <= 10*time.Millisecond))
	return nil
}

// storeLatency: each sample adds a session to the store, then removes it
// long after its 1 s idle timeout.
func (b *bench) storeLatency(ctx context.Context, samples int) error {
	// The samples are spread over stores so that no server passes the
	// journal's limit on session events (600 at once): two a sample.
	const storeCount = 10
	cfg := hostTable
	stores := make([]string, storeCount)
	for i := range stores {
		stores[i] = filepath.Join(b.dir, fmt.Sprintf("store%d", i), "mcp-sessions.json")
		if err := os.MkdirAll(filepath.Dir(stores[i]), 0o700); err != nil {
			return err
		}
		if err := writeStore(stores[i], ""); err != nil {
			return err
		}
		cfg += serverTable(fmt.Sprintf("mem%d", i), fmt.Sprintf("http://127.0.0.1:%d/mcp", 9+i), nil, stores[i])
	}
	d, err := b.start(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.stop()
	var lat []time.Duration
	for i := range samples {
		store := stores[i%storeCount]
		if err := writeStore(store, fmt.Sprintf("bench-session-%08d", i)); err != nil {
			return err
		}
		if _, err := d.next(ctx, "session_new", 10*time.Second); err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		wrote := time.Now()
		if err := writeStore(store, ""); err != nil {
			return err
		}
		at, err := d.next(ctx, "session_expired", 10*time.Second)
		if err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		lat = append(lat, at.Sub(wrote))
	}
	p50, p99 := percentiles(lat)
	fmt.Printf("| store change → session_expired (%d samples over %d stores) | p50 %s, p99 %s | p99 ≤ 100ms | %s |\n", samples, storeCount, ms(p50), ms(p99), verdict(p99 <= 100*time.Millisecond))
	return nil
}

// writeStore writes a store with one long-idle session (or none),
// atomically, as servers do.
func writeStore(path, id string) error {
	sessions := []map[string]string{}
	if id != "" {
		sessions = append(sessions, map[string]string{"id": id, "client_name": "bench",
			"last_activity": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)})
	}
	body, err := json.Marshal(map[string]any{"sessions": sessions})
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// replaceIdle sets every server's idle_timeout in cfg.
func replaceIdle(cfg string, d time.Duration) string {
	return strings.ReplaceAll(cfg, `idle_timeout = "1s"`, fmt.Sprintf("idle_timeout = %q", d.String()))
}

func echoCall() *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}}
}
