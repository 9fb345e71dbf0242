package proc

import (
	"strings"
	"testing"
)

// Long: a table of command lines, each a case.
func TestRunsAs(t *testing.T) {
	tests := []struct {
		args string // split at spaces; "|" separates arguments that hold spaces
		name string
		want bool
	}{
		{"dsh web", "dsh", true},
		{"/usr/local/bin/dsh web", "dsh", true},
		{"./dsh", "dsh", true},
		{"dsh-web --port 3080", "dsh", false},
		{"timeout 500 npm install @deepseek-ai/dsh@0.1.0-rc.8", "dsh", false},
		{"less /root/.dsh/x", "dsh", false},
		{"tail -f /var/log/dsh.log", "dsh", false},
		{"vim dsh.js", "dsh", false},
		{"node /usr/lib/node_modules/@deepseek-ai/dsh/bin/dsh.js web", "dsh", true},
		{"node /usr/local/bin/dsh web", "dsh", true},
		{"nodejs dsh.cjs", "dsh", true},
		{"/usr/bin/node --enable-source-maps /app/dsh.mjs", "dsh", true},
		{"node --max-old-space-size 4096 /app/dsh.js", "dsh", true},
		{"node -r /x/dsh.js /app/main.js", "dsh", false},
		{"node --import dsh /app/main.js", "dsh", false},
		{"node -e require('dsh')", "dsh", false},
		{"node -p dsh", "dsh", false},
		{"node /usr/bin/npm install @deepseek-ai/dsh", "dsh", false},
		{"node /usr/bin/npx dsh", "dsh", false},
		{"node -- dsh.ts", "dsh", true},
		{"node dsh.log", "dsh", false},
		{"node dsh.js", "dsh.js", true},
		{"node", "dsh", false},
		{"deno run --allow-all /srv/dsh.ts", "dsh", true},
		{"deno run -c deno.json dsh.ts", "dsh", true},
		{"deno run -c dsh.ts main.ts", "dsh", false},
		{"deno eval dsh", "dsh", false},
		{"bun run dsh.ts", "dsh", true},
		{"bun dsh.ts", "dsh", true},
		{"bun --cwd /srv/dsh run main.ts", "dsh", false},
		{"python3 /opt/dsh.py", "dsh", true},
		{"python3.12 -u -W ignore dsh.py", "dsh", true},
		{"python3.13t dsh", "dsh", true},
		{"/usr/bin/python -m dsh", "dsh", true},
		{"python -m http.server dsh", "dsh", false},
		{"python -c import dsh", "dsh", false},
		{"pythonista dsh.py", "dsh", false},
		{"bash /usr/local/bin/dsh", "dsh", true},
		{"bash -c dsh", "dsh", false},
		{"sh -o errexit dsh.sh", "dsh", true},
		{"dsh", "", false},
		{"dsh web|||", "dsh", true},   // process.title rewrote argv, tail cleared
		{"dsh web|", "dsh web", true}, // a title with a space, read whole
		{"node /app/dsh.js web", "dsh", true},
		{"less /x/dsh", "dsh", false},
	}
	for _, tc := range tests {
		args := strings.Fields(tc.args)
		if strings.Contains(tc.args, "|") {
			args = strings.Split(tc.args, "|")
		}
		if got := runsAs(args, tc.name); got != tc.want {
			t.Errorf("runsAs(%q, %q) = %v, want %v", args, tc.name, got, tc.want)
		}
	}
}

func TestCommIs(t *testing.T) {
	tests := []struct {
		comm, name string
		want       bool
	}{
		{"dsh", "dsh", true},
		{"node", "dsh", false},
		{"dsh", "dsh-web", false},
		{"", "", false},
		{"my-long-host-na", "my-long-host-name", true},  // 15 bytes kept by the kernel
		{"my-long-host-na", "my-long-host-na", true},    // exactly 15
		{"my-long-host-na", "my-long-host", false},      // comm is longer than the name
		{"my-long-host-nb", "my-long-host-name", false}, // differs within 15 bytes
		{"short-na", "short-name", false},               // not cut: must be equal
	}
	for _, tc := range tests {
		if got := commIs(tc.comm, tc.name); got != tc.want {
			t.Errorf("commIs(%q, %q) = %v, want %v", tc.comm, tc.name, got, tc.want)
		}
	}
}

// TestHelpersAreNotTheHost: a process of the host's program that carries
// a helper's argument (Cline's hub daemon) is not the host.
func TestHelpersAreNotTheHost(t *testing.T) {
	t.Parallel()
	helpers := []string{"--cline-hub-daemon"}
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"/usr/bin/node", "/opt/cline/bin/cline", "--cline-hub-daemon"}, true},
		{[]string{"/opt/cline/bin/cline", "--cline-hub-daemon", "--port", "0"}, true},
		{[]string{"cline --cline-hub-daemon"}, true}, // a title set over the whole command line
		{[]string{"/opt/cline/bin/cline", "--json", "say hi"}, false},
		{[]string{"/opt/cline/bin/cline"}, false},
	}
	for _, tt := range tests {
		if got := helper(tt.args, helpers); got != tt.want {
			t.Errorf("helper(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
	if helper([]string{"cline", "--cline-hub-daemon"}, nil) {
		t.Error("no helpers: nothing is one")
	}
}
