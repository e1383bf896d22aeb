package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"gmpi/runtime/param"
	"gmpi/runtime/pmi"
)

// Spawning (MPI_Comm_spawn, MPI_Comm_spawn_multiple): a rank's PMI spawn
// request starts the children as a job of their own, run by a nested
// mpirun that this one starts (so the children have their own
// MPI_COMM_WORLD, PMI server and key-value space, and MPI_APPNUM is the
// command's index). The parents' port reaches the children in
// GMPI_PARENT_PORT; they connect to it in MPI_Init. The nested mpirun is
// part of this job: its output goes to ours, our kill-all signals its
// process group, a failure of it fails the job, and we wait for it
// before we exit.
//
// Info keys per command: host (the children's host), file (a hostfile),
// wdir (working directory), path (directories searched for the command
// first); with a grid file, site, machine or host name the place in it
// (default: the spawning rank's machine), and an emulated grid is shared
// with the nested mpirun (--emulate-attach); soft (the counts acceptable
// when the universe is full; without it a spawn oversubscribes). Others
// are ignored, as the standard allows.

// spawns tracks the nested mpiruns.
type spawns struct {
	mu   sync.Mutex
	pids map[int]int // nested mpirun -> how many processes it runs
	// ev carries +1 (started, sent before the process exists) and exits,
	// in order, to the main loop.
	ev chan spawnNote
}

type spawnNote struct {
	start  bool
	pid    int
	status syscall.WaitStatus
}

// spawn is the PMI server's Config.Spawn: it returns how many processes
// of each command it started.
func (j *job) spawn(rank int, blocks []*pmi.SpawnBlock) ([]int, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find mpirun itself: %v", err)
	}
	wdir := ""
	if rank >= 0 && rank < len(j.procs) {
		wdir = j.wdirOf(j.procs[rank].app)
	}
	if wdir == "" {
		wdir, _ = os.Getwd()
	}
	var parent string
	for _, kv := range blocks[0].Preput {
		if kv[0] == pmi.ParentPortKey {
			parent = kv[1]
		}
	}
	s := &j.spawned
	s.mu.Lock()
	defer s.mu.Unlock()
	counts, err := j.spawnCounts(blocks)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return counts, nil // soft allowed none: nothing to start
	}
	var args, hosts []string
	hostfile := ""
	anyHost := false
	if j.opts.tagOutput {
		args = append(args, "--tag-output")
	}
	args = append(args, "-genv", param.ParentPort.Name()+"="+parent)
	// The children's universe is ours (MPI_UNIVERSE_SIZE).
	args = append(args, "--universe-size", strconv.Itoa(j.universeSize()))
	if j.grid != nil {
		path, err := filepath.Abs(j.grid.Path)
		if err != nil {
			return nil, fmt.Errorf("spawn: grid file: %v", err)
		}
		args = append(args, "--grid", path)
		if j.emu != nil {
			share, err := j.emuShareFile()
			if err != nil {
				return nil, fmt.Errorf("spawn: sharing the emulated grid with the children's mpirun: %v", err)
			}
			args = append(args, "--emulate-attach", share)
		}
	}
	apps := 0
	for i, b := range blocks {
		if counts[i] == 0 {
			continue
		}
		info := map[string]string{}
		for _, kv := range b.Cmd.Info {
			info[kv[0]] = kv[1]
		}
		dir := wdir
		if d, ok := info["wdir"]; ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(wdir, d)
			}
			dir = d
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("spawn: working directory %q: not a directory", dir)
		}
		prog, err := findProgram(b.Cmd.Exec, dir, info["path"])
		if err != nil {
			return nil, fmt.Errorf("spawn: %v", err)
		}
		at, err := j.spawnPlace(rank, info)
		if err != nil {
			return nil, err
		}
		if j.grid == nil {
			if h, ok := info["host"]; ok {
				anyHost = true
				hosts = append(hosts, h+":"+strconv.Itoa(counts[i]))
			} else {
				hosts = append(hosts, j.host+":"+strconv.Itoa(counts[i]))
			}
			if f, ok := info["file"]; ok {
				hostfile = f
			}
		}
		if apps > 0 {
			args = append(args, ":")
		}
		apps++
		args = append(args, "-n", strconv.Itoa(counts[i]), "-wdir", dir)
		if at != "" {
			args = append(args, "--at", at)
		}
		args = append(args, prog)
		args = append(args, b.Cmd.Args...)
	}
	var head []string
	switch {
	case anyHost:
		head = []string{"-H", strings.Join(hosts, ",")}
	case hostfile != "":
		head = []string{"--hostfile", hostfile}
	}
	cmd := exec.Command(self, append(head, args...)...)
	cmd.Dir = wdir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PMI_") && !strings.HasPrefix(kv, "PMI2_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	j.vlogf("rank %d spawns: %s %s", rank, self, strings.Join(cmd.Args[1:], " "))
	s.ev <- spawnNote{start: true}
	if err := cmd.Start(); err != nil {
		s.ev <- spawnNote{pid: -1}
		return nil, fmt.Errorf("spawn: starting mpirun: %v", err)
	}
	s.pids[cmd.Process.Pid] = total
	return counts, nil
}

// spawnPlace is the --at of a command's children: the info keys site,
// machine or host name a place in the grid file; without them, the
// spawning rank's machine. "" without a grid file.
func (j *job) spawnPlace(rank int, info map[string]string) (string, error) {
	var given []string
	for _, k := range []string{"site", "machine"} {
		if v, ok := info[k]; ok {
			given = append(given, k+"="+v)
		}
	}
	if j.grid == nil {
		if len(given) > 0 {
			return "", fmt.Errorf("spawn: info key %s names a place in a grid file, but this job was not started with --grid", given[0])
		}
		return "", nil
	}
	if h, ok := info["host"]; ok {
		given = append(given, "host="+h)
	}
	if len(given) > 1 {
		return "", fmt.Errorf("spawn: info keys %s: give one place", strings.Join(given, " and "))
	}
	var at string
	if len(given) == 1 {
		at = given[0]
	} else if rank >= 0 && rank < len(j.slots) {
		at = "machine=" + j.slots[rank].machine
	}
	if at != "" {
		kind, name, _ := strings.Cut(at, "=")
		found := false
		for _, h := range j.grid.Hosts() {
			found = found || kind == "site" && h.Machine.Site.Name == name ||
				kind == "machine" && h.Machine.Name == name || kind == "host" && h.Name == name
		}
		if !found {
			return "", fmt.Errorf("spawn: info key %s: grid file %s has no such %s", at, j.grid.Path, kind)
		}
	}
	return at, nil
}

// spawnCounts decides how many processes of each command to start: all
// of them (oversubscribing past MPI_UNIVERSE_SIZE if need be), unless the
// command's info key soft lists the counts it accepts: then the largest
// of those that fits into the universe's free slots (the universe size
// less the processes running: this job's and those it spawned), which
// may be 0 when soft lists 0. A soft that no count fits fails the spawn.
// Caller holds j.spawned.mu.
func (j *job) spawnCounts(blocks []*pmi.SpawnBlock) ([]int, error) {
	running := j.size
	for _, n := range j.spawned.pids {
		running += n
	}
	free := j.universeSize() - running
	counts := make([]int, len(blocks))
	for i, b := range blocks {
		soft := ""
		hasSoft := false
		for _, kv := range b.Cmd.Info {
			if kv[0] == "soft" {
				soft, hasSoft = kv[1], true
			}
		}
		n := b.Cmd.N
		if hasSoft {
			set, err := parseSoft(soft, b.Cmd.N)
			if err != nil {
				return nil, fmt.Errorf("spawn: info key soft=%q: %v", soft, err)
			}
			n = -1
			for _, k := range set {
				if k <= max(free, 0) && k > n {
					n = k
				}
			}
			if n < 0 {
				return nil, fmt.Errorf("spawn: info key soft=%q allows no count that fits: the universe (MPI_UNIVERSE_SIZE %d) has %d free slot(s) with %d process(es) running", soft, j.universeSize(), max(free, 0), running)
			}
		}
		counts[i] = n
		free -= n
	}
	return counts, nil
}

// parseSoft reads a soft info value: comma-separated a, a:b or a:b:c
// (from a to b in steps of c), the counts in 0..maxprocs it allows.
func parseSoft(v string, maxprocs int) ([]int, error) {
	var out []int
	for _, part := range strings.Split(v, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		if len(f) > 3 {
			return nil, fmt.Errorf("%q: want a, a:b or a:b:c", part)
		}
		nums := make([]int, len(f))
		for k, x := range f {
			n, err := strconv.Atoi(x)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q: not a count", part)
			}
			nums[k] = n
		}
		lo, hi, step := nums[0], nums[0], 1
		if len(nums) > 1 {
			hi = nums[1]
		}
		if len(nums) > 2 {
			step = nums[2]
		}
		if step < 1 || hi < lo {
			return nil, fmt.Errorf("%q: empty range", part)
		}
		for k := lo; k <= hi && k <= maxprocs; k += step {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no count between 0 and maxprocs (%d)", maxprocs)
	}
	return out, nil
}

// spawnedExit reports whether pid was a nested mpirun, and sends its exit.
func (j *job) spawnedExit(pid int, ws syscall.WaitStatus) bool {
	s := &j.spawned
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pids[pid]; !ok {
		return false
	}
	delete(s.pids, pid)
	s.ev <- spawnNote{pid: pid, status: ws}
	return true
}

// signalSpawned signals the process groups of the nested mpiruns.
func (j *job) signalSpawned(sig syscall.Signal) {
	s := &j.spawned
	s.mu.Lock()
	defer s.mu.Unlock()
	for pid := range s.pids {
		syscall.Kill(-pid, sig)
	}
}

// findProgram resolves a spawned command: a name with '/' relative to
// dir, else the first match in the info key path's directories, then PATH.
func findProgram(prog, dir, path string) (string, error) {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if !isExecutable(p) {
			return "", fmt.Errorf("%s: not an executable file", prog)
		}
		return p, nil
	}
	dirs := append(filepath.SplitList(path), filepath.SplitList(os.Getenv("PATH"))...)
	for _, d := range dirs {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, prog); isExecutable(p) {
			return p, nil
		}
	}
	return "", errors.New(prog + ": command not found")
}

// universeSize is MPI_UNIVERSE_SIZE: --universe-size, else the slots of
// the hosts given (at least the job's size).
func (j *job) universeSize() int {
	if j.opts.universe > 0 {
		return j.opts.universe
	}
	slots := 0
	for _, h := range j.opts.hosts {
		slots += max(h.slots, 1)
	}
	return max(slots, j.size)
}
