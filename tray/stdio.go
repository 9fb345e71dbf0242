package tray

import (
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// stdioName names a stdio server as its host has it: "opencode: filesystem".
func stdioName(s health.ServerStatus) string {
	if s.Stdio == nil || s.Stdio.Host == "" {
		return s.Name
	}
	return s.Stdio.Host + ": " + s.Name
}

// stdioStateWords says a stdio server's state as its host lives it.
func stdioStateWords(st health.State) string {
	switch st {
	case health.Healing:
		return "restarting"
	case health.Lost:
		return "keeps crashing, not restarted"
	case health.Down:
		return "not answering"
	case health.Unknown, "":
		return "not running"
	}
	return StateLabel(st)
}

// StdioLine is a stdio server's menu line: its host and name, its state,
// and how often it was restarted.
func StdioLine(s health.ServerStatus) string {
	line := stdioName(s) + " (stdio): " + stdioStateWords(s.State)
	if s.Stdio != nil && s.Stdio.Restarts > 0 {
		line += fmt.Sprintf(" · restarted %d×", s.Stdio.Restarts)
	}
	return line
}

// stdioItem is a stdio server's entry: its line, and what the supervisor
// said of it as information lines. Nothing to click: the supervisor
// restarts it on its own.
func stdioItem(s health.ServerStatus) item {
	it := item{Title: StdioLine(s)}
	st := s.Stdio
	if st == nil {
		return it
	}
	info := fmt.Sprintf("%d starts, %d exits, %d failed calls", st.Starts, st.Exits, st.FailedCalls)
	if st.PID != 0 {
		info = fmt.Sprintf("pid %d · ", st.PID) + info
	}
	it.Children = append(it.Children, item{Title: info, Disabled: true})
	if st.LastExit != "" {
		it.Children = append(it.Children, item{Title: "Last exit: " + st.LastExit, Disabled: true})
	}
	if st.LastStderr != "" {
		it.Children = append(it.Children, item{Title: "Last on stderr: " + st.LastStderr, Disabled: true})
	}
	return it
}

// stdioTrouble is the tooltip's phrase for a stdio server in trouble ("" none).
func stdioTrouble(s health.ServerStatus) string {
	switch s.State {
	case health.Healing, health.Lost, health.Down:
		return stdioName(s) + " " + stdioStateWords(s.State)
	}
	return ""
}
