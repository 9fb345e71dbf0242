package beacon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on what Parse accepts. A beacon is written by a process of ours,
// but its bytes are still untrusted input: any program of this user could
// write one, and a bug could write anything.
const (
	// Version is the one beacon format this package reads.
	Version = 1
	// MaxSize bounds a beacon file: a client with every server listed
	// writes a few KiB.
	MaxSize = 64 << 10
	// MaxServers bounds the servers of one client.
	MaxServers = 128
	// maxText bounds a name, URL or state; maxID a session id.
	maxText = 2048
	maxID   = 1024
)

// Parse errors callers branch on.
var (
	// ErrUnsupportedVersion: the beacon is of a format this watchdog does
	// not read (a newer client patch).
	ErrUnsupportedVersion = errors.New("beacon: unsupported version")
	// ErrMalformed: the beacon is not a valid version-1 beacon.
	ErrMalformed = errors.New("beacon: malformed")
)

// wireDoc is the file as the client writes it. Pointers tell null from
// missing nowhere that matters: both read as empty.
type wireDoc struct {
	PID     *int64       `json:"pid"`
	Updated *string      `json:"updated"`
	Servers []wireServer `json:"servers"`
}

type wireServer struct {
	Name           *string `json:"name"`
	URL            *string `json:"url"`
	SessionID      *string `json:"session_id"`
	State          *string `json:"state"`
	ConnectedSince *string `json:"connected_since"`
	LastRequest    *string `json:"last_request"`
	Updated        *string `json:"updated"`
}

// Parse reads one beacon. Path and Started are left for the caller, who
// knows the file and the process. Errors wrap ErrUnsupportedVersion or
// ErrMalformed and never quote a session id.
func Parse(data []byte) (Client, error) {
	if len(data) > MaxSize {
		return Client{}, fmt.Errorf("%w: %d bytes, more than the %d a beacon may have", ErrMalformed, len(data), MaxSize)
	}
	if err := checkVersion(data); err != nil {
		return Client{}, err
	}
	var doc wireDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Client{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if doc.PID == nil || *doc.PID <= 0 || *doc.PID > math.MaxInt32 {
		return Client{}, fmt.Errorf("%w: pid missing or out of range", ErrMalformed)
	}
	updated, err := parseTime(doc.Updated)
	if err != nil {
		return Client{}, fmt.Errorf("%w: updated: %w", ErrMalformed, err)
	}
	if len(doc.Servers) > MaxServers {
		return Client{}, fmt.Errorf("%w: %d servers, more than %d", ErrMalformed, len(doc.Servers), MaxServers)
	}
	c := Client{PID: int32(*doc.PID), Updated: updated}
	for i, ws := range doc.Servers {
		s, err := parseServer(ws)
		if err != nil {
			return Client{}, fmt.Errorf("%w: server %d: %w", ErrMalformed, i, err)
		}
		c.Servers = append(c.Servers, s)
	}
	return c, nil
}

// checkVersion reads the version alone first: a newer format may differ in
// every other field, and its user needs to hear "version", not a type error.
func checkVersion(data []byte) error {
	var head struct {
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	v := string(bytes.TrimSpace(head.Version))
	switch {
	case v == "" || v == "null":
		return fmt.Errorf("%w: no version", ErrMalformed)
	case v != "1":
		return fmt.Errorf("%w %s: this watchdog reads version %d only; update the watchdog, "+
			"or re-apply this watchdog's client patch (watchdog patch apply) so the client writes version %d",
			ErrUnsupportedVersion, clip(quoteOdd(v)), Version, Version)
	}
	return nil
}

func parseServer(ws wireServer) (Server, error) {
	var s Server
	var err error
	if s.Name, err = text("name", ws.Name); err != nil {
		return Server{}, err
	}
	if s.URL, err = text("url", ws.URL); err != nil {
		return Server{}, err
	}
	if s.SessionID, err = sessionID(ws.SessionID); err != nil {
		return Server{}, err
	}
	if s.State, err = state(ws.State); err != nil {
		return Server{}, err
	}
	for _, f := range []struct {
		name string
		in   *string
		out  *time.Time
	}{
		{"connected_since", ws.ConnectedSince, &s.ConnectedSince},
		{"last_request", ws.LastRequest, &s.LastRequest},
		{"updated", ws.Updated, &s.Updated},
	} {
		if *f.out, err = parseTime(f.in); err != nil {
			return Server{}, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return s, nil
}

// text checks a name or URL: printable, so that a log line quoting it
// cannot be forged or garbled by control or bidi characters.
func text(field string, p *string) (string, error) {
	if p == nil {
		return "", nil
	}
	s := *p
	if len(s) > maxText {
		return "", fmt.Errorf("%s: %d bytes, more than %d", field, len(s), maxText)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%s: not UTF-8", field)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "", fmt.Errorf("%s: unprintable character %U", field, r)
		}
	}
	return s, nil
}

// sessionID checks an id against the MCP spec: visible ASCII only
// (0x21-0x7E). The error names neither the id nor its characters.
func sessionID(p *string) (string, error) {
	if p == nil {
		return "", nil
	}
	s := *p
	if len(s) > maxID {
		return "", fmt.Errorf("session_id: %d bytes, more than %d", len(s), maxID)
	}
	for i := range len(s) {
		if s[i] < 0x21 || s[i] > 0x7e {
			return "", fmt.Errorf("session_id: byte %d is not visible ASCII", i)
		}
	}
	return s, nil
}

func state(p *string) (string, error) {
	if p == nil {
		return "", errors.New("state: missing")
	}
	switch *p {
	case Connected, Reconnecting, Down:
		return *p, nil
	}
	return "", fmt.Errorf("state %s: want %s, %s or %s", clip(fmt.Sprintf("%q", *p)), Connected, Reconnecting, Down)
}

// parseTime reads an RFC 3339 time (JavaScript's toISOString); null or
// empty is the zero time. Times are kept in UTC.
func parseTime(p *string) (time.Time, error) {
	if p == nil || *p == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *p)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s is not an RFC 3339 time", clip(fmt.Sprintf("%q", *p)))
	}
	return t.UTC(), nil
}

// quoteOdd quotes s unless it is plain printable ASCII, so a number reads
// as itself and anything else cannot smuggle control or bidi characters.
func quoteOdd(s string) string {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return strconv.Quote(s)
		}
	}
	return s
}

// clip shortens a value quoted in an error, so that a hostile file cannot
// flood the log through it.
func clip(s string) string {
	const most = 40
	if len(s) <= most {
		return s
	}
	for i := most; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return "…"
}
