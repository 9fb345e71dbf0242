package adopt

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	hostjudge "github.com/mcpwatchdog/watchdog/internal/host/judge"
)

// A stdio server is adopted by a wrapper: a small /bin/sh script in
// STATE_DIR/wrappers/ that runs the server under `watchdog stdio` (which
// starts it again when it dies), and runs it straight when that watchdog
// binary is gone, so that uninstalling the watchdog never breaks a host.
// Only the entry's command changes, to the wrapper's path: its arguments
// and environment reach the wrapper as "$@" and the environment. Codex
// passes a stdio server only a fixed set of variables, so all the
// wrapper needs rides in its own text.

// WrappersDir is the folder of the state directory adopt writes the
// wrappers in.
const WrappersDir = "wrappers"

// maxWrapper bounds a wrapper script read back.
const maxWrapper = 64 << 10

// wrapperHead starts every wrapper adopt writes: a script that does not
// is not one of adopt's.
const wrapperHead = "#!/bin/sh\n# Written by `watchdog hosts adopt "

// wrapper is what one wrapper script says.
type wrapper struct {
	host, server string
	watchdog     string // the watchdog binary's absolute path
	stateDir     string
	command      string // the server's own command
}

// script is the wrapper's text.
func (w wrapper) script() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s%s` for its stdio server %s: runs it under `watchdog stdio`, which starts it again when it dies. "+
		"`watchdog hosts release %s` puts back %s.\n", wrapperHead, oneLine(shellWord(w.host)), oneLine(quoteWord(w.server)),
		oneLine(shellWord(w.host)), oneLine(quoteWord(w.command)))
	fmt.Fprintf(&b, "if [ -x %s ]; then exec %s stdio --server %s --host %s --state-dir %s -- %s \"$@\"; fi\n",
		sq(w.watchdog), sq(w.watchdog), sq(w.server), sq(w.host), sq(w.stateDir), sq(w.command))
	fmt.Fprintf(&b, "exec %s \"$@\"\n", sq(w.command))
	return b.Bytes()
}

// sq quotes s for /bin/sh in single quotes, always.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// quoteWord is s in double quotes for the comment, as Go quotes it.
func quoteWord(s string) string { return fmt.Sprintf("%q", s) }

// oneLine keeps a comment on its line: no control character of a name
// may end it.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// parseWrapper reads back the watchdog binary and the server's own
// command of a wrapper adopt wrote; ok is false for any other text. It
// reads the words as script wrote them, quotes and newlines in them too.
func parseWrapper(data []byte) (watchdog, command string, ok bool) {
	if !bytes.HasPrefix(data, []byte(wrapperHead)) {
		return "", "", false
	}
	i := bytes.Index(data, []byte("\nif [ -x ")) // the comment above holds no newline
	if i < 0 {
		return "", "", false
	}
	rest := string(data[i+len("\nif [ -x "):])
	var words [4]string // the watchdog, the server, the host, the state directory
	for k, sep := range []string{" ]; then exec ", " --host ", " --state-dir ", " -- "} {
		if words[k], rest, ok = unquote(rest); !ok {
			return "", "", false
		}
		if k == 0 {
			sep += sq(words[0]) + " stdio --server "
		}
		if rest, ok = strings.CutPrefix(rest, sep); !ok {
			return "", "", false
		}
	}
	if command, rest, ok = unquote(rest); !ok || rest != " \"$@\"; fi\nexec "+sq(command)+" \"$@\"\n" {
		return "", "", false
	}
	return words[0], command, words[0] != ""
}

// unquote reads the single-quoted word sq wrote at the start of s, and
// what follows it.
func unquote(s string) (word, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		return "", "", false
	}
	var b strings.Builder
	for s = s[1:]; ; {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			return "", "", false
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		if !strings.HasPrefix(s, `\''`) {
			return b.String(), s, true
		}
		b.WriteByte('\'')
		s = s[3:]
	}
}

// wrapperPath is where the wrapper of the entry at entry in file goes:
// named after the host and the server, and a short hash of the file's
// path and the entry's place in it, so that two scopes (two files, or
// Claude Code's user and local entries in one) never share one.
func wrapperPath(stateDir, hostName, server, file string, entry []string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(file + "\x00" + strings.Join(entry, "\x00")))
	return filepath.Join(stateDir, WrappersDir, fmt.Sprintf("%s.%s.%08x", slug(hostName), slug(server), h.Sum32()))
}

// inWrappers reports whether path is in the wrappers folder of stateDir.
func inWrappers(stateDir, path string) bool {
	return filepath.Dir(path) == filepath.Join(stateDir, WrappersDir)
}

// readWrapper reads the wrapper at path: nil data when it is not there.
func readWrapper(path string) ([]byte, error) {
	b, err := fsutil.ReadRegular(path, maxWrapper)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// writeWrapper writes a wrapper, executable by its owner only, in the
// private wrappers folder.
func writeWrapper(path string, data []byte) error {
	if err := fsutil.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, data, 0o700)
}

// removeWrapper removes a wrapper; one already gone is no error.
func removeWrapper(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Wrappers are the wrappers of stateDir as `watchdog hosts` judges them:
// each one's watchdog binary, whether it is there to run, and the
// server's own command.
func Wrappers(stateDir string) hostjudge.Wrappers {
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		abs = stateDir
	}
	dir := filepath.Join(abs, WrappersDir)
	out := hostjudge.Wrappers{Dir: dir, Scripts: map[string]hostjudge.Wrapper{}}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		data, err := readWrapper(path)
		if err != nil || data == nil {
			continue
		}
		if wd, cmd, ok := parseWrapper(data); ok {
			out.Scripts[path] = hostjudge.Wrapper{Watchdog: wd, Runs: executable(wd), Command: cmd}
		}
	}
	return out
}

// executable reports whether path is a file its owner may run.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
