package follow

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", FingerprintSize+10)
	cases := []struct {
		name, prefix string
		ok           bool
		same         string // another prefix with the same fingerprint
	}{
		{name: "empty", prefix: ""},
		{name: "first line unfinished", prefix: "abc"},
		{name: "first line ended", prefix: "abc\n", ok: true, same: "abc\nmore lines\n"},
		{name: "ends at the first newline", prefix: "abc\nd", ok: true, same: "abc\n"},
		{name: "empty first line", prefix: "\n", ok: true, same: "\nx"},
		{name: "long first line", prefix: long[:FingerprintSize], ok: true, same: long},
		{name: "first line one short of the limit", prefix: long[:FingerprintSize-1]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fp, ok := fingerprint([]byte(tc.prefix))
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if len(fp) != fingerprintHexLen || (Position{Path: "/x", Fingerprint: fp, Offset: 1}).validate() != nil {
				t.Fatalf("fingerprint %q is not valid", fp)
			}
			if same, _ := fingerprint([]byte(tc.same)); same != fp {
				t.Fatalf("%q and %q differ", tc.prefix, tc.same)
			}
			if other, _ := fingerprint([]byte("x" + tc.prefix)); other == fp {
				t.Fatalf("a different first line has the same fingerprint")
			}
		})
	}
}

func TestSplitStatic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dir, static string
		rest        []string
	}{
		{"/var/log", "/var/log", nil},
		{"/var/log/*", "/var/log", []string{"*"}},
		{"/a/*/b/c?", "/a", []string{"*", "b", "c?"}},
		{"/a/[xy]/b", "/a", []string{"[xy]", "b"}},
		{"/*", "/", []string{"*"}},
	}
	for _, tc := range cases {
		static, rest := splitStatic(tc.dir)
		if static != tc.static || !slices.Equal(rest, tc.rest) {
			t.Errorf("splitStatic(%q) = %q, %q; want %q, %q", tc.dir, static, rest, tc.static, tc.rest)
		}
	}
}

func TestOnGlobWay(t *testing.T) {
	t.Parallel()
	r := &runner{opts: Options{Sources: []Source{
		{Globs: []string{"/var/log/app/*.log"}},
		{Globs: []string{"/srv/*/logs/server.log"}},
	}}}
	cases := map[string]bool{
		"/var":                      true,
		"/var/log":                  true,
		"/var/log/app":              true,
		"/var/log/app/x.log":        true,
		"/var/log/app/x.txt":        false,
		"/var/log/other":            false,
		"/var/log/app/x.log/deeper": false,
		"/srv/one":                  true,
		"/srv/one/logs":             true,
		"/srv/one/logs/server.log":  true,
		"/srv/one/other/server.log": false,
		"/home/user/.bash_history":  false,
	}
	for path, want := range cases {
		if got := r.onGlobWay(path); got != want {
			t.Errorf("onGlobWay(%q) = %v, want %v", path, got, want)
		}
	}
	if got := cutComponents("/a/*/c", 2); got != "/a/*" {
		t.Errorf("cutComponents = %q", got)
	}
}

func TestKnownMatch(t *testing.T) {
	t.Parallel()
	k := newKnown([]Position{
		{Path: "/l/app.log", Fingerprint: "f1", Offset: 10},
		{Path: "/l/app.log", Fingerprint: "f1", Offset: 30}, // the furthest counts
		{Path: "/l/app.log.1", Fingerprint: "f1", Offset: 20},
		{Path: "/l/old.log", Fingerprint: "f2", Offset: 5},
	})
	cases := []struct {
		path, fp string
		want     Position
		ok       bool
	}{
		{"/l/app.log", "f1", Position{"/l/app.log", "f1", 30}, true},     // own path first
		{"/l/app.log.1", "f1", Position{"/l/app.log.1", "f1", 20}, true}, // though another is further
		{"/l/new.log", "f2", Position{"/l/old.log", "f2", 5}, true},      // renamed while down
		{"/l/app.log", "f3", Position{}, false},
	}
	for _, tc := range cases {
		got, ok := k.match(tc.path, tc.fp)
		if got != tc.want || ok != tc.ok {
			t.Errorf("match(%s, %s) = %v, %v; want %v, %v", tc.path, tc.fp, got, ok, tc.want, tc.ok)
		}
	}
	if !k.paths["/l/old.log"] || k.paths["/l/new.log"] {
		t.Errorf("paths %v", k.paths)
	}
	k.remove(Position{Path: "/l/old.log", Fingerprint: "f2"})
	if _, ok := k.match("/l/new.log", "f2"); ok {
		t.Errorf("removed position still matches")
	}
}

func TestAcks(t *testing.T) {
	t.Parallel()
	a := newAcks([]Position{{Path: "/gone", Fingerprint: "g", Offset: 7}, {Path: "/l/a", Fingerprint: "f", Offset: 3}})
	a.open(ackKey{"/l/a", "f"}, 3)
	a.ack(Position{Path: "/l/a", Fingerprint: "f", Offset: 9})
	a.ack(Position{Path: "/l/a", Fingerprint: "f", Offset: 5}) // late, smaller: ignored
	a.rename(ackKey{"/l/a", "f"}, ackKey{"/l/a.1", "f"})
	a.ack(Position{Path: "/l/a", Fingerprint: "f", Offset: 12}) // sent before the rename
	a.open(ackKey{"/l/b", "h"}, 0)
	a.ack(Position{Path: "/l/b", Fingerprint: "h", Offset: 4})
	a.open(ackKey{"/l/c", "i"}, 0)
	a.ack(Position{Path: "/l/c", Fingerprint: "i", Offset: 4})
	a.close(ackKey{"/l/c", "i"})
	a.ack(Position{Path: "/nowhere", Fingerprint: "x", Offset: 4}) // no such file: not saved
	ps, changed := a.snapshot()
	if !changed {
		t.Fatal("no change reported")
	}
	slices.SortFunc(ps, func(x, y Position) int { return strings.Compare(x.Path, y.Path) })
	want := []Position{{"/gone", "g", 7}, {"/l/a.1", "f", 12}, {"/l/b", "h", 4}}
	if !slices.Equal(ps, want) {
		t.Fatalf("snapshot %v, want %v", ps, want)
	}
	if _, changed := a.snapshot(); changed {
		t.Fatal("change reported twice")
	}
	a.uncarry(ackKey{"/gone", "g"})
	if ps, _ := a.snapshot(); len(ps) != 2 {
		t.Fatalf("after uncarry: %v", ps)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, glob := range []string{"relative/*.log", "/abs/[unclosed"} {
		if _, err := New(Options{Sources: []Source{{Globs: []string{glob}}}}); !errors.Is(err, ErrBadOptions) {
			t.Errorf("glob %q: %v, want ErrBadOptions", glob, err)
		}
	}
	f, err := New(Options{Resume: []Position{{Path: "/x", Fingerprint: "bad", Offset: 3}}})
	mustDo(t, err) // a bad resume position is skipped, not fatal
	if f.opts.MaxLine != DefaultMaxLine || f.opts.Backstop != DefaultBackstop ||
		f.opts.Debounce != DefaultDebounce || f.opts.HistoryBytes != DefaultHistoryBytes {
		t.Errorf("defaults not filled in: %+v", f.opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mustDo(t, f.Run(ctx))
	if err := f.Run(ctx); !errors.Is(err, ErrAlreadyRun) {
		t.Errorf("second Run: %v", err)
	}
	if _, ok := <-f.Lines(); ok {
		t.Errorf("Lines open after Run returned")
	}
}

func TestTailStart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		content string
		want    int64
	}{
		{"a\nb\n", 4},
		{"a\nbc", 2},
		{"abc", 0},
		{"", 0},
	}
	for _, tc := range cases {
		path := filepath.Join(t.TempDir(), "f")
		writeFile(t, path, tc.content)
		f, err := openFile(path, "t", 100)
		mustDo(t, err)
		r := &runner{opts: withDefaults(Options{}), buf: make([]byte, 3)}
		if got := r.tailStart(f); got != tc.want {
			t.Errorf("tailStart(%q) = %d, want %d", tc.content, got, tc.want)
		}
		f.close()
	}
}
