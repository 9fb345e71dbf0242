package demo

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// summary prints the table that ends the demo.
func (s *stage) summary(res Result) {
	s.n.plain("")
	s.n.plain("%s", SummaryTable(res))
}

// SummaryTable renders the acts, one row each, and the verdict.
func SummaryTable(res Result) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "act\twhat\tresult\tevidence")
	for _, a := range res.Acts {
		verdict, ev := "ok", a.Evidence
		if !a.OK {
			verdict, ev = "FAILED", a.Failure
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", a.N, a.Title, verdict, ev)
	}
	_ = w.Flush()
	if res.OK() {
		fmt.Fprintf(&b, "every act did what it narrated (%s)", res.Took.Round(100*time.Millisecond))
	} else {
		fmt.Fprintf(&b, "the demo FAILED; its files are kept in %s", res.Dir)
	}
	return b.String()
}
