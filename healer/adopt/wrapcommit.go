package adopt

import (
	"bytes"
	"fmt"
)

// wrapperWrite is one wrapper a transaction writes or removes, for the
// stdio server of that name in file (the step's name: the wrapper's own
// path holds a hash).
type wrapperWrite struct {
	path, server, file string
	data               []byte // what adopt writes
}

// writeWrappers writes each new or mended wrapper before the host's files
// point at it; undone, each is put back as it was (removed, when it was
// not there).
func (c *change) writeWrappers(t *txn) error {
	for _, w := range c.wrappers {
		old, err := readWrapper(w.path)
		if err != nil {
			return fmt.Errorf("the wrapper of %s (%s): %w; nothing was changed", w.server, w.path, err)
		}
		if bytes.Equal(old, w.data) {
			continue
		}
		err = t.step("writing the wrapper of "+w.server+" in "+w.file, func() error { return writeWrapper(w.path, w.data) },
			func() error {
				if old == nil {
					return removeWrapper(w.path)
				}
				return writeWrapper(w.path, old)
			})
		if err != nil {
			return err
		}
	}
	return nil
}

// removeWrappers removes the wrappers release left nothing pointing at,
// last, when the host's files and the record no longer name them;
// undone, each is written back.
func (c *change) removeWrappers(t *txn) error {
	for _, w := range c.unwrap {
		old, err := readWrapper(w.path)
		if err != nil || old == nil {
			continue // unreadable or gone: nothing to take back
		}
		err = t.step("removing the wrapper of "+w.server+" in "+w.file, func() error { return removeWrapper(w.path) },
			func() error { return writeWrapper(w.path, old) })
		if err != nil {
			return err
		}
	}
	return nil
}
