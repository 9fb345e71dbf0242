package clientpatch

import (
	"bytes"
	"testing"
)

// FuzzAnalyze: any file content (the module is not ours to trust) is
// classified without panicking; whatever the patch builds reverts to the
// input exactly and reads as applied; a file with our markers is never
// "unpatched" or "unknown".
func FuzzAnalyze(f *testing.F) {
	_, orig := realClient(f)
	patched, err := build(orig)
	mustDo(f, err)
	for _, s := range [][]byte{
		orig, patched, nil, []byte("\n"),
		[]byte("function startConnection(a) {\n\t\tgeneration.onclose = () => {\n\tlet settling = connectGeneration(true);\n\t\tasync dispose() {\n\t\t\tdisposed = true;\n"),
		[]byte("function startConnection(\r\ngeneration.onclose = () => {\r\nlet settling = connectGeneration(true);\r\nasync dispose() {\r\ndisposed = true;"),
		[]byte("/* mcp-watchdog:begin module v1 */\n/* mcp-watchdog:end module v1 */\n"),
		[]byte("/* mcp-watchdog:begin module v1 */\n/* mcp-watchdog:begin onerror v1 */\n"),
		[]byte("x /* mcp-watchdog:end dispose v2 */"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		a := dsh().analyze(content, "", func(string) bool { return true })
		marked := bytes.Contains(content, []byte(markerTag))
		if marked && (a.State == StateUnpatched || a.State == StateUnknownVersion) {
			t.Fatalf("marked file read as %s", a.State)
		}
		if !marked && a.State != StateUnpatched && a.State != StateUnknownVersion {
			t.Fatalf("unmarked file read as %s", a.State)
		}
		p, err := build(content)
		if err != nil {
			return
		}
		back, _, ok := strip(p)
		if !ok || !bytes.Equal(back, content) {
			t.Fatalf("strip(build(x)) != x")
		}
		// Its original is "backed up" (the callback says yes to any digest).
		if st := dsh().analyze(p, "", func(string) bool { return true }); st.State != StateApplied {
			t.Fatalf("a built file reads as %s", st.State)
		}
	})
}
