// Command pmiprog is a test helper for mpirun: a tiny "MPI program" that
// speaks PMI-1 through gmpi/runtime/pmi. The first argument picks a
// scenario (see main). If TEST_PIDDIR is set, every process it starts
// (itself and its children) records its pid there as an empty file, so the
// test can check that nothing survives the job.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gmpi/internal/hostile"
	"gmpi/runtime/auth"
	"gmpi/runtime/pmi"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pmiprog: "+format+"\n", args...)
	os.Exit(99)
}

func recordPid(pid int) {
	if dir := os.Getenv("TEST_PIDDIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)), nil, 0o644)
	}
}

// spawnSleepers starts two long sleeping children of this process: one in
// our process group and one in its own session (escaping the group kill).
func spawnSleepers() {
	self, err := os.Executable()
	if err != nil {
		die("%v", err)
	}
	for _, setsid := range []bool{false, true} {
		cmd := exec.Command(self, "sleeper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
		if err := cmd.Start(); err != nil {
			die("%v", err)
		}
		recordPid(cmd.Process.Pid)
	}
}

// intrude connects to mpirun's PMI port twice without the job secret -
// speaking plain PMI (abort, which would end the job if accepted), then
// the handshake with a wrong secret - and dies unless both are refused.
func intrude(addr string, r int) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		die("dial %s: %v", addr, err)
	}
	c.Write([]byte("cmd=initack pmiid=0\ncmd=init pmi_version=1 pmi_subversion=1\ncmd=abort exitcode=7\n"))
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err := io.ReadAll(c)
	c.Close()
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		die("plain PMI intruder: connection not closed: %v", err)
	}
	if strings.Contains(string(got), "cmd=") {
		die("plain PMI intruder got an answer: %q", got)
	}
	c, err = net.Dial("tcp", addr)
	if err != nil {
		die("dial %s: %v", addr, err)
	}
	err = auth.Handshake(c, []byte("not the secret"), true, "pmi", 20*time.Second)
	c.Close()
	if err == nil {
		die("a wrong secret was accepted")
	}
	fmt.Printf("rank %d: intruders refused (%d bytes seen; %v)\n", r, len(got), err)
}

// waitPids waits (100 ms at least, 10 s at most) until n pids are
// recorded in TEST_PIDDIR, so that a loaded machine does not make a test
// miss processes that had not started yet.
func waitPids(n int) {
	time.Sleep(100 * time.Millisecond)
	dir := os.Getenv("TEST_PIDDIR")
	for end := time.Now().Add(10 * time.Second); dir != "" && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ents, err := os.ReadDir(dir); err == nil && len(ents) >= n {
			return
		}
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		die("bad number %q", s)
	}
	return n
}

func main() {
	if len(os.Args) < 2 {
		die("usage: pmiprog scenario [args]")
	}
	if os.Args[1] == "sleeper" {
		time.Sleep(60 * time.Second)
		return
	}
	recordPid(os.Getpid())
	c, err := pmi.FromEnv()
	if err != nil {
		die("FromEnv: %v", err)
	}
	if c == nil {
		die("no PMI server in the environment")
	}
	r, n := c.Rank(), c.Size()
	args := os.Args[2:]
	switch os.Args[1] {
	case "kvs": // put/barrier/get among all ranks, twice
		for round := 0; round < 2; round++ {
			if err := c.Put(fmt.Sprintf("card-%d-%d", round, r), fmt.Sprintf("hello from %d round %d", r, round)); err != nil {
				die("%v", err)
			}
			if err := c.Barrier(); err != nil {
				die("%v", err)
			}
			for p := 0; p < n; p++ {
				v, err := c.Get(fmt.Sprintf("card-%d-%d", round, p))
				if err != nil {
					die("%v", err)
				}
				if want := fmt.Sprintf("hello from %d round %d", p, round); v != want {
					die("rank %d got %q want %q", r, v, want)
				}
			}
		}
		fmt.Printf("rank %d of %d ok pmi=%d kvs=%s jobid=%s host=%s local=%s/%s\n", r, n, c.Version(), c.KVSName(),
			os.Getenv("GMPI_JOBID"), os.Getenv("GMPI_HOSTNAME"), os.Getenv("GMPI_LOCAL_RANK"), os.Getenv("GMPI_LOCAL_SIZE"))
	case "exitcode": // RANK CODE: everybody finalizes; RANK exits with CODE
		c.Barrier()
		c.Finalize()
		if r == atoi(args[0]) {
			os.Exit(atoi(args[1]))
		}
		return
	case "abort": // RANK CODE MSG: RANK aborts, the others wait forever
		spawnSleepers()
		if r == atoi(args[0]) {
			waitPids(3 * n)
			c.Abort(atoi(args[1]), args[2])
			os.Exit(atoi(args[1]))
		}
		c.Barrier()
		die("barrier returned")
	case "selfkill": // RANK: RANK kills itself with SIGKILL, the others wait
		spawnSleepers()
		if r == atoi(args[0]) {
			waitPids(3 * n)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		c.Barrier()
		die("barrier returned")
	case "hang": // everybody waits forever
		spawnSleepers()
		fmt.Printf("rank %d hanging\n", r)
		c.Barrier()
		time.Sleep(time.Hour)
	case "print": // N: N lines to stdout and stderr, each in three writes
		lines := atoi(args[0])
		c.Barrier()
		for i := 0; i < lines; i++ {
			for _, f := range []*os.File{os.Stdout, os.Stderr} {
				f.WriteString(fmt.Sprintf("line %d from %d ", i, r))
				f.WriteString("part two ")
				f.WriteString(fmt.Sprintf("end %d\n", r))
			}
		}
		os.Stdout.WriteString(fmt.Sprintf("unterminated %d", r))
	case "shm": // FAILRANK: create /dev/shm/gmpi-<jobid>-rank<R>; FAILRANK exits 3
		p := fmt.Sprintf("/dev/shm/gmpi-%s-rank%d", os.Getenv("GMPI_JOBID"), r)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			die("%v", err)
		}
		fmt.Println(p)
		c.Barrier()
		if r == atoi(args[0]) {
			os.Exit(3)
		}
	case "intrude": // ranks with PMI_PORT attack it, then all finalize
		if addr := os.Getenv("PMI_PORT"); addr != "" {
			intrude(addr, r)
		}
		c.Barrier()
		fmt.Printf("rank %d done\n", r)
	case "hostile": // ranks with PMI_PORT flood it (garbage, half-open, slow, 1000 silent) while the job goes on
		var a *hostile.Attack
		if addr := os.Getenv("PMI_PORT"); addr != "" {
			var err error
			if a, err = hostile.Start(addr, 1000, 250*time.Millisecond); err != nil {
				die("%v", err)
			}
			defer a.Close()
		}
		key := "hostile-" + strconv.Itoa(r)
		if err := c.Put(key, "v"+key); err != nil {
			die("put during the attack: %v", err)
		}
		if err := c.Barrier(); err != nil {
			die("barrier during the attack: %v", err)
		}
		for p := 0; p < n; p++ {
			k := "hostile-" + strconv.Itoa(p)
			if v, err := c.Get(k); err != nil || v != "v"+k {
				die("get %s during the attack: %q %v", k, v, err)
			}
		}
		if a != nil {
			if err := a.Check(15 * time.Second); err != nil {
				die("%v", err)
			}
			fmt.Printf("rank %d: %d hostile connections dropped\n", r, a.Conns())
		}
		c.Barrier()
		fmt.Printf("rank %d done\n", r)
	case "nofinalize": // init, then exit 0 without finalize
		c.Barrier()
		os.Exit(0)
	case "stdin": // rank 0 echoes its stdin
		if r == 0 {
			b, _ := os.ReadFile("/dev/stdin")
			fmt.Printf("stdin: %s", b)
		} else {
			b, _ := os.ReadFile("/dev/stdin")
			fmt.Printf("rank %d stdin bytes: %d\n", r, len(b))
		}
	default:
		die("unknown scenario %q", os.Args[1])
	}
	if err := c.Finalize(); err != nil {
		die("%v", err)
	}
}
