module github.com/mcpwatchdog/watchdog

go 1.26.0

require (
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/gofrs/flock v0.13.2 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/pelletier/go-toml/v2 v2.4.3 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/shirou/gopsutil/v4 v4.26.10 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
