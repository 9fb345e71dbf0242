package adopt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// RecordFile is the record's name in the state directory.
const RecordFile = "adopted.json"

// Record is what adopt changed, to undo it.
type Record struct {
	// Hosts are the adopted hosts by profile name.
	Hosts map[string]*HostRecord `json:"hosts"`
	// Config is what adopt added to the watchdog's config, per watchdog
	// server name, and which hosts use that proxy.
	Config map[string]*ConfigRecord `json:"config"`
	// Watched are the [[host]] tables adopt added to the watchdog's
	// config, per host: release takes one out when nothing of its host
	// stays adopted.
	Watched map[string]config.HostAdded `json:"watched,omitempty"`
	// CreatedConfig is the text adopt wrote when there was no watchdog
	// config file: release removes the file once it is that again.
	CreatedConfig string `json:"created_config,omitempty"`
	// Released are the entries released since (the newest keepReleased):
	// a host that writes its file back from a copy it read before release
	// puts adopt's URL back, and adopt must still know it as its own.
	Released []Released `json:"released,omitempty"`
}

// Released is a server entry adopt once routed through the proxy and put back.
type Released struct {
	Host, File string
	ServerRecord
}

// keepReleased bounds the history of released entries.
const keepReleased = 200

// HostRecord is one adopted host.
type HostRecord struct {
	Files []FileRecord `json:"files"`
}

// FileRecord is one rewritten config file of a host.
type FileRecord struct {
	Path    string         `json:"path"`
	Backup  string         `json:"backup"`
	Servers []ServerRecord `json:"servers"`
}

// ServerRecord is one rewritten URL, or one stdio server's command
// pointed at its wrapper (Wrapper set: Path is the command's, Command the
// original value, and no proxy).
type ServerRecord struct {
	Name    string   `json:"name"`
	Path    []string `json:"path"`
	URL     string   `json:"url"`     // the original value: the server's own URL
	Literal string   `json:"literal"` // the original bytes, quotes included
	// Command is a wrapped stdio server's own command, Wrapper the
	// wrapper's path its entry names instead.
	Command string `json:"command,omitempty"`
	Wrapper string `json:"wrapper,omitempty"`
	// Listen is the proxy's address in the URL adopt wrote; the secret is
	// not kept: any URL of that address and a secret's shape is adopt's.
	Listen string `json:"listen"`
	Server string `json:"watchdog_server"`
	// ProxyURL is how records before Listen kept it; read, never written.
	ProxyURL string `json:"proxy_url,omitempty"`
}

// ConfigRecord is one proxy in the watchdog's config that adopt uses.
type ConfigRecord struct {
	Added config.Added `json:"added"` // empty: the proxy was configured before
	Users []string     `json:"users"`
}

// loadRecord reads the record of stateDir and its bytes (nil: none).
func loadRecord(stateDir string) (*Record, []byte, error) {
	r := &Record{Hosts: map[string]*HostRecord{}, Config: map[string]*ConfigRecord{}}
	b, err := fsutil.ReadPrivate(filepath.Join(stateDir, RecordFile), 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the adoption record: %w", err)
	}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, nil, fmt.Errorf("the adoption record %s does not parse (%w); restore it from a backup, or remove it and put the hosts' files back from %s",
			filepath.Join(stateDir, RecordFile), err, filepath.Join(stateDir, backupDir))
	}
	if r.Hosts == nil {
		r.Hosts = map[string]*HostRecord{}
	}
	if r.Config == nil {
		r.Config = map[string]*ConfigRecord{}
	}
	for _, h := range r.Hosts {
		for i := range h.Files {
			for j := range h.Files[i].Servers {
				s := &h.Files[i].Servers[j]
				if p, ok := proxyurl.Parse(s.ProxyURL); ok && s.Listen == "" {
					s.Listen = p.Listen
				}
				s.ProxyURL = ""
			}
		}
	}
	return r, b, nil
}

// encode is the record as saved.
func (r *Record) encode() []byte {
	b, _ := json.MarshalIndent(r, "", "  ") // maps and strings: it cannot fail
	return append(b, '\n')
}

// writeRecord puts data (nil: no record) in place of the record.
func writeRecord(stateDir string, data []byte) error {
	path := filepath.Join(stateDir, RecordFile)
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the adoption record: %w", err)
		}
		return nil
	}
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, data, 0o600)
}

// use notes that host uses the proxy of watchdog server name; added is
// what adopt put into the config for it now (empty: nothing).
func (r *Record) use(name, host string, added config.Added) {
	c := r.Config[name]
	if c == nil {
		c = &ConfigRecord{}
		r.Config[name] = c
	}
	if added.Text != "" {
		c.Added = added
	}
	if !slices.Contains(c.Users, host) {
		c.Users = append(c.Users, host)
	}
}

// find is the record of the host's server entry at path in file, or, when
// none is there (the entry was renamed), the one that wrote listen there.
func (r *Record) find(host, file string, path []string, listen string) (ServerRecord, bool) {
	hr := r.Hosts[host]
	if hr == nil {
		return ServerRecord{}, false
	}
	for _, fr := range hr.Files {
		if fr.Path != file {
			continue
		}
		for _, s := range fr.Servers {
			if slices.Equal(s.Path, path) {
				return s, true
			}
		}
		for _, s := range fr.Servers {
			if listen != "" && proxyurl.SameListen(s.Listen, listen) {
				return s, true
			}
		}
	}
	return ServerRecord{}, false
}

// put records s in file (with its backup), in place of the record of the
// same entry if there is one.
func (r *Record) put(host, file, bk string, s ServerRecord) {
	hr := r.Hosts[host]
	if hr == nil {
		hr = &HostRecord{}
		r.Hosts[host] = hr
	}
	i := slices.IndexFunc(hr.Files, func(fr FileRecord) bool { return fr.Path == file })
	if i < 0 {
		hr.Files = append(hr.Files, FileRecord{Path: file})
		i = len(hr.Files) - 1
	}
	fr := &hr.Files[i]
	if bk != "" {
		fr.Backup = bk
	}
	fr.Servers = slices.DeleteFunc(fr.Servers, func(old ServerRecord) bool {
		return slices.Equal(old.Path, s.Path) || s.Listen != "" && old.Name == s.Name && old.Listen == s.Listen
	})
	fr.Servers = append(fr.Servers, s)
}

// forget drops the host's record of the entry at path in file (into the
// history of released entries), and the file's and the host's when
// nothing is left of them.
func (r *Record) forget(host, file string, path []string) {
	hr := r.Hosts[host]
	if hr == nil {
		return
	}
	for i := range hr.Files {
		if hr.Files[i].Path == file {
			hr.Files[i].Servers = slices.DeleteFunc(hr.Files[i].Servers, func(s ServerRecord) bool {
				if slices.Equal(s.Path, path) {
					r.released(host, file, s)
					return true
				}
				return false
			})
		}
	}
	hr.Files = slices.DeleteFunc(hr.Files, func(fr FileRecord) bool { return len(fr.Servers) == 0 })
	if len(hr.Files) == 0 {
		delete(r.Hosts, host)
	}
}

// released adds s to the history, in place of an older entry of the same place.
func (r *Record) released(host, file string, s ServerRecord) {
	r.Released = slices.DeleteFunc(r.Released, func(old Released) bool {
		return old.Host == host && old.File == file && slices.Equal(old.Path, s.Path)
	})
	r.Released = append(r.Released, Released{Host: host, File: file, ServerRecord: s})
	if n := len(r.Released); n > keepReleased {
		r.Released = slices.Delete(r.Released, 0, n-keepReleased)
	}
}

// wasReleased is the released entry of the host at path in file, or the
// one released there that wrote listen.
func (r *Record) wasReleased(host, file string, path []string, listen string) (ServerRecord, bool) {
	for i := len(r.Released) - 1; i >= 0; i-- {
		e := r.Released[i]
		if e.Host == host && e.File == file && (slices.Equal(e.Path, path) || listen != "" && proxyurl.SameListen(e.Listen, listen)) {
			return e.ServerRecord, true
		}
	}
	return ServerRecord{}, false
}

// usedBy reports whether host has an adopted entry going through the
// proxy of watchdog server name.
func (r *Record) usedBy(name, host string) bool {
	if hr := r.Hosts[host]; hr != nil {
		for _, fr := range hr.Files {
			for _, s := range fr.Servers {
				if s.Server == name {
					return true
				}
			}
		}
	}
	return false
}

// inUse reports whether any adopted entry of any host goes through the
// proxy of watchdog server name.
func (r *Record) inUse(name string) bool {
	return r.anyEntry(func(s ServerRecord) bool { return s.Server == name })
}

// anyEntry reports whether any adopted entry of any host is one match
// takes.
func (r *Record) anyEntry(match func(ServerRecord) bool) bool {
	for _, hr := range r.Hosts {
		for _, fr := range hr.Files {
			if slices.ContainsFunc(fr.Servers, match) {
				return true
			}
		}
	}
	return false
}

// Adopted lists the adopted hosts of stateDir's record and, for each, the
// names of its servers that go through the proxy, sorted.
func Adopted(stateDir string) (map[string][]string, error) {
	r, _, err := loadRecord(stateDir)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(r.Hosts))
	for name, h := range r.Hosts {
		var servers []string
		for _, f := range h.Files {
			for _, s := range f.Servers {
				servers = append(servers, s.Name)
			}
		}
		slices.Sort(servers)
		out[name] = slices.Compact(servers)
	}
	return out, nil
}

// Written maps the address of every proxy URL adopt wrote (and has not
// taken back) to the server's own URL: `watchdog hosts` tells a URL adopt
// can repair from one nobody knows.
func Written(stateDir string) (map[string]string, error) {
	r, _, err := loadRecord(stateDir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range r.Released {
		if e.Wrapper == "" {
			out[e.Listen] = e.URL
		}
	}
	for _, h := range r.Hosts {
		for _, f := range h.Files {
			for _, s := range f.Servers {
				if s.Wrapper == "" {
					out[s.Listen] = s.URL
				}
			}
		}
	}
	return out, nil
}

// Entry is one adopted server entry: the host and the server's name in it.
type Entry struct{ Host, Name string }

// Through lists the adopted entries that go through the proxy of
// watchdog server name, sorted.
func Through(stateDir, name string) ([]Entry, error) {
	r, _, err := loadRecord(stateDir)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for h, hr := range r.Hosts {
		for _, f := range hr.Files {
			for _, s := range f.Servers {
				if s.Server == name {
					out = append(out, Entry{Host: h, Name: s.Name})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Host+"\x00"+a.Name, b.Host+"\x00"+b.Name) })
	return slices.Compact(out), nil
}

// refers reports whether any adopted entry of any host names the wrapper
// at path.
func (r *Record) refers(path string) bool {
	return r.anyEntry(func(s ServerRecord) bool { return s.Wrapper == path })
}
