//go:build watchdogdebug

package adopt

import "github.com/mcpwatchdog/watchdog/internal/casfile"

// drill is Options' fault drill, in builds with the watchdogdebug tag.
type drill struct {
	// fault, set by tests, fails the step it names (see txn.step).
	fault func(step string) error
}

// txnDrill is a transaction's copy of the drill.
type txnDrill struct{ fault func(step string) error }

func newTxn(o *Options) *txn { return &txn{txnDrill: txnDrill{fault: o.fault}} }

// injected is the drill's failure for the step named name.
func (t *txn) injected(name string) error {
	if t.fault == nil {
		return nil
	}
	return t.fault(name)
}

// casOptions passes the drill's fault to casfile's own steps, named
// after the step of the transaction ("writing F/write", "writing F/swap").
func casOptions(t *txn, step string) *casfile.Options {
	o := &casfile.Options{}
	if t.fault != nil {
		o.Fault = func(s string) error { return t.fault(step + "/" + s) }
	}
	return o
}
