package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Sentinel errors of Parse; the returned error wraps one of them and says
// what exactly was wrong.
var (
	// ErrNotJSON: the data is not one complete JSON value (empty, cut short,
	// or not JSON at all). A store caught mid-write reads as this.
	ErrNotJSON = errors.New("not JSON")
	// ErrUnknownShape: valid JSON, but no session list or map was found.
	ErrUnknownShape = errors.New("unknown store shape")
)

// MaxSessions bounds the sessions one read keeps. A store holding more keeps
// its MaxSessions most recently active ones and counts the rest as
// Truncated, so what a read holds does not grow with the file. The real
// Nowledge Mem store holds a handful.
const MaxSessions = 10_000

// maxWrapDepth bounds how deep "sessions"/"items"/"data" wrappers are followed.
const maxWrapDepth = 3

// wrapperKeys hold the session list or map in a wrapped store, in order of trust.
var wrapperKeys = [...]string{"sessions", "items", "data"}

// metadataKeys are object-valued keys of a map-form store that are not sessions.
var metadataKeys = map[string]bool{
	"meta": true, "metadata": true, "_meta": true, "$schema": true, "schema": true,
	"version": true, "schema_version": true, "schemaVersion": true,
}

// entry is one candidate session before its fields are read.
type entry struct {
	key string // the map key in map form, "" in list form
	obj map[string]any
}

// Result is one parse of a store.
type Result struct {
	Sessions  []Session // sorted by ID; at most the limit
	Skipped   int       // entries without an id, or repeating one, left out
	Truncated int       // sessions over the limit left out: the least recently active
}

// Parse reads a store, keeping at most MaxSessions sessions. It returns the
// sessions sorted by ID, how many entries were skipped (no id, or an id seen
// already), and an error wrapping ErrNotJSON or ErrUnknownShape. An empty
// object or list, and null, are zero sessions; empty or truncated data is
// ErrNotJSON, never zero sessions.
func Parse(data []byte) ([]Session, int, error) {
	r, err := ParseLimit(data, MaxSessions)
	return r.Sessions, r.Skipped, err
}

// ParseLimit is Parse keeping at most limit sessions (at least one), the
// most recently active; the rest are counted in Result.Truncated. It
// streams through the store: one entry at a time is decoded whole, so the
// memory a parse takes is bounded by limit, not by how many entries the
// file holds.
func ParseLimit(data []byte, limit int) (Result, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return Result{}, fmt.Errorf("%w: file is empty (%d bytes)", ErrNotJSON, len(data))
	}
	p := &parser{dec: json.NewDecoder(bytes.NewReader(data)), size: len(data), limit: max(limit, 1)}
	p.dec.UseNumber()
	a, err := p.value(0, "top level")
	if err != nil {
		return Result{}, err
	}
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return Result{}, fmt.Errorf("%w: data after the JSON value at byte %d of %d",
			ErrNotJSON, p.dec.InputOffset(), len(data))
	}
	return a.result()
}

// parser walks one store with a token decoder.
type parser struct {
	dec   *json.Decoder
	size  int
	limit int
}

// value reads the next value as a store: a list, a map keyed by id, or
// either one under a wrapper key. A shape the store cannot have is kept in
// the returned acc (the value is consumed whole); an error is JSON that is
// broken, after which nothing more can be read.
func (p *parser) value(depth int, where string) (*acc, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.notJSON(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return p.list()
		}
		return p.object(depth, where)
	case nil:
		return newAcc(p.limit), nil // what Go writes for a nil map or slice
	default:
		return &acc{shape: fmt.Errorf("%w: %s is a %s, want an object or a list", ErrUnknownShape, where, kind(tok))}, nil
	}
}

func (p *parser) list() (*acc, error) {
	a := newAcc(p.limit)
	for p.dec.More() {
		var e element
		if err := p.dec.Decode(&e); err != nil {
			return nil, p.notJSON(err)
		}
		if e.obj == nil {
			a.skipped++
			continue
		}
		a.add(entry{obj: e.obj})
	}
	return a, p.end()
}

// object reads a wrapper (its most trusted wrapper key decides; nothing else
// beside it counts), one session (an error), or a map of sessions.
//
// Long: the three readings are told apart key by key as they stream by.
func (p *parser) object(depth int, where string) (*acc, error) {
	own := newAcc(p.limit)
	var wrapped *acc
	rank, keys, single := len(wrapperKeys), 0, ""
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.notJSON(err)
		}
		key, _ := tok.(string)
		keys++
		if r := wrapperRank(key); depth < maxWrapDepth && r >= 0 {
			if r >= rank {
				err = p.skip()
			} else if wrapped, err = p.value(depth+1, fmt.Sprintf("%q", key)); err == nil {
				rank, own = r, nil // the wrapper decides; entries beside it do not count
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if own == nil {
			if err := p.skip(); err != nil {
				return nil, err
			}
			continue
		}
		var e element
		if err := p.dec.Decode(&e); err != nil {
			return nil, p.notJSON(err)
		}
		switch {
		case e.scalar && idRank(key) >= 0 && (single == "" || idRank(key) < idRank(single)):
			single = key
		case e.obj != nil && !metadataKeys[key]:
			own.add(entry{key: key, obj: e.obj})
		}
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	switch {
	case wrapped != nil:
		return wrapped, nil
	case single != "":
		return &acc{shape: fmt.Errorf("%w: %s looks like one session (it has %q), not a store of sessions",
			ErrUnknownShape, where, single)}, nil
	case own.objects == 0 && keys > 0:
		// Keys are not listed: a map of id to scalar would show the ids.
		return &acc{shape: fmt.Errorf("%w: %s has %d keys but none holds a session object",
			ErrUnknownShape, where, keys)}, nil
	}
	return own, nil
}

// end reads the closing bracket of a list or object.
func (p *parser) end() error {
	if _, err := p.dec.Token(); err != nil {
		return p.notJSON(err)
	}
	return nil
}

// skip reads past one value without keeping it.
func (p *parser) skip() error {
	if err := p.dec.Decode(&skipValue{}); err != nil {
		return p.notJSON(err)
	}
	return nil
}

func (p *parser) notJSON(err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%w: ends early after %d bytes (half-written?)", ErrNotJSON, p.size)
	case errors.As(err, &syn):
		return fmt.Errorf("%w: %v at byte %d of %d", ErrNotJSON, syn, syn.Offset, p.size)
	default:
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
}

// element is one value inside the store's list or map, decoded only as far
// as needed: an object into a map; of anything else, only whether it is a
// scalar that could be an id.
type element struct {
	obj    map[string]any
	scalar bool
}

func (e *element) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '{':
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		return dec.Decode(&e.obj)
	case c == '"', c == '-', c >= '0' && c <= '9':
		e.scalar = true
	}
	return nil
}

// skipValue is decoded into to read past a value without allocating it.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

func wrapperRank(key string) int {
	for i, k := range wrapperKeys {
		if k == key {
			return i
		}
	}
	return -1
}

func idRank(key string) int {
	for i, k := range idKeys {
		if k == key {
			return i
		}
	}
	return -1
}

func kind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}
