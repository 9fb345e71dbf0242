package clientpatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
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

// InspectOptions say whose client a module is and where its backups are;
// the zero value is usable.
type InspectOptions struct {
	// Host is the host whose client the module is, as its profile says
	// (the backup folder, and the names in the advice); zero: host.DSH().
	Host host.Profile
	// Home holds the backups (the profile's Client.BackupDir under it);
	// "" skips them, so Backup stays empty and a file patched with Force
	// over an unknown version reads as modified.
	Home string
}

// maxModuleSize bounds what Inspect reads; a client module is a few
// hundred KiB.
const maxModuleSize = 64 << 20

// Inspect reads the module at path and says its state. It reads the file
// once and hashes it: cheap enough to call every minute.
func Inspect(path string, o InspectOptions) (Status, error) {
	t := targetOf(o.Host)
	// Non-blocking and regular only: a FIFO swapped in after Find must
	// not hang the daemon's look every minute (nor its shutdown).
	content, err := fsutil.ReadRegular(path, maxModuleSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Status{Module: path, State: StateNotFound, Advice: t.advice().notFound},
				fmt.Errorf("%w: %s", t.notFound(), path)
		}
		return Status{Module: path}, fmt.Errorf("clientpatch: %w", err)
	}
	bk := t.backups(o.Home)
	st := t.analyze(content, bk.hasDigest).Status
	st.Module = path
	st.Backup, _ = bk.newest()
	return st, nil
}

// analysis is a Status plus what Apply and Revert act on.
type analysis struct {
	Status
	stripped []byte // the file minus our blocks, when they pair up
}

// analyze classifies content, in t's words. forcedBase says whether a
// backup holds a file with this digest: the original of a patch applied
// with Force.
func (t target) analyze(content []byte, forcedBase func(digest string) bool) analysis {
	a := analysis{Status: Status{Digest: digest(content)}}
	say := t.advice()
	if !bytes.Contains(content, []byte(markerTag)) {
		if b, ok := knownBase(a.Digest); ok {
			a.State, a.BaseDigest, a.Base, a.Advice = StateUnpatched, a.Digest, b.name(t.name()), say.unpatched
		} else {
			a.State, a.Advice = StateUnknownVersion, say.unknown
		}
		return a
	}
	a.State, a.Advice = StateModified, say.modified
	rest, found, ok := strip(content)
	for _, f := range found {
		a.Parts = append(a.Parts, f.name+" "+f.version)
	}
	if !ok {
		return a
	}
	a.stripped = rest
	base := digest(rest)
	b, known := knownBase(base)
	name := b.name(t.name())
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
	a.Trigger, a.Retry, a.Advice = true, version == Version, say.applied // the register block is the trigger
	if version != Version {
		a.Advice = say.outdated
	}
	return a
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
