package store

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"shapes", "bad"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil || len(files) == 0 {
			f.Fatalf("no seeds in testdata/%s: %v", dir, err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(`{"sessions": {"sessions": {"sessions": {"x": {}}}}}`))
	f.Add([]byte(`[{"id": "a", "last_activity": "1e400"}, {"id": "a", "lastSeen": -1.5e-300}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, skipped, err := Parse(data)
		again, skipped2, err2 := Parse(data)
		if !reflect.DeepEqual(got, again) || skipped != skipped2 || (err == nil) != (err2 == nil) {
			t.Fatalf("Parse is not deterministic: %v/%d/%v then %v/%d/%v", got, skipped, err, again, skipped2, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrNotJSON) && !errors.Is(err, ErrUnknownShape) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			if got != nil || skipped != 0 {
				t.Fatalf("sessions returned with an error: %d, %d skipped", len(got), skipped)
			}
			if err.Error() != err2.Error() {
				t.Fatalf("error message not deterministic: %q vs %q", err, err2)
			}
			return
		}
		if skipped < 0 {
			t.Fatalf("skipped = %d", skipped)
		}
		// A cap keeps a subset, never more than the cap.
		capped, cerr := ParseLimit(data, 2)
		if cerr != nil || len(capped.Sessions) > 2 || capped.Truncated < 0 {
			t.Fatalf("ParseLimit(2): %d sessions, %d truncated, %v; Parse found %d", len(capped.Sessions), capped.Truncated, cerr, len(got))
		}
		for _, s := range capped.Sessions {
			if _, ok := slices.BinarySearchFunc(got, s.ID, func(a Session, id string) int { return strings.Compare(a.ID, id) }); !ok {
				t.Fatalf("ParseLimit kept %s, which Parse did not find", s)
			}
		}
		for i, s := range got {
			if strings.TrimSpace(s.ID) == "" {
				t.Fatalf("session %d has an empty id", i)
			}
			if i > 0 && got[i-1].ID >= s.ID {
				t.Fatalf("sessions not sorted or repeated at %d", i)
			}
		}
	})
}
