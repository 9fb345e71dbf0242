package restart

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// bootIDFile names this boot; it changes at every boot.
const bootIDFile = "/proc/sys/kernel/random/boot_id"

// ReadBootClock is this boot's id and the time since it on CLOCK_BOOTTIME,
// which runs on through a suspend and which no setting of the wall clock
// moves.
func ReadBootClock() (BootMark, error) {
	id, err := os.ReadFile(bootIDFile)
	if err != nil {
		return BootMark{}, fmt.Errorf("boot id: %w", err)
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return BootMark{}, fmt.Errorf("boot clock: %w", err)
	}
	return BootMark{ID: strings.TrimSpace(string(id)), SinceBoot: time.Duration(ts.Nano())}, nil
}
