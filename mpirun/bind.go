package main

import (
	"fmt"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// CPU binding. Like Open MPI, mpirun binds rank r to the r-th CPU it may
// itself use when there are at least as many such CPUs as ranks, so that
// busy-polling ranks keep their core and their caches (an unbound rank
// that the kernel moves pays for it in latency). With more ranks than
// CPUs nothing is bound: the ranks yield instead (oversubscription).
// --bind-to none or GMPI_BIND=none turns binding off; binding only ever
// narrows mpirun's own affinity, so an outer binding (taskset, a batch
// system) is respected.

// bindPlan returns the CPU of every rank, or nil for no binding.
// mode is --bind-to, env GMPI_BIND (used when mode is empty).
func bindPlan(mode, env string, nranks int) ([]int, error) {
	if mode == "" {
		mode = env
	}
	switch mode {
	case "none":
		return nil, nil
	case "", "core":
	default:
		return nil, fmt.Errorf("GMPI_BIND=%q: want core or none", mode)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, nil
	}
	var cpus []int
	for cpu := 0; len(cpus) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if nranks > len(cpus) {
		return nil, nil
	}
	return cpus[:nranks], nil
}

// forkExec starts argv with the CPU binding cpu (-1: none). The child
// inherits the affinity of the thread that forks it, so the forking
// thread is narrowed for the duration of the fork: the rank is bound
// from its first instruction, Go runtime threads included.
func forkExec(cpu int, argv []string, attr *syscall.ProcAttr) (int, error) {
	if cpu < 0 {
		return syscall.ForkExec(argv[0], argv, attr)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return syscall.ForkExec(argv[0], argv, attr)
	}
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return syscall.ForkExec(argv[0], argv, attr)
	}
	defer unix.SchedSetaffinity(0, &old)
	return syscall.ForkExec(argv[0], argv, attr)
}
