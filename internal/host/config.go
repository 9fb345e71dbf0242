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
	// Env is an environment variable that, when set, is the folder.
	Env string
	// Names are the files in that folder.
	Names []string
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

// ProjectFiles are the files a host keeps servers in inside each project
// folder its own config file lists (Layout.Projects): Names in the folder,
// read through Layout.
type ProjectFiles struct {
	Names  []string
	Layout Layout
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
