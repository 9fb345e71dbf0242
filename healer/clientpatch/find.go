package clientpatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// FindOptions say where to look for the installed client.
type FindOptions struct {
	// Host is the host whose client module to look for, as its profile
	// says (the client's package, and the host's own one it may be nested
	// in); zero: host.DSH(), whose client the patch is written for.
	Host host.Profile
	// Module is the --module flag: lib/index.js, or the package folder.
	Module string
	// ConfigModule is the config's host.client_module; Module wins.
	ConfigModule string
	// Home is the user's home; "": os.UserHomeDir.
	Home string
	// Getenv reads NPM_CONFIG_PREFIX, NVM_DIR, VOLTA_HOME, PNPM_HOME; nil: os.Getenv.
	Getenv func(string) string
	// NpmRoot returns `npm root -g`; nil: run it (5 s timeout) when npm is
	// on PATH, once for this look. A caller that looks again and again
	// passes one NpmRoot() for all its looks.
	NpmRoot func() (string, error)
	// SystemDirs are the global node_modules folders of system prefixes;
	// nil: Homebrew, /usr/local, /usr.
	SystemDirs []string
}

const npmRootTimeout = 5 * time.Second

// Find returns the client modules to act on, in order. A chosen module
// (Module, else ConfigModule) wins: it is the only one returned, and when
// it does not exist that is an error, never silently replaced by another
// copy. Otherwise every installed copy discovered, most likely first,
// without duplicates; finding nothing is ErrNotFound.
func Find(o FindOptions) ([]string, error) {
	t := targetOf(o.Host)
	if chosen := cmp.Or(o.Module, o.ConfigModule); chosen != "" {
		p, err := t.chosenModule(chosen)
		if err != nil {
			return nil, err
		}
		return []string{p}, nil
	}
	o = o.withDefaults()
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		key := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			key = r
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	for _, dir := range o.globalDirs(t.client.HostPackage) {
		for _, rel := range t.installed() {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				add(p)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: looked in `npm root -g` and the usual global prefixes (Homebrew, /usr/local, /usr, ~/.npm-global, nvm, volta, pnpm); pass --module PATH/%s or set host.client_module", t.notFound(), t.client.Entry)
	}
	return out, nil
}

// installed lists where the client sits in a global node_modules folder:
// hoisted, or nested in the host's own package.
func (t target) installed() []string {
	c := t.client
	out := []string{c.Package + "/" + c.Entry}
	if c.HostPackage != "" {
		out = append(out, c.HostPackage+"/node_modules/"+c.Package+"/"+c.Entry)
	}
	return out
}

// chosenModule accepts the entry file (lib/index.js) itself or the package
// folder.
func (t target) chosenModule(p string) (string, error) {
	st, err := os.Stat(p)
	if err == nil && st.IsDir() {
		p = filepath.Join(p, filepath.FromSlash(t.client.Entry))
		st, err = os.Stat(p)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", t.notFound(), p, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a file", t.notFound(), p)
	}
	return p, nil
}

func (o FindOptions) withDefaults() FindOptions {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.NpmRoot == nil {
		o.NpmRoot = NpmRoot() // asked once for this look
	}
	if o.SystemDirs == nil {
		o.SystemDirs = []string{"/opt/homebrew/lib/node_modules", "/usr/local/lib/node_modules", "/usr/lib/node_modules"}
	}
	return o
}

// globalDirs lists global node_modules folders, most likely first;
// hostPackage is the host's npm package, which Volta installs as an image.
func (o FindOptions) globalDirs(hostPackage string) []string {
	var dirs []string
	if root, err := o.NpmRoot(); err == nil && root != "" {
		dirs = append(dirs, root)
	}
	if p := o.Getenv("NPM_CONFIG_PREFIX"); p != "" {
		dirs = append(dirs, filepath.Join(p, "lib", "node_modules"))
	}
	dirs = append(dirs, o.SystemDirs...)
	if o.Home == "" {
		return dirs
	}
	h := o.Home
	dirs = append(dirs, filepath.Join(h, ".npm-global", "lib", "node_modules"))
	nvm := cmp.Or(o.Getenv("NVM_DIR"), filepath.Join(h, ".nvm"))
	dirs = append(dirs, newestFirst(filepath.Join(nvm, "versions", "node", "*", "lib", "node_modules"))...)
	volta := cmp.Or(o.Getenv("VOLTA_HOME"), filepath.Join(h, ".volta"))
	if hostPackage != "" {
		dirs = append(dirs, filepath.Join(volta, "tools", "image", "packages", filepath.FromSlash(hostPackage), "lib", "node_modules"))
	}
	for _, pnpm := range []string{o.Getenv("PNPM_HOME"), filepath.Join(h, ".local", "share", "pnpm"), filepath.Join(h, "Library", "pnpm")} {
		if pnpm != "" {
			dirs = append(dirs, newestFirst(filepath.Join(pnpm, "global", "*", "node_modules"))...)
		}
	}
	return dirs
}

// newestFirst globs and orders by the version-like part, highest first
// (v22.3.0 before v20.11.1; pnpm's global/5 before global/4).
func newestFirst(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	slices.SortFunc(m, func(a, b string) int { return compareVersions(b, a) })
	return m
}

// compareVersions compares paths by their runs of digits, numerically.
func compareVersions(a, b string) int {
	na, nb := numbers(a), numbers(b)
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] - nb[i]
		}
	}
	if c := len(na) - len(nb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func numbers(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// NpmRoot is `npm root -g` when npm is on PATH, remembered: asked again
// only when what decides it changed (npmRoots). A caller that looks again
// and again (the daemon, every minute while no module is found) keeps one
// for its life; doctor keeps one for a run.
func NpmRoot() func() (string, error) {
	return newNpmRoots(exec.LookPath, userNpmrc, runNpmRoot).get
}

// runNpmRoot runs npm root -g with npm at path.
func runNpmRoot(npm string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), npmRootTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "root", "-g").Output()
	if err != nil {
		return "", errors.Join(err, ctx.Err())
	}
	return strings.TrimSpace(string(out)), nil
}
