package adopt

import (
	"errors"
	"fmt"
	"strings"
)

// txn is one transaction's steps done so far, each with what undoes it.
type txn struct {
	//lint:ignore U1000 empty in a release build, the fault drill in a debug one
	txnDrill
	done []undo
}

type undo struct {
	step string
	fn   func() error // nil: nothing to undo
}

// step runs do as the step named name and remembers how to undo it. A
// drill's fault for the step fails it before do runs.
func (t *txn) step(name string, do func() error, undoFn func() error) error {
	if err := t.injected(name); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := do(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	t.done = append(t.done, undo{name, undoFn})
	return nil
}

// rollback undoes the steps done, newest first, and returns err with what
// became of them: "nothing was changed", or the steps that could not be
// undone. ErrConflict stays matchable: the transaction is planned again.
func (t *txn) rollback(err error) error {
	var failed []string
	for i := len(t.done) - 1; i >= 0; i-- {
		u := t.done[i]
		if u.fn == nil {
			continue
		}
		if uerr := u.fn(); uerr != nil {
			failed = append(failed, fmt.Sprintf("%s could not be undone (%v)", u.step, uerr))
		}
	}
	t.done = nil
	if len(failed) > 0 {
		return fmt.Errorf("%w; undoing it: %s", err, strings.Join(failed, "; "))
	}
	return fmt.Errorf("%w; nothing was changed", err)
}

// errUndone: an undo found the file changed by someone else since the
// step wrote it, and left their change alone.
var errUndone = errors.New("it was changed since by another program; its change was kept")
