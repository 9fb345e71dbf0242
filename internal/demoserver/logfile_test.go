package demoserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var logT0 = time.Date(2026, 7, 1, 12, 0, 0, 123456789, time.UTC)

func TestFormatLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		level string
		msg   string
		kv    []string
		want  string
	}{
		{"configured", "INFO", msgConfigured, []string{"seconds", "43200", "store_path", "/s/mcp-sessions.json"},
			"2026-07-01T12:00:00.123Z INFO " + msgConfigured + " seconds=43200 store_path=/s/mcp-sessions.json\n"},
		{"not found", "WARN", msgNotFound, []string{"session_id", "AB12CD"},
			"2026-07-01T12:00:00.123Z WARN Session not found session_id=AB12CD\n"},
		{"space quoted", "INFO", msgCreated, []string{"session_id", "x", "client", "my client"},
			"2026-07-01T12:00:00.123Z INFO MCP session created session_id=x client=\"my client\"\n"},
		{"empty quoted", "INFO", msgConfigured, []string{"seconds", "0", "store_path", ""},
			"2026-07-01T12:00:00.123Z INFO " + msgConfigured + " seconds=0 store_path=\"\"\n"},
		{"newline escaped", "WARN", msgNotFound, []string{"session_id", "a\nb"},
			"2026-07-01T12:00:00.123Z WARN Session not found session_id=\"a\\nb\"\n"},
		{"odd pair dropped", "INFO", "m", []string{"k"}, "2026-07-01T12:00:00.123Z INFO m\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := formatLine(logT0, tt.level, tt.msg, tt.kv); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"}, {2 * time.Second, "2"}, {12 * time.Hour, "43200"}, {1500 * time.Millisecond, "1.5"},
	}
	for _, tt := range tests {
		if got := seconds(tt.d); got != tt.want {
			t.Errorf("seconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// FuzzFormatLine: whatever a client puts in its session header or client
// name, the log gets exactly one line that starts with the timestamp.
func FuzzFormatLine(f *testing.F) {
	for _, s := range []string{"ABCDEF0123", "", "a b", "x\ny", "\"q\"", "k=v", "\x00\xff", "é…"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		line := formatLine(logT0, "WARN", msgNotFound, []string{"session_id", v})
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Fatalf("not one line: %q", line)
		}
		if !strings.HasPrefix(line, "2026-07-01T12:00:00.123Z WARN "+msgNotFound+" session_id=") {
			t.Fatalf("bad prefix: %q", line)
		}
	})
}

func TestServerLogAppendsAndCloses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte("earlier line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var errs []error
	l, err := openServerLog(path, func() time.Time { return logT0 }, func(e error) { errs = append(errs, e) })
	if err != nil {
		t.Fatal(err)
	}
	l.info(msgCreated, "session_id", "s", "client", "c")
	l.close()
	l.close()                                 // idempotent
	l.warn(msgNotFound, "session_id", "late") // after close: dropped, no error
	b, _ := os.ReadFile(path)
	want := "earlier line\n2026-07-01T12:00:00.123Z INFO MCP session created session_id=s client=c\n"
	if string(b) != want || len(errs) != 0 {
		t.Errorf("log = %q (errors %v), want %q", b, errs, want)
	}
	if l, err := openServerLog("", time.Now, nil); l != nil || err != nil {
		t.Error("empty path should give a nil log")
	}
	if _, err := openServerLog(filepath.Join(path, "not-a-dir", "x.log"), time.Now, nil); err == nil {
		t.Error("a log under a file opened without error")
	}
}

// TestServerLogSurvivesRotation: after each way of rotating the log from
// outside, the next line is the only line of the file at the path, and a
// renamed-away file gets nothing more.
func TestServerLogSurvivesRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log")
	var errs []error
	l, err := openServerLog(path, func() time.Time { return logT0 }, func(e error) { errs = append(errs, e) })
	if err != nil {
		t.Fatal(err)
	}
	line := func(id string) string {
		return formatLine(logT0, "INFO", msgCreated, []string{"session_id", id, "client", "c"})
	}
	l.info(msgCreated, "session_id", "first", "client", "c")
	rotated := path + ".1"
	tests := []struct {
		name   string
		rotate func() error
	}{
		{"rename and create", func() error {
			if err := os.Rename(path, rotated); err != nil {
				return err
			}
			return os.WriteFile(path, nil, 0o600)
		}},
		{"rename only", func() error { return os.Rename(path, path+".2") }},
		{"copytruncate", func() error { return os.Truncate(path, 0) }},
		{"delete", func() error { return os.Remove(path) }},
	}
	for _, tt := range tests {
		if err := tt.rotate(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		l.info(msgCreated, "session_id", tt.name, "client", "c")
		b, err := os.ReadFile(path)
		if err != nil || string(b) != line(tt.name) {
			t.Errorf("after %s: log = %q, %v; want only %q", tt.name, b, err, line(tt.name))
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("after %s: stat %v, %v; want mode 0600", tt.name, st, err)
		}
	}
	if b, _ := os.ReadFile(rotated); string(b) != line("first") {
		t.Errorf("renamed-away log = %q, want only the first line", b)
	}
	if len(errs) != 0 {
		t.Errorf("write errors: %v", errs)
	}
}
