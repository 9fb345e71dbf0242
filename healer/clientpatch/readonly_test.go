package clientpatch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyInstall: a module folder this user cannot write (a
// root-owned global prefix) gets ErrReadOnly with the fix, and nothing
// changes. Install runs in a child process; as root (whom permissions do
// not stop) the child runs as nobody.
func TestReadOnlyInstall(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("", "clientpatch-ro-")
	mustDo(t, err)
	lib := filepath.Join(base, "pkg", "lib")
	t.Cleanup(func() {
		_ = os.Chmod(lib, 0o755)
		_ = os.RemoveAll(base)
	})
	mustDo(t, os.Chmod(base, 0o755))
	p, orig := copyClient(t, filepath.Join(base, "pkg"))
	home := filepath.Join(base, "home")
	mustDo(t, os.Mkdir(home, 0o777))
	mustDo(t, os.Chmod(home, 0o777)) // umask
	mustDo(t, os.Chmod(lib, 0o555))

	bin := os.Args[0]
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		bin = copySelf(t, base)
		const nobody = 65534
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	cmd := exec.Command(bin, p, home)
	cmd.Env = append(os.Environ(), childEnv+"=apply")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	res := runChild(t, cmd)
	t.Logf("refused: %s", res.Err)
	if !res.ReadOnly {
		t.Fatalf("want ErrReadOnly, got %q", res.Err)
	}
	for _, want := range []string{"sudo watchdog patch apply --module " + p, "npm config set prefix ~/.npm-global", "owned by root"} {
		if os.Getuid() != 0 && want == "owned by root" {
			continue
		}
		if !strings.Contains(res.Err, want) {
			t.Errorf("message %q does not say %q", res.Err, want)
		}
	}
	if got := readFile(t, p); !bytes.Equal(got, orig) {
		t.Fatal("the read-only module changed")
	}
	if b := backupDirs(t, home); len(b) > 0 {
		t.Fatalf("a refused apply made backups: %v", b)
	}
}
