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
// first). Others are ignored, as the standard allows.

// spawns tracks the nested mpiruns.
type spawns struct {
	mu   sync.Mutex
	pids map[int]bool
	// ev carries +1 (started, sent before the process exists) and exits,
	// in order, to the main loop.
	ev chan spawnNote
}

type spawnNote struct {
	start  bool
	pid    int
	status syscall.WaitStatus
}

// spawn is the PMI server's Config.Spawn.
func (j *job) spawn(rank int, blocks []*pmi.SpawnBlock) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find mpirun itself: %v", err)
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
	var args, hosts []string
	hostfile := ""
	anyHost := false
	if j.opts.tagOutput {
		args = append(args, "--tag-output")
	}
	args = append(args, "-genv", param.ParentPort.Name()+"="+parent)
	for i, b := range blocks {
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
			return fmt.Errorf("spawn: working directory %q: not a directory", dir)
		}
		prog, err := findProgram(b.Cmd.Exec, dir, info["path"])
		if err != nil {
			return fmt.Errorf("spawn: %v", err)
		}
		if h, ok := info["host"]; ok {
			anyHost = true
			hosts = append(hosts, h+":"+strconv.Itoa(b.Cmd.N))
		} else {
			hosts = append(hosts, j.host+":"+strconv.Itoa(b.Cmd.N))
		}
		if f, ok := info["file"]; ok {
			hostfile = f
		}
		if i > 0 {
			args = append(args, ":")
		}
		args = append(args, "-n", strconv.Itoa(b.Cmd.N), "-wdir", dir, prog)
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
	s := &j.spawned
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ev <- spawnNote{start: true}
	if err := cmd.Start(); err != nil {
		s.ev <- spawnNote{pid: -1}
		return fmt.Errorf("spawn: starting mpirun: %v", err)
	}
	s.pids[cmd.Process.Pid] = true
	return nil
}

// spawnedExit reports whether pid was a nested mpirun, and sends its exit.
func (j *job) spawnedExit(pid int, ws syscall.WaitStatus) bool {
	s := &j.spawned
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pids[pid] {
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
