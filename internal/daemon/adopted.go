package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// adoptedJournaledName keeps which adoptions the journal has told: the
// record (adopt.RecordFile) is written by `watchdog hosts adopt` and
// release, which do not write the journal; the daemon tells each change
// once, whichever of its runs sees it first.
const adoptedJournaledName = "adopted-journaled.json"

// adoptedSource follows the adoption record, and tells what changed since
// the journal last said (also what changed while no daemon ran: the
// first look is handed over as soon as the watch is set).
func (d *daemon) adoptedSource() source {
	s := dirwatch.NewFile("adoption record", filepath.Join(d.stateDir, adopt.RecordFile), d.src.dirs, func(context.Context, []byte, error) item {
		return adoptedIn{}
	})
	s.Initial = func() item { return adoptedIn{} }
	return s
}

// tellAdoptions journals host_adopted for each host the record adopts (or
// whose adopted servers changed) and host_released for each it no longer
// holds, since the journal last said (loop only).
func (d *daemon) tellAdoptions() {
	now, err := adopt.Adopted(d.stateDir)
	if err != nil {
		d.log.Warn("cannot read the adoption record", "err", err)
		return
	}
	path := filepath.Join(d.stateDir, adoptedJournaledName)
	told := map[string][]string{}
	if b, err := fsutil.ReadPrivate(path, 1<<20); err == nil {
		_ = json.Unmarshal(b, &told)
	} else if !errors.Is(err, fs.ErrNotExist) {
		d.log.Warn("cannot read which adoptions were journaled", "err", err)
	}
	var evs []health.Event
	for _, name := range slices.Sorted(maps.Keys(now)) {
		if !slices.Equal(now[name], told[name]) {
			evs = append(evs, adoptedEvent(name, now[name], d.now()))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(told)) {
		if _, still := now[name]; !still {
			evs = append(evs, health.Event{Time: d.now(), Kind: health.EvHostReleased, Extra: map[string]any{"host": name},
				Detail: name + "'s servers are back at their own URLs (watchdog hosts release)" + restartAdvice(name)})
		}
	}
	if len(evs) == 0 {
		return
	}
	d.emit(evs)
	if b, err := json.Marshal(now); err == nil {
		if err := fsutil.WriteAtomic(path, b, 0o600); err != nil {
			d.log.Warn("cannot note which adoptions were journaled; a restart tells them again", "err", err)
		}
	}
}

func adoptedEvent(name string, servers []string, now time.Time) health.Event {
	return health.Event{Time: now, Kind: health.EvHostAdopted, Extra: map[string]any{"host": name, "servers": servers},
		Detail: name + "'s servers " + strings.Join(servers, ", ") + " go through the watchdog's proxy (watchdog hosts adopt)" + restartAdvice(name)}
}

// restartAdvice: a host that does not reload its config must be restarted
// to read the changed one.
func restartAdvice(name string) string {
	p, ok := host.Lookup(name)
	switch {
	case ok && p.ReadsConfigLive:
		return ""
	case ok && p.OneShot:
		return "; its next run reads its changed config"
	}
	return "; restart " + name + " so that it reads its changed config"
}
