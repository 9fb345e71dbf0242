package adopt

import (
	"fmt"
	"maps"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// watchHost makes the watchdog's config watch the adopted host, when it
// does not yet: a [[host]] table naming it, so that its losses are
// journaled under its own name and told in its own words. What was added
// goes into the record, which release takes out when nothing of that host
// stays adopted. It says so in a line ("" when nothing was added).
func watchHost(o *Options, cfgData []byte, rec *Record, picks []pick) ([]byte, string, error) {
	if !slices.ContainsFunc(picks, func(p pick) bool { return p.verdict == adoptIt || p.verdict == repair || p.verdict == already }) {
		return cfgData, "", nil
	}
	w, err := config.ReadWatchedHosts(cfgData)
	if err != nil {
		return nil, "", fmt.Errorf("the watchdog's config %s: %w; fix it, then adopt again", o.ConfigPath, err)
	}
	if w.Watches(o.Host) {
		return cfgData, "", nil
	}
	for _, n := range w.Names {
		if p, ok := host.Lookup(n); ok && p.ClientName == o.Host.ClientName {
			return cfgData, fmt.Sprintf("the watchdog watches %s, whose client calls itself %s as %s's does: it cannot tell their sessions apart, "+
				"so %s's losses are told under %s", p.Name, o.Host.ClientName, o.Host.Name, o.Host.Name, p.Name), nil
		}
	}
	out, added, err := config.AddHost(cfgData, o.Host.Name, "adopted")
	if err != nil {
		return nil, "", fmt.Errorf("the watchdog's config %s: %w; nothing was changed", o.ConfigPath, err)
	}
	if err := loads(o.ConfigPath, out); err != nil {
		return nil, "", fmt.Errorf("the watchdog's config would not load watching %s, so nothing was changed: %w", o.Host.Name, err)
	}
	if rec.Watched == nil {
		rec.Watched = map[string]config.HostAdded{}
	}
	rec.Watched[o.Host.Name] = added
	return out, "the watchdog now watches " + o.Host.Name + " too (a [[host]] table in its config), so its losses are told under its name", nil
}

// unwatchHost takes out of data the [[host]] table adopt added for the
// host, once nothing of it stays adopted; the last one also takes out what
// kept the hosts watched before. A table edited since is left and said.
func (ch *change) unwatchHost(name string, rec *Record, data []byte) []byte {
	added, ok := rec.Watched[name]
	if !ok || rec.Hosts[name] != nil {
		return data
	}
	delete(rec.Watched, name)
	last := len(rec.Watched) == 0
	if !last && (added.Default.Text != "" || added.Lone != nil) {
		// What kept the hosts watched before stays while another adopted
		// host's table does: its record takes it over.
		heir := slices.Sorted(maps.Keys(rec.Watched))[0]
		h := rec.Watched[heir]
		h.Default, h.Lone = added.Default, added.Lone
		rec.Watched[heir] = h
	}
	out, ok := added.Remove(data, last)
	if !ok {
		ch.res.Lines = append(ch.res.Lines, fmt.Sprintf("the [[host]] table of %s was left in the watchdog's config (its lines were edited since)", name))
	}
	return out
}

// loads checks that the watchdog's config would load as data: adopt
// never writes one the running daemon would refuse.
func loads(path string, data []byte) error {
	_, err := config.Parse(path, data)
	return err
}
