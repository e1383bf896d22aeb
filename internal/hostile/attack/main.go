// Command attack runs package hostile's attack against the listening
// ports it finds, for the shell tests of the emulated grid
// (tests/scripts/grid_hostile.sh), which run it in one emulated host's
// network namespace against the ranks of the others:
//
//	attack [-flood N] [-slow D] [-within D] [-want N] [-find D] [-names KEYFILE] [-port PORTFILE] HOST:LO-HI...
//
// Every port of every HOST:LO-HI range that accepts a connection is
// attacked (garbage, half-open, one byte every -slow, -flood silent
// connections). With -names the ports are name servers (mpirun
// --serve-names) whose key is in KEYFILE, and with -port PORTFILE the MPI
// port whose name is in PORTFILE (MPI_Open_port's, at the first of its
// addresses that is not loopback and answers) is attacked too: both also
// get connections that prove the key or the port's secret and then send
// garbage, a truncated message, an oversized one or nothing
// (hostile.Authed). It waits up to -find for -want ports (the ranks may
// still be starting; the -port one not counted), then until every hostile
// connection is dropped by the port, or -within of the attack's start.
// One line per port: "ADDR: N hostile connections dropped"; exit status
// 1 on any failure.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"gmpi/devices/tcp"
	"gmpi/internal/hostile"
	"gmpi/runtime/names"
)

func main() {
	flood := flag.Int("flood", 500, "silent connections per port")
	slow := flag.Duration("slow", 250*time.Millisecond, "interval of the slow connection's bytes")
	within := flag.Duration("within", 15*time.Second, "every hostile connection must be dropped within this")
	want := flag.Int("want", 1, "ports to find before attacking")
	find := flag.Duration("find", 30*time.Second, "how long to look for -want ports")
	keyFile := flag.String("names", "", "the ports are name servers with the key in this file")
	portFile := flag.String("port", "", "also attack the MPI port named in this file")
	flag.Parse()
	var key []byte
	if *keyFile != "" {
		var err error
		if key, err = names.LoadKey(*keyFile, false); err != nil {
			fmt.Fprintf(os.Stderr, "attack: %v\n", err)
			os.Exit(2)
		}
	}
	portAddr, portSecret := "", []byte(nil)
	if *portFile != "" {
		b, err := os.ReadFile(*portFile)
		var addrs []string
		if err == nil {
			addrs, portSecret, err = tcp.ParsePortName(strings.TrimSpace(string(b)))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "attack: -port %s: %v\n", *portFile, err)
			os.Exit(2)
		}
		for _, a := range addrs {
			host, _, _ := net.SplitHostPort(a)
			if ip := net.ParseIP(host); ip == nil || ip.IsLoopback() {
				continue
			}
			if c, err := net.DialTimeout("tcp", a, 5*time.Second); err == nil {
				c.Close()
				portAddr = a
				break
			}
		}
		if portAddr == "" {
			fmt.Fprintf(os.Stderr, "attack: no address of the port in %s answers (%s)\n", *portFile, strings.Join(addrs, " "))
			os.Exit(1)
		}
	}
	var addrs []string
	deadline := time.Now().Add(*find)
	for {
		addrs = open(flag.Args())
		if len(addrs) >= *want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(addrs) < *want {
		fmt.Fprintf(os.Stderr, "attack: found %d listening ports (%s), want %d\n", len(addrs), strings.Join(addrs, " "), *want)
		os.Exit(1)
	}
	secrets := make([][]byte, len(addrs))
	context := make([]string, len(addrs))
	if key != nil {
		for i := range addrs {
			secrets[i], context[i] = key, "names"
		}
	}
	if portAddr != "" {
		addrs, secrets, context = append(addrs, portAddr), append(secrets, portSecret), append(context, "port")
	}
	// Every port at once: dialing a flood across a wide-area link takes a
	// round trip per connection.
	attacks := make([]*hostile.Attack, len(addrs))
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if attacks[i], errs[i] = hostile.Start(a, *flood, *slow); errs[i] != nil {
				return
			}
			if secrets[i] != nil {
				if errs[i] = attacks[i].Authed(secrets[i], context[i]); errs[i] != nil {
					return
				}
			}
			errs[i] = attacks[i].Check(*within)
		}()
	}
	wg.Wait()
	fail := false
	for i, at := range attacks {
		if errs[i] != nil {
			fmt.Fprintf(os.Stderr, "attack: %v\n", errs[i])
			fail = true
		} else {
			fmt.Printf("%s: %d hostile connections dropped\n", at.Addr, at.Conns())
		}
		if at != nil {
			at.Close()
		}
	}
	if fail {
		os.Exit(1)
	}
}

// open lists the ports of the ranges that accept a connection.
func open(ranges []string) []string {
	var addrs []string
	for _, r := range ranges {
		host, ports, err := net.SplitHostPort(r)
		if err != nil {
			fmt.Fprintf(os.Stderr, "attack: %q: %v\n", r, err)
			os.Exit(2)
		}
		lo, hi, _ := strings.Cut(ports, "-")
		if hi == "" {
			hi = lo
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || l > h {
			fmt.Fprintf(os.Stderr, "attack: %q: not HOST:LO-HI\n", r)
			os.Exit(2)
		}
		for p := l; p <= h; p++ {
			a := net.JoinHostPort(host, strconv.Itoa(p))
			if c, err := net.DialTimeout("tcp", a, 2*time.Second); err == nil {
				c.Close()
				addrs = append(addrs, a)
			}
		}
	}
	return addrs
}
