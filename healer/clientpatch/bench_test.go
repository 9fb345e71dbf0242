package clientpatch

import (
	"testing"
)

// BenchmarkInspect: the daemon's once-a-minute check of a patched module
// with a backup (read, sha256, strip, rebuild, list backups).
func BenchmarkInspect(b *testing.B) {
	p, _ := realClient(b)
	o := opts(b)
	if _, err := Install(p, o); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if st, err := Inspect(p, InspectOptions{Home: o.Home}); err != nil || st.State != StateApplied {
			b.Fatalf("%+v, %v", st, err)
		}
	}
}
