// Command relayhop measures what one relay hop costs on this host,
// without the grid emulator: a client process, an echo process and a
// relay process ("mpirun __relay") on loopback. It prints the 8-byte
// ping-pong latency (half round trip, median) and the one-way streaming
// bandwidth, directly and through the relay, and the relay's CPU time
// per message and per GB. bench/relay.sh measures the same on an emulated
// grid; this isolates the relay from the emulator's router.
//
// usage: relayhop [-mpirun PATH] [-n PINGS] [-bytes N] [-rounds R]
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"gmpi/devices/relay"
	"gmpi/runtime/ports"
)

func main() {
	mpirun := flag.String("mpirun", "build/bin/mpirun", "the mpirun whose relay is measured")
	pings := flag.Int("n", 20000, "ping-pongs per latency sample")
	bytes := flag.Int64("bytes", 1<<30, "bytes per bandwidth sample")
	rounds := flag.Int("rounds", 5, "samples of each (direct and relay alternate); best counts")
	echo := flag.Bool("echo", false, "internal: run the echo server")
	renv := flag.String("relayenv", "", "extra VAR=VALUE for the relay process (comma separated)")
	flag.Parse()
	if *echo {
		runEcho()
		return
	}
	secret := make([]byte, 32)
	rand.Read(secret)

	// The echo process: a rank's end.
	ec := exec.Command(os.Args[0], "-echo")
	ecOut, _ := ec.StdoutPipe()
	ec.Stderr = os.Stderr
	ec.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // fail exits without defers
	if err := ec.Start(); err != nil {
		fail(err)
	}
	defer ec.Process.Kill()
	target := strings.TrimSpace(readLine(ecOut))

	// The relay process.
	rc := exec.Command(*mpirun, "__relay", "-name", "here", "-site", "s")
	rIn, _ := rc.StdinPipe()
	rOut, _ := rc.StdoutPipe()
	rc.Stderr = os.Stderr
	rc.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if *renv != "" {
		rc.Env = append(os.Environ(), strings.Split(*renv, ",")...)
	}
	if err := rc.Start(); err != nil {
		fail(err)
	}
	defer rc.Process.Kill()
	fmt.Fprintln(rIn, hex.EncodeToString(secret))
	var port int
	if _, err := fmt.Sscanf(readLine(rOut), "listening %d", &port); err != nil {
		fail(fmt.Errorf("relay did not start: %v", err))
	}
	hop := fmt.Sprintf("127.0.0.1:%d", port)

	dial := func(viaRelay bool) *net.TCPConn {
		if !viaRelay {
			c, err := net.Dial("tcp", target)
			if err != nil {
				fail(err)
			}
			tc := c.(*net.TCPConn)
			tc.SetNoDelay(true)
			return tc
		}
		c, err := relay.Dial([]string{hop}, target, secret, 1, 0, 1, ports.Range{}, 5*time.Second)
		if err != nil {
			fail(err)
		}
		return c
	}
	best := map[string]float64{}
	cpu := map[string]float64{}
	upd := func(k string, v float64, low bool) {
		if o, ok := best[k]; !ok || (low && v < o) || (!low && v > o) {
			best[k] = v
		}
	}
	for r := 0; r < *rounds; r++ {
		for _, via := range []bool{false, true} {
			name := map[bool]string{false: "direct", true: "relay"}[via]
			c := dial(via)
			t0 := relayCPU(rc.Process.Pid)
			lat := pingPong(c, *pings)
			t1 := relayCPU(rc.Process.Pid)
			bw := stream(c, *bytes)
			t2 := relayCPU(rc.Process.Pid)
			c.Close()
			upd(name+" lat", lat, true)
			upd(name+" bw", bw, false)
			if via {
				cpu["us/msg"] += (t1 - t0) / float64(2**pings) * 1e6 / float64(*rounds)
				cpu["s/GB"] += (t2 - t1) / (float64(*bytes) / 1e9) / float64(*rounds)
			}
		}
	}
	fmt.Printf("# relayhop: pings=%d bytes=%d rounds=%d load=%s\n", *pings, *bytes, *rounds, loadavg())
	fmt.Printf("direct: lat %.2f us, bw %.0f MB/s\n", best["direct lat"], best["direct bw"])
	fmt.Printf("relay:  lat %.2f us, bw %.0f MB/s\n", best["relay lat"], best["relay bw"])
	fmt.Printf("relay adds %.2f us one way, keeps %.1f %% of the bandwidth; relay CPU %.2f us per message, %.3f s per GB\n",
		best["relay lat"]-best["direct lat"], 100*best["relay bw"]/best["direct bw"], cpu["us/msg"], cpu["s/GB"])
}

// pingPong returns the median half round trip of 8-byte messages, in us.
func pingPong(c *net.TCPConn, n int) float64 {
	var b [8]byte
	ds := make([]float64, 0, n)
	for i := 0; i < n+n/10; i++ {
		t := time.Now()
		if _, err := c.Write(b[:]); err != nil {
			fail(err)
		}
		if _, err := io.ReadFull(c, b[:]); err != nil {
			fail(err)
		}
		if i >= n/10 {
			ds = append(ds, float64(time.Since(t).Nanoseconds())/2e3)
		}
	}
	sort.Float64s(ds)
	return ds[len(ds)/2]
}

// stream sends n bytes; the echo side counts them and answers with one
// byte ('B' command first). Returns MB/s.
func stream(c *net.TCPConn, n int64) float64 {
	var hdr [9]byte
	hdr[0] = 'B'
	for i := 0; i < 8; i++ {
		hdr[1+i] = byte(n >> (8 * i))
	}
	buf := make([]byte, 1<<20)
	t := time.Now()
	if _, err := c.Write(hdr[:]); err != nil {
		fail(err)
	}
	for left := n; left > 0; {
		k := min(left, int64(len(buf)))
		if _, err := c.Write(buf[:k]); err != nil {
			fail(err)
		}
		left -= k
	}
	var ack [1]byte
	if _, err := io.ReadFull(c, ack[:]); err != nil {
		fail(err)
	}
	return float64(n) / time.Since(t).Seconds() / 1e6
}

// runEcho serves: 8-byte pings are echoed; 'B' + u64 n: read n bytes, answer one.
func runEcho() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	fmt.Println(l.Addr().String())
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func(c net.Conn) {
			defer c.Close()
			c.(*net.TCPConn).SetNoDelay(true)
			buf := make([]byte, 1<<20)
			var b [8]byte
			for {
				if _, err := io.ReadFull(c, b[:1]); err != nil {
					return
				}
				if b[0] == 'B' {
					var h [8]byte
					if _, err := io.ReadFull(c, h[:]); err != nil {
						return
					}
					var n int64
					for i := 0; i < 8; i++ {
						n |= int64(h[i]) << (8 * i)
					}
					if _, err := io.CopyBuffer(io.Discard, io.LimitReader(c, n), buf); err != nil {
						return
					}
					c.Write([]byte{'k'})
					continue
				}
				if _, err := io.ReadFull(c, b[1:]); err != nil {
					return
				}
				if _, err := c.Write(b[:]); err != nil {
					return
				}
			}
		}(c)
	}
}

// relayCPU is the relay process's user+system CPU time, in seconds.
func relayCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var ut, st float64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return (ut + st) / 100 // USER_HZ
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func readLine(r io.Reader) string {
	l, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		fail(fmt.Errorf("reading a child's first line: %v", err))
	}
	return l
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relayhop:", err)
	os.Exit(1)
}
