package clientpatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// State is what a client module's file is, as far as the patch goes.
type State string

// States (status document: host.patch maps from them).
const (
	StateUnpatched      State = "unpatched"       // a known base: has the bug
	StateApplied        State = "applied"         // our blocks, intact, on a known base
	StateUnknownVersion State = "unknown_version" // no blocks, not a known base
	StateModified       State = "modified"        // our markers, but blocks or the rest changed
	StateNotFound       State = "not_found"       // no file
)

// Status is one client module's patch state.
type Status struct {
	Module     string   `json:"module"`
	State      State    `json:"state"`
	Digest     string   `json:"digest,omitempty"`      // sha256 of the file now
	BaseDigest string   `json:"base_digest,omitempty"` // sha256 of the original, when known
	Base       string   `json:"base,omitempty"`        // which known build the original is
	Parts      []string `json:"parts,omitempty"`       // marked blocks present: "module v2", "retry v2", …
	Version    string   `json:"version,omitempty"`     // patch version when applied ("v1": no retry; apply upgrades it)
	Trigger    bool     `json:"trigger"`               // the recovery trigger is in
	Retry      bool     `json:"retry"`                 // a call that meets a lost session is retried once (v2)
	Backup     string   `json:"backup,omitempty"`      // newest backup
	Advice     string   `json:"advice"`                // one sentence: what to do
}

// Inspect reads the module at path and says its state. home is where the
// backups are (Home/.dsh/backups/…); "" skips them, so Backup stays empty
// and a file patched with Force over an unknown version reads as modified.
// It reads the file once and hashes it: cheap enough to call every minute.
func Inspect(path, home string) (Status, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Status{Module: path, State: StateNotFound, Advice: adviceNotFound},
				fmt.Errorf("%w: %s", ErrNotFound, path)
		}
		return Status{Module: path}, fmt.Errorf("clientpatch: %w", err)
	}
	bk := backups{home: home}
	st := analyze(content, bk.hasDigest).Status
	st.Module = path
	st.Backup, _ = bk.newest()
	return st, nil
}

// analysis is a Status plus what Apply and Revert act on.
type analysis struct {
	Status
	stripped []byte // the file minus our blocks, when they pair up
}

// analyze classifies content. forcedBase says whether a backup holds a
// file with this digest: the original of a patch applied with Force.
func analyze(content []byte, forcedBase func(digest string) bool) analysis {
	a := analysis{Status: Status{Digest: digest(content)}}
	if !bytes.Contains(content, []byte(markerTag)) {
		if name, ok := knownBase(a.Digest); ok {
			a.State, a.BaseDigest, a.Base, a.Advice = StateUnpatched, a.Digest, name, adviceUnpatched
		} else {
			a.State, a.Advice = StateUnknownVersion, adviceUnknown
		}
		return a
	}
	a.State, a.Advice = StateModified, adviceModified
	rest, found, ok := strip(content)
	for _, f := range found {
		a.Parts = append(a.Parts, f.name+" "+f.version)
	}
	if !ok {
		return a
	}
	a.stripped = rest
	base := digest(rest)
	name, known := knownBase(base)
	if !known && (forcedBase == nil || !forcedBase(base)) {
		return a
	}
	version := found[0].version // strip found at least one block: content has markers
	if !knownVersion(version) {
		return a
	}
	if want, err := buildVersion(rest, version); err != nil || !bytes.Equal(want, content) {
		return a // also when the blocks mix versions
	}
	if !known {
		name = "an unknown version (patched with --force)"
	}
	a.State, a.BaseDigest, a.Base, a.Version = StateApplied, base, name, version
	a.Trigger, a.Retry, a.Advice = true, version == Version, adviceApplied // the register block is the trigger
	if version != Version {
		a.Advice = adviceOutdated
	}
	return a
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Advice, one sentence each.
const (
	adviceUnpatched = "this client has the session-loss bug: run `watchdog patch apply`, then restart DSH"
	adviceApplied   = "the fix is in: restart DSH if it was running when the patch was applied; reinstalling or updating DSH removes the patch (run `watchdog patch apply` again then)"
	adviceUnknown   = "this dsh-mcp-client build is not one the patch knows: check that it still lacks an onerror handler (`grep -c onerror lib/index.js` is 0), then `watchdog patch apply --force` edits it only if every anchor is found"
	adviceOutdated  = "an older patch (v1) is in: a lost session heals, but the call that meets it still fails; run `watchdog patch apply` to upgrade it to v2 (that call is then retried once on the new session), then restart DSH"
	adviceModified  = "the patched file was changed after patching: `watchdog patch revert --force` restores the original from the backup, then run `watchdog patch apply` again"
	adviceNotFound  = "dsh-mcp-client was not found: pass --module PATH/lib/index.js or set host.client_module in the config"
	adviceRestart   = "restart DSH so it loads the change; reinstalling or updating DSH removes the patch (run `watchdog patch apply` again then)"
)
