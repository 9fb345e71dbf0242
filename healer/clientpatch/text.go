package clientpatch

import (
	"fmt"
	"io"
	"strings"
)

// writeFeatures lists the patch's parts: in the file, or what an apply
// would put in, then the ones left out with the anchor each missed and
// what goes without it.
func writeFeatures(w io.Writer, st Status) {
	in, label := st.Present, "in"
	if st.State != StateApplied {
		in, label = st.WouldApply, "would go in"
	}
	if len(in)+len(st.Missing) == 0 {
		return
	}
	fmt.Fprintln(w, "parts:")
	for _, f := range in {
		fmt.Fprintf(w, "  %-8s %s: %s\n", f.Name, label, f.Gives)
	}
	for _, f := range st.Missing {
		fmt.Fprintf(w, "  %-8s missing (%s): %s\n", f.Name, f.Missed, f.Without)
	}
}

// WriteText writes the status for a person, as `watchdog patch` prints
// it: the module, its state in one line, its digest and backup, the
// patch's parts, and the advice, in one write.
func (st Status) WriteText(w io.Writer) error {
	var b strings.Builder
	if st.Module != "" {
		fmt.Fprintf(&b, "module: %s\n", st.Module)
	}
	fmt.Fprintf(&b, "state:  %s\n", st.Summary())
	if st.Digest != "" {
		fmt.Fprintf(&b, "sha256: %s\n", st.Digest)
	}
	if st.Backup != "" {
		fmt.Fprintf(&b, "backup: %s\n", st.Backup)
	}
	writeFeatures(&b, st)
	if st.Advice != "" {
		fmt.Fprintln(&b, st.Advice)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
