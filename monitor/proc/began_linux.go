package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of /proc/<pid>/stat's starttime: fixed at 100 in the
// kernel's ABI whatever the kernel's own tick rate.
const userHZ = 100

// Began is when h's process started, to about a clock tick. Started (from
// gopsutil) counts from a boot time truncated to the second, so it can be up
// to a second early: a host restarted just after its predecessor died would
// look older than a session that predecessor opened. Began is for ordering
// only; Started stays the process's identity (it is stable, Began is not).
// When /proc cannot say, Began is Started.
func Began(h Host) time.Time {
	t, err := beganLinux(h.PID, time.Now())
	if err != nil {
		return h.Started
	}
	return t
}

func beganLinux(pid int32, now time.Time) (time.Time, error) {
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, err
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, err
	}
	return beganFrom(up, stat, now)
}

// beganFrom works out the start time from /proc/uptime and /proc/<pid>/stat
// read at now.
func beganFrom(uptime, stat []byte, now time.Time) (time.Time, error) {
	f := bytes.Fields(uptime)
	if len(f) == 0 {
		return time.Time{}, fmt.Errorf("proc: empty /proc/uptime")
	}
	upSec, err := strconv.ParseFloat(string(f[0]), 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("proc: /proc/uptime: %w", err)
	}
	// The command name may hold spaces and parentheses: fields count from the last ')'.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return time.Time{}, fmt.Errorf("proc: stat without a command name")
	}
	rest := bytes.Fields(stat[end+1:])
	const starttimeField = 22 - 3 // field 22 of stat; rest begins at field 3
	if len(rest) <= starttimeField {
		return time.Time{}, fmt.Errorf("proc: stat has %d fields after the name", len(rest))
	}
	ticks, err := strconv.ParseUint(string(rest[starttimeField]), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("proc: stat starttime: %w", err)
	}
	up := time.Duration(upSec * float64(time.Second))
	since := time.Duration(ticks) * time.Second / userHZ
	return now.Add(since - up), nil
}
