package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

const (
	lineKeepWarm = `{"time":"2026-07-01T12:00:00.5Z","kind":"keep_warm","server":"s","session":"AB12…9F3E","detail":"pinged"}`
	lineRecover  = `{"time":"2026-07-01T12:00:01Z","kind":"recovered","server":"s","detail":"ok","took_ms":36,"strategy":"client_recovery"}`
)

// The tail reads only complete lines, skips lines that do not parse and
// sees each record once.
func TestTailReadsCompleteLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		kinds  []string
	}{
		{"whole lines", []string{lineKeepWarm + "\n" + lineRecover + "\n"}, []string{"keep_warm", "recovered"}},
		{"split line", []string{lineKeepWarm[:20], lineKeepWarm[20:] + "\n"}, []string{"keep_warm"}},
		{"no newline yet", []string{lineKeepWarm}, nil},
		{"bad lines skipped", []string{"not json\n{\"kind\":\"x\",\"time\":\"yesterday\"}\n" + lineRecover + "\n"}, []string{"recovered"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "events.jsonl")
			var seen []string
			tl := NewTail(path, func(r Record) { seen = append(seen, string(r.Kind)) })
			tl.poll() // no file yet: nothing
			for _, w := range tt.writes {
				appendTo(t, path, w)
				tl.poll()
			}
			tl.poll()
			if len(seen) != len(tt.kinds) || tl.Len() != len(tt.kinds) {
				t.Fatalf("saw %v (Len %d), want %v", seen, tl.Len(), tt.kinds)
			}
			for i := range seen {
				if seen[i] != tt.kinds[i] {
					t.Fatalf("saw %v, want %v", seen, tt.kinds)
				}
			}
		})
	}
}

func TestRecordFields(t *testing.T) {
	t.Parallel()
	r, err := parseRecord([]byte(lineRecover))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 7, 1, 12, 0, 1, 0, time.UTC)
	if !r.Time.Equal(want) || r.Kind != "recovered" || r.Server != "s" ||
		r.Facts != (health.Recovery{Took: 36 * time.Millisecond, Strategy: "client_recovery"}) {
		t.Fatalf("record %+v", r)
	}
}

// Wait finds a record appended while it waits, and gives up with the
// context.
func TestTailWait(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	tl := NewTail(path, nil)
	ctx := testCtx(t)
	go tl.Run(ctx)
	appendTo(t, path, lineKeepWarm+"\n")
	appendTo(t, path, lineRecover+"\n")
	r, err := tl.Wait(ctx, 0, "recovered", func(r Record) bool { return r.Kind == "recovered" })
	if err != nil || r.Detail != "ok" {
		t.Fatalf("Wait: %+v, %v", r, err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := tl.Wait(short, 0, "never", func(Record) bool { return false }); err == nil {
		t.Fatal("Wait for what never comes returned no error")
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{lineKeepWarm, lineRecover, "", "{}", `{"time":1}`, "null"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRecord(b)
		if err == nil && r.Time.IsZero() && !bytes.Contains(b, []byte(`"time"`)) {
			t.Fatalf("accepted a record without a time: %q", b)
		}
	})
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
