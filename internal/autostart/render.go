package autostart

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/sockact"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// templateFile names each kind's template under templates/.
func templateFile(k Kind) (string, error) {
	switch k {
	case LaunchAgent:
		return "launchagent.plist.tmpl", nil
	case XDG:
		return "autostart.desktop.tmpl", nil
	case Systemd:
		return "systemd.service.tmpl", nil
	}
	return "", fmt.Errorf("render %v: %w", k, ErrUnsupported)
}

// Role is which process a startup file starts.
type Role int

const (
	// Daemon is `watchdog run`, which serves its proxies itself.
	Daemon Role = iota
	// DaemonApart is the daemon whose proxies a proxy process serves:
	// `watchdog run --proxy-process supervised` beside a supervised
	// ProxyProcess, or with the XDG entry (no supervisor)
	// `--proxy-process spawn`, which starts one itself.
	DaemonApart
	// ProxyProcess is `watchdog proxy`: the proxies alone, in a process
	// that outlives the daemon.
	ProxyProcess
)

// lead is the command line's words after the binary, before Args.
func (r Role) lead(k Kind) []string {
	switch {
	case r == ProxyProcess:
		return []string{"proxy"}
	case r == DaemonApart && k == XDG:
		return []string{"run", "--proxy-process", "spawn"}
	case r == DaemonApart:
		return []string{"run", "--proxy-process", "supervised"}
	}
	return []string{"run"}
}

// Spec is what a startup file says: the binary, the flags after `run`
// (or `proxy`), and the sockets the supervisor holds for the process.
type Spec struct {
	Exe string
	// Args follow the command (--config FILE, --state-dir DIR).
	Args []string
	// Role is the process it starts. Zero: the daemon serving its proxies.
	Role Role
	// Listen is every proxy_listen to hold a socket for; Control the
	// control socket's path ("" none). Only systemd's socket unit and the
	// LaunchAgent hold sockets; the XDG entry cannot.
	Listen  []string
	Control string
}

// Argv is the command line a startup file of kind k says for s: the
// binary, the command's words, then Args. The XDG entry's Exec is this,
// quoted, and Start runs it as is where no supervisor is set up.
func (s Spec) Argv(k Kind) []string {
	return append(append([]string{s.Exe}, s.Role.lead(k)...), s.Args...)
}

// holds says whether the spec has any socket to hold.
func (s Spec) holds() bool { return len(s.Listen) > 0 || s.Control != "" }

// Render is the startup file of kind k for the binary exe with no flags
// and no sockets. Packaging uses it (the .deb's systemd unit).
func Render(k Kind, exe string) ([]byte, error) { return RenderSpec(k, Spec{Exe: exe}) }

// RenderSpec is the startup file of kind k for s, exactly as Enable
// writes it: the systemd service, the LaunchAgent (with a Sockets entry
// per socket) or the XDG entry.
func RenderSpec(k Kind, s Spec) ([]byte, error) {
	name, err := templateFile(k)
	if err != nil {
		return nil, err
	}
	for _, a := range append([]string{s.Exe}, s.Args...) {
		if a == "" || !utf8.ValidString(a) || strings.ContainsFunc(a, isControl) {
			return nil, fmt.Errorf("%q: %w", a, ErrBadPath)
		}
	}
	if k == Systemd && strings.ContainsAny(s.Exe, systemdUnsafe) {
		return nil, fmt.Errorf("%q: systemd refuses quotes and backslashes in an executable path: %w", s.Exe, ErrBadPath)
	}
	if k == XDG {
		s.Listen, s.Control = nil, "" // nothing holds them
	}
	return execute(name, s)
}

// RenderSocket is the systemd socket unit that holds s's sockets: one
// ListenStream per proxy_listen and one for the control socket.
func RenderSocket(s Spec) ([]byte, error) {
	if !s.holds() {
		return nil, fmt.Errorf("render the socket unit: %w", ErrNoSockets)
	}
	for _, l := range s.Listen {
		if _, _, err := splitListen(l); err != nil {
			return nil, err
		}
	}
	if s.Control != "" && (!filepath.IsAbs(s.Control) || strings.ContainsFunc(s.Control, isControl) || !utf8.ValidString(s.Control)) {
		return nil, fmt.Errorf("control socket %q: %w", s.Control, ErrBadPath)
	}
	return execute("systemd.socket.tmpl", s)
}

func execute(name string, s Spec) ([]byte, error) {
	funcs := template.FuncMap{"xml": xmlText, "desktopExec": desktopExec, "systemdExec": systemdExec, "systemdArg": systemdArg,
		"systemdListen": systemdListen, "systemdPath": systemdPath, "proxyName": sockact.ProxyName,
		"listenHost": listenHost, "listenPort": listenPort, "listenFamily": listenFamily}
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").ParseFS(templateFS, "templates/"+name)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	data := map[string]any{"Exe": s.Exe, "Args": s.Args, "Label": BundleID, "Listen": s.Listen, "Control": s.Control,
		"ControlName": sockact.ControlName, "Sockets": s.holds(), "Lead": s.Role.lead(kindOf(name)), "Argv": s.Argv(kindOf(name)), "Proxy": s.Role == ProxyProcess,
		"Apart": s.Role == DaemonApart, "SocketUnit": SocketUnit, "What": "MCP Session Watchdog", "DaemonUnit": UnitName}
	if s.Role == ProxyProcess {
		data["Label"], data["SocketUnit"], data["What"] = ProxyLabel, ProxySocketUnit, "MCP Session Watchdog's proxy process"
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// kindOf is the kind a template is of.
func kindOf(template string) Kind {
	switch {
	case strings.HasSuffix(template, ".plist.tmpl"):
		return LaunchAgent
	case strings.HasSuffix(template, ".desktop.tmpl"):
		return XDG
	}
	return Systemd
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func xmlText(s string) (string, error) {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return "", err
	}
	return b.String(), nil
}

// desktopReserved are the characters that force quoting in an Exec key
// (Desktop Entry Specification, "The Exec key").
const desktopReserved = " \t\n\"'\\><~|&;$*?#()`"

// desktopExec quotes one Exec argument: quoted if it needs to be, with
// ", `, $ and \ escaped inside quotes; % doubled; and then the key value's
// own escaping (\ as \\). Any Unicode space forces quotes too: parsers
// that trim the value with a Unicode-aware trim (ours, strings.TrimSpace)
// would otherwise drop a leading one from the path.
func desktopExec(arg string) string {
	q := arg
	if strings.ContainsAny(arg, desktopReserved) || strings.ContainsFunc(arg, unicode.IsSpace) {
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range arg {
			if strings.ContainsRune("\"`$\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		q = b.String()
	}
	q = strings.ReplaceAll(q, "%", "%%")
	return strings.ReplaceAll(q, `\`, `\\`)
}

// systemdUnsafe are the characters systemd rejects in an executable path
// ("Executable name contains special characters").
const systemdUnsafe = "\"'\\"

// systemdExec quotes the ExecStart executable: in double quotes (spaces),
// % doubled (specifiers). $ stays: the executable is not variable-expanded.
func systemdExec(exe string) string {
	return `"` + strings.ReplaceAll(exe, "%", "%%") + `"`
}

// systemdArg quotes one ExecStart argument: in double quotes, with C
// escapes for backslash and quote, % doubled (specifiers) and $ doubled
// (arguments are variable-expanded).
func systemdArg(a string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$")
	return `"` + r.Replace(a) + `"`
}

// systemdPath is a path in a socket unit: % doubled (specifiers).
func systemdPath(p string) string { return strings.ReplaceAll(p, "%", "%%") }

// splitListen reads a proxy_listen as the address a socket binds:
// "localhost" is 127.0.0.1 (what the daemon binds first), an IPv4-mapped
// address its IPv4 one, the port a plain number.
func splitListen(l string) (netip.Addr, uint16, error) {
	host, portText, err := net.SplitHostPort(l)
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("proxy_listen %q: %w", l, ErrBadListen)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return netip.Addr{}, 0, fmt.Errorf("proxy_listen %q: bad port: %w", l, ErrBadListen)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return netip.Addr{}, 0, fmt.Errorf("proxy_listen %q: not a loopback address: %w", l, ErrBadListen)
	}
	return ip.Unmap().WithZone(""), uint16(port), nil
}

// systemdListen is a proxy_listen as ListenStream takes it.
func systemdListen(l string) string {
	ip, port, _ := splitListen(l) // checked by RenderSocket
	return netip.AddrPortFrom(ip, port).String()
}

func listenHost(l string) string {
	ip, _, _ := splitListen(l)
	return ip.String()
}

func listenPort(l string) string {
	_, port, _ := splitListen(l)
	return strconv.Itoa(int(port))
}

func listenFamily(l string) string {
	if ip, _, _ := splitListen(l); ip.Is6() {
		return "IPv6"
	}
	return "IPv4"
}
