package beacon

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// encode writes c the way the client does (JSON.stringify(doc, null, 2)),
// zero times and empty ids as null: the inverse of Parse.
func encode(c Client) []byte {
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	tm := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		return str(t.UTC().Format(time.RFC3339Nano))
	}
	type server struct {
		Name           string  `json:"name"`
		URL            string  `json:"url"`
		SessionID      *string `json:"session_id"`
		State          string  `json:"state"`
		ConnectedSince *string `json:"connected_since"`
		LastRequest    *string `json:"last_request"`
		Updated        *string `json:"updated"`
	}
	doc := struct {
		Version int      `json:"version"`
		PID     int32    `json:"pid"`
		Updated *string  `json:"updated"`
		Servers []server `json:"servers"`
	}{Version: Version, PID: c.PID, Updated: tm(c.Updated), Servers: []server{}}
	for _, s := range c.Servers {
		doc.Servers = append(doc.Servers, server{s.Name, s.URL, str(s.SessionID), s.State,
			tm(s.ConnectedSince), tm(s.LastRequest), tm(s.Updated)})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // only strings and numbers: cannot fail
	}
	return append(b, '\n')
}

// FuzzParse: untrusted bytes never panic Parse; what it accepts obeys every
// rule (pid range, server count, visible-ASCII ids, known states), and an
// accepted beacon written back out parses to the same client. A session id
// the fuzzer chooses is either accepted whole or refused by an error that
// matches a pattern with no room for its characters.
func FuzzParse(f *testing.F) {
	sample, err := os.ReadFile("testdata/module_js_v1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample, sampleID)
	f.Add([]byte(beaconJSON("", "")), "abc\x07defghijklmnop")
	f.Add([]byte(`{"version":2}`), "")
	f.Add([]byte(`{"version":1,"pid":1,"servers":[{"state":"down","session_id":null}]}`), "é")
	f.Add([]byte(`null`), strings.Repeat("a", maxID+1))
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		c, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("error %v wraps neither sentinel", err)
			}
		} else {
			checkAccepted(t, c)
		}
		checkID(t, id)
	})
}

func checkAccepted(t *testing.T, c Client) {
	t.Helper()
	if c.PID <= 0 || len(c.Servers) > MaxServers {
		t.Fatalf("accepted pid %d with %d servers", c.PID, len(c.Servers))
	}
	for _, s := range c.Servers {
		if s.State != Connected && s.State != Reconnecting && s.State != Down {
			t.Fatalf("accepted state %q", s.State)
		}
		if _, err := sessionID(&s.SessionID); err != nil {
			t.Fatalf("accepted an id that fails its own check: %v", err)
		}
	}
	again, err := Parse(encode(c))
	if err != nil || !again.equal(c) {
		t.Fatalf("round trip: %+v, %v; want %+v", again, err, c)
	}
}

// idError is every error a beacon can get for its session id alone.
var idError = regexp.MustCompile(`^beacon: malformed: server 0: session_id: (byte \d+ is not visible ASCII|\d+ bytes, more than \d+)$`)

func checkID(t *testing.T, id string) {
	t.Helper()
	q, err := json.Marshal(id)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]byte(beaconJSON("", `"state":"connected","session_id":`+string(q))))
	if err != nil {
		if !idError.MatchString(err.Error()) {
			t.Fatalf("id refused with %q, which could quote it", err)
		}
		return
	}
	// json.Marshal keeps valid visible ASCII as it is: accepted means whole.
	if c.Servers[0].SessionID != id {
		t.Fatalf("id %q came back as %q", id, c.Servers[0].SessionID)
	}
}
