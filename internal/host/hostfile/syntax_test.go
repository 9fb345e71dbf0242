package hostfile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

// syntax is what a host's own parser takes: a rewritten file must still
// parse there, not only in this package's tolerant reading.
type syntax int

const (
	strictJSON syntax = iota // encoding/json: no comments, no trailing commas
	jsonc                    // JSON with comments and trailing commas
	yamlSyntax
	tomlSyntax
)

// check parses data as the host would, and fails with why not.
func (s syntax) check(data []byte) error {
	var v any
	switch s {
	case strictJSON:
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("strict JSON: %w", err)
		}
		if dec.More() {
			return fmt.Errorf("strict JSON: more than one value")
		}
	case jsonc:
		std, err := hujson.Standardize(bytes.Clone(data))
		if err != nil {
			return fmt.Errorf("JSON with comments: %w", err)
		}
		return json.Unmarshal(std, &v)
	case yamlSyntax:
		return yaml.Unmarshal(data, &v)
	case tomlSyntax:
		return toml.Unmarshal(data, &v)
	}
	return nil
}
