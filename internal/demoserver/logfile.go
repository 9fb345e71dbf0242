package demoserver

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// logTimeFormat is RFC 3339 with milliseconds, as tracing-style servers print.
const logTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Messages of the simulated server log. They imitate Nowledge Mem's own
// lines so the watchdog's log follower can be tested against them.
const (
	msgConfigured = "MCP session idle timeout and restart restore store configured"
	msgNotFound   = "Session not found"
	msgCreated    = "MCP session created"
	msgClosed     = "MCP session closed"
)

// serverLog appends lines in the third-party server's format. It is the
// server's own log, so it carries full session ids on purpose. A nil
// *serverLog (no LogPath) writes nothing.
//
// Each line opens the path, appends and closes it again instead of keeping
// one *os.File: the log is rotated from outside (rename and create,
// copytruncate, truncate, delete and recreate), and a kept descriptor would
// go on writing into the renamed or deleted inode where no follower of the
// path looks. O_APPEND also puts a line at the end of a truncated file
// rather than at the old offset.
type serverLog struct {
	path  string
	now   func() time.Time
	onErr func(error)

	mu     sync.Mutex // one line at a time, so lines never interleave
	closed bool
}

// openServerLog creates the file if needed, so a bad path fails Start rather
// than every later line.
func openServerLog(path string, now func() time.Time, onErr func(error)) (*serverLog, error) {
	if path == "" {
		return nil, nil
	}
	if err := appendFile(path, nil); err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	return &serverLog{path: path, now: now, onErr: onErr}, nil
}

// appendFile appends b to path, creating it with mode 0600.
func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	return errors.Join(werr, f.Close())
}

func (l *serverLog) info(msg string, kv ...string) { l.write("INFO", msg, kv) }
func (l *serverLog) warn(msg string, kv ...string) { l.write("WARN", msg, kv) }

// write appends one line: time, level, message, then key=value pairs.
func (l *serverLog) write(level, msg string, kv []string) {
	if l == nil {
		return
	}
	line := formatLine(l.now(), level, msg, kv)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if err := appendFile(l.path, []byte(line)); err != nil {
		l.onErr(fmt.Errorf("write server log: %w", err))
	}
}

// close drops every later line; no descriptor is held, so nothing can fail.
func (l *serverLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
}

// formatLine renders one log line; values with spaces, quotes or '=' are
// quoted so the line stays one line and splits unambiguously.
func formatLine(t time.Time, level, msg string, kv []string) string {
	var b strings.Builder
	b.WriteString(t.Format(logTimeFormat))
	b.WriteByte(' ')
	b.WriteString(level)
	b.WriteByte(' ')
	b.WriteString(msg)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteByte(' ')
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(logValue(kv[i+1]))
	}
	b.WriteByte('\n')
	return b.String()
}

func logValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\r\n\"=") || !strconv.CanBackquote(v) {
		return strconv.Quote(v)
	}
	return v
}

// seconds renders a duration as whole seconds when it is whole, else with
// the fraction, so short test timeouts stay exact.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
