package daemon

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
	"github.com/mcpwatchdog/watchdog/monitor/classify"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
	"github.com/mcpwatchdog/watchdog/monitor/store"
)

// lineReader classifies followed log lines into observations. Every line goes
// through the loop, matched or not, so that positions are acknowledged in
// order and only after what came before them is journaled.
type lineReader struct {
	d      *daemon
	stores map[string]*store.Watcher
}

func (r *lineReader) run(emit emitFunc, lines <-chan follow.Line) {
	for ln := range lines {
		pos := ln.Pos
		it := lineIn{ack: pos, from: r.d.watched.hostOfTag(ln.Tag)}
		if it.from == nil && !ln.History {
			it.alive = ln.Tag // the server itself wrote it
		}
		if o, ok := r.signal(ln); ok {
			it.o = o
		}
		if !emit(it) {
			return
		}
	}
}

// signal maps a line to an observation. History lines (what a file held before
// the watchdog first saw it) only teach announcements: old failures there
// are history, not new alerts.
func (r *lineReader) signal(ln follow.Line) (health.Observation, bool) {
	m, ok := classify.LogLine(ln.Text)
	if !ok {
		return nil, false
	}
	server := r.attribute(ln)
	if m.Kind == classify.IdleTimeoutAnnounced {
		r.learnStore(server, m.StorePath)
	}
	if ln.History && m.Kind != classify.IdleTimeoutAnnounced {
		return nil, false
	}
	line := health.LogLine{Server: server, Session: m.Session,
		HostLog: r.d.watched.hostOfTag(ln.Tag) != nil, History: ln.History,
		Detail: fmt.Sprintf("%s reports %s", filepath.Base(ln.Pos.Path), m.Rule),
		Source: health.LogPosition{File: ln.Pos.Path, Fingerprint: ln.Pos.Fingerprint, Offset: ln.Pos.Offset}}
	var o health.Observation
	switch m.Kind {
	case classify.SessionLost:
		o = health.SessionLost{LogLine: line}
	case classify.IdleTimeoutAnnounced:
		o = health.IdleTimeoutAnnounced{LogLine: line, Timeout: m.IdleTimeout}
	case classify.LegacyHeaderRejected:
		o = health.LegacyHeaderRejected{LogLine: line}
	case classify.Reconnected:
		o = health.Reconnected{LogLine: line}
	case classify.SessionClosed:
		o = health.SessionClosed{LogLine: line, Reason: health.EndReason(m.EndReason)}
	default:
		// A GET-stream 404 is only a hint (REFERENCES: the GET-404 hazard);
		// the healer confirms with a ping before anything is called lost.
		r.d.log.Debug("hint: GET stream 404", "server", server, "file", ln.Pos.Path)
		return nil, false
	}
	return o, true
}

// attribute names the server a line concerns: its file's owner, or for a
// host log the server the line mentions (by name, then by host:port), or
// the only server there is.
func (r *lineReader) attribute(ln follow.Line) string {
	if r.d.watched.hostOfTag(ln.Tag) == nil {
		return ln.Tag
	}
	servers := r.d.cfg.Servers
	text := string(ln.Text)
	for _, s := range servers {
		if strings.Contains(text, s.Name) {
			return s.Name
		}
	}
	for _, s := range servers {
		if hp := proxyurl.HostPort(s.URL); hp != "" && strings.Contains(text, hp) {
			return s.Name
		}
	}
	if len(servers) == 1 {
		return servers[0].Name
	}
	return ""
}

// learnStore points a server's store watcher at the path its log
// announced, unless the config named a store.
func (r *lineReader) learnStore(server, path string) {
	if path == "" || server == "" {
		return
	}
	for _, s := range r.d.cfg.Servers {
		if s.Name == server && s.Store == "" {
			if w := r.stores[server]; w != nil {
				w.SetPath(path)
			}
		}
	}
}
