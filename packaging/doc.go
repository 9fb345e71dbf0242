// Package packaging holds the desktop packaging (macOS Info.plist, the Linux
// menu entry, icons, systemd user unit, nfpm config) and the tests that check
// them and the .deb that scripts/deb.sh builds. The unit and the icons are
// generated: edit internal/autostart/templates or assets/icons, then run
// `go generate ./packaging` from the repo root.
package packaging

//go:generate go run ./internal/gen -root ..
