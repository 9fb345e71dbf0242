package assets

import (
	"embed"
	"errors"
	"fmt"
)

//go:embed icons/*.png
var icons embed.FS

// ErrUnknownIcon is returned for a state with no icon.
var ErrUnknownIcon = errors.New("assets: unknown icon")

// Icon returns the colour PNG for a state (Linux, Windows).
func Icon(state string) ([]byte, error) {
	return read(state + ".png")
}

// Template returns the black-and-alpha PNG for a state (macOS menu bar).
func Template(state string) ([]byte, error) {
	return read(state + "_template.png")
}

func read(name string) ([]byte, error) {
	b, err := icons.ReadFile("icons/" + name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownIcon, name)
	}
	return b, nil
}
