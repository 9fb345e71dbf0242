package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// frontend is a proxy in front of one server, as a host would reach it:
// the watchdog's, nginx or HAProxy.
type frontend struct {
	name string // "watchdog", "nginx 1.22.1", "HAProxy 2.6.12"
	url  string // the MCP endpoint through it
	// pids are its processes now: what it costs is their CPU time.
	pids func() []int
	stop func()
	// metrics is the watchdog's metrics endpoint ("" for the others).
	metrics string
}

// paths is how the watchdog has served requests so far (zero for the
// others).
func (f *frontend) paths() pathCounts {
	if f.metrics == "" {
		return pathCounts{}
	}
	return scrapePaths(f.metrics)
}

// cpu is the CPU time of all the frontend's processes so far.
func (f *frontend) cpu() (time.Duration, error) {
	var sum time.Duration
	for _, pid := range f.pids() {
		t, err := cpuTime(pid)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f.name, err)
		}
		sum += t
	}
	return sum, nil
}

// watchdogFrontend is the daemon's proxy in front of srv.
func (b *bench) watchdogFrontend(ctx context.Context, srv *upstream) (*frontend, error) {
	d, proxyURL, metricsURL, err := b.proxyFor(ctx, srv.URL())
	if err != nil {
		return nil, err
	}
	pid := d.cmd.Process.Pid
	return &frontend{name: "watchdog", url: proxyURL, pids: func() []int { return []int{pid} }, stop: d.stop, metrics: metricsURL}, nil
}

// nginxConf is how a user fronts an MCP server with nginx: one worker,
// kept upstream connections (HTTP/1.1, no Connection header passed on),
// answers not buffered so SSE events reach the host as they come, long
// read timeouts for streams, the host's Host kept (servers that guard
// against DNS rebinding refuse a Host that is not loopback). No access
// log: the watchdog writes none per call either.
const nginxConf = `worker_processes 1;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path {{dir}}/body;
  proxy_temp_path {{dir}}/proxy;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  upstream mcp {
    server {{upstream}};
    keepalive 256;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
  }
  server {
    listen {{listen}};
    location / {
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
    }
  }
}
`

// haproxyConf is how a user fronts an MCP server with HAProxy: one
// thread, idle server connections reused by any request (http-reuse
// always), long timeouts for streams; HAProxy streams answers as they
// come by default. No log, as for nginx.
const haproxyConf = `global
  nbthread 1
  maxconn 4096
  pidfile {{dir}}/haproxy.pid
defaults
  mode http
  option http-keep-alive
  http-reuse always
  timeout connect 5s
  timeout client 1h
  timeout server 1h
  timeout http-keep-alive 120s
frontend mcp
  bind {{listen}}
  default_backend mcp
backend mcp
  server s1 {{upstream}}
`

// haproxyRelayConf is HAProxy as a byte relay (mode tcp): no HTTP read
// at all, each host connection one server connection, bytes passed as
// they come. No HTTP proxy can cost less: the floor the others are read
// against (proxyab).
const haproxyRelayConf = `global
  nbthread 1
  maxconn 4096
  pidfile {{dir}}/haproxy.pid
defaults
  mode tcp
  timeout connect 5s
  timeout client 1h
  timeout server 1h
frontend mcp
  bind {{listen}}
  default_backend mcp
backend mcp
  server s1 {{upstream}}
`

// startRelay runs HAProxy as a byte relay in front of upstream.
func (b *bench) startRelay(ctx context.Context, upstream string) (*frontend, error) {
	return b.startOther(ctx, otherProxy{name: "haproxy", title: "TCP relay (HAProxy", titleEnd: ")", versionRe: `version ([0-9.]+)`, conf: "haproxy.cfg", tmpl: haproxyRelayConf,
		args: func(_, conf string) []string { return []string{"-db", "-f", conf} }}, upstream)
}

// startNginx runs nginx in front of upstream, a non-daemon child with its
// config, pid and logs in a temp directory of its own; its worker is a
// child process, counted with it.
func (b *bench) startNginx(ctx context.Context, upstream string) (*frontend, error) {
	return b.startOther(ctx, otherProxy{name: "nginx", versionRe: `nginx/([0-9.]+)`, conf: "nginx.conf", tmpl: nginxConf, workers: true,
		args: func(dir, conf string) []string { return []string{"-g", "daemon off;", "-p", dir, "-c", conf} }}, upstream)
}

// startHAProxy runs HAProxy in front of upstream (haproxy -db: in the
// foreground), its config and pid file in a temp directory of its own.
func (b *bench) startHAProxy(ctx context.Context, upstream string) (*frontend, error) {
	return b.startOther(ctx, otherProxy{name: "haproxy", title: "HAProxy", versionRe: `version ([0-9.]+)`, conf: "haproxy.cfg", tmpl: haproxyConf,
		args: func(_, conf string) []string { return []string{"-db", "-f", conf} }}, upstream)
}

// otherProxy is how to run one of the proxies the watchdog's is measured
// against.
type otherProxy struct {
	name, title string // its command, and its name in the table ("": the command's)
	titleEnd    string // after the version in its name
	versionRe   string // finds its version in what "name -v" prints
	conf, tmpl  string // its config file's name, and the config ({{dir}}, {{listen}}, {{upstream}})
	workers     bool   // its workers are child processes
	args        func(dir, conf string) []string
}

func (b *bench) startOther(ctx context.Context, o otherProxy, upstream string) (*frontend, error) {
	version, err := versionOf(o.name, o.versionRe, "-v")
	if err != nil {
		return nil, err
	}
	dir, listen, u, err := b.frontendDir(o.name, upstream)
	if err != nil {
		return nil, err
	}
	conf, err := writeConf(dir, o.conf, o.tmpl, listen, u.Host)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.name, o.args(dir, conf)...)
	return startChild(cmd, cmp.Or(o.title, o.name)+" "+version+o.titleEnd, "http://"+listen+u.RequestURI(), listen, dir, o.workers)
}

// frontendDir makes a fresh directory for one frontend's files and picks
// its port.
func (b *bench) frontendDir(name, upstream string) (dir, listen string, u *url.URL, err error) {
	if u, err = url.Parse(upstream); err != nil {
		return "", "", nil, err
	}
	if dir, err = os.MkdirTemp(b.dir, name); err != nil {
		return "", "", nil, err
	}
	listen, err = freePort()
	return dir, listen, u, err
}

func writeConf(dir, name, tmpl, listen, upstream string) (string, error) {
	conf := strings.NewReplacer("{{dir}}", dir, "{{listen}}", listen, "{{upstream}}", upstream).Replace(tmpl)
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(conf), 0o600)
}

// startChild starts cmd and waits until it accepts connections on listen.
// withChildren: its workers are child processes (nginx's master forks
// them), counted with it.
func startChild(cmd *exec.Cmd, name, endpoint, listen, dir string, withChildren bool) (*frontend, error) {
	log, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		log.Close()
	}
	if err := waitListening(listen, 10*time.Second); err != nil {
		stop()
		out, _ := os.ReadFile(log.Name())
		return nil, fmt.Errorf("%s did not start: %w: %s", name, err, out)
	}
	pid := cmd.Process.Pid
	pids := func() []int { return []int{pid} }
	if withChildren {
		pids = func() []int { return append([]int{pid}, children(pid)...) }
	}
	return &frontend{name: name, url: endpoint, pids: pids, stop: stop}, nil
}

func waitListening(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// children are pid's child processes (/proc/PID/task/PID/children).
func children(pid int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// errNotInstalled: nginx or HAProxy is missing (scripts/deps-debian.sh
// installs both).
var errNotInstalled = errors.New("not installed (scripts/deps-debian.sh installs nginx-light and haproxy)")

// versionOf runs cmd args and finds its version in what it prints.
func versionOf(cmd, pattern string, args ...string) (string, error) {
	if _, err := exec.LookPath(cmd); err != nil {
		return "", fmt.Errorf("%s: %w", cmd, errNotInstalled)
	}
	out, _ := exec.Command(cmd, args...).CombinedOutput()
	m := regexp.MustCompile(pattern).FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s %s printed no version: %q", cmd, strings.Join(args, " "), out)
	}
	return string(m[1]), nil
}
