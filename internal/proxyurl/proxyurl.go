// Package proxyurl is the shape of a watchdog proxy's URL,
// http://<listen>/<secret>/mcp, in one place: the proxy serves it, adopt
// writes it into hosts' files, and `watchdog hosts` must know it when it
// meets it, whatever secret it holds.
package proxyurl

import (
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Path is where a proxy serves MCP, after its secret.
const Path = "/mcp"

// secretLen: crypto/rand.Text's 26 base32 characters, 130 random bits.
const secretLen = 26

// ErrBadSecret: a secret that is not 26 base32 characters (A-Z, 2-7).
var ErrBadSecret = errors.New("not a proxy secret (26 characters A-Z and 2-7)")

// For is the proxy's URL for a host: http://<listen>/<secret>/mcp. It is a
// credential: print it only where the user asks for the URL to give a host.
func For(listen, secret string) string { return "http://" + listen + "/" + secret + Path }

// CheckSecret reports whether s has the shape of a secret.
func CheckSecret(s string) error {
	if len(s) != secretLen || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		return ErrBadSecret
	}
	return nil
}

// Parsed is a URL of a proxy's shape taken apart.
type Parsed struct {
	// Listen is its address as written ("127.0.0.1:14301").
	Listen string
	// Port is the port alone: a host may write localhost where the
	// config has 127.0.0.1.
	Port   string
	Secret string
}

// Parse reports whether raw has a proxy URL's shape: http, a loopback
// host with a port, and the path /<secret>/mcp. Such a URL is never a
// server's own: adopt must not take it for an upstream.
func Parse(raw string) (Parsed, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Parsed{}, false
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || port == "" || !IsLoopback(host) {
		return Parsed{}, false
	}
	secret, ok := strings.CutSuffix(strings.TrimPrefix(u.Path, "/"), Path)
	if !ok || CheckSecret(secret) != nil {
		return Parsed{}, false
	}
	return Parsed{Listen: u.Host, Port: port, Secret: secret}, true
}

// SameListen reports whether two listen addresses are one port on
// loopback, whichever loopback name each writes.
func SameListen(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	return errA == nil && errB == nil && pa == pb && IsLoopback(ha) && IsLoopback(hb)
}

// IsLoopback accepts localhost, 127.0.0.0/8 and ::1: nothing that would
// need a name lookup to decide.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// HostPort is the address part of a URL ("127.0.0.1:14300"), "" when it
// has none or does not parse.
func HostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
