package mcphttp

import (
	"errors"
	"net"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want error
	}{
		// 192.0.2.1 is TEST-NET-1: New must refuse before anything could dial it.
		{"plain http to TEST-NET refused", Options{URL: "http://192.0.2.1:14242/mcp"}, ErrInsecure},
		{"plain http by name refused", Options{URL: "http://mem.example/mcp"}, ErrInsecure},
		{"0.0.0.0 is not loopback", Options{URL: "http://0.0.0.0:1/mcp"}, ErrInsecure},
		{"allow_insecure", Options{URL: "http://192.0.2.1:14242/mcp", AllowInsecure: true}, nil},
		{"https anywhere", Options{URL: "https://192.0.2.1/mcp"}, nil},
		{"127.0.0.1", Options{URL: "http://127.0.0.1:14242/mcp"}, nil},
		{"127.0.0.2", Options{URL: "http://127.0.0.2:14242/mcp"}, nil},
		{"localhost", Options{URL: "http://LOCALHOST:14242/mcp"}, nil},
		{"ipv6 loopback", Options{URL: "http://[::1]:14242/mcp"}, nil},
		{"mapped loopback", Options{URL: "http://[::ffff:127.0.0.1]:1/mcp"}, nil},
		{"not http", Options{URL: "ftp://127.0.0.1/mcp"}, ErrInvalidURL},
		{"relative", Options{URL: "/mcp"}, ErrInvalidURL},
		{"credentials in URL", Options{URL: "https://u:p@mem.example/mcp"}, ErrInvalidURL},
		{"reserved header", Options{URL: "http://127.0.0.1/mcp", Headers: map[string]string{"mcp-session-id": "x"}}, ErrReservedHeader},
		{"extra header", Options{URL: "http://127.0.0.1/mcp", Headers: map[string]string{"X-NMEM-API-Key": "k"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("New(%+v) error = %v, want %v", tt.opts, err, tt.want)
			}
			if (err == nil) != (c != nil) {
				t.Fatalf("New returned client %v with error %v", c, err)
			}
		})
	}
}

func TestNewInsecureMessage(t *testing.T) {
	t.Parallel()
	_, err := New(Options{URL: "http://192.0.2.1/mcp"})
	if err == nil || !strings.Contains(err.Error(), "allow_insecure = true") || !strings.Contains(err.Error(), "192.0.2.1") {
		t.Fatalf("error %v should name the host and say to set allow_insecure = true", err)
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	c, err := New(Options{URL: "http://127.0.0.1/mcp", Timeout: -1, MaxBody: -5})
	if err != nil {
		t.Fatal(err)
	}
	if c.timeout != DefaultTimeout || c.maxBody != DefaultMaxBody || c.name != DefaultClientName || c.ClientVersion() != DefaultClientVersion {
		t.Fatalf("defaults not applied: %v %v %q %q", c.timeout, c.maxBody, c.name, c.version)
	}
	if c.hc.CheckRedirect == nil {
		t.Fatal("own client must refuse redirects")
	}
}

// TestURLCredentialsNeverEchoed: measurement D of issue 15. A URL that
// did not parse was echoed whole in the error, credentials included, and
// a query token came back in every transport error, so in the reason the
// journal keeps with each server_down.
func TestURLCredentialsNeverEchoed(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"http://admin:hunter2%zz@127.0.0.1:1/mcp", "hunter2%zz", "ftp://127.0.0.1/mcp?token=hunter2"} {
		_, err := New(Options{URL: raw})
		if !errors.Is(err, ErrInvalidURL) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New(%q) error = %v: want ErrInvalidURL without the credential", raw, err)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the request is refused
	c, err := New(Options{URL: "http://" + addr + "/mcp?token=hunter2-token&x=1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Ping(t.Context(), "", "")
	cl := Judge(resp, err)
	if err == nil || cl.Verdict != Down {
		t.Fatalf("ping of a closed port: %v, %v", err, cl)
	}
	for what, s := range map[string]string{"error": err.Error(), "reason": cl.Reason} {
		if strings.Contains(s, "hunter2") || !strings.Contains(s, "token=REDACTED&x=REDACTED") {
			t.Errorf("%s %q: want the query values redacted", what, s)
		}
	}
}
