package journal

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// readbackFile holds journal lines as the watchdog wrote them: lines from
// before the fields were typed, one line of every kind and set of fields a
// chaos soak's journals held (paths shortened), and the golden lines.
const readbackFile = "testdata/readback.jsonl"

// TestJournalReadsBackWhole reads every line of a journal the watchdog
// wrote and writes the record again: each field must come back under its
// name with its value, and nothing may be added, so a field that Decode
// loses or Encode no longer writes fails here, whatever shape the event
// takes in memory. Ids are written masked, so the record's masked id is
// masked again on the way out: that one difference is expected.
func TestJournalReadsBackWhole(t *testing.T) {
	t.Parallel()
	f, err := os.Open(readbackFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		rec, err := Decode(line)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		again, err := Encode(health.Event(rec))
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		want, got := fieldsOf(t, line), fieldsOf(t, again)
		for _, k := range []string{"session", "new_session"} {
			if s, ok := want[k].(string); ok {
				want[k] = mask.ID(s)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("line %d reads back otherwise:\n got %s\nwant %s", n, again, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 60 {
		t.Fatalf("%s holds %d lines: the sample is gone", readbackFile, n)
	}
}

func fieldsOf(t *testing.T, line []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return m
}
