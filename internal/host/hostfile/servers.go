package hostfile

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Errors callers branch on.
var (
	// ErrSyntax: the file does not parse in its format.
	ErrSyntax = errors.New("does not parse")
	// ErrFormat: the file's name says no format this package reads.
	ErrFormat = errors.New("not a known config format")
	// ErrChanged: a URL to rewrite no longer holds the value it was read with.
	ErrChanged = errors.New("changed since it was read")
	// ErrNotEditable: a URL is written in a way that cannot be rewritten in
	// place (a YAML block scalar, a value split over lines).
	ErrNotEditable = errors.New("cannot be rewritten in place")
)

// Format is a config file's syntax.
type Format string

// The formats.
const (
	JSON Format = "json" // comments and trailing commas allowed
	TOML Format = "toml"
	YAML Format = "yaml"
)

// FormatOf tells a file's format by its name.
func FormatOf(name string) (Format, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return JSON, nil
	case ".toml":
		return TOML, nil
	case ".yml", ".yaml":
		return YAML, nil
	}
	return "", fmt.Errorf("%s: %w (want .json, .toml, .yml or .yaml)", name, ErrFormat)
}

// Server is one MCP server entry of a host's config file.
type Server struct {
	Name      string
	Transport host.Transport // "" when the entry says nothing the layout knows
	// URL is the server's URL as the file has it, decoded ("" for stdio).
	URL string
	// Path is where URL is in the file: keys, and list positions as
	// numbers (["mcpServers", "mem", "url"]).
	Path []string
	// Literal is URL's bytes as written, quotes included; "" when it
	// cannot be rewritten in place (Editable false).
	Literal  string
	Editable bool
	// Headers: the entry sends headers of its own (they stay in the host's
	// file when it is adopted, and pass through the proxy).
	Headers bool
	// StaticAuth: the entry signs in with a credential of its own (an
	// Authorization header, Codex's bearer_token_env_var), which passes
	// through the proxy. OAuth: the entry has an oauth block (Claude Code,
	// Gemini CLI): the host signs in with tokens bound to the server's URL.
	StaticAuth, OAuth bool
	// Line is the line of URL's literal in the file (1-based); 0 when the
	// entry has no URL or its place is not known.
	Line int
	// Twice holds the lines of every entry of this name in this table, when
	// there is more than one: the host uses one, which is its parser's
	// business, and nothing can tell which the user means.
	Twice []int

	entry      []string // the entry's own path
	start, end int
}

// Proxyable reports whether the proxy can stand in front of the server
// (Unproxyable says why not).
func (s Server) Proxyable() bool { return s.Unproxyable() == "" }

// Unproxyable says why the proxy cannot stand in front of the server, ""
// when it can: Streamable HTTP, directly or through a stdio bridge, at an
// http(s) URL with a host, named once in its table. (The legacy SSE
// transport keeps no Mcp-Session-Id to lose, and the proxy does not speak it.)
func (s Server) Unproxyable() string {
	switch {
	case s.Transport == host.Stdio:
		return "stdio: no HTTP session to lose"
	case s.Transport == host.SSE:
		return "legacy SSE transport, which the proxy does not speak"
	case s.URL == "":
		return "the entry names no URL the watchdog can read"
	case s.Transport != host.StreamableHTTP && s.Transport != host.Bridged:
		return "its transport is not one the watchdog knows"
	case len(s.Twice) > 1:
		return fmt.Sprintf("it is named twice in its file (lines %s): the host uses only one of them; remove the other", joinLines(s.Twice))
	}
	u, err := url.Parse(s.URL)
	switch {
	case err != nil:
		return "its URL does not parse: " + mask.URL(s.URL)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("its URL %s is not an http(s) URL", mask.URL(s.URL))
	case u.Hostname() == "":
		return fmt.Sprintf("its URL %s names no host", mask.URL(s.URL))
	}
	return ""
}

func joinLines(lines []int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	if len(parts) == 2 {
		return parts[0] + " and " + parts[1]
	}
	return strings.Join(parts, ", ")
}

// Servers reads the servers the layout l finds in data.
func Servers(f Format, data []byte, l host.Layout) ([]Server, error) {
	root, err := parse(f, data)
	if err != nil {
		return nil, err
	}
	return twice(find(root, data, l)), nil
}

// twice notes, on each entry that shares its table and name with another,
// the lines of all of them.
func twice(ss []Server) []Server {
	at := map[string][]int{}
	for i, s := range ss {
		k := strings.Join(s.entry, "\x00")
		at[k] = append(at[k], i)
	}
	for _, idx := range at {
		if len(idx) < 2 {
			continue
		}
		var lines []int
		for _, i := range idx {
			lines = append(lines, ss[i].Line)
		}
		for _, i := range idx {
			ss[i].Twice = lines
		}
	}
	return ss
}

// Projects lists the project folders the layout l's Projects table names
// in data (its keys, in file order); nil when l names no such table.
func Projects(f Format, data []byte, l host.Layout) ([]string, error) {
	if len(l.Projects) == 0 {
		return nil, nil
	}
	root, err := parse(f, data)
	if err != nil {
		return nil, err
	}
	var out []string
	tables(root, l.Projects, nil, func(tab *node, _ []string) { out = append(out, tab.keys...) })
	return out, nil
}

// utf8BOM is the byte order mark some editors put at the start of a
// UTF-8 file. The parsers are given what follows it, and every range is
// moved past it: a rewrite keeps the mark where it was.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func parse(f Format, data []byte) (*node, error) {
	skip := 0
	if bytes.HasPrefix(data, utf8BOM) {
		skip = len(utf8BOM)
	}
	var root *node
	var err error
	switch f {
	case JSON:
		root, err = parseJSON(data[skip:])
	case TOML:
		root, err = parseTOML(data[skip:])
	case YAML:
		root, err = parseYAML(data[skip:])
	default:
		return nil, fmt.Errorf("format %q: %w", f, ErrFormat)
	}
	if err == nil && skip > 0 {
		root.shift(skip)
	}
	return root, err
}

func find(root *node, data []byte, l host.Layout) []Server {
	var out []Server
	add := func(name string, e *node, at []string) {
		if s, ok := readEntry(l, name, e, at); ok {
			if s.Editable {
				s.Literal = string(data[s.start:s.end])
				s.Line = 1 + bytes.Count(data[:s.start], []byte("\n"))
			}
			out = append(out, s)
		}
	}
	for _, t := range l.Tables {
		tables(root, t, nil, func(tab *node, at []string) {
			for i, name := range tab.keys {
				add(name, tab.elems[i], path(at, name))
			}
		})
	}
	if p := l.Plugin; p.Key != "" {
		walkAll(root, nil, func(n *node, at []string) {
			if n.text(p.Key) == p.Value {
				body := n.get(p.Body)
				add(body.text(p.NameKey), body, path(at, p.Body))
			}
		})
	}
	return out
}

// tables calls fn for each object at pattern under n ("*": any key).
func tables(n *node, pattern, at []string, fn func(*node, []string)) {
	if n == nil || n.kind != object {
		return
	}
	if len(pattern) == 0 {
		fn(n, at)
		return
	}
	for i, k := range n.keys {
		if pattern[0] == "*" || pattern[0] == k {
			tables(n.elems[i], pattern[1:], path(at, k), fn)
		}
	}
}

// walkAll calls fn for every object in the tree, outermost first.
func walkAll(n *node, at []string, fn func(*node, []string)) {
	switch n.kind {
	case object:
		fn(n, at)
		for i, k := range n.keys {
			walkAll(n.elems[i], path(at, k), fn)
		}
	case list:
		for i, e := range n.elems {
			walkAll(e, path(at, strconv.Itoa(i)), fn)
		}
	}
}

// path is at with k appended, never sharing at's array.
func path(at []string, k ...string) []string {
	return append(append(make([]string, 0, len(at)+len(k)), at...), k...)
}

// readEntry reads one server entry: its URL under the first URL key it
// has, or a bridge's URL in its args, or a stdio command.
func readEntry(l host.Layout, name string, e *node, at []string) (Server, bool) {
	if e == nil || e.kind != object {
		return Server{}, false
	}
	s := Server{Name: name, Headers: e.get("headers") != nil, entry: at, StaticAuth: staticAuth(e), OAuth: oauthBlock(e)}
	typ := transportOf(e.text(l.TypeKey))
	for _, k := range l.URLKeys {
		if u := e.get(k.Key); u != nil && u.kind == text {
			s.Transport = k.Transport
			if typ != "" && typ != host.Stdio {
				s.Transport = typ
			}
			s.setURL(u, path(at, k.Key))
			return s, true
		}
	}
	if u, i := bridgedURL(e); u != nil {
		s.Transport = host.Bridged
		s.setURL(u, path(at, "args", strconv.Itoa(i)))
		return s, true
	}
	switch {
	case e.get("command") != nil:
		s.Transport = host.Stdio
	default:
		s.Transport = typ
	}
	return s, true
}

// headerKeys are the keys an entry's headers are under, across hosts
// (Codex: http_headers, and env_http_headers naming variables).
var headerKeys = []string{"headers", "http_headers", "env_http_headers"}

// staticAuth reports whether the entry sends a credential of its own.
func staticAuth(e *node) bool {
	if e.get("bearer_token_env_var") != nil {
		return true
	}
	for _, k := range headerKeys {
		if h := e.get(k); h != nil && h.kind == object {
			for _, name := range h.keys {
				if strings.EqualFold(name, "Authorization") {
					return true
				}
			}
		}
	}
	return false
}

// oauthBlock reports whether the entry configures an OAuth sign-in (an
// "oauth" object that is not turned off, or Gemini's authProviderType).
func oauthBlock(e *node) bool {
	if e.get("authProviderType") != nil {
		return true
	}
	o := e.get("oauth")
	if o == nil || o.kind != object {
		return false
	}
	en := o.get("enabled")
	return en == nil || en.kind != other || en.str != "false"
}

func (s *Server) setURL(u *node, at []string) {
	s.URL, s.Path = u.str, at
	s.Editable = u.start >= 0
	s.start, s.end = u.start, u.end
}

// transportOf reads an entry's type or transport value.
func transportOf(v string) host.Transport {
	switch strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(v)) {
	case "http", "streamablehttp":
		return host.StreamableHTTP
	case "sse":
		return host.SSE
	case "stdio":
		return host.Stdio
	}
	return ""
}

// bridgedURL finds the URL argument of an entry that runs mcp-remote: the
// first http(s) argument, and its position in args.
func bridgedURL(e *node) (*node, int) {
	args := e.get("args")
	if args == nil || args.kind != list {
		return nil, 0
	}
	bridge := strings.Contains(e.text("command"), "mcp-remote")
	for _, a := range args.elems {
		bridge = bridge || a.kind == text && strings.Contains(a.str, "mcp-remote")
	}
	if !bridge {
		return nil, 0
	}
	for i, a := range args.elems {
		if a.kind == text && (strings.HasPrefix(a.str, "http://") || strings.HasPrefix(a.str, "https://")) {
			return a, i
		}
	}
	return nil, 0
}
