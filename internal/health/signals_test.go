package health

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Every observation type in signals.go has its case in the model's type
// switches (Model.apply, Model.applyServer), and every case there is an
// observation: a type added without its rule, or a rule left for a type
// that went, fails here.
func TestEveryObservationIsHandled(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(name string) *ast.File {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var types []string // those with the sealing method: the observations
	for _, d := range parse("signals.go").Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "server" && fd.Recv != nil {
			types = append(types, fmt.Sprint(fd.Recv.List[0].Type))
		}
	}
	var cases []string
	for _, d := range parse("model.go").Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || (fd.Name.Name != "apply" && fd.Name.Name != "applyServer") || fd.Recv == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					cases = append(cases, fmt.Sprint(e))
				}
			}
			return true
		})
	}
	slices.Sort(types)
	slices.Sort(cases)
	cases = slices.Compact(cases) // SessionLost: unattributed first, then a server's
	if len(types) < 20 || !slices.Equal(types, cases) {
		t.Errorf("observation types %v; the model's cases %v", types, cases)
	}
}

// ServerOf names the server each observation carries, and "" for those
// that carry none (the host's, the machine's): the model and the daemon's
// routing go by it.
func TestServerOfEveryObservation(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	line := LogLine{Server: "mem", Session: "s1", Detail: "d", Source: LogPosition{File: "f", Offset: 3}, HostLog: true, History: true}
	all := []Observation{
		SessionLost{line}, IdleTimeoutAnnounced{line, time.Hour}, LegacyHeaderRejected{line}, Reconnected{line},
		SessionClosed{line, EndIdle},
		StoreSnapshot{Server: "mem", Sessions: []StoreSession{{ID: "s1"}}, Truncated: 2, ServerStarted: at, ServerGone: true},
		StoreGone{"mem", "d"}, StoreError{"mem", "d"},
		HostUp{PID: 7, Started: at, Began: at, Restarted: true}, HostDown{},
		Warning{"mem", "d"}, Woke{time.Minute},
		KeepWarmAnswered{Server: "mem", Session: "s1", Outcome: OutcomeLost, Took: time.Second, Detail: "d", NamedBy: IdentitySource("beacon")},
		LivenessAnswered{Server: "mem", Session: "s1", Outcome: OutcomeAlive, Took: time.Second, Detail: "d", Answer: host.NotFoundRPC, Era: EraBoth},
		HealStarted{Server: "mem", Strategy: "s", Within: time.Minute, Detail: "d"}, HealFailed{Server: "mem", Strategy: "s", Detail: "d"},
		BeaconSeen{PID: 7, Held: map[string]Held{"mem": {Session: "s1"}}},
		ProxyHealed{Server: "mem", Session: "s1", NewSession: "s2", Healed: true, Took: time.Second, Detail: "d", Client: "c"},
		ProxyUpstream{"mem", "s1"}, ProxyReleased{"mem", "s1"}, ProxyBridging{"mem", "d"},
		StdioSeen{Server: "fs", Detail: "d", Report: StdioReport{Kind: StdioExited, Host: "opencode", PID: 7}},
	}
	for _, o := range all {
		want := ""
		if f := reflect.ValueOf(o).FieldByName("Server"); f.IsValid() {
			want = f.String()
		}
		if got := ServerOf(o); got != want {
			t.Errorf("ServerOf(%T) = %q, want %q", o, got, want)
		}
	}
}
