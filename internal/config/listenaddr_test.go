package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestListenersComparedAsAddresses: metrics_listen and every proxy_listen
// clash when they may bind the same socket address, whatever the spelling;
// distinct loopback addresses on one port do not (both bind, on Linux).
// Long: a table of 22 cases.
func TestListenersComparedAsAddresses(t *testing.T) {
	tests := []struct {
		name    string
		metrics string
		proxies []string
		err     string // "" means valid
	}{
		{name: "localhost beside 127.0.0.1", metrics: "127.0.0.1:14299", proxies: []string{"localhost:14299"},
			err: `server[0].proxy_listen: "localhost:14299" is already taken by metrics_listen ("127.0.0.1:14299"): both would listen on 127.0.0.1:14299`},
		{name: "metrics localhost beside proxy 127.0.0.1", metrics: "localhost:14299", proxies: []string{"127.0.0.1:14299"},
			err: `server[0].proxy_listen: "127.0.0.1:14299" is already taken by metrics_listen ("localhost:14299"): both would listen on 127.0.0.1:14299`},
		{name: "case of localhost", metrics: "127.0.0.1:14299", proxies: []string{"LocalHost:14299"}, err: "both would listen on 127.0.0.1:14299"},
		{name: "leading zero port", metrics: "127.0.0.1:14299", proxies: []string{"127.0.0.1:014299"}, err: "both would listen on 127.0.0.1:14299"},
		{name: "signed port", metrics: "127.0.0.1:14299", proxies: []string{"127.0.0.1:+14299"}, err: "both would listen on 127.0.0.1:14299"},
		{name: "v4-mapped", metrics: "127.0.0.1:14299", proxies: []string{"[::ffff:127.0.0.1]:14299"}, err: "both would listen on 127.0.0.1:14299"},
		{name: "v4-mapped in hex", metrics: "[::ffff:7f00:1]:14299", proxies: []string{"127.0.0.1:14299"}, err: "both would listen on 127.0.0.1:14299"},
		{name: "::1 spelt out", metrics: "[::1]:14299", proxies: []string{"[0:0:0:0:0:0:0:1]:14299"}, err: "both would listen on [::1]:14299"},
		{name: "::1 with a zone", metrics: "[::1]:14299", proxies: []string{"[::1%lo]:14299"}, err: "both would listen on [::1]:14299"},
		{name: "proxy localhost may take ::1", metrics: "[::1]:14299", proxies: []string{"localhost:14299"}, err: "both would listen on [::1]:14299"},
		{name: "two proxies on localhost and ::1", proxies: []string{"localhost:14299", "[::1]:14299"},
			err: `server[1].proxy_listen: "[::1]:14299" is already taken by server[0].proxy_listen ("localhost:14299"): both would listen on [::1]:14299`},
		{name: "two proxies spelt alike", proxies: []string{"localhost:14299", "localhost:14299"}, err: "the same address"},
		{name: "two proxies, second clashes with metrics", metrics: "127.0.0.1:9464", proxies: []string{"127.0.0.1:14243", "localhost:9464"},
			err: `server[1].proxy_listen: "localhost:9464" is already taken by metrics_listen`},

		{name: "metrics localhost binds 127.0.0.1 only", metrics: "localhost:14299", proxies: []string{"[::1]:14299"}},
		{name: "127.0.0.1 and 127.0.0.2", metrics: "127.0.0.1:14299", proxies: []string{"127.0.0.2:14299"}},
		{name: "127.0.0.1 and ::1", metrics: "127.0.0.1:14299", proxies: []string{"[::1]:14299"}},
		{name: "other ports", metrics: "localhost:14299", proxies: []string{"localhost:14300", "127.0.0.1:14301"}},
		{name: "no metrics", proxies: []string{"127.0.0.1:14243", "127.0.0.1:14244"}},
		{name: "leading zeros in the address are no loopback", metrics: "127.0.0.1:14299", proxies: []string{"127.000.000.001:14299"},
			err: `server[0].proxy_listen: "127.000.000.001:14299" is not a loopback address`},
		{name: "a service name is no port", metrics: "127.0.0.1:80", proxies: []string{"127.0.0.1:http"}, err: "has no valid port"},
		{name: "an invalid one is no clash, reported once", metrics: "127.0.0.1:0", proxies: []string{"127.0.0.1:0"},
			err: "server[0].proxy_listen: \"127.0.0.1:0\" has no valid port"},
		{name: "::1 unbracketed", metrics: "[::1]:14299", proxies: []string{"::1:14299"}, err: "is not host:port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			c.MetricsListen = tt.metrics
			base := c.Servers[0]
			c.Servers = nil
			for i, addr := range tt.proxies {
				s := base
				s.Name, s.ProxyListen = fmt.Sprintf("s%d", i), addr
				c.Servers = append(c.Servers, s)
			}
			err := c.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate = %v, want ErrInvalid and %q", err, tt.err)
			}
			if n := strings.Count(err.Error(), "proxy_listen:"); n != 1 {
				t.Fatalf("%d problems reported, want 1: %v", n, err)
			}
		})
	}
}

// TestListenClashNamesBothLines: read from a file, the clash is located at
// the second key and names the first with its line.
func TestListenClashNamesBothLines(t *testing.T) {
	doc := "metrics_listen = \"127.0.0.1:14299\"\n\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:1/mcp\"\nproxy_listen = \"localhost:14299\"\n"
	_, err := parse("f.toml", []byte(doc), testEnv(nil))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if e.File != "f.toml" || e.Line != 6 || e.Key != "server[0].proxy_listen" || !strings.Contains(e.Msg, `metrics_listen ("127.0.0.1:14299", line 1)`) {
		t.Fatalf("got %+v (%v), want f.toml line 6 key server[0].proxy_listen naming metrics_listen at line 1", e, err)
	}
}
