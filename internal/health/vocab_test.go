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

// Carried is the kind's family: the event's facts when they are of it,
// its zero value when they are missing or of another family (a line
// always carries its kind's fields), nil for a kind without facts.
func TestCarried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   Event
		want Facts
	}{
		{"another client's loss", Event{Kind: EvSessionLost, Facts: Loss{Client: "x"}}, Loss{Client: "x"}},
		{"a loss built bare", Event{Kind: EvSessionLost}, Loss{}},
		{"a recovery", Event{Kind: EvRecovered, Facts: Recovery{Took: time.Second}}, Recovery{Took: time.Second}},
		{"facts of another family", Event{Kind: EvSessionAtRisk, Facts: Ping{Took: time.Second}}, Risk{}},
		{"nothing typed", Event{Kind: EvHostUp, Facts: Notice{About: "x"}}, nil},
		{"unknown kind", Event{Kind: "no_such_kind", Facts: Opened{Client: "x"}}, nil},
	}
	for _, tt := range tests {
		if got := tt.ev.Carried(); got != tt.want {
			t.Errorf("%s: Carried = %#v, want %#v", tt.name, got, tt.want)
		}
	}
}

// as is ev's facts as family T (T's zero value for another kind).
func as[T Facts](ev Event) T {
	f, _ := ev.Facts.(T)
	return f
}
