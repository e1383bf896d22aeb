package mpirt

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// gettid is the calling OS thread's id (threadID, a system call unless
// SetThreadID replaced it).
func gettid() int { return threadID() }

var threadID = unix.Gettid

// SetThreadID replaces how the runtime learns the calling thread's id
// (the baton of background progress asks on every MPI call while it
// runs): capi answers from a thread-local cache, cheaper than the
// system call. f must return what gettid(2) returns.
func SetThreadID(f func() int) { threadID = f }

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
