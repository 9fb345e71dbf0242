// Package mask hides credentials before they leave the process.
package mask

// ID masks a session id as its first 4 and last 4 characters around "…".
// Ids too short to keep 8 characters and still hide something are hidden
// whole: showing most of a short id would show the credential.
func ID(id string) string {
	if id == "" {
		return ""
	}
	r := []rune(id)
	if len(r) < 12 {
		return "…"
	}
	return string(r[:4]) + "…" + string(r[len(r)-4:])
}
