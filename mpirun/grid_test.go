package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// fakeSSH writes an "ssh" that runs the remote command here, ignoring
// the host (as if every host shared this computer's files), and returns
// its path.
func fakeSSH(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fakessh")
	script := `#!/bin/sh
while [ $# -gt 0 ]; do
    case $1 in
    -l|-p|-o) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
shift
exec /bin/sh -c "$*"
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeGrid writes a grid file of two sites: site a with one local host,
// site b with two hosts started through the fake ssh (and, with vendor,
// a vendor MPI that only --show-topology may name: it does not exist).
func writeGrid(t *testing.T, ssh string, vendor bool) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "grid.toml")
	text := fmt.Sprintf(`[wan]
latency = "10ms"
[[site]]
name = "a"
  [[site.machine]]
  name = "am"
  hosts = ["a0"]
[[site]]
name = "b"
  [[site.machine]]
  name = "bm"
  launcher = "ssh"
  hosts = ["b0", "b1"]
  [site.machine.ssh]
  program = %q
  user = "nobody"
  port = 2222
  options = ["-o", "BatchMode=yes"]
`, ssh)
	if vendor {
		text += "  [site.machine.vmpi]\n  lib = \"/opt/vendor/libmpi.so\"\n"
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGridLocal(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", nil, "--grid", "../examples/grid-2x2.toml", "/bin/sh", "-c",
		`echo "$PMI_RANK $GMPI_HOSTNAME $GMPI_SITE $GMPI_MACHINE [$GMPI_VMPI] $GMPI_LOCAL_RANK/$GMPI_LOCAL_SIZE $PMI_FD ${#GMPI_JOB_SECRET}"`)
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"0 s0h0 site0 site0-cluster [] 0/1 3 64\n", "1 s0h1 site0 site0-cluster [] 0/1 3 64\n",
		"2 s1h0 site1 site1-cluster [] 0/1 3 64\n", "3 s1h1 site1 site1-cluster [] 0/1 3 64\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in %q", want, r.stdout)
		}
	}
	r = mpirun(t, "", nil, "--grid", "../examples/grid-2x2.toml", pmiprogBin, "kvs")
	if r.code != 0 || strings.Count(r.stdout, " of 4 ok") != 4 || !strings.Contains(r.stdout, "host=s1h1 local=0/1") {
		t.Errorf("kvs: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestGridSSH starts two of three ranks through ssh (PMI over TCP, the
// secret on stdin); those ranks attack mpirun's PMI port without the
// secret, which must be refused without disturbing the job.
func TestGridSSH(t *testing.T) {
	t.Parallel()
	g := writeGrid(t, fakeSSH(t), false)
	r := mpirun(t, "", nil, "--grid", g, pmiprogBin, "intrude")
	if r.code != 0 {
		t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"rank 0 done", "rank 1 done", "rank 2 done", "rank 1: intruders refused", "rank 2: intruders refused"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in %q", want, r.stdout)
		}
	}
	r = mpirun(t, "", nil, "--grid", g, "/bin/sh", "-c",
		`echo "$PMI_RANK $GMPI_HOSTNAME $GMPI_VMPI fd=${PMI_FD:-none} auth=${GMPI_PMI_AUTH:-0} port=${PMI_PORT:+set} secret=${#GMPI_JOB_SECRET}"; cat /proc/$$/cmdline | tr '\0' ' '; echo`)
	if r.code != 0 {
		t.Fatalf("env: code %d stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"0 a0  fd=3 auth=0 port= secret=64", "1 b0  fd=none auth=1 port=set secret=64", "2 b1  fd=none auth=1 port=set secret=64"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in %q", want, r.stdout)
		}
	}
	if m := regexp.MustCompile(`[0-9a-f]{64}`).FindString(r.stdout); m != "" {
		t.Errorf("the job secret appears on a command line: %q", r.stdout)
	}
}

// TestGridKill: a rank started through ssh is killed; the whole job ends
// on every host, naming the rank and its host, and no process survives.
// TestGridSSHHostile: the ranks started through ssh flood mpirun's TCP
// PMI port (garbage, half-open, one byte every 250 ms, 1000 silent
// connections each) while they use PMI; every hostile connection is
// dropped within GMPI_AUTH_TIMEOUT (1 s) plus slack, and the job ends
// well.
func TestGridSSHHostile(t *testing.T) {
	t.Parallel()
	g := writeGrid(t, fakeSSH(t), false)
	r := mpirun(t, "", []string{"GMPI_AUTH_TIMEOUT=1"}, "--grid", g, pmiprogBin, "hostile")
	if r.code != 0 {
		t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"rank 0 done", "rank 1 done", "rank 2 done", "rank 1: 1003 hostile connections dropped", "rank 2: 1003 hostile connections dropped"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in %q", want, r.stdout)
		}
	}
}

func TestGridKill(t *testing.T) {
	t.Parallel()
	g := writeGrid(t, fakeSSH(t), false)
	for _, victim := range []string{"1", "0"} {
		r := mpirun(t, "", nil, "--grid", g, pmiprogBin, "selfkill", victim)
		host := map[string]string{"0": "a0", "1": "b0"}[victim]
		if r.code != 137 || !strings.Contains(r.stderr, "rank "+victim+" on host "+host) && !strings.Contains(r.stderr, "rank "+victim+" (ssh pid") {
			t.Errorf("victim %s: code %d stderr %q", victim, r.code, r.stderr)
		}
		if len(r.pids) != 9 {
			t.Errorf("victim %s: %d processes recorded, want 9 (3 ranks with 2 sleepers each)", victim, len(r.pids))
		}
	}
}

// TestHostFailsToStart: a host whose launcher fails is named and the
// ranks already started elsewhere are ended.
func TestHostFailsToStart(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", []string{"GMPI_SSH=/bin/false"}, "-H", "localhost,nohost.invalid", pmiprogBin, "hang")
	if r.code == 0 || !strings.Contains(r.stderr, "host nohost.invalid failed to start rank 1") {
		t.Errorf("code %d stderr %q", r.code, r.stderr)
	}
}

func TestShowTopology(t *testing.T) {
	t.Parallel()
	g := writeGrid(t, "ssh", true)
	r := mpirun(t, "", nil, "--grid", g, "--show-topology", "/nonexistent-prog-never-run")
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	for _, re := range []string{
		`(?m)^site a \(color 0 at level 1\)$`, `(?m)^  machine bm \(launcher ssh, vendor MPI /opt/vendor/libmpi.so\)$`,
		`(?m)^    host b1: rank\(s\) 2$`, `(?m)^  a <-> b: latency 10ms, bandwidth unlimited$`,
		`(?m)^0 +a0 +a +am +3 +0 0 0$`, `(?m)^1 +b0 +b +bm +4 +0 1 1 0$`, `(?m)^2 +b1 +b +bm +4 +0 1 1 0$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("no match for %s in\n%s", re, r.stdout)
		}
	}
	r = mpirun(t, "", nil, "-H", "h1:2,h2", "-n", "4", "--show-topology")
	if r.code != 0 || !strings.Contains(r.stdout, "host h1: rank(s) 0-1,3") || !strings.Contains(r.stdout, "host h2: rank(s) 2") {
		t.Errorf("-H: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestGridUsageErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[[site]]\nname = \"a\"\n[[site.machine]]\nname = \"m\"\nhosts = [\"h\"]\nprocz = 3\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--grid", bad, "true"}, bad + `:6: unknown key "procz"`},
		{[]string{"--grid", "/nonexistent.toml", "true"}, "grid file"},
		{[]string{"--grid", "../examples/grid-2x2.toml", "-n", "3", "true"}, "places 4"},
		{[]string{"--emulate", "true"}, "--emulate needs --grid"},
		{[]string{"--grid", "../examples/grid-2x2.toml", "-H", "x", "true"}, "exclude each other"},
	} {
		r := mpirun(t, "", nil, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: code %d stderr %q, want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// needEmulation skips unless the grid emulator can run here (root).
func needEmulation(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("--emulate needs root")
	}
}

// TestEmulate runs the 2x2 example on emulated hosts: each rank runs in
// its host (hostname, address in GMPI_TCP_IF) and PMI works through the
// inherited socket.
func TestEmulate(t *testing.T) {
	needEmulation(t)
	r := mpirun(t, "", nil, "--grid", "../examples/grid-2x2.toml", "--emulate", "/bin/sh", "-c",
		`echo "$PMI_RANK $(hostname) $GMPI_HOSTNAME $GMPI_TCP_IF $GMPI_SITE"`)
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	for _, re := range []string{`(?m)^0 s0h0 s0h0 10\.\d+\.\d+\.\d+ site0$`, `(?m)^1 s0h1 s0h1 10\.`, `(?m)^2 s1h0 s1h0 10\.`, `(?m)^3 s1h1 s1h1 10\.\d+\.\d+\.\d+ site1$`} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("no match for %s in %q", re, r.stdout)
		}
	}
	r = mpirun(t, "", nil, "--grid", "../examples/grid-2x2.toml", "--emulate", pmiprogBin, "kvs")
	if r.code != 0 || strings.Count(r.stdout, " of 4 ok") != 4 {
		t.Errorf("kvs: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestEmulateKill: a rank killed on one emulated host ends the job on
// every host, and the emulation is torn down (no namespace left).
func TestEmulateKill(t *testing.T) {
	needEmulation(t)
	before := netnsNames()
	r := mpirun(t, "", nil, "--grid", "../examples/grid-2x2.toml", "--emulate", pmiprogBin, "selfkill", "2")
	if r.code != 137 || !strings.Contains(r.stderr, "rank 2 on host s1h0") {
		t.Errorf("code %d stderr %q", r.code, r.stderr)
	}
	// Namespaces that appeared meanwhile and whose mpirun (gmpi-<pid>-...)
	// is gone were left behind (other jobs may run at the same time).
	for n := range netnsNames() {
		var pid int
		if before[n] || !strings.HasPrefix(n, "gmpi-") {
			continue
		}
		if _, err := fmt.Sscanf(n, "gmpi-%d-", &pid); err == nil && syscall.Kill(pid, 0) != nil {
			t.Errorf("namespace %s left behind", n)
		}
	}
}

func netnsNames() map[string]bool {
	out, _ := exec.Command("ip", "netns", "list").Output()
	names := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names[f[0]] = true
		}
	}
	return names
}

// TestGridTemplate: a command-template launcher with {host} and {cmd},
// PMI over the inherited socket (default) and over authenticated TCP.
func TestGridTemplate(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tmpl.toml")
	os.WriteFile(p, []byte(`[[site]]
name = "s"
  [[site.machine]]
  name = "fd"
  launcher = "env TEMPLATE_HOST={host} {cmd}"
  hosts = ["t0", "t1"]
  [[site.machine]]
  name = "tcp"
  launcher = "env TEMPLATE_HOST=via-tcp-{host} {cmd}"
  pmi = "tcp"
  hosts = ["t2"]
`), 0o644)
	r := mpirun(t, "", nil, "--grid", p, "/bin/sh", "-c", `echo "$PMI_RANK $TEMPLATE_HOST ${PMI_FD:-port}"`)
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"0 t0 3\n", "1 t1 3\n", "2 via-tcp-t2 port\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in %q", want, r.stdout)
		}
	}
	r = mpirun(t, "", nil, "--grid", p, pmiprogBin, "kvs")
	if r.code != 0 || strings.Count(r.stdout, " of 3 ok") != 3 {
		t.Errorf("kvs: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestStartupTimeout: ranks that never check in while the others wait in
// the startup barrier end the job, naming their host.
func TestStartupTimeout(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "", []string{"GMPI_STARTUP_TIMEOUT=2"}, "--grid", "../examples/grid-2x2.toml",
		"-n", "3", pmiprogBin, "hang", ":", "-n", "1", "/bin/sleep", "60")
	if r.code != 1 || !strings.Contains(r.stderr, "startup: rank(s) 3 on host(s) s1h1 did not check in within 2s") {
		t.Errorf("code %d stderr %q", r.code, r.stderr)
	}
}

// writePrivateGrid writes a grid of two local sites, b private behind
// its gateway b0, with a port range for site a.
func writePrivateGrid(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "private.toml")
	text := `[[site]]
name = "a"
port_range = "41000:41999"
  [[site.machine]]
  name = "am"
  hosts = ["a0"]
[[site]]
name = "b"
private = true
gateway = "b0"
  [[site.machine]]
  name = "bm"
  hosts = ["b0", "b1"]
`
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGridRelay: a private site gets a relay on its gateway before the
// ranks start; the ranks learn it (GMPI_TCP_RELAYS) and their port range;
// the relay refuses strangers; a relay killed mid-job ends the job,
// naming it.
func TestGridRelay(t *testing.T) {
	t.Parallel()
	g := writePrivateGrid(t)
	r := mpirun(t, "", nil, "--grid", g, "/bin/sh", "-c", `echo "$PMI_RANK [$GMPI_TCP_RELAYS] [$GMPI_TCP_PORT_RANGE]"`)
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	m := regexp.MustCompile(`0 \[b@b0=127\.0\.0\.1:([0-9]+)\] \[41000:41999\]`).FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, "2 [b@b0=127.0.0.1:"+m[1]+"] []") {
		t.Fatalf("relay and port range in the ranks' environment: %q", r.stdout)
	}
	r = mpirun(t, "", nil, "--grid", g, "--show-topology")
	if r.code != 0 || !strings.Contains(r.stdout, "a <-> b: 1 host pair(s) direct, 1 host pair(s) via relay on b0") ||
		!strings.Contains(r.stdout, "private: reached through the relay on b0") {
		t.Errorf("--show-topology: code %d stdout %q", r.code, r.stdout)
	}
	// Rank 0 kills the relay (a child of mpirun, its own parent) by pid.
	r = mpirun(t, "", nil, "--grid", g, "/bin/sh", "-c",
		`if [ "$PMI_RANK" = 0 ]; then sleep 1; kill -KILL $(pgrep -P $PPID -f '__rela[y] -site'); fi; sleep 25; echo finished`)
	if r.code == 0 || !strings.Contains(r.stderr, "the relay of site b on host b0") || strings.Contains(r.stdout, "finished") {
		t.Errorf("relay killed: code %d after %v, stdout %q stderr %q", r.code, r.elapsed, r.stdout, r.stderr)
	}
}
