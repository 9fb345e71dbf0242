package soak

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/pypeer"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// startPython starts the Python SDK client (the current 2.x) calling every
// server through its proxy, under the unpatched client's name: its calls
// are judged as that client's are (every one succeeds while its server and
// the watchdog are up, none runs twice).
func (w *world) startPython(seed uint64) {
	bin, dir, err := pypeer.Python(pypeer.SDK2)
	if err != nil {
		w.t.Fatal(err)
	}
	secret, err := proxy.LoadSecret(w.state)
	if err != nil {
		w.t.Fatal(err)
	}
	args := []string{"soak_client.py", "--name", unpatchedClient, "--seed", fmt.Sprint(seed % (1 << 31)),
		"--max-gap-ms", fmt.Sprint(w.clients[0].MaxGap.Milliseconds())}
	for _, cs := range w.clients {
		args = append(args, cs.Name+"="+proxy.URLFor(w.proxyAddrs[cs.Name], secret))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout = &lineWriter{line: w.callLine}
	stderr := &tailbuf.Buffer{Max: 64 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("start the Python client: %v", err)
	}
	c := &clientProc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.done) }()
	w.python = c
	w.t.Cleanup(func() {
		c.kill()
		if w.t.Failed() || strings.Contains(stderr.String(), "Traceback") {
			w.t.Logf("the Python client's stderr:\n%s", stderr.String())
		}
	})
}
