package mpirt

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// osyield gives the core to another runnable process (oversubscription).
func osyield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// usableCPUs is the number of CPUs this process may run on.
func usableCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		return runtime.NumCPU()
	}
	return set.Count()
}
