package host

import (
	"path"
	"strings"
	"unicode"
)

// Profile is one MCP host. Its fields are the defaults of the config's
// [host] table (name, client_name, logs, process, port, restart), which a
// config file may override, and facts no config key changes (Client).
type Profile struct {
	// Name is how the host is shown ("restart DSH"); host.name.
	Name string
	// ClientName is clientInfo.name on the sessions the host's MCP client
	// opens; host.client_name. A trailing * stands for any rest: Qwen Code
	// names its client after each server (qwen-cli-mcp-client-<server>).
	ClientName string
	// Logs are globs of the host's own log files, unexpanded (a leading ~
	// is the home directory; config.Load expands it); host.logs.
	Logs []string
	// Process is the host's executable or script name (see
	// monitor/proc.Target.Name); host.process.
	Process string
	// Port is the host's listening port, 0 for none; host.port.
	Port int
	// Restart is the argv that starts the host again; host.restart.
	Restart []string
	// Helpers are command-line arguments that mark a process of the
	// host's program that is not the host itself (Cline's prompt run
	// leaves `cline --cline-hub-daemon` behind): it is never taken for
	// the host, nor its start for a restart.
	Helpers []string
	// OneShot: the host runs one process per prompt (`copilot -p`,
	// `opencode run`): a new process is a new run, never a restart, and
	// the watchdog never restarts it; its next run reads a changed config.
	OneShot bool
	// Client is the host's MCP client module, the one the client fix edits;
	// zero for a host whose client cannot be patched (most): no beacon or
	// trigger folders, no patch advice.
	Client Client
	// Config are the files the host keeps its MCP servers in, and Layout
	// where in them; none for a host whose servers the watchdog cannot read.
	Config []ConfigFile
	Layout Layout
	// ProjectFiles are its files inside project folders (a project's
	// .mcp.json); zero for a host that reads none.
	ProjectFiles ProjectFiles
	// Behaviour is what the host does after each answer a server gives
	// for a lost session; observation may correct it (a host seen to open
	// a new session by itself after a loss heals itself).
	Behaviour Behaviour
	// ReadsConfigLive: the host takes a changed config file without a
	// restart (DSH reloads its plugins); otherwise adopt says to restart it.
	ReadsConfigLive bool
	// SpeaksModern: the host's client speaks the 2026-07-28 protocol
	// (it opens with server/discover); the others reach a server that
	// serves only that era through the proxy's bridge alone.
	SpeaksModern bool
}

// AdoptCommand is the command that routes the host's servers through the
// watchdog's proxy, its name quoted for a shell when it needs it.
func (p Profile) AdoptCommand() string { return "watchdog hosts adopt " + ShellWord(p.Name) }

// ShellWord quotes s for a POSIX shell when it holds more than letters,
// digits and a few safe marks.
func ShellWord(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/@%+=:,-", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// LayoutOf is the layout of the host's file at file (a path): a project
// file's when its path ends in one of ProjectFiles' names, else the one
// of its own files it is (which may have a layout of its own), else the
// host's. (Where a project file shares its name with the host's own, as
// Cursor's .cursor/mcp.json does, the two layouts are one.)
func (p Profile) LayoutOf(file string) Layout {
	for _, f := range p.ProjectFiles.Files {
		if (ConfigFile{Names: []string{f.Name}}).Matches(file) {
			return f.Layout
		}
	}
	for _, c := range p.Config {
		if c.Layout != nil && c.Matches(file) {
			return *c.Layout
		}
	}
	return p.Layout
}

// ClientMatch reports whether a session's clientInfo name is the one a
// profile or host table names: equal, or, for a pattern ending in *,
// starting with what comes before it.
func ClientMatch(pattern, name string) bool {
	if pre, ok := strings.CutSuffix(pattern, "*"); ok {
		return pre != "" && strings.HasPrefix(name, pre)
	}
	return pattern != "" && pattern == name
}

// Patchable reports whether the host's client has a fix the watchdog can
// apply (and so beacon and trigger folders).
func (p Profile) Patchable() bool { return p.Client != (Client{}) }

// Client is the host's MCP client as an installed npm package, and the
// folders under the user's home that the patched client and the watchdog
// share. The folders are relative to the home directory, slash-separated.
type Client struct {
	// Package is the client's npm package name.
	Package string
	// Entry is the file of Package that the fix edits.
	Entry string
	// HostPackage is the host's own npm package: a global install may nest
	// the client under its node_modules, and Volta keeps the host as an
	// image named after it.
	HostPackage string
	// BackupDir keeps the originals the fix replaced, one folder per apply.
	BackupDir string
	// TriggerDir is where the patched client looks for recovery triggers:
	// a file named after a server (or "all") makes it reconnect that server.
	TriggerDir string
	// BeaconDir is where the patched client writes its beacons, one file
	// per host process, naming the sessions it holds.
	BeaconDir string
}

// ShortName is the package name without its npm scope, the name people
// and messages use for the client ("dsh-mcp-client").
func (c Client) ShortName() string { return path.Base(c.Package) }

// Profiles returns every host the watchdog knows, the default first. Each
// call returns fresh values: callers may edit them.
func Profiles() []Profile {
	return []Profile{DSH(), ClaudeCode(), ClaudeDesktop(), Cursor(), VSCode(), Windsurf(), CodexCLI(), GeminiCLI(),
		CopilotCLI(), Opencode(), KiloCode(), Cline(), QwenCode(), Crush(), Goose(), Zed(), Continue(), LMStudio()}
}

// Default is the host watched when the config names none.
func Default() Profile { return Profiles()[0] }

// Names lists the known hosts' names, for a message that says which exist.
func Names() []string {
	var out []string
	for _, p := range Profiles() {
		out = append(out, p.Name)
	}
	return out
}

// Lookup returns the profile whose Name is name, ignoring case, spaces,
// '-' and '_' ("claude-code" finds Claude Code); ok is false when no
// profile has that name.
func Lookup(name string) (p Profile, ok bool) {
	key := Fold(name)
	for _, p := range Profiles() {
		if Fold(p.Name) == key {
			return p, true
		}
	}
	return Profile{}, false
}

// ByClient returns the known profile whose client sends clientInfo name
// client (ClientMatch); ok is false when none does.
func ByClient(client string) (p Profile, ok bool) {
	for _, p := range Profiles() {
		if ClientMatch(p.ClientName, client) {
			return p, true
		}
	}
	return Profile{}, false
}

// Custom is the profile of a host no profile knows, from what its config
// entry says: its name and client name. Nothing is known of how it acts
// on a lost session (Unknown), so it is taken to be stuck until seen to
// heal itself.
func Custom(name, clientName string) Profile {
	return Profile{Name: name, ClientName: clientName}
}

// Fold is a host name as Lookup compares it: two names that fold alike
// name one host.
func Fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}
