package mpirt

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// osyield gives the core to another runnable process (oversubscription).
func osyield() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// envInt reads an integer environment variable, def when unset or bad.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
