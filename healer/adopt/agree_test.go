package adopt

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// agree fails the test unless the record and the watchdog's config agree:
// every adopted entry's proxy is a [[server]] of its URL with its address;
// every text the record says adopt added is in the config once; every
// line adopt marks in the config is one the record holds; no config
// holds a proxy's secret or a proxy URL.
func agree(t *testing.T, o Options) {
	t.Helper()
	rec, _, err := loadRecord(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(o.ConfigPath)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(o.Secret)) {
		t.Fatalf("the watchdog's config holds the proxy's secret:\n%s", data)
	}
	tables, err := config.ServerTables(data)
	if err != nil {
		t.Fatalf("the watchdog's config does not parse: %v\n%s", err, data)
	}
	for _, tb := range tables {
		if _, ok := proxyurl.Parse(tb.URL); ok {
			t.Fatalf("the watchdog's config has a proxy URL for server %s", tb.Name)
		}
	}
	agreeEntries(t, rec, tables, data)
	marked := 0
	for name, c := range rec.Config {
		if c.Added.Text == "" {
			continue
		}
		if n := bytes.Count(data, []byte(c.Added.Text)); n != 1 {
			t.Fatalf("record: what adopt added for %s is in the config %d times:\n%s", name, n, data)
		}
		marked += strings.Count(c.Added.Text, config.AddedMark)
	}
	for name, h := range rec.Watched {
		for _, a := range []config.Added{h.Table, h.Default} {
			if a.Text == "" {
				continue
			}
			if n := bytes.Count(data, []byte(a.Text)); n != 1 {
				t.Fatalf("record: the [[host]] table adopt added for %s is in the config %d times:\n%s", name, n, data)
			}
			marked += strings.Count(a.Text, config.AddedMark)
		}
	}
	if n := bytes.Count(data, []byte(config.AddedMark)); n != marked {
		t.Fatalf("the config has %d lines adopt marks, the record accounts for %d:\n%s", n, marked, data)
	}
}

// agreeEntries: every adopted entry's proxy is a [[server]] of its URL
// with its address; every wrapped entry's wrapper is there.
func agreeEntries(t *testing.T, rec *Record, tables []config.ServerTable, data []byte) {
	t.Helper()
	for host, hr := range rec.Hosts {
		for _, fr := range hr.Files {
			for _, s := range fr.Servers {
				if s.Wrapper != "" {
					agreeWrapped(t, s)
					continue
				}
				found := false
				for _, tb := range tables {
					found = found || tb.Name == s.Server && tb.URL == s.URL && proxyurl.SameListen(tb.ProxyListen, s.Listen)
				}
				if !found {
					t.Fatalf("record: %s's %s goes through %s on %s for %s; the config has no such proxy:\n%s", host, s.Name, s.Server, s.Listen, s.URL, data)
				}
			}
		}
	}
}

// agreeWrapped: a wrapped entry's wrapper is there, executable, and
// falls back to the server's own command.
func agreeWrapped(t *testing.T, s ServerRecord) {
	t.Helper()
	fi, err := os.Stat(s.Wrapper)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("record: %s runs through the wrapper %s: %v %v", s.Name, s.Wrapper, fi, err)
	}
	if _, cmd, ok := parseWrapper(read(t, s.Wrapper)); !ok || cmd != s.Command {
		t.Fatalf("record: %s's wrapper falls back to %q, want %q", s.Name, cmd, s.Command)
	}
}
