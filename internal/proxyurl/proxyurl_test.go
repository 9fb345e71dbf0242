package proxyurl

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	const secret = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for _, tt := range []struct {
		raw    string
		listen string // "" when it is no proxy URL
	}{
		{For("127.0.0.1:14301", secret), "127.0.0.1:14301"},
		{"http://localhost:14301/" + secret + "/mcp", "localhost:14301"},
		{"http://[::1]:14301/" + secret + "/mcp", "[::1]:14301"},
		{"http://127.0.0.1:14301/mcp", ""},                            // no secret: a server's own
		{"http://10.0.0.2:14301/" + secret + "/mcp", ""},              // not loopback
		{"https://127.0.0.1:14301/" + secret + "/mcp", ""},            // the proxy speaks http
		{"http://127.0.0.1/" + secret + "/mcp", ""},                   // no port
		{"http://127.0.0.1:14301/" + secret[:25] + "/mcp", ""},        // not a secret's shape
		{"http://127.0.0.1:14301/" + secret + "/mcp?x=1", ""},         // more than the proxy's
		{"http://127.0.0.1:14301/a/" + secret + "/mcp", ""},           // another path
		{"http://127.0.0.1:14301/abcdefghijklmnopqrstuvwxyz/mcp", ""}, // lower case
	} {
		p, ok := Parse(tt.raw)
		if ok != (tt.listen != "") || p.Listen != tt.listen || ok && (p.Secret != secret || p.Port != "14301") {
			t.Errorf("Parse(%q) = %+v, %v; want listen %q", tt.raw, p, ok, tt.listen)
		}
	}
}

func TestSameListen(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"127.0.0.1:14301", "localhost:14301", true},
		{"127.0.0.1:14301", "[::1]:14301", true},
		{"127.0.0.1:14301", "127.0.0.1:14302", false},
		{"10.0.0.1:14301", "10.0.0.1:14301", false},
		{"bad", "bad", false},
	} {
		if got := SameListen(tt.a, tt.b); got != tt.want {
			t.Errorf("SameListen(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}
