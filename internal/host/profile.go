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
	// opens; host.client_name.
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
	// Client is the host's MCP client module, the one the client fix edits;
	// zero for a host whose client cannot be patched (most): no beacon or
	// trigger folders, no patch advice.
	Client Client
	// Config are the files the host keeps its MCP servers in, and Layout
	// where in them; none for a host whose servers the watchdog cannot read.
	Config []ConfigFile
	Layout Layout
	// ProjectFiles are its files inside the project folders its config
	// lists (Claude Code's .mcp.json); zero for a host whose config names
	// no projects.
	ProjectFiles ProjectFiles
	// OnLoss is what the host does when a server forgets its session, from
	// its sources and trackers; observation may correct it (a host seen to
	// open a new session by itself after a loss heals itself).
	OnLoss Behaviour
	// OnBadRequest is what it does when the server says so with a 400
	// instead of the spec's 404 (the TypeScript SDK examples' quirk):
	// measured, it differs for some hosts. "" means as OnLoss.
	OnBadRequest Behaviour
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
// file's when its path ends in one of ProjectFiles.Names, else the host's
// own. (Where a project file shares its name with the host's own, as
// Cursor's .cursor/mcp.json does, the two layouts are one.)
func (p Profile) LayoutOf(file string) Layout {
	file = strings.ReplaceAll(file, `\`, "/")
	for _, n := range p.ProjectFiles.Names {
		if strings.HasSuffix(file, "/"+n) {
			return p.ProjectFiles.Layout
		}
	}
	return p.Layout
}

// Meets is what the host does on a lost session a server answers with
// status: 400 is OnBadRequest, anything else (404, or not known yet) OnLoss.
func (p Profile) Meets(status int) Behaviour {
	if status == 400 && p.OnBadRequest != "" {
		return p.OnBadRequest
	}
	return p.OnLoss
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
	return []Profile{DSH(), ClaudeCode(), ClaudeDesktop(), Cursor(), VSCode(), Windsurf(), CodexCLI(), GeminiCLI()}
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

// Custom is the profile of a host no profile knows, from what its config
// entry says: its name and client name. Nothing is known of how it acts
// on a lost session, so it is taken to be stuck until seen to heal itself.
func Custom(name, clientName string) Profile {
	return Profile{Name: name, ClientName: clientName, OnLoss: Stuck}
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
