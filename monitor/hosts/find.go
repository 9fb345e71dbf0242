package hosts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/hostconfig"
)

// MaxFileSize bounds what is read of a host's config file. Claude Code
// keeps its history in ~/.claude.json, which grows to megabytes.
const MaxFileSize = 32 << 20

// Found is one host found on this machine.
type Found struct {
	Profile host.Profile
	Files   []File
	// Running: its process runs now (PID is one of them).
	Running bool
	PID     int32
}

// File is one of a host's config files.
type File struct {
	Path    string // as found; a link is followed when written
	Format  hostconfig.Format
	Servers []hostconfig.Server
	// Projects are the project folders the file lists (host.Layout.Projects),
	// where more of the host's files may be.
	Projects []string
	// Err says why the file could not be read or parsed; Servers is then empty.
	Err error
}

// Options say where to look. The zero value of a field means the
// running system's (home directory, GOOS, environment, processes).
type Options struct {
	Home     string
	GOOS     string
	Getenv   func(string) string
	Profiles []host.Profile // default: host.Profiles()
	// Running reports whether the host's process runs; nil: never looked
	// for (a host is then found by its files alone).
	Running func(ctx context.Context, p host.Profile) (pid int32, ok bool)
	// Read reads one config file; nil: Read (a caller that looks often
	// may skip files that did not change).
	Read func(path string, l host.Layout) File
}

// Discover returns every host with a config file present or its process
// running, in the order of Options.Profiles.
func Discover(ctx context.Context, o Options) []Found {
	profiles := o.Profiles
	if profiles == nil {
		profiles = host.Profiles()
	}
	read := o.Read
	if read == nil {
		read = Read
	}
	var out []Found
	for _, p := range profiles {
		f := Found{Profile: p}
		for _, path := range ownPaths(p, o.Home, o.GOOS, o.Getenv) {
			f.Files = append(f.Files, read(path, p.Layout))
		}
		for _, path := range projectPaths(p, f.Files) {
			f.Files = append(f.Files, read(path, p.LayoutOf(path)))
		}
		if o.Running != nil {
			f.PID, f.Running = o.Running(ctx, p)
		}
		if len(f.Files) > 0 || f.Running {
			out = append(out, f)
		}
	}
	return out
}

// Paths returns the host's config files that exist, globs expanded, in
// profile order, then the project files they list (read to find them).
func Paths(p host.Profile, home, goos string, getenv func(string) string) []string {
	own := ownPaths(p, home, goos, getenv)
	if len(p.Layout.Projects) == 0 {
		return own
	}
	files := make([]File, len(own))
	for i, path := range own {
		files[i] = Read(path, p.Layout)
	}
	return append(own, projectPaths(p, files)...)
}

// projectPaths are the host's project files (host.ProjectFiles) that exist
// in the folders its own files list, each once, sorted.
func projectPaths(p host.Profile, own []File) []string {
	var out []string
	for _, f := range own {
		for _, dir := range f.Projects {
			if !filepath.IsAbs(dir) {
				continue // a key that is no folder of this machine
			}
			for _, name := range p.ProjectFiles.Names {
				path := filepath.Join(dir, name)
				if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
					out = append(out, path)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ownPaths are the host's own config files that exist, globs expanded.
func ownPaths(p host.Profile, home, goos string, getenv func(string) string) []string {
	var out []string
	for _, c := range p.Config {
		dir := filepath.Join(home, filepath.FromSlash(c.Linux))
		if goos == "darwin" {
			dir = filepath.Join(home, filepath.FromSlash(c.Darwin))
		}
		if c.Env != "" && getenv != nil && getenv(c.Env) != "" {
			dir = getenv(c.Env)
		}
		for _, name := range c.Names {
			matches, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(name)))
			slices.Sort(matches)
			out = append(out, matches...)
		}
	}
	return out
}

// Read reads one config file through layout l.
func Read(path string, l host.Layout) File {
	f := File{Path: path}
	format, err := hostconfig.FormatOf(path)
	if err != nil {
		f.Err = err
		return f
	}
	f.Format = format
	data, err := fsutil.ReadRegular(path, MaxFileSize)
	if err != nil {
		f.Err = fmt.Errorf("reading %s: %w", path, err)
		return f
	}
	if f.Servers, err = hostconfig.Servers(format, data, l); err != nil {
		f.Err = fmt.Errorf("%s: %w", path, err)
		return f
	}
	f.Projects, _ = hostconfig.Projects(format, data, l) // parsed above: no error left
	return f
}
