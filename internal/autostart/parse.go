package autostart

import (
	"bufio"
	"bytes"
	"net"
	"slices"
	"strings"

	"howett.net/plist"
)

// ExeOf is the binary a startup file of kind k starts, or "" when it names
// none: the first ProgramArguments string of a plist, the first word of
// Exec= or ExecStart=. It reads back what Render writes, and plain
// hand-written files.
func ExeOf(k Kind, data []byte) string {
	switch k {
	case LaunchAgent:
		return plistProgram(data)
	case XDG:
		v, ok := keyValue(data, "Desktop Entry", "Exec")
		if !ok {
			return ""
		}
		return strings.ReplaceAll(firstArg(unescapeDesktopValue(v)), "%%", "%")
	case Systemd:
		v, ok := keyValue(data, "Service", "ExecStart")
		if !ok {
			return ""
		}
		v = strings.TrimLeft(v, "-@:+!|")
		return strings.ReplaceAll(firstArg(v), "%%", "%")
	}
	return ""
}

// keyValue finds key= in [section] of an INI-like file (desktop entry,
// systemd unit): its first value.
func keyValue(data []byte, section, key string) (string, bool) {
	vs := keyValues(data, section, key)
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// keyValues is every value of key= in [section], in order.
func keyValues(data []byte, section, key string) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "["+section+"]"
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if in && ok && strings.TrimSpace(k) == key {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// unescapeDesktopValue undoes a desktop entry string's escapes.
func unescapeDesktopValue(v string) string {
	return strings.NewReplacer(`\\`, `\`, `\s`, " ", `\n`, "\n", `\t`, "\t", `\r`, "\r").Replace(v)
}

// firstArg is the first word of a command line: a double-quoted string with
// backslash escapes, or everything up to the first blank.
func firstArg(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, `"`) {
		if i := strings.IndexAny(s, " \t"); i >= 0 {
			return s[:i]
		}
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return "" // unterminated quote
}

// agent is the part of a launchd plist the watchdog reads back.
type agent struct {
	Program          string         `plist:"Program"`
	ProgramArguments []string       `plist:"ProgramArguments"`
	KeepAlive        any            `plist:"KeepAlive"` // true, or a dict of conditions
	Sockets          map[string]any `plist:"Sockets"`   // a dict, or an array of dicts, per name
}

// agentOf parses a LaunchAgent (howett.net/plist: XML, binary or text);
// ok is false when it does not parse. A parser fault on a file a user
// edited is a file that does not parse, not a crash.
func agentOf(data []byte) (a agent, ok bool) {
	defer func() {
		if recover() != nil {
			a, ok = agent{}, false
		}
	}()
	_, err := plist.Unmarshal(data, &a)
	return a, err == nil
}

// plistProgram is ProgramArguments[0], or Program, of a launchd plist.
func plistProgram(data []byte) string {
	a, ok := agentOf(data)
	switch {
	case !ok:
		return ""
	case len(a.ProgramArguments) > 0:
		return a.ProgramArguments[0]
	}
	return a.Program
}

// restartsAlways: the file restarts the daemon after every exit.
func restartsAlways(k Kind, data []byte) bool {
	switch k {
	case Systemd:
		v, _ := keyValue(data, "Service", "Restart")
		return v == "always"
	case LaunchAgent:
		a, ok := agentOf(data)
		keep, isBool := a.KeepAlive.(bool)
		return ok && isBool && keep
	}
	return false
}

// SocketsOf lists the sockets a startup file of kind k holds, as it
// names them: a socket unit's ListenStream values (host:port or a path),
// a LaunchAgent's Sockets entries (SockNodeName:SockServiceName or
// SockPathName), sorted. Other kinds hold none.
func SocketsOf(k Kind, data []byte) []string {
	var out []string
	switch k {
	case Systemd:
		for _, v := range keyValues(data, "Socket", "ListenStream") {
			out = append(out, strings.ReplaceAll(v, "%%", "%"))
		}
	case LaunchAgent:
		a, _ := agentOf(data)
		for _, v := range a.Sockets {
			out = append(out, sockEntries(v)...)
		}
	}
	slices.Sort(out)
	return out
}

// sockEntries reads one Sockets value: a dict, or an array of them.
func sockEntries(v any) []string {
	var out []string
	switch e := v.(type) {
	case []any:
		for _, x := range e {
			out = append(out, sockEntries(x)...)
		}
	case map[string]any:
		if p, ok := e["SockPathName"].(string); ok {
			return []string{p}
		}
		node, _ := e["SockNodeName"].(string)
		service, _ := e["SockServiceName"].(string)
		out = append(out, net.JoinHostPort(node, service))
	}
	return out
}

// programArgs are a LaunchAgent's arguments after `run` (and its
// --proxy-process VALUE); ok is false when it starts no `run`.
func programArgs(data []byte) ([]string, bool) {
	a, ok := agentOf(data)
	if !ok || len(a.ProgramArguments) < 2 || a.ProgramArguments[1] != "run" {
		return nil, false
	}
	args := a.ProgramArguments[2:]
	if len(args) >= 2 && args[0] == "--proxy-process" {
		args = args[2:]
	}
	return args, true
}
