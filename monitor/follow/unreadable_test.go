package follow

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUnreadableDirectory: a log directory that cannot be read is reported
// and followed once it can be. The follower runs in a child process; when
// the tests run as root (whom permissions do not stop) the child runs as
// nobody.
func TestUnreadableDirectory(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("", "follow-perm-")
	mustDo(t, err)
	logs := filepath.Join(base, "logs")
	t.Cleanup(func() {
		_ = os.Chmod(logs, 0o755)
		_ = os.RemoveAll(base)
	})
	mustDo(t, os.Chmod(base, 0o755))
	mustDo(t, os.Mkdir(logs, 0o755))
	path := filepath.Join(logs, "app.log")
	writeFile(t, path, "hello\n")
	mustDo(t, os.Chmod(path, 0o666))
	mustDo(t, os.Chmod(logs, 0))

	bin, cred := childBinary(t, base)
	c := startChild(t, bin, "printer", []string{childDirEnv + "=" + logs}, cred)
	defer c.stop()
	c.waitOutput("a warning about the directory", func(s string) bool {
		return strings.HasPrefix(s, "WARN "+logs+" ") && strings.Contains(s, "permission denied")
	})
	mustDo(t, os.Chmod(logs, 0o755))
	c.waitOutput("the existing line", hasPrefixFn("LINE hello"))
	appendFile(t, path, "world\n")
	c.waitOutput("a new line", hasPrefixFn("LINE world"))
}

// childBinary returns a test binary the child can run and the credentials
// to run it with: as root, a copy in dir (which nobody can reach) and the
// nobody user; otherwise this binary as the current user.
func childBinary(t *testing.T, dir string) (string, *syscall.Credential) {
	self, err := os.Executable()
	mustDo(t, err)
	if os.Getuid() != 0 {
		return self, nil
	}
	bin := filepath.Join(dir, "follow.test")
	src, err := os.Open(self)
	mustDo(t, err)
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	mustDo(t, err)
	_, err = io.Copy(dst, src)
	mustDo(t, err)
	mustDo(t, dst.Close())
	const nobody = 65534
	return bin, &syscall.Credential{Uid: nobody, Gid: nobody}
}

// TestGlobThroughAFileWarns: a pattern whose directory part is a file is a
// misconfiguration the user must hear about, even as root.
func TestGlobThroughAFileWarns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "app.log")
	if err := os.WriteFile(file, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	warned := make(chan error, 4)
	f, err := New(Options{Sources: []Source{{Tag: "t", Globs: []string{filepath.Join(file, "*.log")}}},
		Warn: func(_, _ string, err error) { warned <- err }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)
	select {
	case err := <-warned:
		if !errors.Is(err, ErrNotDir) {
			t.Fatalf("warning %v, want ErrNotDir", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no warning for a glob through a file")
	}
}
