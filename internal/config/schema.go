package config

import (
	"reflect"
	"strings"
)

// fileConfig is what the decoder fills: Config with servers whose omitted
// keys can be told apart from zero values (see the package doc).
type fileConfig struct {
	StateDir      string `toml:"state_dir"`
	Notify        bool   `toml:"notify"`
	MetricsListen string `toml:"metrics_listen"`
	// Hosts: go-toml decodes a lone [host] table as a list of one.
	Hosts   []fileHost   `toml:"host"`
	Servers []fileServer `toml:"server"`
}

// fileHost is one host table; a key left out is nil and takes the default
// of the table's own profile (withDefaults).
type fileHost struct {
	Name         *string   `toml:"name"`
	ClientName   *string   `toml:"client_name"`
	Logs         *[]string `toml:"logs"`
	Process      *string   `toml:"process"`
	Port         *int      `toml:"port"`
	Restart      *[]string `toml:"restart"`
	AutoRestart  bool      `toml:"auto_restart"`
	ClientModule string    `toml:"client_module"`
}

type fileServer struct {
	Name          string            `toml:"name"`
	URL           string            `toml:"url"`
	Logs          []string          `toml:"logs"`
	Store         string            `toml:"store"`
	IdleTimeout   *Duration         `toml:"idle_timeout"`
	KeepWarm      *bool             `toml:"keep_warm"`
	Headers       map[string]string `toml:"headers"`
	AllowInsecure bool              `toml:"allow_insecure"`
	ProxyListen   string            `toml:"proxy_listen"`
}

var durationType = reflect.TypeFor[Duration]()

// schemaType is the Go type a key path (parts without indices) decodes
// into, or nil when the schema has no such key.
func schemaType(parts []string) reflect.Type {
	t := reflect.TypeFor[fileConfig]()
	for _, p := range parts {
		t = deref(t)
		if t.Kind() == reflect.Slice && deref(t.Elem()).Kind() == reflect.Struct {
			t = deref(t.Elem()) // [[server]]: the keys below belong to one element
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByKey(t, p)
			if !ok {
				return nil
			}
			t = f.Type
		case reflect.Map:
			t = t.Elem()
		default:
			return nil
		}
	}
	return deref(t)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tomlName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// loneTable: lists of tables that may also be written as one [name] table,
// and that messages show that way unless the file wrote [[name]].
var loneTable = map[string]bool{"host": true}

// knownKeys lists the keys a table takes, tables written as [name] or
// [[name]], for "unknown key" messages.
func knownKeys(table []string) []string {
	t := schemaType(table)
	if t != nil && t.Kind() == reflect.Slice {
		t = deref(t.Elem())
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		switch ft := deref(f.Type); {
		case name == "":
		case ft.Kind() == reflect.Struct && ft != durationType:
			keys = append(keys, "["+name+"]")
		case ft.Kind() == reflect.Slice && deref(ft.Elem()).Kind() == reflect.Struct && loneTable[name]:
			keys = append(keys, "["+name+"]")
		case ft.Kind() == reflect.Slice && deref(ft.Elem()).Kind() == reflect.Struct:
			keys = append(keys, "[["+name+"]]")
		default:
			keys = append(keys, name)
		}
	}
	return keys
}

// describe says in words what a value of type t is written as.
func describe(t reflect.Type) string {
	if t == nil {
		return "nothing (the key is unknown)"
	}
	if t == durationType {
		return `a duration in quotes, e.g. "90s" or "12h"`
	}
	switch t.Kind() {
	case reflect.String:
		return "a string in quotes"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Slice:
		if deref(t.Elem()).Kind() == reflect.Struct {
			return "tables, each written [[name]] on a line of its own"
		}
		return `a list of strings, e.g. ["a", "b"]`
	case reflect.Map:
		return `a table of strings, e.g. { Authorization = "Bearer ${TOKEN}" }`
	case reflect.Struct:
		return "a table"
	}
	return t.String()
}

// editDistance is the Levenshtein distance, for "did you mean" hints.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// suggest returns the known key closest to key, if it is close enough to
// be a typo.
func suggest(key string, known []string) string {
	best, bestDist := "", 3
	if len(key) > 64 {
		return ""
	}
	for _, k := range known {
		k = strings.Trim(k, "[]")
		if d := editDistance(strings.ToLower(key), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}
