package journal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 123456789, time.UTC)

func TestWriteMasksAndKeepsContractFields(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
	ev := health.Event{Time: t0, Kind: health.EvSessionExpired, Server: "mem", Session: id, Detail: "expired",
		Facts: health.Ended{Idle: 12 * time.Second}, Extra: map[string]any{"kind": "spoofed", "session": id}}
	if err := j.Write(ev); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := j.Write(ev); err != ErrClosed {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), id) {
		t.Fatalf("journal leaks the full id: %s", b)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"time": "2026-11-30T09:00:00.123456789Z", "kind": "session_expired", "server": "mem",
		"session": "0f8e…4a5b", "detail": "expired", "idle_seconds": float64(12)}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s = %v, want %v", k, rec[k], v)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, FileName)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		wantMode := os.FileMode(0o600)
		if st.IsDir() {
			wantMode = 0o700
		}
		if st.Mode().Perm() != wantMode {
			t.Errorf("%s mode %v, want %v", p, st.Mode().Perm(), wantMode)
		}
	}
}

func TestRotationKeepsEveryLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := Open(dir, Options{MaxBytes: 2000, Keep: 50})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				ev := health.Event{Time: t0, Kind: "test", Detail: fmt.Sprintf("w%d-%d", w, i)}
				if err := j.Write(ev); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	j.Close()
	seen := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, FileName+"*"))
	if len(files) < 10 {
		t.Fatalf("expected many rotated files, got %v", files)
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			rec, err := Decode(sc.Bytes())
			if err != nil {
				t.Fatalf("%s: unparsable line %q: %v", p, sc.Text(), err)
			}
			seen[rec.Detail]++
		}
		f.Close()
		if st, _ := os.Stat(p); st.Size() > 2000 {
			t.Errorf("%s is %d bytes, over the limit", p, st.Size())
		}
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct lines, want %d", len(seen), writers*each)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", k, n)
		}
	}
}

func TestReadTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := Open(dir, Options{MaxBytes: 1000, Keep: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := j.Write(health.Event{Time: t0.Add(time.Duration(i) * time.Second), Kind: "test", Detail: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	// A torn last line (a kill mid-write by some other writer) is passed over.
	f, _ := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-`)
	f.Close()
	recs, err := ReadTail(dir, 1500)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 10 || recs[len(recs)-1].Detail != "29" {
		t.Fatalf("got %d records ending %+v", len(recs), recs[len(recs)-1])
	}
	for i := 1; i < len(recs); i++ {
		if !recs[i].Time.After(recs[i-1].Time) {
			t.Fatalf("records out of order at %d", i)
		}
	}
	none, err := ReadTail(t.TempDir(), 1000)
	if err != nil || len(none) != 0 {
		t.Fatalf("empty dir: %v %v", none, err)
	}
}

// ReadSince reads the rotated files too, oldest first, from since on, and
// passes over a rotated file last written before since.
func TestReadSince(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := Open(dir, Options{MaxBytes: 1000, Keep: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		if err := j.Write(health.Event{Time: t0.Add(time.Duration(i) * time.Second), Kind: "test", Detail: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	oldest := filepath.Join(dir, FileName+".3")
	if _, err := os.Stat(oldest); err != nil {
		t.Fatalf("the test wants three rotations: %v", err)
	}
	all, err := ReadSince(dir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := strconv.Atoi(all[0].Detail)
	if last := all[len(all)-1].Detail; last != "59" || len(all) != 60-first {
		t.Fatalf("read %d records, %s to %s: want every one kept, in order", len(all), all[0].Detail, last)
	}
	recent, err := ReadSince(dir, t0.Add(55*time.Second))
	if err != nil || len(recent) != 5 || recent[0].Detail != "55" {
		t.Fatalf("since 25 s: %d records (%v)", len(recent), err)
	}
	// A rotated file older than since is not opened: make it unreadable
	// as a journal (a FIFO would block a read) and read again.
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(oldest, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(oldest); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(oldest, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(oldest, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSince(dir, time.Now().Add(-time.Hour)); err != nil {
		t.Fatalf("an old rotated file was read: %v", err)
	}
}
