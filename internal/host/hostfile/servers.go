package hostfile

import (
	"bytes"
	"cmp"
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
	case ".json", ".jsonc":
		return JSON, nil
	case ".toml":
		return TOML, nil
	case ".yml", ".yaml":
		return YAML, nil
	}
	return "", fmt.Errorf("%s: %w (want .json, .jsonc, .toml, .yml or .yaml)", name, ErrFormat)
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
	// Authorization header, a token key of its layout such as Codex's
	// bearer_token_env_var), which passes through the proxy. OAuth: the
	// entry has an oauth block (Claude Code, Gemini CLI, opencode) or an
	// OAuth key of its layout: the host signs in with tokens bound to the
	// server's URL.
	StaticAuth, OAuth bool
	// Disabled: the entry is turned off ("disabled": true, or "enabled":
	// false): the host does not connect to it while it stays so.
	Disabled bool
	// Line is the line of URL's literal in the file (1-based), also where
	// it cannot be rewritten when the parser says it (YAML); 0 when the
	// entry has no URL or its place is not known.
	Line int
	// Twice holds the lines of every entry of this name in this table, when
	// there is more than one: the host uses one, which is its parser's
	// business, and nothing can tell which the user means.
	Twice []int
	// Command is the program a stdio entry runs, decoded ("" when the
	// entry names none under its layout's command keys), and Args its
	// arguments as the file has them (strings decoded, other values as
	// written). CommandPath, CommandLiteral, CommandEditable and
	// CommandLine are the command's place, bytes, and line, as Path,
	// Literal, Editable and Line are the URL's: for opencode's argv list
	// the path ends in its first element ("0").
	Command         string
	Args            []string
	CommandPath     []string
	CommandLiteral  string
	CommandEditable bool
	CommandLine     int

	entry        []string // the entry's own path
	group        string   // its table (or list) and name: two entries of one group are one name used twice
	start, end   int
	cstart, cend int
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
	case s.Transport == host.Builtin:
		return "it runs inside the host: no HTTP session to lose"
	case s.Transport == host.SSE:
		return "legacy SSE transport, which the proxy does not speak: move the server to Streamable HTTP, then adopt it"
	case s.URL == "":
		return "the entry names no URL the watchdog can read: give it the server's http(s) URL, then adopt it"
	case s.Transport != host.StreamableHTTP && s.Transport != host.Bridged:
		return "its transport is not one the watchdog knows: only a Streamable HTTP server can go through the proxy"
	case len(s.Twice) > 1:
		return fmt.Sprintf("it is named twice in its file (lines %s), and the host uses one of them at most: remove or rename one entry, then adopt it", joinLines(s.Twice))
	}
	u, err := url.Parse(s.URL)
	switch {
	case err != nil:
		return "its URL does not parse: " + mask.URL(s.URL) + ": give it the server's http(s) URL, then adopt it"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("its URL %s is not an http(s) URL: give it the server's http(s) URL, then adopt it", mask.URL(s.URL))
	case u.Hostname() == "":
		return fmt.Sprintf("its URL %s names no host: give it the server's http(s) URL, then adopt it", mask.URL(s.URL))
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
		at[s.group] = append(at[s.group], i)
	}
	for _, idx := range at {
		if len(idx) < 2 {
			continue
		}
		var lines []int
		for _, i := range idx {
			lines = append(lines, cmp.Or(ss[i].Line, ss[i].CommandLine))
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
	add := func(name string, e *node, at []string, group string) {
		if s, ok := readEntry(l, name, e, at); ok {
			s.group = group
			if s.Editable {
				s.Literal = string(data[s.start:s.end])
				s.Line = 1 + bytes.Count(data[:s.start], []byte("\n"))
			}
			if s.CommandEditable {
				s.CommandLiteral = string(data[s.cstart:s.cend])
				s.CommandLine = 1 + bytes.Count(data[:s.cstart], []byte("\n"))
			}
			out = append(out, s)
		}
	}
	for _, t := range l.Tables {
		tables(root, t, nil, func(tab *node, at []string) {
			for i, name := range tab.keys {
				if isTable(l, path(at, name)) {
					continue // a table of its own (opencode's mcp.servers), no entry
				}
				add(name, tab.elems[i], path(at, name), strings.Join(path(at, name), "\x00"))
			}
		})
	}
	for _, lp := range l.Lists {
		lists(root, lp, nil, func(items *node, at []string) {
			for i, e := range items.elems {
				name := e.text(l.NameKey)
				add(name, e, path(at, strconv.Itoa(i)), strings.Join(path(at, name), "\x00")+"\x00list")
			}
		})
	}
	if p := l.Plugin; p.Key != "" {
		walkAll(root, nil, func(n *node, at []string) {
			if n.text(p.Key) == p.Value {
				body := n.get(p.Body)
				add(body.text(p.NameKey), body, path(at, p.Body), strings.Join(path(at, p.Body), "\x00"))
			}
		})
	}
	return out
}

// isTable reports whether the key path at is one of the layout's tables.
func isTable(l host.Layout, at []string) bool {
	for _, t := range l.Tables {
		if len(t) != len(at) {
			continue
		}
		same := true
		for i := range t {
			same = same && (t[i] == "*" || t[i] == at[i])
		}
		if same {
			return true
		}
	}
	return false
}

// lists calls fn for each list at pattern under n ("*": any key).
func lists(n *node, pattern, at []string, fn func(*node, []string)) {
	if len(pattern) == 0 {
		return
	}
	tables(n, pattern[:len(pattern)-1], at, func(parent *node, at []string) {
		last := pattern[len(pattern)-1]
		for i, k := range parent.keys {
			if (last == "*" || last == k) && parent.elems[i].kind == list {
				fn(parent.elems[i], path(at, k))
			}
		}
	})
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
	s := Server{Name: name, entry: at, Headers: headersOf(l, e) != nil, StaticAuth: staticAuth(l, e), OAuth: oauthBlock(l, e),
		Disabled: turnedOff(e)}
	typ := transportOf(l, typeOf(l, e))
	s.readCommand(l, e, at)
	for _, k := range l.URLKeys {
		if u := e.at(k.Key); u != nil && u.kind == text {
			s.Transport = k.Transport
			if typ != "" && typ != host.Stdio && typ != host.Builtin {
				s.Transport = typ
			}
			s.setURL(u, path(at, strings.Split(k.Key, ".")...))
			return s, true
		}
	}
	if u, i := bridgedURL(e); u != nil {
		s.Transport = host.Bridged
		s.setURL(u, path(at, "args", strconv.Itoa(i)))
		return s, true
	}
	switch {
	case typ != "":
		s.Transport = typ
	case s.Command != "" || e.get("command") != nil || e.get("cmd") != nil:
		s.Transport = host.Stdio
	}
	return s, true
}

// readCommand notes the entry's command and arguments: under the first of
// the layout's command keys that holds a string (for an argv list, a list
// whose first element is one).
func (s *Server) readCommand(l host.Layout, e *node, at []string) {
	for _, k := range l.Commands {
		v, where := e.at(k.Key), path(at, strings.Split(k.Key, ".")...)
		var args []*node
		switch {
		case k.Argv && v != nil && v.kind == list && len(v.elems) > 0:
			v, args, where = v.elems[0], v.elems[1:], path(where, "0")
		case k.Argv:
			continue
		case k.Args != "":
			if a := e.at(k.Args); a != nil && a.kind == list {
				args = a.elems
			}
		}
		if v == nil || v.kind != text {
			continue
		}
		s.Command, s.CommandPath, s.CommandEditable, s.CommandLine = v.str, where, v.start >= 0, v.line
		s.cstart, s.cend = v.start, v.end
		for _, a := range args {
			s.Args = append(s.Args, a.str)
		}
		return
	}
}

// typeOf is the entry's transport word: under the first of the layout's
// type keys it has.
func typeOf(l host.Layout, e *node) string {
	for _, k := range l.TypeKeys {
		if v := e.at(k); v != nil && v.kind == text {
			return v.str
		}
	}
	return ""
}

// headersOf is the entry's headers object, nil when it has none.
func headersOf(l host.Layout, e *node) *node {
	for _, k := range l.Headers() {
		if h := e.at(k); h != nil && h.kind == object {
			return h
		}
	}
	return nil
}

// staticAuth reports whether the entry sends a credential of its own: a
// token key of its layout, or an Authorization header.
func staticAuth(l host.Layout, e *node) bool {
	for _, k := range l.TokenKeys {
		if e.at(k) != nil {
			return true
		}
	}
	for _, k := range l.Headers() {
		if h := e.at(k); h != nil && h.kind == object {
			for _, name := range h.keys {
				if strings.EqualFold(name, "Authorization") {
					return true
				}
			}
		}
	}
	return false
}

// oauthBlock reports whether the entry configures an OAuth sign-in: an
// OAuth key of its layout, or an "oauth" object not turned off
// ("enabled": false; opencode's "oauth": false is no object).
func oauthBlock(l host.Layout, e *node) bool {
	for _, k := range l.OAuthKeys {
		if e.at(k) != nil {
			return true
		}
	}
	o := e.get("oauth")
	if o == nil || o.kind != object {
		return false
	}
	en := o.get("enabled")
	return en == nil || en.kind != other || en.str != "false"
}

// turnedOff reports whether the entry is turned off, in either of the
// words hosts use: "disabled": true or "enabled": false.
func turnedOff(e *node) bool {
	d, en := e.get("disabled"), e.get("enabled")
	return d != nil && d.kind == other && d.str == "true" || en != nil && en.kind == other && en.str == "false"
}

func (s *Server) setURL(u *node, at []string) {
	s.URL, s.Path, s.Line = u.str, at, u.line
	s.Editable = u.start >= 0
	s.start, s.end = u.start, u.end
}

// transportOf reads an entry's type or transport value: the layout's own
// words first, then the common ones.
func transportOf(l host.Layout, v string) host.Transport {
	key := strings.ToLower(v)
	if t, ok := l.Types[key]; ok {
		return t
	}
	switch strings.NewReplacer("-", "", "_", "").Replace(key) {
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
