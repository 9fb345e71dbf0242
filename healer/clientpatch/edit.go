package clientpatch

import (
	"embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// errPayload: an embedded payload is missing or unusable (a build bug,
// not the file's fault).
var errPayload = errors.New("clientpatch: payload")

// Version is the patch version written into every marker. v2 added the
// "retry" part (a tool call that meets a lost session is sent once more on
// the new session); v3 made each feature stand alone (apply --force puts in
// what fits on a build the patch does not know) and reads SDK 2's errors;
// v4 sends a tool call made while its session is being replaced (after the
// watchdog's trigger, during the reconnect backoff) on the new session,
// where v3 sent it on the closed one and it failed "Not connected".
// Files of older versions are recognised, reported and upgraded.
const Version = "v4"

// Older patch versions: v1 had no retry; v2 needed every anchor; v3 sent a
// call made during a reconnect on the closed generation.
const (
	versionV1 = "v1"
	versionV2 = "v2"
	versionV3 = "v3"
)

// The current payloads, and the older versions' kept byte for byte so that
// their files can be told from edited ones.
//
//go:embed payload/*.js payload/v1/*.js payload/v2/*.js payload/v3/*.js
var payloadFS embed.FS

// knownVersion: a patch version this engine can build (and so recognise).
func knownVersion(v string) bool {
	return v == Version || v == versionV1 || v == versionV2 || v == versionV3
}

// payloadDir is where a version's payload files are embedded.
func payloadDir(version string) string {
	if version == Version {
		return "payload/"
	}
	return "payload/" + version + "/"
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
		return nil, fmt.Errorf("%w %s: %w", errPayload, name, err)
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if strings.Contains(s, markerTag) {
		return nil, fmt.Errorf("%w %s contains %q, which would break revert", errPayload, name, markerTag)
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
	out, _, err := buildPlan(orig, version)
	return out, err
}

// buildPlan builds orig's patched form and says which features went in.
// It fails (ErrAnchorsMissing) when the core fix cannot go in, or, for a
// strict older version, when any block cannot.
func buildPlan(orig []byte, version string) ([]byte, plan, error) {
	lines := strings.Split(string(orig), "\n")
	if hasMarkers(lines) {
		return nil, plan{}, fmt.Errorf("clientpatch: the file already carries %s markers", markerTag)
	}
	p, err := planFor(lines, version)
	if err != nil {
		return nil, p, err
	}
	out := make([]string, 0, len(lines)+64)
	for i, l := range lines {
		out = append(out, p.at[i]...)
		out = append(out, l)
	}
	out = append(out, p.at[len(lines)]...)
	return []byte(strings.Join(out, "\n")), p, nil
}

// plan is where a version's blocks go in one file.
type plan struct {
	in     []string         // features that go in, in layout order
	missed []missedFeature  // features that cannot, in layout order
	at     map[int][]string // rendered blocks, by the line they go before
}

// missedFeature is a feature that cannot go in, and why.
type missedFeature struct {
	name string
	err  error // wraps ErrAnchorsMissing; names the anchor or name missed
}

func (p plan) has(name string) bool { return slices.Contains(p.in, name) }

// planFor places every feature of version that fits in lines.
func planFor(lines []string, version string) (plan, error) {
	fs, strict := layout(version)
	p := plan{at: map[int][]string{}}
	words := wordsOf(lines)
	crlf := len(lines) > 0 && strings.HasSuffix(lines[0], "\r")
	for _, f := range fs {
		blocks, err := placeFeature(f, lines, words, crlf, version, p)
		if err != nil {
			if errors.Is(err, errPayload) {
				return p, err
			}
			p.missed = append(p.missed, missedFeature{f.name, err})
			continue
		}
		for at, b := range blocks {
			p.at[at] = append(p.at[at], b...)
		}
		p.in = append(p.in, f.name)
	}
	if len(p.missed) > 0 && (strict || p.missed[0].name == FeatureCore) {
		return p, p.refusal(strict)
	}
	return p, nil
}

// placeFeature renders f's blocks by the line each goes before, or says
// why f cannot go in.
func placeFeature(f feature, lines []string, words map[string]bool, crlf bool, version string, p plan) (map[int][]string, error) {
	if f.after != "" && !p.has(f.after) {
		return nil, fmt.Errorf("%w: it needs the %s part, which could not go in", ErrAnchorsMissing, f.after)
	}
	if err := checkNeeds(f, lines, words); err != nil {
		return nil, err
	}
	out := map[int][]string{}
	for _, b := range f.blocks {
		at, anchor, err := b.find(lines)
		if err != nil {
			return nil, err
		}
		anchorLine := ""
		if anchor >= 0 {
			anchorLine = lines[anchor]
		} else if crlf {
			anchorLine = "\r"
		}
		rendered, err := block(b.name, version, anchorLine)
		if err != nil {
			return nil, err
		}
		out[at] = append(out[at], rendered...)
	}
	return out, nil
}

// refusal is the error of a plan that cannot be applied: every miss for a
// strict version, the core fix's otherwise.
func (p plan) refusal(strict bool) error {
	missed := p.missed
	if !strict {
		missed = missed[:1]
	}
	msgs := make([]string, len(missed))
	for i, m := range missed {
		msgs[i] = strings.TrimPrefix(m.err.Error(), ErrAnchorsMissing.Error()+": ")
	}
	if !strict {
		return fmt.Errorf("%w: the core fix cannot go in: %s", ErrAnchorsMissing, msgs[0])
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
