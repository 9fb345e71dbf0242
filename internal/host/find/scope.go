package find

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// Scope is where a host reads a server from: its own file (user), a
// project folder's file (project), or a project's entries in its own file
// (local, Claude Code).
type Scope struct {
	Kind host.ScopeKind
	Dir  string // the project folder; "" for user
}

func (s Scope) String() string {
	if s.Dir == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + " " + s.Dir
}

// ScopeOf is the scope of server s of file f: a Claude Code entry under
// projects.<dir> of its own file is that folder's local scope.
func (f File) ScopeOf(p host.Profile, s hostfile.Server) Scope {
	pre := p.Layout.Projects
	if f.Scope.Kind == host.UserScope && len(pre) > 0 && len(s.Path) > len(pre) && slices.Equal(s.Path[:len(pre)], pre) {
		return Scope{Kind: host.LocalScope, Dir: s.Path[len(pre)]}
	}
	return f.Scope
}

// ShadowedBy says where the host uses another entry of the server's name
// instead of this one, "" when nowhere: in a project folder, an entry of
// a higher scope for that folder wins (local over project over user). (An
// ignored file's entries are never used: File.Ignored says so.)
func (fd Found) ShadowedBy(file File, s hostfile.Server) string {
	me := file.ScopeOf(fd.Profile, s)
	var over []string
	for _, f := range fd.Files {
		if f.Ignored != "" {
			continue
		}
		for _, o := range f.Servers {
			sc := f.ScopeOf(fd.Profile, o)
			if o.Name != s.Name || sc.Kind.Rank() <= me.Kind.Rank() || me.Dir != "" && sc.Dir != me.Dir {
				continue
			}
			over = append(over, sc.String())
		}
	}
	slices.Sort(over)
	return strings.Join(slices.Compact(over), ", ")
}

// projectDirs are the folders to look in for the host's project files:
// those its own files list, those its lists of projects name, and
// Options.Projects; absolute, cleaned, each once, sorted.
func projectDirs(p host.Profile, o Options, own []File) []string {
	if len(p.ProjectFiles.Files) == 0 {
		return nil
	}
	var dirs []string
	for _, f := range own {
		dirs = append(dirs, f.Projects...)
	}
	for _, l := range p.ProjectFiles.Listed {
		for _, path := range configPaths(l.File, o) {
			dirs = append(dirs, listedDirs(path, l)...)
		}
	}
	dirs = append(dirs, o.Projects...)
	var out []string
	for _, d := range dirs {
		if filepath.IsAbs(d) { // a key that is no folder of this machine is not one
			out = append(out, filepath.Clean(d))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// listedDirs reads the folders one list file names.
func listedDirs(path string, l host.ProjectList) []string {
	v, ok := readJSON(path)
	if !ok {
		return nil
	}
	if l.Value != "" {
		m, _ := v.(map[string]any)
		s, _ := m[l.Value].(string)
		if u, err := url.Parse(s); err == nil && u.Scheme == "file" {
			s = u.Path
		}
		return []string{s}
	}
	for _, k := range l.Keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// readJSON reads a small JSON file (comments and trailing commas allowed).
func readJSON(path string) (any, bool) {
	b, err := fsutil.ReadRegular(path, 1<<20)
	if err != nil {
		return nil, false
	}
	b, err = hujson.Standardize(b)
	if err != nil {
		return nil, false
	}
	var v any
	return v, json.Unmarshal(b, &v) == nil
}

// trusted says whether the host reads its project file in dir: "" and
// "" when it does; a reason when it does not (the folder is not
// trusted); or a note when the host has not decided yet.
func trusted(p host.Profile, o Options, own []File, dir string) (ignored, note string) {
	t := p.ProjectFiles.Trust
	if t == nil || t.EnvTrust != "" && o.getenv(t.EnvTrust) == "true" || trustOff(own, t.Setting) {
		return "", ""
	}
	files := configPaths(t.File, o)
	if len(files) == 0 {
		return "", p.Name + " reads it once you trust the folder (it asks when it starts there)"
	}
	v, _ := readJSON(files[0])
	rules, _ := v.(map[string]any)
	best, level := -1, ""
	for rule, lv := range rules {
		s, _ := lv.(string)
		eff := rule
		if s == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		if within(dir, eff) && len(rule) > best {
			best, level = len(rule), s
		}
	}
	switch level {
	case "DO_NOT_TRUST":
		return p.Name + " does not trust the folder (" + files[0] + "), so it does not read the file", ""
	case "TRUST_FOLDER", "TRUST_PARENT":
		return "", ""
	}
	return "", p.Name + " reads it once you trust the folder (it asks when it starts there)"
}

// trustOff reports whether one of the host's own files turns the trust
// check off (setting false).
func trustOff(own []File, setting []string) bool {
	if len(setting) == 0 {
		return false
	}
	for _, f := range own {
		v, ok := readJSON(f.Path)
		for _, k := range setting {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if b, isBool := v.(bool); ok && isBool && !b {
			return true
		}
	}
	return false
}

// within reports whether dir is root or below it.
func within(dir, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
