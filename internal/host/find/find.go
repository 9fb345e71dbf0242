package find

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// MaxFileSize bounds what is read of a host's config file. Claude Code
// keeps its history in ~/.claude.json, which grows to megabytes.
const MaxFileSize = 32 << 20

// Found is one host found on this machine.
type Found struct {
	Profile host.Profile
	// Files are its config files, every scope it reads: its own (user)
	// first, then the project files.
	Files []File
	// Running: its process runs now (PID is one of them).
	Running bool
	PID     int32
}

// File is one of a host's config files.
type File struct {
	Path    string // as found; a link is followed when written
	Scope   Scope
	Format  hostfile.Format
	Servers []hostfile.Server
	// Projects are the project folders the file lists (host.Layout.Projects),
	// where more of the host's files may be.
	Projects []string
	// Ignored says why the host does not read the file at all (a folder
	// it does not trust); "" when it does. Note says more that a person
	// should know of the scope ("" for nothing).
	Ignored, Note string
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
	// Projects are folders to look in for the hosts' project files besides
	// those the hosts' own files name: the current directory, --project.
	Projects []string
	// Running reports whether the host's process runs; nil: never looked
	// for (a host is then found by its files alone).
	Running func(ctx context.Context, p host.Profile) (pid int32, ok bool)
	// Read reads one config file; nil: Read (a caller that looks often
	// may skip files that did not change).
	Read func(path string, l host.Layout) File
}

func (o Options) read() func(string, host.Layout) File {
	if o.Read == nil {
		return Read
	}
	return o.Read
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

// Discover returns every host with a config file present or its process
// running, in the order of Options.Profiles.
func Discover(ctx context.Context, o Options) []Found {
	profiles := o.Profiles
	if profiles == nil {
		profiles = host.Profiles()
	}
	var out []Found
	for _, p := range profiles {
		f := Found{Profile: p, Files: Files(p, o)}
		if o.Running != nil {
			f.PID, f.Running = o.Running(ctx, p)
		}
		if len(f.Files) > 0 || f.Running {
			out = append(out, f)
		}
	}
	return out
}

// Files are the host's config files that exist, read: its own (user
// scope) in profile order, then its project files, by folder.
func Files(p host.Profile, o Options) []File {
	read := o.read()
	var files []File
	own := ownPaths(p, o)
	for _, path := range own {
		f := read(path, p.LayoutOf(path))
		f.Scope = Scope{Kind: host.UserScope}
		files = append(files, f)
	}
	for _, dir := range projectDirs(p, o, files) {
		for _, pf := range p.ProjectFiles.Files {
			for _, path := range existing(filepath.Join(dir, filepath.FromSlash(pf.Name))) {
				if slices.Contains(own, path) {
					continue // the host's own file, found from inside the home folder
				}
				f := read(path, pf.Layout)
				f.Scope = Scope{Kind: pf.ScopeOf(), Dir: dir}
				f.Ignored, f.Note = trusted(p, o, files, dir)
				if f.Note == "" && f.Ignored == "" {
					f.Note = p.ProjectFiles.Note
				}
				files = append(files, f)
			}
		}
	}
	return files
}

// existing are the paths pattern names that exist (a * matching within a
// path element), sorted: a directory or other non-file where a host's
// file should be too, which Read then says is no file (not found, it would
// leave adopt saying only that the host has no such server).
func existing(pattern string) []string {
	matches, _ := filepath.Glob(pattern)
	var out []string
	for _, m := range matches {
		if _, err := os.Stat(m); err == nil {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// Paths are the paths of Files: what adopt and release go through.
func Paths(p host.Profile, o Options) []string {
	var out []string
	for _, f := range Files(p, o) {
		out = append(out, f.Path)
	}
	return out
}

// ownPaths are the host's own config files that exist, globs expanded.
func ownPaths(p host.Profile, o Options) []string {
	var out []string
	for _, c := range p.Config {
		out = append(out, configPaths(c, o)...)
	}
	return out
}

// configPaths are the files c names that exist, globs expanded, sorted:
// in the folder of the system, or the one (or the file) the first of its
// environment variables that is set names.
func configPaths(c host.ConfigFile, o Options) []string {
	dir := filepath.Join(o.Home, filepath.FromSlash(c.Linux))
	if o.GOOS == "darwin" {
		dir = filepath.Join(o.Home, filepath.FromSlash(c.Darwin))
	}
	if len(c.Names) == 0 {
		dir = "" // a file only a variable names
	}
	for _, e := range c.Env {
		v := o.getenv(e.Var)
		if v == "" {
			continue
		}
		if e.File {
			return existing(v)
		}
		dir = filepath.Join(v, filepath.FromSlash(e.Sub))
		break
	}
	if dir == "" {
		return nil
	}
	var out []string
	for _, name := range c.Names {
		out = append(out, existing(filepath.Join(dir, filepath.FromSlash(name)))...)
	}
	return out
}

// Read reads one config file through layout l.
func Read(path string, l host.Layout) File {
	f := File{Path: path}
	format, err := hostfile.FormatOf(path)
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
	if f.Servers, err = hostfile.Servers(format, data, l); err != nil {
		f.Err = fmt.Errorf("%s: %w", path, err)
		return f
	}
	f.Projects, _ = hostfile.Projects(format, data, l) // parsed above: no error left
	return f
}
