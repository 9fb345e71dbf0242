package clientpatch

import (
	"cmp"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// npmRoots remembers `npm root -g`. Running it starts node: about a third
// of a second of a core, and the daemon looks for the client module every
// minute while none is installed, so asking each time cost a daemon at
// rest more than all the rest of its work. The answer depends on which npm
// runs (PATH, and that npm's install) and on the user's npmrc (a prefix
// set there); it is asked again when either is another file or changed.
// A failure is not remembered: the next look asks again.
type npmRoots struct {
	lookPath func(string) (string, error) // exec.LookPath
	npmrc    func() string                // the user's npmrc's path
	run      func(npm string) (string, error)

	mu   sync.Mutex
	key  npmRootKey
	root string
	ok   bool // root holds the answer for key
}

// npmRootKey is what an answer of npm root -g was given for.
type npmRootKey struct{ npm, npmrc fileState }

// fileState is a file as stat sees it; the zero value: absent.
type fileState struct {
	path  string
	fi    os.FileInfo
	size  int64
	mtime time.Time
}

func statOf(path string) fileState {
	fi, err := os.Stat(path)
	if err != nil {
		return fileState{path: path}
	}
	return fileState{path: path, fi: fi, size: fi.Size(), mtime: fi.ModTime()}
}

func (a fileState) same(b fileState) bool {
	if a.path != b.path || (a.fi == nil) != (b.fi == nil) {
		return false
	}
	return a.fi == nil || os.SameFile(a.fi, b.fi) && a.size == b.size && a.mtime.Equal(b.mtime)
}

func newNpmRoots(lookPath func(string) (string, error), npmrc func() string, run func(string) (string, error)) *npmRoots {
	return &npmRoots{lookPath: lookPath, npmrc: npmrc, run: run}
}

// get is npm root -g, run only when npm or the npmrc changed since the
// last answer.
func (n *npmRoots) get() (string, error) {
	npm, err := n.lookPath("npm")
	if err != nil {
		return "", err
	}
	key := npmRootKey{npm: statOf(npm), npmrc: statOf(n.npmrc())}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ok && n.key.npm.same(key.npm) && n.key.npmrc.same(key.npmrc) {
		return n.root, nil
	}
	root, err := n.run(npm)
	n.ok = err == nil
	if n.ok {
		n.key, n.root = key, root
	}
	return root, err
}

// userNpmrc is the user's npmrc: NPM_CONFIG_USERCONFIG, else ~/.npmrc.
func userNpmrc() string {
	if p := cmp.Or(os.Getenv("NPM_CONFIG_USERCONFIG"), os.Getenv("npm_config_userconfig")); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".npmrc")
}
