package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// decodeError turns what go-toml returns into Errors that name the file,
// line and key, and say what to do.
func decodeError(file string, err error, ix *keyIndex) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		// Only what will be shown is worth locating.
		n := min(len(strict.Errors), maxReported+1)
		errs := make([]error, 0, n)
		for i := range n {
			errs = append(errs, unknownKey(file, &strict.Errors[i], ix))
		}
		return joinErrors(errs, len(strict.Errors))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		return valueError(file, de, ix)
	}
	// go-toml hands a non-string value to Duration.UnmarshalText as raw
	// text and returns its error bare, without a position: find the key.
	if path, e, ok := nonStringDuration(ix); ok {
		return &Error{File: file, Line: e.line, Key: path, Err: err,
			Msg: "a duration is written in quotes in Go syntax, e.g. " + quoteKey(e.parts[len(e.parts)-1]) + ` = "12h"`}
	}
	return &Error{File: file, Msg: err.Error(), Err: err}
}

func unknownKey(file string, de *toml.DecodeError, ix *keyIndex) error {
	row, _ := de.Position()
	key := []string(de.Key())
	path, e, ok := ix.find(row, key)
	parts := key
	if ok {
		parts = e.parts
	} else {
		path = pathOf(key)
	}
	if len(parts) == 0 { // never seen from go-toml; keep the parser's words
		return &Error{File: file, Line: row, Msg: trimToml(de.Error()), Err: de}
	}
	// In a.b.c = 1 the unknown key is a: name the first part the schema
	// does not know.
	k := len(parts) - 1
	for i := range parts {
		if schemaType(parts[:i+1]) == nil {
			k = i
			break
		}
	}
	name, table := parts[k], parts[:k]
	known := knownKeys(table)
	where := "at the top level"
	if len(table) > 0 {
		where = "in " + tableName(table, ix)
	}
	what := "key"
	if ok && (e.kind == unstable.Table || e.kind == unstable.ArrayTable) {
		what = "table"
	}
	msg := fmt.Sprintf("unknown %s %s; ", what, where)
	if s := suggest(name, known); s != "" {
		msg += fmt.Sprintf("did you mean %s? ", s)
	}
	if len(known) > 0 {
		msg += "known keys: " + strings.Join(known, ", ")
	} else {
		msg += "remove it"
	}
	return &Error{File: file, Line: row, Key: path, Msg: msg, Err: de}
}

// tableName writes a table as its header: [host], [[server]], and [[host]]
// when the file wrote it so.
func tableName(parts []string, ix *keyIndex) string {
	t := schemaType(parts)
	lone := len(parts) == 1 && loneTable[parts[0]] && !ix.arrayOfTables(parts[0])
	if t != nil && t.Kind() == reflect.Slice && !lone {
		return "[[" + pathOf(parts) + "]]"
	}
	return "[" + pathOf(parts) + "]"
}

func pathOf(parts []string) string {
	path := ""
	for _, p := range parts {
		path = joinPath(path, p)
	}
	return path
}

var mismatch = regexp.MustCompile(`cannot decode TOML (.+?) into`)

// valueError reports a syntax error (no key) or a value the target cannot
// hold (a wrong type, a bad duration, a number out of range, a redefinition).
func valueError(file string, de *toml.DecodeError, ix *keyIndex) error {
	row, col := de.Position()
	reason := trimToml(de.Error())
	if len(de.Key()) == 0 {
		return &Error{File: file, Line: row, Col: col, Msg: "malformed TOML: " + reason, Err: de}
	}
	path, e, ok := ix.find(row, de.Key())
	parts := []string(de.Key())
	if ok {
		parts = e.parts
	} else {
		path = pathOf(parts)
	}
	t := schemaType(parts)
	msg := reason
	switch m := mismatch.FindStringSubmatch(reason); {
	case m != nil:
		msg = fmt.Sprintf("a TOML %s cannot go here; %s takes %s", m[1], quoteKey(parts[len(parts)-1]), describe(t))
	case t == durationType:
		msg = reason + `; use Go syntax such as "90s", "30m" or "12h"`
	case t != nil && strings.HasPrefix(reason, "cannot store"):
		msg = fmt.Sprintf("%s; %s takes %s", reason, quoteKey(parts[len(parts)-1]), describe(t))
	}
	return &Error{File: file, Line: row, Col: col, Key: path, Msg: msg, Err: de}
}

func trimToml(s string) string { return strings.TrimPrefix(s, "toml: ") }

// nonStringDuration finds a duration key whose value is not a string.
func nonStringDuration(ix *keyIndex) (string, indexEntry, bool) {
	if ix == nil {
		return "", indexEntry{}, false
	}
	var paths []string
	for path, e := range ix.entries {
		if !e.element && e.kind != unstable.String && schemaType(e.parts) == durationType {
			paths = append(paths, path)
		}
	}
	if len(paths) == 0 {
		return "", indexEntry{}, false
	}
	sort.Slice(paths, func(i, j int) bool { return ix.entries[paths[i]].line < ix.entries[paths[j]].line })
	return paths[0], ix.entries[paths[0]], true
}
