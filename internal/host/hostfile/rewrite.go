package hostfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Edit is one value to rewrite: the server whose URL (or stdio command)
// is at Path, which must hold From now, gets To. Literal, when set, is
// written as is instead of a literal made from To: release puts back the
// bytes adopt took out.
type Edit struct {
	Path     []string
	From, To string
	Literal  string
}

// Rewrite returns data with each edit's URL or command replaced and every
// other byte as it was. It changes nothing and fails with ErrChanged when a
// value does not hold its From (or is gone), and with ErrNotEditable when
// it cannot be rewritten in place. The result is parsed again: the servers
// must read back as before but for the edited values.
func Rewrite(f Format, data []byte, l host.Layout, edits []Edit) ([]byte, error) {
	before, err := Servers(f, data, l)
	if err != nil {
		return nil, err
	}
	type splice struct {
		start, end int
		lit        string
	}
	var splices []splice
	want := slices.Clone(before)
	for _, e := range edits {
		i := slices.IndexFunc(before, func(s Server) bool { _, ok := s.slotAt(e.Path); return ok })
		if i < 0 {
			return nil, fmt.Errorf("%s: %w: no server's URL or command is there now", strings.Join(e.Path, "."), ErrChanged)
		}
		sl, _ := before[i].slotAt(e.Path)
		switch {
		case sl.value != e.From:
			return nil, fmt.Errorf("%s: %w", strings.Join(e.Path, "."), ErrChanged)
		case !sl.editable:
			return nil, fmt.Errorf("%s: %w", strings.Join(e.Path, "."), ErrNotEditable)
		}
		lit := e.Literal
		if lit == "" {
			lit = literal(f, sl.literal, e.To)
		}
		splices = append(splices, splice{sl.start, sl.end, lit})
		if sl.command {
			want[i].Command = e.To
		} else {
			want[i].URL = e.To
		}
	}
	sort.Slice(splices, func(a, b int) bool { return splices[a].start > splices[b].start })
	out := slices.Clone(data)
	for i, s := range splices {
		if i > 0 && s.end > splices[i-1].start {
			return nil, fmt.Errorf("%w: two edits of one value", ErrChanged)
		}
		out = slices.Concat(out[:s.start], []byte(s.lit), out[s.end:])
	}
	return out, checkRewrite(f, out, l, want)
}

// checkRewrite parses the rewritten file and compares its servers with
// what the edits should have made of them.
func checkRewrite(f Format, out []byte, l host.Layout, want []Server) error {
	after, err := Servers(f, out, l)
	if err != nil {
		return fmt.Errorf("the rewritten file would not parse (nothing was written): %w", err)
	}
	same := len(after) == len(want)
	for i := 0; same && i < len(want); i++ {
		a, w := after[i], want[i]
		same = a.Name == w.Name && a.URL == w.URL && a.Transport == w.Transport && slices.Equal(a.Path, w.Path) &&
			a.Command == w.Command && slices.Equal(a.CommandPath, w.CommandPath)
	}
	if !same {
		return fmt.Errorf("%w: the rewritten file reads differently than intended (nothing was written)", ErrNotEditable)
	}
	return nil
}

// literal writes s as a string in format f, in the quoting style of old
// (the literal it replaces) where that can hold s.
func literal(f Format, old, s string) string {
	switch f {
	case TOML:
		if strings.HasPrefix(old, "'") && !strings.HasPrefix(old, "'''") && !strings.ContainsAny(s, "'\n\r") {
			return "'" + s + "'"
		}
		return jsonString(s) // a JSON string of printable text is a TOML basic string
	case YAML:
		switch {
		case strings.HasPrefix(old, "\""):
			return jsonString(s)
		case strings.HasPrefix(old, "'") || !readsAs([]byte(s), s):
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		return s
	}
	return jsonString(s)
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// slot is one rewritable value of a server: its URL or its command.
type slot struct {
	value, literal string
	editable       bool
	start, end     int
	command        bool
}

// slotAt is the server's value at path: its URL's or its command's.
func (s Server) slotAt(p []string) (slot, bool) {
	switch {
	case len(p) == 0:
		return slot{}, false
	case slices.Equal(s.Path, p):
		return slot{s.URL, s.Literal, s.Editable, s.start, s.end, false}, true
	case slices.Equal(s.CommandPath, p):
		return slot{s.Command, s.CommandLiteral, s.CommandEditable, s.cstart, s.cend, true}, true
	}
	return slot{}, false
}

// ValueAt is the server whose URL or command is at path in servers, and
// that value; ok is false when no server's is there.
func ValueAt(servers []Server, p []string) (s Server, value string, ok bool) {
	for _, s := range servers {
		if sl, ok := s.slotAt(p); ok {
			return s, sl.value, true
		}
	}
	return Server{}, "", false
}
