package clientpatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

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
	StateUnsupported    State = "unsupported"     // a known build the patch cannot fix (it never reconnects)
	StateNotFound       State = "not_found"       // no file
)

// Status is one client module's patch state.
type Status struct {
	Module     string   `json:"module"`
	State      State    `json:"state"`
	Digest     string   `json:"digest,omitempty"`          // sha256 of the file now
	BaseDigest string   `json:"base_digest,omitempty"`     // sha256 of the original, when known
	Base       string   `json:"base,omitempty"`            // which known build the original is
	Package    string   `json:"package_version,omitempty"` // version in the package.json beside the module
	Parts      []string `json:"parts,omitempty"`           // marked blocks present: "module v3", "retry v3", …
	Version    string   `json:"version,omitempty"`         // patch version when applied (older ones: apply upgrades them)
	Trigger    bool     `json:"trigger"`                   // the recovery trigger is in
	Retry      bool     `json:"retry"`                     // a call that meets a lost session is retried once
	// Present are the features in the file (applied); WouldApply, before
	// an apply, the ones `apply` would put in; Missing the ones that are
	// not in, or cannot go in, each with the anchor it missed and what the
	// user goes without.
	Present    []FeatureStatus `json:"present,omitempty"`
	WouldApply []FeatureStatus `json:"would_apply,omitempty"`
	Missing    []FeatureStatus `json:"missing,omitempty"`
	Backup     string          `json:"backup,omitempty"` // newest backup
	Advice     string          `json:"advice"`           // one sentence: what to do
}

// FeatureStatus is one feature of the patch (FeatureCore, …): what it
// buys and, when it is not in, why and what is lost without it.
type FeatureStatus struct {
	Name    string `json:"name"`
	Gives   string `json:"gives"`
	Missed  string `json:"missed,omitempty"`
	Without string `json:"without,omitempty"`
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
	st := t.analyze(content, t.packageVersion(path), bk.hasDigest).Status
	st.Module = path
	st.Backup, _ = bk.newest()
	return st, nil
}

// analysis is a Status plus what Install and Revert act on.
type analysis struct {
	Status
	stripped []byte // the file minus our blocks, when they pair up
}

// analyze classifies content, in t's words. pkgVersion is the version
// its package.json names ("" none); forcedBase says whether a backup
// holds a file with this digest: the original of a patch applied with
// Force.
func (t target) analyze(content []byte, pkgVersion string, forcedBase func(digest string) bool) analysis {
	a := analysis{Status: Status{Digest: digest(content), Package: pkgVersion}}
	if !bytes.Contains(content, []byte(markerTag)) {
		return t.analyzeOriginal(a, content)
	}
	say := t.advice()
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
	if !known && (forcedBase == nil || !forcedBase(base)) {
		return a
	}
	version := found[0].version // strip found at least one block: content has markers
	if !knownVersion(version) {
		return a
	}
	want, p, err := buildPlan(rest, version)
	if err != nil || !bytes.Equal(want, content) {
		return a // also when the blocks mix versions
	}
	a.State, a.BaseDigest, a.Base, a.Version = StateApplied, base, b.name(t.name(), pkgVersion), version
	if !known {
		a.Base = "an unknown version (patched with --force)"
	}
	a.Advice = say.applied
	if version != Version {
		a.Advice = say.outdated(version)
	}
	t.report(&a.Status, p, version, true)
	if len(p.missed) > 0 {
		a.Advice = say.partial(featureNames(a.Missing))
	}
	return a
}

// analyzeOriginal classifies a file without our blocks, and says what an
// apply would put in.
func (t target) analyzeOriginal(a analysis, content []byte) analysis {
	say := t.advice()
	b, known := knownBase(a.Digest)
	_, p, err := buildPlan(content, Version)
	t.report(&a.Status, p, Version, false)
	switch {
	case known && b.noSupervisor:
		a.State, a.Base = StateUnsupported, b.name(t.name(), a.Package)
		a.Advice = say.unsupported(a.Base)
		a.WouldApply = nil // Install refuses it
	case known:
		a.State, a.BaseDigest, a.Base, a.Advice = StateUnpatched, a.Digest, b.name(t.name(), a.Package), say.unpatched
	case err != nil && len(a.Missing) > 0 && a.Missing[0].Name == FeatureCore:
		a.State, a.Advice = StateUnknownVersion, say.noCore(a.Missing[0].Missed)
		a.WouldApply = nil // nothing goes in without the core fix
	default:
		a.State, a.Advice = StateUnknownVersion, say.unknown
	}
	return a
}

// report fills in the features of plan p: in the file when applied, or
// what an apply would put in.
func (t target) report(st *Status, p plan, version string, applied bool) {
	for _, name := range p.in {
		f := t.feature(name)
		if applied {
			st.Present = append(st.Present, f)
		} else {
			st.WouldApply = append(st.WouldApply, f)
		}
	}
	for _, m := range p.missed {
		f := t.feature(m.name)
		f.Missed = strings.TrimPrefix(m.err.Error(), ErrAnchorsMissing.Error()+": ")
		st.Missing = append(st.Missing, f)
	}
	if applied && version == versionV1 {
		f := t.feature(FeatureRetry)
		f.Missed = "patch v1 has none; `watchdog patch apply` upgrades it"
		st.Missing = append(st.Missing, f)
	}
	st.Trigger = applied && p.has(FeatureTrigger)
	st.Retry = applied && p.has(FeatureRetry)
}

func featureNames(fs []FeatureStatus) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
