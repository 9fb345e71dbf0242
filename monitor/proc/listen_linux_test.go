package proc

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestTableListens(t *testing.T) {
	data, err := os.ReadFile("testdata/proc_net_tcp")
	if err != nil {
		t.Fatal(err)
	}
	data6, err := os.ReadFile("testdata/proc_net_tcp6")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		table string
		port  int
		want  bool
	}{
		{"listening on loopback", string(data), 3080, true},
		{"listening on all addresses", string(data), 14242, true},
		{"remote port of a connection", string(data), 443, false},
		{"local port of an established connection", string(data), 51000, false},
		{"absent", string(data), 9999, false},
		{"tcp6 listener", string(data6), 3080, true},
		{"tcp6 absent", string(data6), 14242, false},
		{"empty table", "", 3080, false},
		{"garbage lines", "x\n 0: zz:zz 0 0A\n 1: 0100007F 00000000:0000 0A\n", 3080, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tableListens(strings.NewReader(tc.table), tc.port)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("tableListens(port %d) = %v, want %v", tc.port, got, tc.want)
			}
		})
	}
}

// FuzzTableListens: the parser must not panic, and a line it builds itself
// for a listener must always be recognised.
func FuzzTableListens(f *testing.F) {
	for _, name := range []string{"testdata/proc_net_tcp", "testdata/proc_net_tcp6"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), uint16(3080))
	}
	f.Add("", uint16(0))
	f.Add("  0: :0BB8 : 0A", uint16(3000))
	f.Fuzz(func(t *testing.T, table string, port uint16) {
		_, _ = tableListens(strings.NewReader(table), int(port))
		line := fmt.Sprintf("\n  99: 0100007F:%04X 00000000:0000 0A 00000000:00000000\n", port)
		got, err := tableListens(strings.NewReader(table+line), int(port))
		if err == nil && !got {
			t.Fatalf("listener on %d not recognised after %q", port, table)
		}
	})
}
