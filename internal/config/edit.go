package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// AddedMark ends every line `watchdog hosts adopt` writes into the config
// file, so that a reader knows where it came from and release finds it.
const AddedMark = "# added by watchdog hosts adopt"

// Added is text an edit put into the config file: release takes out
// exactly that text, and only when it is still there once.
type Added struct {
	Text string `json:"text"`
}

// Remove returns data without a, and whether it was there (exactly once).
func (a Added) Remove(data []byte) ([]byte, bool) {
	if a.Text == "" || bytes.Count(data, []byte(a.Text)) != 1 {
		return data, false
	}
	return bytes.Replace(data, []byte(a.Text), nil, 1), true
}

// ServerTable is one [[server]] table of a config file as written: its
// name and URL, and where a key added to it goes.
type ServerTable struct {
	Name, URL, ProxyListen string
	// Marked: adopt wrote the table (its header line carries AddedMark).
	Marked   bool
	start    int // the start of its header line
	insertAt int // the start of the line after its last key
}

// ServerTables reads the [[server]] tables of a config file's text.
func ServerTables(data []byte) ([]ServerTable, error) {
	var out []ServerTable
	var p unstable.Parser
	p.Reset(data)
	in := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			in = e.Kind == unstable.ArrayTable && keyString(e.Key()) == "server"
			if in {
				at := keyOffset(&p, e)
				end := lineAfter(data, at)
				start := bytes.LastIndexByte(data[:at], '\n') + 1
				out = append(out, ServerTable{insertAt: end, start: start, Marked: bytes.Contains(data[start:end], []byte(AddedMark))})
			}
		case unstable.KeyValue:
			if !in {
				continue
			}
			t := &out[len(out)-1]
			v := e.Value()
			switch keyString(e.Key()) {
			case "name":
				t.Name = string(v.Data)
			case "url":
				t.URL = string(v.Data)
			case "proxy_listen":
				t.ProxyListen = string(v.Data)
			}
			t.insertAt = lineAfter(data, int(v.Raw.Offset+v.Raw.Length))
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return out, nil
}

// keyOffset is where a table header's key is in the parser's data: a
// table expression carries no range of its own. A key whose bytes are not
// the input's (an escaped quoted key) gives 0.
func keyOffset(p *unstable.Parser, e *unstable.Node) int {
	it := e.Key()
	if !it.Next() {
		return 0
	}
	data, b := p.Data(), it.Node().Data
	off := cap(data) - cap(b)
	if len(b) == 0 || off < 0 || off+len(b) > len(data) || !bytes.Equal(data[off:off+len(b)], b) {
		return 0
	}
	return off
}

func keyString(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

// lineAfter is the offset of the line after the one holding offset off
// (the end of data when that is the last line).
func lineAfter(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}

// AddProxyListen adds proxy_listen = listen to the [[server]] table t of
// data. In a table adopt wrote itself (Marked), what is added is the whole
// table again, from the blank line before it: release takes it all out.
func AddProxyListen(data []byte, t ServerTable, listen string) ([]byte, Added) {
	text := "proxy_listen = " + strconv.Quote(listen) + " " + AddedMark + "\n"
	at := t.insertAt
	if at == len(data) && len(data) > 0 && data[len(data)-1] != '\n' {
		text = "\n" + text
	}
	out := concat(data[:at], text, data[at:])
	if !t.Marked || !onlyAdoptKeys(data[t.start:at]) {
		return out, Added{Text: text}
	}
	from := t.start
	if from >= 2 && out[from-1] == '\n' && out[from-2] == '\n' {
		from-- // the blank line AddServer puts before a table
	}
	return out, Added{Text: string(out[from : at+len(text)])}
}

// onlyAdoptKeys reports whether a table holds nothing but the keys adopt
// writes: one the user added to is not adopt's alone to take out.
func onlyAdoptKeys(table []byte) bool {
	lines := strings.Split(string(table), "\n")
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "name =") && !strings.HasPrefix(l, "url =") && !strings.HasPrefix(l, "proxy_listen =") {
			return false
		}
	}
	return true
}

// AddServer appends a [[server]] table for a proxy of url, listening on
// listen; why says for whom, in the comment above it.
func AddServer(data []byte, name, url, listen, why string) ([]byte, Added) {
	var b strings.Builder
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n[[server]] %s (%s)\nname = %s\nurl = %s\nproxy_listen = %s\n",
		AddedMark, oneLine(why), strconv.Quote(name), strconv.Quote(url), strconv.Quote(listen))
	return concat(data, b.String(), nil), Added{Text: b.String()}
}

func concat(a []byte, s string, b []byte) []byte {
	out := make([]byte, 0, len(a)+len(s)+len(b))
	return append(append(append(out, a...), s...), b...)
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// Parse checks a config file's text as Load would read it from path.
func Parse(path string, data []byte) (Config, error) { return parse(path, data, osEnv()) }
