//go:build watchdogdebug

package journal

import (
	"errors"
	"fmt"
	"os"
)

// ErrInjectedFault is wrapped by every Write while Options.FaultFile
// exists: a failure drill, not a broken disk.
var ErrInjectedFault = errors.New("journal: injected write fault")

// drill is Options' write-fault drill.
type drill struct {
	// FaultFile: while a file exists at this path, Write and the reopen
	// after a rotation fail with ErrInjectedFault before touching the
	// journal. It exists for tests and the chaos soak (they run as root,
	// whom permissions do not stop). Zero: never.
	FaultFile string
}

// injected is the drill's failure while Options.FaultFile exists.
func (j *Journal) injected() error {
	if j.opts.FaultFile == "" {
		return nil
	}
	if _, err := os.Stat(j.opts.FaultFile); err != nil {
		return nil
	}
	return fmt.Errorf("%w (%s exists)", ErrInjectedFault, j.opts.FaultFile)
}
