package adopt

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/hostconfig"
)

// Release puts back the original URL literals of every file adopt changed
// for the host, and takes out of the watchdog's config the proxies no
// other adopted host uses. A file whose adopted URLs were changed since is
// refused, and then nothing at all is written, unless o.Force.
func Release(o Options) (Result, error) {
	o.fill()
	rec, err := loadRecord(o.StateDir)
	if err != nil {
		return Result{}, err
	}
	hr := rec.Hosts[o.Host.Name]
	if hr == nil {
		return Result{}, fmt.Errorf("%s: %w by the watchdog: there is nothing to release", o.Host.Name, ErrNotAdopted)
	}
	outs, res, err := restore(o, hr)
	if err != nil {
		return Result{}, err
	}
	cfgData, cfgRes, err := unconfigure(o, rec, hr)
	if err != nil {
		return Result{}, err
	}
	res.Lines = append(res.Lines, cfgRes...)
	for path, b := range outs {
		if err := writeFile(path, b); err != nil {
			return Result{}, err
		}
	}
	delete(rec.Hosts, o.Host.Name)
	if err := putConfig(o.ConfigPath, cfgData, rec); err != nil {
		return Result{}, fmt.Errorf("%w (the host's files are put back)", err)
	}
	if err := rec.save(o.StateDir); err != nil {
		return Result{}, fmt.Errorf("%w (the host's files are put back)", err)
	}
	res.Changed = true
	res.RestartHost = !o.Host.ReadsConfigLive
	return res, nil
}

// restore computes each file put back; it writes nothing.
func restore(o Options, hr *HostRecord) (map[string][]byte, Result, error) {
	outs := map[string][]byte{}
	var res Result
	var changed []string
	for _, fr := range hr.Files {
		format, err := hostconfig.FormatOf(fr.Path)
		if err != nil {
			return nil, Result{}, err
		}
		data, err := readFile(fr.Path)
		if err != nil {
			return nil, Result{}, fmt.Errorf("%w; nothing was changed (its backup: %s)", err, fr.Backup)
		}
		now, err := hostconfig.Servers(format, data, o.Host.LayoutOf(fr.Path))
		if err != nil {
			return nil, Result{}, fmt.Errorf("%s: %w; nothing was changed (its backup: %s)", fr.Path, err, fr.Backup)
		}
		var edits []hostconfig.Edit
		for _, s := range fr.Servers {
			cur, found := at(now, s.Path)
			switch {
			case found && cur.URL == s.ProxyURL:
			case !found:
				changed = append(changed, fmt.Sprintf("%s: %s is gone from the file", fr.Path, s.Name))
				continue
			case cur.URL == s.URL:
				res.Lines = append(res.Lines, s.Name+": already back at its own URL")
				continue
			default:
				changed = append(changed, fmt.Sprintf("%s: %s's URL was changed since", fr.Path, s.Name))
				if !o.Force {
					continue
				}
			}
			edits = append(edits, hostconfig.Edit{Path: s.Path, From: cur.URL, To: s.URL, Literal: s.Literal})
			res.Lines = append(res.Lines, s.Name+": back at its own URL")
		}
		if len(edits) == 0 {
			continue
		}
		out, err := hostconfig.Rewrite(format, data, o.Host.LayoutOf(fr.Path), edits)
		if err != nil {
			return nil, Result{}, fmt.Errorf("%s: %w; nothing was changed", fr.Path, err)
		}
		outs[fr.Path] = out
	}
	if len(changed) > 0 && !o.Force {
		return nil, Result{}, fmt.Errorf("%w, so nothing was changed: %s; put them back by hand, or run release with --force to write the original URLs over them",
			ErrChanged, strings.Join(changed, "; "))
	}
	return outs, res, nil
}

func at(servers []hostconfig.Server, path []string) (hostconfig.Server, bool) {
	i := slices.IndexFunc(servers, func(s hostconfig.Server) bool { return slices.Equal(s.Path, path) })
	if i < 0 {
		return hostconfig.Server{}, false
	}
	return servers[i], true
}

// unconfigure takes the host off the proxies it used and removes what adopt
// added for those nobody uses now. It returns the config to write (nil:
// unchanged) and a line for each proxy left in place.
func unconfigure(o Options, rec *Record, hr *HostRecord) ([]byte, []string, error) {
	data, existed, err := readConfig(o.ConfigPath)
	if err != nil || !existed {
		return nil, nil, err
	}
	var lines []string
	changed := false
	for _, name := range usedBy(hr) {
		c := rec.Config[name]
		if c == nil {
			continue
		}
		c.Users = slices.DeleteFunc(c.Users, func(u string) bool { return u == o.Host.Name })
		if len(c.Users) > 0 || c.Added.Text == "" {
			continue
		}
		var ok bool
		if data, ok = c.Added.Remove(data); ok {
			changed = true
		} else {
			lines = append(lines, fmt.Sprintf("watchdog server %q: its proxy was left in the config (its lines were edited since)", name))
		}
		delete(rec.Config, name)
	}
	if !changed {
		return nil, lines, nil
	}
	return data, lines, nil
}

func usedBy(hr *HostRecord) []string {
	var names []string
	for _, fr := range hr.Files {
		for _, s := range fr.Servers {
			if !slices.Contains(names, s.Server) {
				names = append(names, s.Server)
			}
		}
	}
	return names
}

// putConfig writes the watchdog's config released (nil: unchanged), or
// removes it when adopt made it and it is back to what adopt first wrote.
func putConfig(path string, data []byte, rec *Record) error {
	if data == nil {
		return nil
	}
	if len(rec.Hosts) == 0 && rec.CreatedConfig != "" && string(data) == rec.CreatedConfig {
		rec.CreatedConfig = ""
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("removing the watchdog config adopt made: %w", err)
		}
		return nil
	}
	return writeConfig(path, data)
}
