package follow

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrPolled is passed to Options.Warn, once, when some followed files are
// polled instead of held open because the open-file limit is too low to
// hold them all.
var ErrPolled = errors.New("follow: log files polled instead of held open")

// The descriptor budget: how many followed files are held open, derived
// from the soft RLIMIT_NOFILE when Run starts. Files beyond it are polled:
// looked at by stat on each event and backstop pass, and opened only for
// the pass that reads what they grew by.
const (
	// fdReserve is left for everything else the process opens (sockets,
	// the journal, the store, watchers): a quarter of the limit, within
	// fdMinReserve and fdMaxReserve.
	fdMinReserve = 32
	fdMaxReserve = 256
	// maxHeld caps held files under a high limit: polling costs a stat
	// per file per pass, holding costs nothing but the descriptor.
	maxHeld = 4096
)

// heldBudget is how many files Run holds open under the current limit.
func heldBudget() (budget int, soft uint64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return budgetFor(1024), 0 // the common default
	}
	return budgetFor(rl.Cur), rl.Cur
}

// budgetFor is the held-file budget for a soft descriptor limit.
func budgetFor(soft uint64) int {
	reserve := min(max(soft/4, fdMinReserve), fdMaxReserve)
	if soft <= reserve {
		return 0
	}
	return int(min(soft-reserve, maxHeld))
}

// hold decides whether a newly opened file keeps its descriptor.
func (r *runner) hold(f *file) {
	if r.held < r.budget {
		r.held++
		return
	}
	f.polled = true
}

// dropped notes that f no longer takes a descriptor slot.
func (r *runner) dropped(f *file) {
	if !f.polled {
		r.held--
	}
}

// promotePolled holds polled files open again while the budget has room:
// held files closed since (deleted, rotated away), or descriptors that an
// EMFILE had shown taken are free again. A polled file is read only on
// passes, and a rotation by rename out of the globs loses its last lines.
func (r *runner) promotePolled() {
	r.budget = r.fullBudget // an open that fails again lowers it again
	if r.held >= r.budget {
		return
	}
	for _, f := range r.sorted() {
		if r.held >= r.budget {
			return
		}
		if !f.polled {
			continue
		}
		if err := f.acquire(); err != nil {
			if r.outOfDescriptors(err) {
				return
			}
			continue // replaced or gone: checkPath retires it
		}
		f.polled = false
		r.held++
	}
}

// outOfDescriptors handles an open that failed for want of descriptors
// though the budget allowed it (something else took them): no more files
// are held than now, and the file is tried again on the next scan.
func (r *runner) outOfDescriptors(err error) bool {
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) {
		return false
	}
	r.budget = r.held
	r.warnOnce("", "", fmt.Errorf("%w: out of file descriptors (%v) with %d log files open; no more are held",
		ErrPolled, syscall.EMFILE, r.held))
	return true
}

// notePolled warns once, when files start being polled; the count and the
// reason go with it. Once none is polled, a later episode warns again.
func (r *runner) notePolled() {
	n := 0
	for _, f := range r.files {
		if f.polled {
			n++
		}
	}
	switch {
	case n == 0:
		r.pollWarned = false
	case !r.pollWarned:
		r.pollWarned = true
		r.f.warn("", "", fmt.Errorf("%w: %d of %d log files are polled (reopened when they grow) instead of held open: "+
			"at most %d are held under the open-file limit (RLIMIT_NOFILE %d); raise it (ulimit -n) or narrow the log globs",
			ErrPolled, n, len(r.files), r.budget, r.softLimit))
	}
}
