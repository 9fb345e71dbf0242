package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Swap is a change of one line's text adopt made in the config: release
// turns it back when the line still reads To, once.
type Swap struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Undo returns data with s turned back, and whether it was there (once).
func (s Swap) Undo(data []byte) ([]byte, bool) {
	if s.To == "" || bytes.Count(data, []byte(s.To)) != 1 {
		return data, false
	}
	return bytes.Replace(data, []byte(s.To), []byte(s.From), 1), true
}

// WatchedHosts says which hosts a config file's text watches: the name
// of each [[host]] table (or of the lone [host] table), the default host
// when it has none; and how its host tables are written.
type WatchedHosts struct {
	Names []string
	// Tables: the file has [[host]] tables; Lone: one [host] table, its
	// header line LoneHeader (as written, newline included).
	Tables, Lone bool
	LoneHeader   string
}

// Watches reports whether the config watches the host of profile p: a
// table names it (its name folded as host.Lookup folds it), or names a
// host with the same client (a renamed known host).
func (w WatchedHosts) Watches(p host.Profile) bool {
	for _, n := range w.Names {
		q := profileFor(n, "")
		if host.Fold(n) == host.Fold(p.Name) || q.ClientName != "" && q.ClientName == p.ClientName {
			return true
		}
	}
	return false
}

// ReadWatchedHosts reads the host tables of a config file's text.
func ReadWatchedHosts(data []byte) (WatchedHosts, error) {
	var w WatchedHosts
	var p unstable.Parser
	p.Reset(data)
	in := false
	named := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			if in && !named {
				w.Names = append(w.Names, host.Default().Name) // a table without a name is the default host's
			}
			in = keyString(e.Key()) == "host"
			named = false
			if !in {
				continue
			}
			if e.Kind == unstable.ArrayTable {
				w.Tables = true
				continue
			}
			w.Lone = true
			at := keyOffset(&p, e)
			start := bytes.LastIndexByte(data[:at], '\n') + 1
			w.LoneHeader = string(data[start:lineAfter(data, at)])
		case unstable.KeyValue:
			if in && keyString(e.Key()) == "name" {
				w.Names, named = append(w.Names, string(e.Value().Data)), true
			}
		}
	}
	if err := p.Error(); err != nil {
		return WatchedHosts{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if in && !named {
		w.Names = append(w.Names, host.Default().Name)
	}
	if !w.Tables && !w.Lone {
		w.Names = []string{host.Default().Name} // no table: the default host
	}
	return w, nil
}

// HostAdded is what AddHost put into a config to watch a host: its table,
// and, the first time, what kept the hosts the config watched before (the
// default host's table where the file had none, or its lone [host] table
// turned into [[host]]).
type HostAdded struct {
	Table   Added `json:"table"`
	Default Added `json:"default,omitempty"`
	Lone    *Swap `json:"lone,omitempty"`
}

// AddHost makes the config watch the host named name too: a [[host]]
// table naming it (its profile gives the rest), why saying for whom in
// the comment beside it. A config that watched no host in a table watched
// the default one: its table is written first, so that it still does. A
// lone [host] table becomes the first [[host]] table, as TOML wants.
func AddHost(data []byte, name, why string) ([]byte, HostAdded, error) {
	w, err := ReadWatchedHosts(data)
	if err != nil {
		return nil, HostAdded{}, err
	}
	var added HostAdded
	out := data
	switch {
	case w.Lone:
		to := strings.Replace(w.LoneHeader, "[host]", "[[host]]", 1)
		if to == w.LoneHeader || bytes.Count(out, []byte(w.LoneHeader)) != 1 {
			return nil, HostAdded{}, fmt.Errorf("%w: its [host] table is written in a way adopt cannot turn into [[host]] (write it as [[host]])", ErrInvalid)
		}
		out = bytes.Replace(out, []byte(w.LoneHeader), []byte(to), 1)
		added.Lone = &Swap{From: w.LoneHeader, To: to}
	case !w.Tables:
		out, added.Default = appendText(out, fmt.Sprintf("\n[[host]] %s (the host watched before)\nname = %s\n", AddedMark, strconv.Quote(host.Default().Name)))
	}
	out, added.Table = appendText(out, fmt.Sprintf("\n[[host]] %s (%s)\nname = %s\n", AddedMark, oneLine(why), strconv.Quote(name)))
	return out, added, nil
}

// appendText appends text on a line of its own.
func appendText(data []byte, text string) ([]byte, Added) {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		text = "\n" + text
	}
	return concat(data, text, nil), Added{Text: text}
}

// Remove takes out what AddHost added for one host; with last (no other
// host adopt added remains), also what kept the hosts watched before.
// ok is false when some of it was edited since and is left there.
func (a HostAdded) Remove(data []byte, last bool) ([]byte, bool) {
	out, ok := a.Table.Remove(data)
	if !last {
		return out, ok
	}
	if a.Default.Text != "" {
		var okD bool
		out, okD = a.Default.Remove(out)
		ok = ok && okD
	}
	if a.Lone != nil {
		var okL bool
		out, okL = a.Lone.Undo(out)
		ok = ok && okL
	}
	return out, ok
}
