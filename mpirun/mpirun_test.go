package main

import (
	"golang.org/x/sys/unix"

	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binaries built once by TestMain.
var (
	mpirunBin  string
	pmiprogBin string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mpirun-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mpirunBin = filepath.Join(dir, "mpirun")
	pmiprogBin = filepath.Join(dir, "pmiprog")
	for _, b := range [][2]string{{mpirunBin, "."}, {pmiprogBin, "./testdata/pmiprog"}} {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", b[1], err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one finished mpirun run.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
	pids           []int // pids recorded by pmiprog in TEST_PIDDIR
}

// mpirun runs the launcher with args and returns its result; env entries
// are added to the environment. Every process pmiprog records is checked
// to be gone afterwards.
func mpirun(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	piddir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirunBin, args...)
	cmd.Env = append(append(os.Environ(), "TEST_PIDDIR="+piddir), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mpirun %v: %v", args, err)
	}
	ents, _ := os.ReadDir(piddir)
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			res.pids = append(res.pids, pid)
		}
	}
	checkGone(t, res.pids)
	return res
}

// checkGone fails if any of pids still exists (as a live process or a
// zombie) shortly after mpirun returned.
func checkGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range pids {
		for {
			_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
			if os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("process %d survived the job: %s", pid, b)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// mpirunLines returns the lines mpirun itself printed to stderr.
func mpirunLines(stderr string) []string {
	var ls []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "mpirun: ") {
			ls = append(ls, l)
		}
	}
	return ls
}

func TestKVS4(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "-n", "4", pmiprogBin, "kvs")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
	host, _ := os.Hostname()
	jobs := map[string]bool{}
	for rank := 0; rank < 4; rank++ {
		re := regexp.MustCompile(fmt.Sprintf(`(?m)^rank %d of 4 ok pmi=1 kvs=\S+ jobid=([0-9]+-[0-9a-f]{16}) host=%s local=%d/4$`, rank, regexp.QuoteMeta(host), rank))
		m := re.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("no line for rank %d in %q", rank, r.stdout)
		}
		jobs[m[1]] = true
	}
	if len(jobs) != 1 {
		t.Errorf("ranks disagree on the job id: %v", jobs)
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "-np", "3", pmiprogBin, "exitcode", "2", "7")
	if r.code != 7 {
		t.Fatalf("exit code %d, want 7; stderr %q", r.code, r.stderr)
	}
	ls := mpirunLines(r.stderr)
	if len(ls) != 1 || !regexp.MustCompile(`^mpirun: rank 2 \(pid \d+\) exited with code 7; terminating the job$`).MatchString(ls[0]) {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestAbort(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "-n", "4", pmiprogBin, "abort", "1", "5", "bad input: x=1")
	if r.code != 5 {
		t.Fatalf("exit code %d, want 5; stderr %q", r.code, r.stderr)
	}
	ls := mpirunLines(r.stderr)
	if len(ls) != 1 || !regexp.MustCompile(`^mpirun: rank 1 \(pid \d+\) called MPI_Abort with error code 5: bad input: x=1; terminating the job$`).MatchString(ls[0]) {
		t.Errorf("stderr %q", r.stderr)
	}
	if len(r.pids) != 12 {
		t.Errorf("recorded %d pids, want 12 (4 ranks with 2 children each)", len(r.pids))
	}
	if r.elapsed > 5*time.Second {
		t.Errorf("took %v", r.elapsed)
	}
}

func TestSelfKill(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "-n", "3", pmiprogBin, "selfkill", "2")
	if r.code != 128+9 {
		t.Fatalf("exit code %d, want 137; stderr %q", r.code, r.stderr)
	}
	ls := mpirunLines(r.stderr)
	if len(ls) != 1 || !regexp.MustCompile(`^mpirun: rank 2 \(pid \d+\) killed by signal 9 \(Killed\); terminating the job$`).MatchString(ls[0]) {
		t.Errorf("stderr %q", r.stderr)
	}
	if len(r.pids) != 9 {
		t.Errorf("recorded %d pids, want 9", len(r.pids))
	}
}

func TestNoFinalize(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "-n", "2", pmiprogBin, "nofinalize")
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1; stderr %q", r.code, r.stderr)
	}
	if ls := mpirunLines(r.stderr); len(ls) != 1 || !strings.Contains(ls[0], "without finalizing") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "--timeout", "0.5", "-n", "2", pmiprogBin, "hang")
	if r.code != 124 {
		t.Fatalf("exit code %d, want 124; stderr %q", r.code, r.stderr)
	}
	if ls := mpirunLines(r.stderr); len(ls) != 1 || !strings.Contains(ls[0], "timed out") {
		t.Errorf("stderr %q", r.stderr)
	}
	// On a loaded machine the ranks may not all have started their
	// children within the timeout; whatever started must be gone (mpirun
	// checks every recorded pid).
	if len(r.pids) == 0 {
		t.Errorf("no process recorded its pid")
	}
}

func TestTimeoutEnv(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", []string{"MPIEXEC_TIMEOUT=0.3"}, "-n", "1", pmiprogBin, "hang")
	if r.code != 124 {
		t.Fatalf("exit code %d, want 124; stderr %q", r.code, r.stderr)
	}
}

func TestSignal(t *testing.T) {
	t.Parallel()
	piddir := t.TempDir()
	cmd := exec.Command(mpirunBin, "-n", "2", pmiprogBin, "hang")
	cmd.Env = append(os.Environ(), "TEST_PIDDIR="+piddir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stdout)
	for n := 0; n < 2 && sc.Scan(); n++ {
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for sc.Scan() {
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+15 {
		t.Errorf("mpirun: %v, want exit status 143; stderr %q", err, errb.String())
	}
	if ls := mpirunLines(errb.String()); len(ls) != 1 || !strings.Contains(ls[0], "received signal 15 (Terminated)") {
		t.Errorf("stderr %q", errb.String())
	}
	ents, _ := os.ReadDir(piddir)
	var pids []int
	for _, e := range ents {
		pid, _ := strconv.Atoi(e.Name())
		pids = append(pids, pid)
	}
	if len(pids) != 6 {
		t.Errorf("recorded %d pids, want 6", len(pids))
	}
	checkGone(t, pids)
}

func TestTagOutput(t *testing.T) {
	t.Parallel()
	const n, lines = 3, 50
	r := mpirun(t, "", nil, "--tag-output", "-n", strconv.Itoa(n), pmiprogBin, "print", strconv.Itoa(lines))
	if r.code != 0 {
		t.Fatalf("exit code %d; stderr %q", r.code, r.stderr)
	}
	full := regexp.MustCompile(`^\[(\d+)\] line (\d+) from (\d+) part two end (\d+)$`)
	last := regexp.MustCompile(`^\[(\d+)\] unterminated (\d+)$`)
	for _, stream := range []struct {
		name, text   string
		unterminated bool
	}{{"stdout", r.stdout, true}, {"stderr", r.stderr, false}} {
		count := map[string]int{}
		tails := map[string]int{}
		for _, l := range strings.Split(strings.TrimSuffix(stream.text, "\n"), "\n") {
			if m := full.FindStringSubmatch(l); m != nil && m[1] == m[3] && m[1] == m[4] {
				if strconv.Itoa(count[m[1]]) != m[2] {
					t.Errorf("%s: rank %s lines out of order at %q", stream.name, m[1], l)
				}
				count[m[1]]++
			} else if m := last.FindStringSubmatch(l); m != nil && m[1] == m[2] && stream.unterminated {
				tails[m[1]]++
			} else {
				t.Errorf("%s: malformed line %q", stream.name, l)
			}
		}
		for rank := 0; rank < n; rank++ {
			k := strconv.Itoa(rank)
			if count[k] != lines {
				t.Errorf("%s: rank %d: %d lines, want %d", stream.name, rank, count[k], lines)
			}
			if stream.unterminated && tails[k] != 1 {
				t.Errorf("%s: rank %d: unterminated last line seen %d times", stream.name, rank, tails[k])
			}
		}
	}
}

func TestShmCleanup(t *testing.T) {
	t.Parallel()
	for _, fail := range []string{"1", "-1"} {
		r := mpirun(t, "", nil, "-n", "2", pmiprogBin, "shm", fail)
		want := 3
		if fail == "-1" {
			want = 0
		}
		if r.code != want {
			t.Fatalf("exit code %d, want %d; stderr %q", r.code, want, r.stderr)
		}
		paths := strings.Fields(r.stdout)
		if len(paths) != 2 {
			t.Fatalf("stdout %q", r.stdout)
		}
		for _, p := range paths {
			if !strings.HasPrefix(p, "/dev/shm/gmpi-") {
				t.Fatalf("bad path %q", p)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				os.Remove(p)
				t.Errorf("%s left behind (stat: %v)", p, err)
			}
		}
	}
}

func TestStdin(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "to rank zero\n", nil, "-n", "2", pmiprogBin, "stdin")
	if r.code != 0 || !strings.Contains(r.stdout, "stdin: to rank zero\n") || !strings.Contains(r.stdout, "rank 1 stdin bytes: 0\n") {
		t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestEnv runs a non-MPI program (env) and checks the variables each rank
// gets, and that inherited PMI settings are dropped.
func TestEnv(t *testing.T) {
	t.Parallel()
	envBin, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env command")
	}
	wdir := t.TempDir()
	r := mpirun(t, "", []string{"PMI_PORT=1.2.3.4:5", "XVAR=fromparent"},
		"--tag-output", "-n", "2", "-genv", "G1", "g one", "-x", "XVAR", "-x", "X2=two", "-wdir", wdir,
		envBin, ":", "-n", "1", "-env", "E1", "e1", "pwd")
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	for rank := 0; rank < 2; rank++ {
		for _, kv := range []string{"PMI_RANK=" + strconv.Itoa(rank), "PMI_SIZE=3", "PMI_FD=3",
			"GMPI_LOCAL_RANK=" + strconv.Itoa(rank), "GMPI_LOCAL_SIZE=3", "GMPI_APPNUM=0",
			"G1=g one", "XVAR=fromparent", "X2=two"} {
			if !strings.Contains(r.stdout, fmt.Sprintf("[%d] %s\n", rank, kv)) {
				t.Errorf("rank %d lacks %s", rank, kv)
			}
		}
		if strings.Contains(r.stdout, fmt.Sprintf("[%d] PMI_PORT=", rank)) {
			t.Errorf("rank %d inherited PMI_PORT", rank)
		}
		if strings.Contains(r.stdout, fmt.Sprintf("[%d] E1=", rank)) {
			t.Errorf("rank %d got the other app's -env", rank)
		}
	}
	if !strings.Contains(r.stdout, "[2] "+wdir+"\n") {
		t.Errorf("rank 2 did not run pwd in %s: %q", wdir, r.stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "2"}, "no program"},
		{[]string{"-n", "x", "true"}, "bad process count"},
		{[]string{"--bogus", "true"}, "unknown option"},

		{[]string{"-n", "1", "/nonexistent/prog"}, "not an executable"},
		{[]string{"-n", "1", "no-such-command-xyz"}, "command not found"},
		{[]string{"--timeout", "-3", "true"}, "bad timeout"},
		{[]string{"--launcher", "rsh", "true"}, `unknown launcher "rsh"`},
		{[]string{"--launcher", "hydra", "--grid", "x.toml", "true"}, "--launcher applies to -H/--hostfile"},
	} {
		r := mpirun(t, "", nil, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: code %d stderr %q, want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	r := mpirun(t, "", nil, "--version")
	if r.code != 0 || !strings.Contains(r.stdout, "gmpi") {
		t.Errorf("--version: %d %q", r.code, r.stdout)
	}
	r = mpirun(t, "", nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--tag-output") {
		t.Errorf("--help: %d %q", r.code, r.stdout)
	}
	// localhost with slots sets the default process count.
	r = mpirun(t, "", nil, "-H", "localhost:3", pmiprogBin, "kvs")
	if r.code != 0 || strings.Count(r.stdout, " of 3 ok") != 3 {
		t.Errorf("-H localhost:3: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestLauncherOption starts every rank through a launcher command; through
// hydra the ranks reach mpirun over authenticated TCP PMI (PMI-1) although
// hydra gives them its own PMI_FD.
func TestLauncherOption(t *testing.T) {
	t.Parallel()
	// A template run here (PMI over the inherited socket).
	r := mpirun(t, "", nil, "--launcher", "env {cmd}", "-n", "2", "--timeout", "60", pmiprogBin, "kvs")
	if r.code != 0 || strings.Count(r.stdout, " of 2 ok pmi=1") != 2 {
		t.Errorf("--launcher template: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := exec.LookPath("mpiexec.hydra"); err != nil {
		t.Skip("mpiexec.hydra not installed")
	}
	r = mpirun(t, "", nil, "--launcher", "hydra", "-n", "3", "--timeout", "60", pmiprogBin, "kvs")
	if r.code != 0 || strings.Count(r.stdout, " of 3 ok pmi=1") != 3 {
		t.Errorf("--launcher hydra: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestParseArgs(t *testing.T) {
	hf := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(hf, []byte("# comment\nlocalhost slots=2\nlocalhost:3\n"), 0o644)
	o, err := parseArgs([]string{"-np=2", "--tag-output", "--timeout=1.5", "--hostfile", hf,
		"-genv", "A=1", "-env", "B", "2", "prog", "-n", "5", ":", "-n", "1", "other", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.apps) != 2 || o.apps[0].n != 2 || strings.Join(o.apps[0].argv, " ") != "prog -n 5" ||
		o.apps[1].n != 1 || strings.Join(o.apps[1].argv, " ") != "other x" {
		t.Errorf("apps %+v", o.apps)
	}
	if !o.tagOutput || o.timeout != 1500*time.Millisecond || len(o.hosts) != 2 || o.hosts[0].slots != 2 || o.hosts[1].slots != 3 {
		t.Errorf("options %+v", o)
	}
	if strings.Join(o.genv, ",") != "A=1" || strings.Join(o.apps[0].env, ",") != "B=2" {
		t.Errorf("env %v %v", o.genv, o.apps[0].env)
	}
}

// TestMPICH runs programs linked with MPICH's libmpich under our mpirun:
// MPICH's PMI-1 client must complete init, its KVS exchange and finalize
// against our server, and its MPI_Abort must end the job.
func TestMPICH(t *testing.T) {
	t.Parallel()
	mpicc, err := exec.LookPath("mpicc.mpich")
	if err != nil {
		t.Skip("mpicc.mpich not installed")
	}
	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command(mpicc, "-o", bin, "testdata/mpich_hello.c").CombinedOutput(); err != nil {
		t.Fatalf("mpicc.mpich: %v\n%s", err, out)
	}
	for _, n := range []int{1, 2, 4} {
		r := mpirun(t, "", nil, "-n", strconv.Itoa(n), bin)
		if r.code != 0 {
			t.Fatalf("-n %d: code %d stderr %q", n, r.code, r.stderr)
		}
		for rank := 0; rank < n; rank++ {
			if want := fmt.Sprintf("hello %d of %d sum %d\n", rank, n, n*(n-1)/2); !strings.Contains(r.stdout, want) {
				t.Errorf("-n %d: missing %q in %q", n, want, r.stdout)
			}
		}
	}
	r := mpirun(t, "", nil, "-n", "3", bin, "1")
	if r.code != 3 {
		t.Fatalf("abort: code %d stderr %q", r.code, r.stderr)
	}
	if ls := mpirunLines(r.stderr); len(ls) != 1 || !strings.Contains(ls[0], "rank 1 (pid") || !strings.Contains(ls[0], "MPI_Abort with error code 3") {
		t.Errorf("abort: stderr %q", r.stderr)
	}
}

// Binding: with as many CPUs as ranks each rank gets its own CPU (from its
// first instruction: the forking thread's affinity is inherited); with
// --bind-to none, or more ranks than CPUs, ranks keep mpirun's affinity.
func TestBinding(t *testing.T) {
	var own unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		t.Skip(err)
	}
	n := own.Count()
	list := func(args ...string) []string {
		t.Helper()
		args = append(args, "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status")
		res := mpirun(t, "", nil, args...)
		if res.code != 0 {
			t.Fatalf("mpirun %v: exit %d: %s", args, res.code, res.stderr)
		}
		return strings.Fields(strings.ReplaceAll(res.stdout, "Cpus_allowed_list:", ""))
	}
	bound := list("-n", strconv.Itoa(n))
	seen := map[string]bool{}
	for _, l := range bound {
		if strings.ContainsAny(l, ",-") || seen[l] {
			t.Errorf("bound ranks' CPU lists %v: want one distinct CPU each", bound)
			break
		}
		seen[l] = true
	}
	if len(bound) != n {
		t.Errorf("got %d CPU lists, want %d", len(bound), n)
	}
	for _, args := range [][]string{{"--bind-to", "none", "-n", "1"}, {"-n", strconv.Itoa(n + 1)}} {
		for _, l := range list(args...) {
			if n > 1 && !strings.ContainsAny(l, ",-") {
				t.Errorf("mpirun %v: a rank was bound to CPU %s", args, l)
			}
		}
	}
	if res := mpirun(t, "", nil, "--bind-to", "socket", "-n", "1", "/bin/true"); res.code != 2 {
		t.Errorf("--bind-to socket: exit %d, want 2", res.code)
	}
}
