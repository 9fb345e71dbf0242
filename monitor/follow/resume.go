package follow

import "sync"

// ackKey identifies a file in the checkpoint. The path is part of it so that
// two files that begin with the same first line (a fixed banner) and live
// side by side (app.log, app.log.1) keep separate offsets.
type ackKey struct{ path, fp string }

func keyOf(p Position) ackKey { return ackKey{p.Path, p.Fingerprint} }

// maxAliasHops bounds alias chains (a file renamed several times).
const maxAliasHops = 8

// acks holds the positions the consumer acknowledged: the checkpoint's
// content. Ack runs on the consumer's goroutine, the rest on Run's.
type acks struct {
	mu      sync.Mutex
	pos     map[ackKey]int64
	live    map[ackKey]int    // keys of open files; a count, as a retired file and its successor may share one
	carried map[ackKey]bool   // loaded positions no file has claimed yet: kept until known stale
	alias   map[ackKey]ackKey // old key → key after a rename, for acks still in flight
	dirty   bool
	// changed gets a token whenever dirty becomes true, so the checkpoint
	// writer sleeps until there is something to write.
	changed chan struct{}
}

func newAcks(loaded []Position) *acks {
	a := &acks{
		pos:     make(map[ackKey]int64),
		live:    make(map[ackKey]int),
		carried: make(map[ackKey]bool),
		alias:   make(map[ackKey]ackKey),
		changed: make(chan struct{}, 1),
	}
	for _, p := range loaded {
		k := keyOf(p)
		a.pos[k] = max(a.pos[k], p.Offset)
		a.carried[k] = true
	}
	return a
}

func (a *acks) resolve(k ackKey) ackKey {
	for range maxAliasHops {
		next, ok := a.alias[k]
		if !ok {
			break
		}
		k = next
	}
	return k
}

// ack records that everything up to p is handled. Offsets only move forward.
func (a *acks) ack(p Position) {
	if p.Path == "" || p.Fingerprint == "" || p.Offset <= 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	k := a.resolve(keyOf(p))
	if p.Offset > a.pos[k] {
		a.pos[k] = p.Offset
		a.touchLocked()
	}
}

// open registers a followed file. start is where it resumed: handled in an
// earlier run, so it stays in the checkpoint even before a new ack. A file
// that takes over a key replaces whatever offset was stored under it.
func (a *acks) open(k ackKey, start int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live[k] == 0 {
		a.setLocked(k, start)
	}
	a.live[k]++
	delete(a.alias, k) // k belongs to a live file again
	delete(a.carried, k)
	a.touchLocked()
}

func (a *acks) setLocked(k ackKey, off int64) {
	if off > 0 {
		a.pos[k] = off
	} else {
		delete(a.pos, k)
	}
}

// close forgets a file that is no longer followed.
func (a *acks) close(k ackKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unliveLocked(k)
	a.touchLocked()
}

func (a *acks) unliveLocked(k ackKey) {
	if a.live[k]--; a.live[k] > 0 {
		return
	}
	delete(a.live, k)
	delete(a.pos, k)
	for from, to := range a.alias {
		if to == k {
			delete(a.alias, from)
		}
	}
}

// rename moves a live file's entry to its new path; acks for lines sent
// under the old path follow it.
func (a *acks) rename(from, to ackKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	off := a.pos[from]
	if a.live[to] > 0 {
		off = max(off, a.pos[to])
	}
	a.unliveLocked(from)
	a.setLocked(to, off)
	a.live[to]++
	delete(a.carried, to)
	delete(a.alias, to)
	a.alias[from] = to
	a.touchLocked()
}

// uncarry drops a loaded position: claimed by a file, or known stale.
func (a *acks) uncarry(k ackKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.carried, k)
	a.touchLocked()
}

// snapshot returns the positions to save, or false when nothing changed.
// Entries of files no longer followed are dropped here.
func (a *acks) snapshot() ([]Position, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.dirty {
		return nil, false
	}
	a.dirty = false
	ps := make([]Position, 0, len(a.pos))
	for k, off := range a.pos {
		if a.live[k] == 0 && !a.carried[k] {
			delete(a.pos, k)
			continue
		}
		ps = append(ps, Position{Path: k.path, Fingerprint: k.fp, Offset: off})
	}
	for from, to := range a.alias {
		if a.live[to] == 0 {
			delete(a.alias, from)
		}
	}
	return ps, true
}

// touchLocked marks the positions changed and wakes the checkpoint writer.
func (a *acks) touchLocked() {
	a.dirty = true
	select {
	case a.changed <- struct{}{}:
	default: // a wake is already pending
	}
}

func (a *acks) markDirty() {
	a.mu.Lock()
	a.touchLocked()
	a.mu.Unlock()
}

// known holds the loaded positions (checkpoint and Resume) that no file has
// claimed yet; only Run's goroutine uses it.
type known struct {
	byFP  map[string][]Position // fingerprint → best offset per path
	paths map[string]bool       // every path a loaded position named
}

func newKnown(loaded []Position) *known {
	k := &known{byFP: make(map[string][]Position), paths: make(map[string]bool)}
	for _, p := range loaded {
		k.paths[p.Path] = true
		k.add(p)
	}
	return k
}

func (k *known) add(p Position) {
	list := k.byFP[p.Fingerprint]
	for i := range list {
		if list[i].Path == p.Path {
			list[i].Offset = max(list[i].Offset, p.Offset)
			return
		}
	}
	k.byFP[p.Fingerprint] = append(list, p)
}

// match finds the loaded position for a file at path with fingerprint fp:
// the one saved under the same path, else (the file was renamed while the
// follower was down) the furthest one saved under another path.
func (k *known) match(path, fp string) (Position, bool) {
	var best Position
	found := false
	for _, p := range k.byFP[fp] {
		if p.Path == path {
			return p, true
		}
		if !found || p.Offset > best.Offset {
			best, found = p, true
		}
	}
	return best, found
}

func (k *known) remove(p Position) {
	list := k.byFP[p.Fingerprint]
	for i := range list {
		if list[i].Path == p.Path {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(k.byFP, p.Fingerprint)
		return
	}
	k.byFP[p.Fingerprint] = list
}

// all lists the unclaimed positions.
func (k *known) all() []Position {
	var ps []Position
	for _, list := range k.byFP {
		ps = append(ps, list...)
	}
	return ps
}
