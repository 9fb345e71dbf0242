package autostart

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"strings"
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
// systemd unit).
func keyValue(data []byte, section, key string) (string, bool) {
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
			return strings.TrimSpace(v), true
		}
	}
	return "", false
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

// plistProgram is ProgramArguments[0] (or Program) of a launchd plist.
func plistProgram(data []byte) string {
	d := xml.NewDecoder(bytes.NewReader(data))
	var key, program string
	inArgs := false
	for {
		tok, err := d.Token()
		if err != nil {
			return program
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			if ee, ok := tok.(xml.EndElement); ok && ee.Name.Local == "array" {
				inArgs = false
			}
			continue
		}
		switch se.Name.Local {
		case "key":
			if d.DecodeElement(&key, &se) != nil {
				return ""
			}
			continue
		case "array":
			inArgs = key == "ProgramArguments"
		case "string":
			var s string
			if d.DecodeElement(&s, &se) != nil {
				return ""
			}
			if inArgs {
				return s
			}
			if key == "Program" {
				program = s
			}
		}
		key = ""
	}
}
