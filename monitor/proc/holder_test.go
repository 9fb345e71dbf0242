package proc

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A port held by another process is named with that process's pid and
// name; a free one finds nobody.
func TestHolderOf(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 not found: it holds the port in this test")
	}
	ready := filepath.Join(t.TempDir(), "port")
	cmd := exec.Command(py, "-c", `import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen()
open(sys.argv[1]+".tmp","w").write(str(s.getsockname()[1])); __import__("os").rename(sys.argv[1]+".tmp",sys.argv[1])
time.sleep(600)`, ready)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var port string
	deadline := time.Now().Add(20 * time.Second)
	for port == "" {
		if b, err := os.ReadFile(ready); err == nil {
			port = string(b)
		} else if time.Now().After(deadline) {
			t.Fatal("python3 never listened")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	ctx := context.Background()
	h, ok, err := HolderOf(ctx, "127.0.0.1:"+port)
	if err != nil || !ok || int(h.PID) != cmd.Process.Pid || !strings.HasPrefix(h.Name, "python3") {
		t.Fatalf("HolderOf = %+v, %v, %v; want python3 (pid %d)", h, ok, err, cmd.Process.Pid)
	}
	if s := h.String(); !strings.Contains(s, "pid ") || !strings.Contains(s, h.Name) {
		t.Errorf("String = %q", s)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	if h, ok, err := HolderOf(ctx, addr); ok || err != nil {
		t.Errorf("a free port has holder %+v (%v)", h, err)
	}
	if _, _, err := HolderOf(ctx, "nonsense"); err == nil {
		t.Error("a bad address gave no error")
	}
}
