//go:build watchdogdebug

package casfile

// drill is Options' fault drill.
type drill struct {
	// Fault, when set, is asked before each step ("write", "swap") and
	// makes it fail with what it returns: tests inject a full disk or a
	// refused rename at every step.
	Fault func(step string) error
}

func (o *Options) fault(step string) error {
	if o == nil || o.Fault == nil {
		return nil
	}
	return o.Fault(step)
}
