package health

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestEveryKindConstantIsInKinds reads this package's source for every
// constant of type EventKind and finds each in Kinds, once: a kind declared
// but left out of the table would escape the journal's, the metrics' and
// the notifier's tests, which range over the table.
func TestEveryKindConstantIsInKinds(t *testing.T) {
	t.Parallel()
	declared := eventKindConstants(t)
	if len(declared) == 0 {
		t.Fatal("found no EventKind constants: did the declaration move?")
	}
	inTable := map[EventKind]int{}
	for _, info := range Kinds() {
		inTable[info.Kind]++
	}
	for name, value := range declared {
		if inTable[value] != 1 {
			t.Errorf("%s (%q) is in Kinds %d times, want once", name, value, inTable[value])
		}
	}
	if len(inTable) != len(declared) {
		t.Errorf("Kinds has %d kinds, the package declares %d", len(inTable), len(declared))
	}
	for _, k := range EventKinds() {
		if !k.Known() {
			t.Errorf("%s from EventKinds is not Known", k)
		}
	}
	if EventKind("no_such_kind").Known() {
		t.Error("an undeclared kind is Known")
	}
}

// eventKindConstants maps the name of every `X EventKind = "x"` constant
// of the package to its value.
func eventKindConstants(t *testing.T) map[string]EventKind {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]EventKind{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || spec.Type == nil || len(spec.Values) != len(spec.Names) {
				return true
			}
			if id, ok := spec.Type.(*ast.Ident); !ok || id.Name != "EventKind" {
				return true
			}
			for i, name := range spec.Names {
				lit, ok := spec.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s: not a string literal", name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[name.Name] = EventKind(v)
			}
			return true
		})
	}
	return out
}

// Carries follows the table, adds Incident and Log when set, and drops the
// client of an incident (the host's own session), as the journal always
// wrote it.
func TestCarries(t *testing.T) {
	t.Parallel()
	pos := LogPosition{File: "/x.log", Fingerprint: "ab", Offset: 10}
	tests := []struct {
		name string
		ev   Event
		want Field
	}{
		{"another client's loss", Event{Kind: EvSessionLost}, FieldClient},
		{"the host's loss", Event{Kind: EvSessionLost, Incident: true}, FieldIncident},
		{"a loss from a log line", Event{Kind: EvSessionLost, Incident: true, Log: pos}, FieldIncident | FieldLog},
		{"a recovery", Event{Kind: EvRecovered}, FieldTook | FieldStrategy},
		{"at risk", Event{Kind: EvSessionAtRisk, Idle: time.Second}, FieldIdle | FieldExpiresIn},
		{"nothing typed", Event{Kind: EvHostUp}, 0},
		{"unknown kind", Event{Kind: "no_such_kind", Client: "x"}, 0},
	}
	for _, tt := range tests {
		if got := tt.ev.Carries(); got != tt.want {
			t.Errorf("%s: Carries = %b, want %b", tt.name, got, tt.want)
		}
	}
	if !(FieldTook | FieldStrategy).Has(FieldTook) || FieldTook.Has(FieldTook|FieldStrategy) {
		t.Error("Has")
	}
}
