package proxywire_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// Every kind of sighting the proxy has crosses the wire and comes back
// the same, ids and all.
func TestEverySightingRoundTrips(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var sent []proxy.Sighting
	for k := proxy.EvSession; k.String() != "unknown"; k++ {
		ev := proxy.Sighting{Kind: k, Server: "mem", Time: time.Unix(1700000000, 5).UTC(), HostSession: "host-" + k.String(),
			Upstream: "up", OldUpstream: "old", Client: "dsh-mcp-client", Took: 1500 * time.Millisecond, UID: 1001, Known: time.Unix(1699990000, 7).UTC(), Detail: "a sentence"}
		line, err := proxywire.Encode(proxywire.Message{Sighting: ptr(proxywire.FromSighting(ev))})
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		sent = append(sent, ev)
	}
	if len(sent) < 10 {
		t.Fatalf("only %d kinds walked", len(sent))
	}
	r := proxywire.NewReader(&buf)
	for _, want := range sent {
		m, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := m.Sighting.Proxy()
		if !ok || got != want {
			t.Errorf("%v came back as %+v (known %v); want %+v", want.Kind, got, ok, want)
		}
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last line: %v, want io.EOF", err)
	}
}

// A kind this build does not know (a newer proxy process) is said to be
// unknown, not taken for another.
func TestUnknownKind(t *testing.T) {
	t.Parallel()
	if _, ok := (proxywire.Sighting{Kind: "teleported"}).Proxy(); ok {
		t.Error("an unknown kind was taken")
	}
}

// A line that is not a message is an error naming it, and the next line
// is read; a line over MaxLine ends the reading with ErrLineTooLong.
func TestBadLines(t *testing.T) {
	t.Parallel()
	r := proxywire.NewReader(strings.NewReader("not json\n{\"warning\":{\"detail\":\"w\"}}\n"))
	if _, err := r.Read(); err == nil || !strings.Contains(err.Error(), "not a message") {
		t.Errorf("a bad line: %v", err)
	}
	if m, err := r.Read(); err != nil || m.Warning == nil || m.Warning.Detail != "w" {
		t.Errorf("the line after a bad one: %+v, %v", m, err)
	}
	long := strings.Repeat("x", proxywire.MaxLine+1) + "\n"
	if _, err := proxywire.NewReader(strings.NewReader(long)).Read(); !errors.Is(err, proxywire.ErrLineTooLong) {
		t.Errorf("a line over MaxLine: %v", err)
	}
}

// The reader takes any bytes without panicking.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"sighting\":{\"kind\":\"session\",\"server\":\"m\"}}\n{\"proxies\":{\"pid\":1,\"proxies\":[{\"server\":\"m\",\"served\":true}]}}\n"))
	f.Add([]byte("{\"idle_timeout\":{\"server\":\"m\",\"timeout\":5}}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := proxywire.NewReader(bytes.NewReader(b))
		for range 100 {
			m, err := r.Read()
			if errors.Is(err, io.EOF) || errors.Is(err, proxywire.ErrLineTooLong) {
				return
			}
			if err == nil && m.Sighting != nil {
				_, _ = m.Sighting.Proxy()
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }
