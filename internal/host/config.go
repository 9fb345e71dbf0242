package host

// ConfigFile is where a host keeps its MCP servers: Names (slash-separated,
// may hold *) under a folder of the user's home. The folder differs by
// system, and Env, when set in the environment, names it instead ("DSH_HOME").
// The format follows the name: .json (comments and trailing commas allowed,
// as VS Code writes them), .toml, .yml or .yaml.
type ConfigFile struct {
	// Darwin and Linux are the folder relative to the home directory on
	// each system; "" is the home directory itself.
	Darwin, Linux string
	// Env is an environment variable that, when set, is the folder (or
	// its parent, with EnvSub under it: GEMINI_CLI_HOME stands for the
	// home directory).
	Env, EnvSub string
	// Names are the files in that folder.
	Names []string
}

// with is c naming names in its folder.
func (c ConfigFile) with(names ...string) ConfigFile {
	c.Names = names
	return c
}

// Layout is where in a host's config file its MCP servers are and how an
// entry says its transport and URL. Every host's file is read through one:
// the formats differ, the shapes are few.
type Layout struct {
	// Tables are the key paths of the objects that map a server's name to
	// its entry; "*" stands for any key (projects.*.mcpServers).
	Tables [][]string
	// Plugin, when its Key is set, finds entries anywhere in the file
	// instead: objects whose Key is Value, the entry under Body, the
	// server's name under NameKey inside it.
	Plugin Plugin
	// TypeKey names an entry's transport ("type": "http", "sse", "stdio");
	// "" when the entry's URL key alone tells it.
	TypeKey string
	// URLKeys are the keys an entry's URL may be under, in order, each with
	// the transport it means when TypeKey says nothing.
	URLKeys []URLKey
	// Projects is the key path of a table whose keys are project folders
	// holding more of the host's servers (Profile.ProjectFiles); nil: none.
	Projects []string
}

// ProjectFiles are the files a host reads servers from inside a project
// folder (the folder it runs in): Names in the folder, slash-separated,
// read through Layout. The folders looked in are those the host's own
// files name (Layout.Projects, and the Listed files), the current
// directory and any the user names (`watchdog hosts --project DIR`).
type ProjectFiles struct {
	Names  []string
	Layout Layout
	// Listed are files of the host's that name project folders it has
	// been used in.
	Listed []ProjectList
	// Trust, when set, is where the host keeps which folders it trusts:
	// a project file in a folder it does not trust is not read at all.
	Trust *TrustedFolders
}

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

// Scope is where a host reads a server from, and which wins when two of
// its scopes name the same server: the higher Rank.
type ScopeKind string

// The scopes.
const (
	// UserScope: the host's own config file, for every folder.
	UserScope ScopeKind = "user"
	// ProjectScope: a file in a project folder, for that folder.
	ProjectScope ScopeKind = "project"
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
)

// Behaviour is what a host's MCP client does when a server answers that
// its session is gone.
type Behaviour string

// The behaviours. Reinitializes and Retries both heal by themselves;
// they differ in what becomes of the call that met the loss.
const (
	// Stuck: it keeps the dead session id; every later call fails until
	// the host (or the server entry) is restarted.
	Stuck Behaviour = "stuck"
	// Reinitializes: it opens a new session on its next call; the call
	// that met the loss may fail.
	Reinitializes Behaviour = "reinitializes"
	// Retries: it opens a new session and retries the failed call once.
	Retries Behaviour = "retries"
)

// SelfHealing reports whether a host with b recovers a lost session
// without help.
func (b Behaviour) SelfHealing() bool { return b == Reinitializes || b == Retries }

// mcpServers is the common shape: a top-level mcpServers object whose
// entries give url (Streamable HTTP) or command and args (stdio).
func mcpServers(urlKeys ...URLKey) Layout {
	return Layout{Tables: [][]string{{"mcpServers"}}, TypeKey: "type", URLKeys: urlKeys}
}
