package host

import (
	"path"
	"strings"
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
	// Client is the host's MCP client module, the one the client fix edits.
	Client Client
}

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
	return []Profile{DSH()}
}

// Default is the host watched when the config names none it knows.
func Default() Profile { return Profiles()[0] }

// Lookup returns the profile whose Name is name (ignoring case), or
// Default when no profile has that name: a config that renames its host
// keeps the default host's client and folders.
func Lookup(name string) Profile {
	for _, p := range Profiles() {
		if strings.EqualFold(p.Name, name) {
			return p
		}
	}
	return Default()
}
