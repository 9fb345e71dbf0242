package clientpatch

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

// Version is the patch version written into every marker. v2 added the
// "retry" part (a tool call that meets a lost session is sent once more on
// the new session); a v1 file is recognised, reported and upgraded.
const Version = "v2"

// versionV1 is the first patch version: no retry part.
const versionV1 = "v1"

// The current payloads, and v1's kept byte for byte so that a v1 file can
// be told from an edited one.
//
//go:embed payload/*.js payload/v1/*.js
var payloadFS embed.FS

// part is one inserted block: where it goes and what it holds.
type part struct {
	name string
	// find returns the index of the line the block goes before and of
	// the anchor line (whose indentation the block takes), or an error
	// naming the anchor that is missing or not unique.
	find func(lines []string) (at, anchor int, err error)
}

// parts lists the blocks of a patch version; the names are the marker
// names and the payload file names.
func parts(version string) []part {
	p := []part{
		{"module", beforeLine("function startConnection(", strings.HasPrefix)},
		{"onerror", beforeLine("generation.onclose = () => {", equal)},
		{"register", afterLine("let settling = connectGeneration(true);")},
		{"dispose", afterDisposeFlag},
	}
	if version == versionV1 {
		return p
	}
	return append(p, part{"retry", intoBody("function callToolUncached(client, rawName, args, exec, opts) {")})
}

// intoBody: the block becomes the first statement of the function whose
// header is want (the block uses its parameter names), indented like the
// body's first line.
func intoBody(want string) func([]string) (int, int, error) {
	return func(lines []string) (int, int, error) {
		i, err := onlyLine(lines, want, equal)
		if err != nil {
			return -1, -1, err
		}
		if i+1 >= len(lines) {
			return -1, -1, fmt.Errorf("%w: %q has no body", ErrAnchorsMissing, want)
		}
		return i + 1, i + 1, nil
	}
}

// knownVersion: a patch version this engine can build (and so recognise).
func knownVersion(v string) bool { return v == Version || v == versionV1 }

// payloadDir is where a version's payload files are embedded.
func payloadDir(version string) string {
	if version == Version {
		return "payload/"
	}
	return "payload/" + version + "/"
}

func equal(a, b string) bool { return a == b }

// onlyLine returns the index of the one trimmed line that matches.
func onlyLine(lines []string, want string, match func(s, want string) bool) (int, error) {
	at, n := -1, 0
	for i, l := range lines {
		if match(strings.TrimSpace(l), want) {
			at, n = i, n+1
		}
	}
	if n != 1 {
		return -1, fmt.Errorf("%w: %q found %d times, want once", ErrAnchorsMissing, want, n)
	}
	return at, nil
}

func beforeLine(want string, match func(s, want string) bool) func([]string) (int, int, error) {
	return func(lines []string) (int, int, error) {
		i, err := onlyLine(lines, want, match)
		return i, i, err
	}
}

func afterLine(want string) func([]string) (int, int, error) {
	return func(lines []string) (int, int, error) {
		i, err := onlyLine(lines, want, equal)
		return i + 1, i, err
	}
}

// afterDisposeFlag: `disposed = true;` as the first statement of dispose().
func afterDisposeFlag(lines []string) (int, int, error) {
	i, err := onlyLine(lines, "async dispose() {", equal)
	if err != nil {
		return -1, -1, err
	}
	if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "disposed = true;" {
		return -1, -1, fmt.Errorf("%w: \"async dispose() {\" does not begin with \"disposed = true;\"", ErrAnchorsMissing)
	}
	return i + 2, i + 1, nil
}

func beginMarker(name, version string) string {
	return "/* mcp-watchdog:begin " + name + " " + version + " */"
}
func endMarker(name, version string) string {
	return "/* mcp-watchdog:end " + name + " " + version + " */"
}

// payloadLines returns a payload's lines without the final newline.
func payloadLines(name, version string) ([]string, error) {
	b, err := payloadFS.ReadFile(payloadDir(version) + name + ".js")
	if err != nil {
		return nil, fmt.Errorf("clientpatch: payload %s: %w", name, err)
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if strings.Contains(s, markerTag) {
		return nil, fmt.Errorf("clientpatch: payload %s contains %q, which would break revert", name, markerTag)
	}
	return strings.Split(s, "\n"), nil
}

// block renders one part's marked block, indented like the anchor line.
func block(name, version, anchor string) ([]string, error) {
	body, err := payloadLines(name, version)
	if err != nil {
		return nil, err
	}
	indent := anchor[:len(anchor)-len(strings.TrimLeft(anchor, " \t"))]
	eol := ""
	if strings.HasSuffix(anchor, "\r") {
		eol = "\r" // keep a CRLF file CRLF
	}
	out := make([]string, 0, len(body)+2)
	out = append(out, indent+beginMarker(name, version)+eol)
	for _, l := range body {
		if l == "" {
			out = append(out, eol)
			continue
		}
		out = append(out, indent+l+eol)
	}
	return append(out, indent+endMarker(name, version)+eol), nil
}

// build returns the patched form (current version) of an unpatched file.
// It changes nothing but inserting whole lines, so strip(build(x)) == x.
func build(orig []byte) ([]byte, error) { return buildVersion(orig, Version) }

// buildVersion is build for one patch version.
func buildVersion(orig []byte, version string) ([]byte, error) {
	lines := strings.Split(string(orig), "\n")
	if hasMarkers(lines) {
		return nil, fmt.Errorf("clientpatch: the file already carries %s markers", markerTag)
	}
	at := make(map[int][]string, 5)
	var missing []error
	for _, p := range parts(version) {
		i, anchor, err := p.find(lines)
		if err != nil {
			missing = append(missing, err)
			continue
		}
		if at[i] != nil {
			return nil, fmt.Errorf("%w: two blocks at line %d", ErrAnchorsMissing, i+1)
		}
		if at[i], err = block(p.name, version, lines[anchor]); err != nil {
			return nil, err
		}
	}
	if len(missing) > 0 {
		return nil, joinAnchorErrs(missing)
	}
	out := make([]string, 0, len(lines)+64)
	for i, l := range lines {
		out = append(out, at[i]...)
		out = append(out, l)
	}
	out = append(out, at[len(lines)]...)
	return []byte(strings.Join(out, "\n")), nil
}

func joinAnchorErrs(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = strings.TrimPrefix(e.Error(), ErrAnchorsMissing.Error()+": ")
	}
	return fmt.Errorf("%w: %s", ErrAnchorsMissing, strings.Join(msgs, "; "))
}

// markerTag is in every marker line, and in no payload line.
const markerTag = "mcp-watchdog:"

var markerRE = regexp.MustCompile(`^/\* mcp-watchdog:(begin|end) ([a-z]+) (v[0-9]+) \*/$`)

func hasMarkers(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, markerTag) {
			return true
		}
	}
	return false
}

// foundPart is one marked block found in a file.
type foundPart struct{ name, version string }

// strip removes every marked block. ok is false when the markers do not
// pair up (a begin without its end, nesting, a damaged marker line).
func strip(content []byte) (rest []byte, found []foundPart, ok bool) {
	lines := strings.Split(string(content), "\n")
	out := make([]string, 0, len(lines))
	var open *foundPart
	for _, l := range lines {
		if !strings.Contains(l, markerTag) {
			if open == nil {
				out = append(out, l)
			}
			continue
		}
		m := markerRE.FindStringSubmatch(strings.TrimSpace(l))
		switch {
		case m == nil:
			return nil, found, false
		case m[1] == "begin" && open == nil:
			open = &foundPart{m[2], m[3]}
		case m[1] == "end" && open != nil && open.name == m[2] && open.version == m[3]:
			found = append(found, *open)
			open = nil
		default:
			return nil, found, false
		}
	}
	if open != nil {
		return nil, found, false
	}
	return []byte(strings.Join(out, "\n")), found, true
}
