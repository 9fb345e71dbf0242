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

// Parse reads a store. It returns the sessions sorted by ID, how many entries
// were skipped (no id, or an id seen already), and an error wrapping
// ErrNotJSON or ErrUnknownShape. An empty object or list, and null, are zero
// sessions; empty or truncated data is ErrNotJSON, never zero sessions.
func Parse(data []byte) ([]Session, int, error) {
	root, err := decode(data)
	if err != nil {
		return nil, 0, err
	}
	entries, skipped, err := locate(root, 0, "top level")
	if err != nil {
		return nil, 0, err
	}
	sessions, dup := build(entries)
	return sessions, skipped + dup, nil
}

// decode parses exactly one JSON value, keeping numbers exact.
func decode(data []byte) (any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: file is empty (%d bytes)", ErrNotJSON, len(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, notJSON(err, len(data))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the JSON value at byte %d of %d",
			ErrNotJSON, dec.InputOffset(), len(data))
	}
	return v, nil
}

func notJSON(err error, size int) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: ends early after %d bytes (half-written?)", ErrNotJSON, size)
	case errors.As(err, &syn):
		return fmt.Errorf("%w: %v at byte %d of %d", ErrNotJSON, syn, syn.Offset, size)
	default:
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
}

// locate finds the session entries in v: a list, a map keyed by id, or
// either one under a wrapper key.
func locate(v any, depth int, where string) ([]entry, int, error) {
	switch t := v.(type) {
	case nil:
		return nil, 0, nil // what Go writes for a nil map or slice
	case []any:
		return listEntries(t)
	case map[string]any:
		return objectEntries(t, depth, where)
	default:
		return nil, 0, fmt.Errorf("%w: %s is a %s, want an object or a list", ErrUnknownShape, where, kind(v))
	}
}

func listEntries(list []any) ([]entry, int, error) {
	entries := make([]entry, 0, len(list))
	skipped := 0
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			skipped++
			continue
		}
		entries = append(entries, entry{obj: obj})
	}
	return entries, skipped, nil
}

func objectEntries(obj map[string]any, depth int, where string) ([]entry, int, error) {
	if depth < maxWrapDepth {
		for _, k := range wrapperKeys {
			if inner, ok := obj[k]; ok {
				return locate(inner, depth+1, fmt.Sprintf("%q", k))
			}
		}
	}
	if k, ok := singleSession(obj); ok {
		return nil, 0, fmt.Errorf("%w: %s looks like one session (it has %q), not a store of sessions",
			ErrUnknownShape, where, k)
	}
	entries := make([]entry, 0, len(obj))
	for k, v := range obj {
		inner, ok := v.(map[string]any)
		if !ok || metadataKeys[k] {
			continue // scalars and known metadata beside the sessions
		}
		entries = append(entries, entry{key: k, obj: inner})
	}
	if len(entries) == 0 && len(obj) > 0 {
		// Keys are not listed: a map of id to scalar would show the ids.
		return nil, 0, fmt.Errorf("%w: %s has %d keys but none holds a session object",
			ErrUnknownShape, where, len(obj))
	}
	return entries, 0, nil
}

// singleSession reports whether obj is itself a session rather than a map of
// them: it has an id field holding a scalar.
func singleSession(obj map[string]any) (string, bool) {
	for _, k := range idKeys {
		switch obj[k].(type) {
		case string, json.Number:
			return k, true
		}
	}
	return "", false
}

func kind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return "null"
}
