package autostart

import "testing"

// Whatever path Render accepts, ExeOf reads back exactly.
func FuzzExeRoundTrip(f *testing.F) {
	for _, s := range []string{"/usr/bin/watchdog", `/a b/$HOME/100%/"q"/b\s/x`, "/Apps/MCP Session Watchdog.app/Contents/MacOS/watchdog", "/x/'`;|&<>~*?#()", "/é/ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, exe string) {
		for _, k := range []Kind{LaunchAgent, XDG, Systemd} {
			data, err := Render(k, exe)
			if err != nil {
				continue
			}
			if got := ExeOf(k, data); got != exe {
				t.Fatalf("%v: ExeOf(Render(%q)) = %q", k, exe, got)
			}
		}
	})
}

// ExeOf reads files users may have edited: it must not panic on any input.
func FuzzExeOf(f *testing.F) {
	f.Add([]byte("[Desktop Entry]\nExec=\"/a b\" run\n"))
	f.Add([]byte("[Service]\nExecStart=-\"/x\\\"y\" run\n"))
	f.Add([]byte("<plist><dict><key>ProgramArguments</key><array><string>/x</string></array></dict></plist>"))
	f.Add([]byte("[Service]\nExecStart=\"unterminated"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{LaunchAgent, XDG, Systemd} {
			_ = ExeOf(k, data)
		}
	})
}
