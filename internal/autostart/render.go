package autostart

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"
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

// Render is the startup file of kind k for the binary exe, exactly as
// Enable writes it. Packaging uses it too (the .deb's systemd unit).
func Render(k Kind, exe string) ([]byte, error) {
	name, err := templateFile(k)
	if err != nil {
		return nil, err
	}
	if exe == "" || !utf8.ValidString(exe) || strings.ContainsFunc(exe, isControl) {
		return nil, fmt.Errorf("%q: %w", exe, ErrBadPath)
	}
	if k == Systemd && strings.ContainsAny(exe, systemdUnsafe) {
		return nil, fmt.Errorf("%q: systemd refuses quotes and backslashes in an executable path: %w", exe, ErrBadPath)
	}
	funcs := template.FuncMap{"xml": xmlText, "desktopExec": desktopExec, "systemdExec": systemdExec}
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").ParseFS(templateFS, "templates/"+name)
	if err != nil {
		return nil, fmt.Errorf("render %v: %w", k, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, map[string]string{"Exe": exe, "Label": BundleID}); err != nil {
		return nil, fmt.Errorf("render %v: %w", k, err)
	}
	return b.Bytes(), nil
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
