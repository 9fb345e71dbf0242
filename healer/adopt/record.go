package adopt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
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
	// CreatedConfig is the text adopt wrote when there was no watchdog
	// config file: release removes the file once it is that again.
	CreatedConfig string `json:"created_config,omitempty"`
}

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

// ServerRecord is one rewritten URL.
type ServerRecord struct {
	Name     string   `json:"name"`
	Path     []string `json:"path"`
	URL      string   `json:"url"`     // the original value
	Literal  string   `json:"literal"` // the original bytes, quotes included
	ProxyURL string   `json:"proxy_url"`
	Server   string   `json:"watchdog_server"`
}

// ConfigRecord is one proxy in the watchdog's config that adopt uses.
type ConfigRecord struct {
	Added config.Added `json:"added"` // empty: the proxy was configured before
	Users []string     `json:"users"`
}

func loadRecord(stateDir string) (*Record, error) {
	r := &Record{Hosts: map[string]*HostRecord{}, Config: map[string]*ConfigRecord{}}
	b, err := fsutil.ReadPrivate(filepath.Join(stateDir, RecordFile), 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the adoption record: %w", err)
	}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("the adoption record %s does not parse (%w); restore it from a backup, or remove it and put the hosts' files back from %s",
			filepath.Join(stateDir, RecordFile), err, filepath.Join(stateDir, backupDir))
	}
	if r.Hosts == nil {
		r.Hosts = map[string]*HostRecord{}
	}
	if r.Config == nil {
		r.Config = map[string]*ConfigRecord{}
	}
	return r, nil
}

func (r *Record) save(stateDir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(stateDir, RecordFile), append(b, '\n'), 0o600)
}

// use notes that host uses the proxy of watchdog server name.
func (r *Record) use(name, host string, added config.Added) {
	c := r.Config[name]
	if c == nil {
		c = &ConfigRecord{Added: added}
		r.Config[name] = c
	}
	for _, u := range c.Users {
		if u == host {
			return
		}
	}
	c.Users = append(c.Users, host)
}

// Adopted lists the adopted hosts of stateDir's record and, for each, the
// names of its servers that go through the proxy, sorted.
func Adopted(stateDir string) (map[string][]string, error) {
	r, err := loadRecord(stateDir)
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
