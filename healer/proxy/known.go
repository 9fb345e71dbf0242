package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// The last-known server: what the server said, as last seen through the
// proxy, to answer a host that starts while the server is down (attach.go).
// Kept per server: its initialize result (serverInfo, capabilities,
// protocolVersion, instructions), its 2026-07-28 server/discover result,
// and the first page of its lists (tools/list, prompts/list,
// resources/list, resources/templates/list asked without a cursor). Each
// is refreshed when the server answers such a request successfully
// through the proxy (or KnowAnswer feeds it), and kept in
// Options.KnownFile (0600, replaced atomically), loaded at New.

// Bounds of the last-known server.
const (
	// MaxKnown bounds the results kept, all together. A result that
	// would take them past it is not kept, and the one it would have
	// replaced is dropped (it is known to be out of date): a host that
	// asks for it while the server is down waits for the server as for
	// any other request. Lists of a few hundred tools take ~100 KiB.
	MaxKnown = 1 << 20
	// knownRewriteAfter: an answer the same as the one kept rewrites the
	// file only when the time it was seen on disk is older than this; a
	// different one is written at once.
	knownRewriteAfter = 10 * time.Minute
	// knownVersion is the known file's format.
	knownVersion = 1
)

// keptMethods are the requests whose results are kept.
var keptMethods = [...]string{"initialize", "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}

// knownResult is one kept result and when the server said it.
type knownResult struct {
	Result json.RawMessage `json:"result"`
	Seen   time.Time       `json:"seen"`
}

// knownFile is the known file's shape.
type knownFile struct {
	Version int                    `json:"version"`
	Results map[string]knownResult `json:"results"` // by method
	// Sessionless: the server answered its last initialize without a
	// session id (a host attached to it gets none either).
	Sessionless bool `json:"sessionless,omitempty"`
}

// knownBook holds the last-known server and writes it to its file.
type knownBook struct {
	mu      sync.Mutex
	path    string
	log     *slog.Logger
	k       knownFile
	written map[string]time.Time // Seen of each result as the file has it
	writeMu sync.Mutex           // serialises writes; taken before mu
}

// loadKnown reads path ("": memory only). A file that cannot be used is
// set aside (.bad) with a warning: the proxy then knows nothing yet.
func loadKnown(path string, log *slog.Logger) *knownBook {
	b := &knownBook{path: path, log: log, k: knownFile{Version: knownVersion, Results: map[string]knownResult{}},
		written: map[string]time.Time{}}
	if path == "" {
		return b
	}
	data, err := fsutil.ReadPrivate(path, 2*MaxKnown)
	if errors.Is(err, fs.ErrNotExist) {
		return b
	}
	var k knownFile
	if err == nil {
		err = json.Unmarshal(data, &k)
	}
	if err == nil && k.Version != knownVersion {
		err = fmt.Errorf("version %d, want %d", k.Version, knownVersion)
	}
	if err != nil {
		log.Warn("the proxy's last-known server file cannot be used; setting it aside", "path", path, "err", err)
		_ = os.Rename(path, path+".bad")
		return b
	}
	total := 0
	for _, m := range keptMethods {
		if r, ok := k.Results[m]; ok && len(r.Result) > 0 && total+len(r.Result) <= MaxKnown {
			b.k.Results[m], b.written[m] = r, r.Seen
			total += len(r.Result)
		}
	}
	b.k.Sessionless = k.Sessionless
	return b
}

// get is the kept result of method, and whether there is one.
func (b *knownBook) get(method string) (knownResult, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.k.Results[method]
	return r, ok
}

// sessionless reports whether the server's last initialize issued no session.
func (b *knownBook) sessionless() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.k.Sessionless
}

// isKept reports whether method's results are kept.
func isKept(method string) bool {
	for _, m := range keptMethods {
		if m == method {
			return true
		}
	}
	return false
}

// see keeps result as what the server said to method at now, and writes
// the file when that changed it (or its time there is old).
func (b *knownBook) see(method string, result json.RawMessage, now time.Time) {
	if !isKept(method) || len(result) == 0 {
		return
	}
	var compact bytes.Buffer
	if json.Compact(&compact, result) != nil {
		return
	}
	result = compact.Bytes()
	b.mu.Lock()
	old, had := b.k.Results[method]
	same := had && bytes.Equal(old.Result, result)
	total := len(result)
	for m, r := range b.k.Results {
		if m != method {
			total += len(r.Result)
		}
	}
	switch {
	case total > MaxKnown:
		delete(b.k.Results, method)
		b.log.Warn("a result of the server is past the proxy's bound for what it keeps; not kept", "method", method,
			"bytes", len(result), "bound", MaxKnown)
	default:
		b.k.Results[method] = knownResult{Result: result, Seen: now}
	}
	write := !same || total > MaxKnown || now.Sub(b.written[method]) > knownRewriteAfter
	b.mu.Unlock()
	if write {
		b.save()
	}
}

// seeSessions notes whether the server issues sessions.
func (b *knownBook) seeSessions(issued bool) {
	b.mu.Lock()
	changed := b.k.Sessionless == issued
	b.k.Sessionless = !issued
	b.mu.Unlock()
	if changed {
		b.save()
	}
}

// save writes the file whole (0600, atomically); a failure is logged and
// the book stays served from memory.
func (b *knownBook) save() {
	if b.path == "" {
		return
	}
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	b.mu.Lock()
	data, err := json.Marshal(b.k)
	seen := map[string]time.Time{}
	for m, r := range b.k.Results {
		seen[m] = r.Seen
	}
	b.mu.Unlock()
	if err == nil {
		err = fsutil.WriteAtomic(b.path, append(data, '\n'), 0o600)
	}
	if err != nil {
		b.log.Warn("cannot save the last-known server; a restart would forget it", "path", b.path, "err", err)
		return
	}
	b.mu.Lock()
	b.written = seen
	b.mu.Unlock()
}

// KnowAnswer keeps result as what the server answered to method now
// (initialize, server/discover, or a list's first page): the daemon's own
// probe may feed the last-known server with it. Other methods are ignored.
func (p *Proxy) KnowAnswer(method string, result json.RawMessage) {
	p.known.see(method, result, p.opts.Now())
}

// Known reports when the proxy last saw the server answer method ("initialize",
// "server/discover", "tools/list", ...), and whether it has it at all.
func (p *Proxy) Known(method string) (time.Time, bool) {
	r, ok := p.known.get(method)
	return r.Seen, ok
}

// keptListMethod is body's method when it is a list whose first page is
// kept (asked without a cursor), else "". Most calls are not: a scan for
// the lists' common ending tells, with no allocation.
func keptListMethod(body []byte) string {
	if !bytes.Contains(body, []byte(`/list"`)) {
		return ""
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Cursor *string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Params.Cursor != nil {
		return ""
	}
	switch m.Method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return m.Method
	}
	return ""
}

// resultOf is the JSON-RPC result in an answer's body (JSON or SSE), nil
// when it carries none (an error, or no JSON-RPC response).
func resultOf(contentType string, data []byte) json.RawMessage {
	for _, msg := range messages(contentType, data) {
		var m struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(msg, &m) == nil && m.Method == "" && len(m.Result) > 0 {
			return m.Result
		}
	}
	return nil
}

// seeAnswer keeps what the server answered to the kept request method:
// its result, read whole as data.
func (p *Proxy) seeAnswer(method string, status int, contentType string, data []byte) {
	if status/100 != 2 {
		return
	}
	if r := resultOf(contentType, data); r != nil {
		p.known.see(method, r, p.opts.Now())
	}
}
