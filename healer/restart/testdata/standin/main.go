// Command standin plays the MCP host in the healer's restart tests: it
// listens on a loopback port, answers each connection with its pid, and
// prints one line saying who it is and the arguments it got (as JSON, so
// a test can compare them literally).
//
// STANDIN_MODE=stubborn makes it ignore SIGTERM (it says so, then lives on).
// It exits by itself after STANDIN_LIFETIME (default 2m) so a failed test
// never leaves it behind.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(1)
	}
	pid := os.Getpid()
	args, _ := json.Marshal(os.Args[1:])
	pgid, _ := syscall.Getpgid(0)
	fmt.Printf("standin pid=%d pgid=%d port=%d args=%s\n", pid, pgid, ln.Addr().(*net.TCPAddr).Port, args)
	fmt.Fprintf(os.Stderr, "standin pid=%d stderr works\n", pid)

	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		for range term {
			if os.Getenv("STANDIN_MODE") == "stubborn" {
				fmt.Printf("standin pid=%d got SIGTERM, ignoring it\n", pid)
				continue
			}
			fmt.Printf("standin pid=%d got SIGTERM, exiting\n", pid)
			os.Exit(0)
		}
	}()

	lifetime := 2 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("STANDIN_LIFETIME")); err == nil {
		lifetime = d
	}
	time.AfterFunc(lifetime, func() { os.Exit(3) })

	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		fmt.Fprintf(c, "standin %d\n", pid)
		_ = c.Close()
	}
}
