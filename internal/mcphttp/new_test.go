package mcphttp

import (
	"errors"
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
