package host

import (
	"path"
	"strings"
)

// ConfigFile is where a host keeps its MCP servers: Names (slash-separated,
// may hold *) in a folder. The folder differs by system, relative to the
// user's home; an environment variable in Env, when set, names it
// instead. The format follows the name: .json or .jsonc (comments and
// trailing commas allowed, as VS Code writes them), .toml, .yml or .yaml.
type ConfigFile struct {
	// Darwin and Linux are the folder relative to the home directory on
	// each system; "" is the home directory itself.
	Darwin, Linux string
	// Env are environment variables that, when set, name the folder (or
	// the file) instead; the first one set wins.
	Env []EnvDir
	// Names are the files in that folder; none for a file only an
	// environment variable names (EnvDir.File).
	Names []string
	// Layout, when set, is where this file keeps its servers, for a host
	// whose files differ (VS Code's mcp.json and ~/.copilot/mcp-config.json);
	// nil: the profile's Layout.
	Layout *Layout
}

// EnvDir is an environment variable that moves a host's folder.
type EnvDir struct {
	// Var is the variable's name.
	Var string
	// Sub is the folder under its value (GEMINI_CLI_HOME stands for the
	// home directory: its folder is $GEMINI_CLI_HOME/.gemini).
	Sub string
	// File: the value is the file itself (CLINE_MCP_SETTINGS_PATH), not a
	// folder of Names.
	File bool
}

// with is c naming names in its folder.
func (c ConfigFile) with(names ...string) ConfigFile {
	c.Names = names
	return c
}

// under is c with the layout l.
func (c ConfigFile) under(l Layout) ConfigFile {
	c.Layout = &l
	return c
}

// home is a folder under the home directory on both systems, moved by
// the environment variables env (each naming the folder itself).
func home(dir string, env ...string) ConfigFile {
	c := ConfigFile{Darwin: dir, Linux: dir}
	for _, v := range env {
		c.Env = append(c.Env, EnvDir{Var: v})
	}
	return c
}

// xdgConfig is a folder of the XDG config directory (~/.config/sub, or
// $XDG_CONFIG_HOME/sub), on macOS too: hosts built on XDG libraries keep
// it there. env, when given, are the host's own variables that name the
// folder, tried first.
func xdgConfig(sub string, env ...string) ConfigFile {
	c := home(".config/"+sub, env...)
	c.Env = append(c.Env, EnvDir{Var: "XDG_CONFIG_HOME", Sub: sub})
	return c
}

// xdgData is a folder of the XDG data directory (~/.local/share/sub, or
// $XDG_DATA_HOME/sub).
func xdgData(sub string) ConfigFile {
	c := home(".local/share/" + sub)
	c.Env = []EnvDir{{Var: "XDG_DATA_HOME", Sub: sub}}
	return c
}

// codeUser is a file of VS Code's user settings folder (its global
// storage holds the extensions' files: rel under it).
func codeUser(rel string) ConfigFile {
	return ConfigFile{Darwin: path.Join("Library/Application Support/Code/User", path.Dir(rel)),
		Linux: path.Join(".config/Code/User", path.Dir(rel)), Names: []string{path.Base(rel)}}
}

// envFile is a file only the variable v names.
func envFile(v string) ConfigFile { return ConfigFile{Env: []EnvDir{{Var: v, File: true}}} }

// Matches reports whether the file at p (slash or system separated) is
// one this ConfigFile names: its path ends in one of Names, a * in a
// name matching within one path element.
func (c ConfigFile) Matches(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	for _, n := range c.Names {
		parts := strings.Count(n, "/") + 1
		segs := strings.Split(p, "/")
		if len(segs) < parts {
			continue
		}
		if ok, _ := path.Match(n, strings.Join(segs[len(segs)-parts:], "/")); ok {
			return true
		}
	}
	return false
}

// Layout is where in a host's config file its MCP servers are and how an
// entry says its transport and URL. Every host's file is read through one:
// the formats differ, the shapes are few.
type Layout struct {
	// Tables are the key paths of the objects that map a server's name to
	// its entry; "*" stands for any key (projects.*.mcpServers). A key of
	// one table that is itself another table (opencode's mcp.servers) is
	// no entry.
	Tables [][]string
	// Lists are the key paths of lists whose items are entries, each
	// naming itself under NameKey (Continue's mcpServers).
	Lists   [][]string
	NameKey string
	// Plugin, when its Key is set, finds entries anywhere in the file
	// instead: objects whose Key is Value, the entry under Body, the
	// server's name under NameKey inside it.
	Plugin Plugin
	// TypeKeys name an entry's transport ("type": "http", "sse", "stdio"),
	// the first present wins; a key may be a dotted path
	// ("transport.type"). None: the entry's URL key alone tells it.
	TypeKeys []string
	// Types are the host's own words for a transport where they differ
	// from the common ones (http, streamable-http, sse, stdio): opencode's
	// "remote" and "local".
	Types map[string]Transport
	// URLKeys are the keys an entry's URL may be under, in order (dotted
	// paths allowed: Cline's "transport.url"), each with the transport it
	// means when no type key says one.
	URLKeys []URLKey
	// Commands are where a stdio entry's command may be, in order: the
	// first that holds one is the entry's (Zed's "command" string, or its
	// older "command.path").
	Commands []CommandKey
	// HeaderKeys are where an entry's HTTP headers are (dotted paths);
	// nil: "headers".
	HeaderKeys []string
	// TokenKeys name a credential of the entry's own that the host sends
	// with every request (Codex's bearer_token_env_var): it passes through
	// the proxy.
	TokenKeys []string
	// OAuthKeys name an OAuth sign-in besides an "oauth" object (Gemini's
	// authProviderType).
	OAuthKeys []string
	// Off says how an entry is turned off: a key that is true
	// ("disabled") or, with OffWhenFalse, false ("enabled").
	Off          string
	OffWhenFalse bool
	// Projects is the key path of a table whose keys are project folders
	// holding more of the host's servers (Profile.ProjectFiles); nil: none.
	Projects []string
}

// Header keys of the layouts (dotted paths in an entry).
const defaultHeaderKey = "headers"

// Headers are the keys an entry's headers are under.
func (l Layout) Headers() []string {
	if len(l.HeaderKeys) == 0 {
		return []string{defaultHeaderKey}
	}
	return l.HeaderKeys
}

// ProjectFiles are the files a host reads servers from inside a project
// folder (the folder it runs in). The folders looked in are those the
// host's own files name (Layout.Projects, and the Listed files), the
// current directory and any the user names (`watchdog hosts --project DIR`).
type ProjectFiles struct {
	Files []ProjectFile
	// Listed are files of the host's that name project folders it has
	// been used in.
	Listed []ProjectList
	// Trust, when set, is where the host keeps which folders it trusts:
	// a project file in a folder it does not trust is not read at all.
	Trust *TrustedFolders
	// Note, when set, is what a person should know of every project file
	// of the host (Copilot CLI reads them only in folders it trusts).
	Note string
}

// ProjectFile is one file a host reads in a project folder: Name in the
// folder (slash-separated, may hold *), read through Layout, in Scope.
type ProjectFile struct {
	Name   string
	Layout Layout
	// Scope is the file's scope: ProjectScope, or WorkspaceScope for a
	// host with a file of its own that wins over a shared one (Qwen
	// Code's .qwen/settings.json over .mcp.json). "": ProjectScope.
	Scope ScopeKind
}

// ScopeOf is the file's scope.
func (f ProjectFile) ScopeOf() ScopeKind {
	if f.Scope == "" {
		return ProjectScope
	}
	return f.Scope
}

// projectFile is a ProjectScope file of name read through l.
func projectFile(name string, l Layout) ProjectFile { return ProjectFile{Name: name, Layout: l} }

// ProjectList is a file (or files: Names may hold *) whose content names
// project folders: the keys of the object at Keys, or the value under
// Value (a folder, or a file:// URI of one).
type ProjectList struct {
	File  ConfigFile
	Keys  []string
	Value string
}

// TrustedFolders is a host's list of folders it trusts (Gemini CLI's
// trustedFolders.json): an object of folder to TRUST_FOLDER (the folder
// and below), TRUST_PARENT (its parent and below) or DO_NOT_TRUST; the
// longest rule that covers a folder decides. EnvTrust, when set to "true"
// in the environment, trusts every folder; Setting is the key path in the
// host's own file that turns the check off when false.
type TrustedFolders struct {
	File     ConfigFile
	EnvTrust string
	Setting  []string
}

// ScopeKind is where a host reads a server from, and which wins when two
// of its scopes name the same server: the higher Rank.
type ScopeKind string

// The scopes.
const (
	// UserScope: the host's own config file, for every folder.
	UserScope ScopeKind = "user"
	// ProjectScope: a file in a project folder, for that folder.
	ProjectScope ScopeKind = "project"
	// WorkspaceScope: a host's own file in a project folder, which wins
	// there over the project's shared file (Qwen Code's
	// .qwen/settings.json over .mcp.json).
	WorkspaceScope ScopeKind = "workspace"
	// LocalScope: a project's entries in the host's own file (Claude
	// Code's projects.<dir>.mcpServers), for that folder, above its
	// project file.
	LocalScope ScopeKind = "local"
)

// Rank orders the scopes: a server named in a higher one is the one the
// host uses in that folder.
func (k ScopeKind) Rank() int {
	switch k {
	case LocalScope:
		return 4
	case WorkspaceScope:
		return 3
	case ProjectScope:
		return 2
	}
	return 1
}

// Plugin is the shape of a host whose servers are plugin instances in a
// list (DSH's cordis.yml: name, then config with serverName, url, ...).
type Plugin struct {
	Key, Value, Body, NameKey string
}

// URLKey is one key an entry's URL may be under.
type URLKey struct {
	Key       string
	Transport Transport
}

// CommandKey is one place an entry's command may be: Key (a dotted
// path) holds the program, Args its arguments. With Argv, Key holds the
// whole argument vector as a list (opencode's "command": ["npx", ...]):
// the program is its first element, the rest its arguments.
type CommandKey struct {
	Key, Args string
	Argv      bool
}

// command is the common place: "command" with its "args" beside it.
func command() []CommandKey { return []CommandKey{{Key: "command", Args: "args"}} }

// Transport is how a host reaches a server.
type Transport string

// The transports, as `watchdog hosts` names them.
const (
	StreamableHTTP Transport = "streamable-http"
	SSE            Transport = "sse"
	Stdio          Transport = "stdio"
	// Bridged is a stdio entry that runs mcp-remote (or the like) with the
	// server's URL in its arguments: HTTP underneath, stdio to the host.
	Bridged Transport = "stdio-bridge"
	// Builtin is an extension the host runs inside itself (Goose's
	// builtin and platform extensions): no session of a server to lose.
	Builtin Transport = "builtin"
)

// mcpServers is the common shape: a top-level mcpServers object whose
// entries give url (Streamable HTTP) or command and args (stdio), and
// may say their transport under type.
func mcpServers(urlKeys ...URLKey) Layout {
	return Layout{Tables: [][]string{{"mcpServers"}}, TypeKeys: []string{"type"}, URLKeys: urlKeys, Commands: command()}
}

// claudeShape is the shape of Claude Code's files, which several hosts
// read too (a project's .mcp.json): mcpServers.<name> with type (http,
// sse, stdio) and url, or command and args.
func claudeShape() Layout { return mcpServers(URLKey{"url", StreamableHTTP}) }

// sharedMCPJSON is a project's .mcp.json, which Claude Code, Copilot CLI,
// VS Code and Qwen Code all read.
func sharedMCPJSON() ProjectFile { return projectFile(".mcp.json", claudeShape()) }
