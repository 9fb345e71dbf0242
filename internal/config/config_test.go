package config

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func TestDefaultIsValid(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		t.Run(goos, func(t *testing.T) {
			c := defaultFor(goos)
			if err := c.Validate(); err != nil {
				t.Fatalf("Default() does not validate: %v", err)
			}
			if len(c.Servers) != 1 || c.Servers[0].Name != "nowledge-mem" ||
				c.Servers[0].URL != "http://127.0.0.1:14242/mcp" ||
				c.Servers[0].IdleTimeout.Duration != 12*time.Hour || !c.Servers[0].KeepWarm {
				t.Errorf("default server = %+v", c.Servers)
			}
			if c.Hosts[0].Name != "DSH" || c.Hosts[0].Port != 3080 || !c.Notify {
				t.Errorf("default host = %+v", c.Hosts[0])
			}
			want := "Library/Logs/co.nowledge.mem.desktop/"
			if goos != "darwin" {
				want = ".local/share/co.nowledge.mem.desktop/logs/"
			}
			if !strings.Contains(strings.Join(c.Servers[0].Logs, " "), want) {
				t.Errorf("%s logs %q lack %q", goos, c.Servers[0].Logs, want)
			}
		})
	}
}

// Default() must not share slices between calls: callers edit them.
func TestDefaultIsFresh(t *testing.T) {
	a := Default()
	a.Hosts[0].Logs[0] = "changed"
	a.Servers[0].Logs[0] = "changed"
	b := Default()
	if b.Hosts[0].Logs[0] == "changed" || b.Servers[0].Logs[0] == "changed" {
		t.Fatal("Default() returned shared slices")
	}
}

func TestDurationText(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		out     string
		wantErr bool
	}{
		{in: "12h", want: 12 * time.Hour, out: "12h"},
		{in: "90s", want: 90 * time.Second, out: "1m30s"},
		{in: "1h30m", want: 90 * time.Minute, out: "1h30m"},
		{in: "10m", want: 10 * time.Minute, out: "10m"},
		{in: "1.5s", want: 1500 * time.Millisecond, out: "1.5s"},
		{in: "0", want: 0, out: "0s"},
		{in: "12", wantErr: true},
		{in: "12 hours", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		var d Duration
		err := d.UnmarshalText([]byte(tt.in))
		if tt.wantErr {
			if err == nil {
				t.Errorf("UnmarshalText(%q) = %v, want an error", tt.in, d)
			}
			continue
		}
		if err != nil || d.Duration != tt.want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tt.in, d, err, tt.want)
			continue
		}
		out, _ := d.MarshalText()
		if string(out) != tt.out {
			t.Errorf("MarshalText(%v) = %q, want %q", tt.want, out, tt.out)
		}
		var back Duration
		if err := back.UnmarshalText(out); err != nil || back != d {
			t.Errorf("round trip of %q gave %v, %v", out, back, err)
		}
	}
}

// A Config written with go-toml reads back as the same Config, so doctor
// can print an effective config that is itself a valid file.
func TestMarshalRoundTrip(t *testing.T) {
	c, err := load("testdata/full.toml", testEnv(fixtureVars))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		t.Fatal(err)
	}
	back, err := parse("roundtrip.toml", buf.Bytes(), testEnv(nil))
	if err != nil {
		t.Fatalf("re-reading the marshalled config: %v\n%s", err, buf.String())
	}
	back.Path, c.Path = "", ""
	if !reflect.DeepEqual(plain(back), plain(c)) {
		t.Fatalf("round trip changed the config\n got %+v\nwant %+v\n%s", plain(back), plain(c), buf.String())
	}
}
