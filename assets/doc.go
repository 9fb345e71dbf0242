// Package assets holds the tray icons, embedded so the binary needs no
// files beside it. They are drawn by ./internal/gen (run it with
// `go run ./internal/gen` from this directory) and committed.
package assets
