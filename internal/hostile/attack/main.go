// Command attack runs package hostile's attack against the listening
// ports it finds, for the shell tests of the emulated grid
// (tests/scripts/grid_hostile.sh), which run it in one emulated host's
// network namespace against the ranks of the others:
//
//	attack [-flood N] [-slow D] [-within D] [-want N] [-find D] HOST:LO-HI...
//
// Every port of every HOST:LO-HI range that accepts a connection is
// attacked (garbage, half-open, one byte every -slow, -flood silent
// connections). It waits up to -find for -want such ports (the ranks may
// still be starting), then until every hostile connection is dropped by
// the port, or -within of the attack's start. One line per port:
// "ADDR: N hostile connections dropped"; exit status 1 on any failure.
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

	"gmpi/internal/hostile"
)

func main() {
	flood := flag.Int("flood", 500, "silent connections per port")
	slow := flag.Duration("slow", 250*time.Millisecond, "interval of the slow connection's bytes")
	within := flag.Duration("within", 15*time.Second, "every hostile connection must be dropped within this")
	want := flag.Int("want", 1, "ports to find before attacking")
	find := flag.Duration("find", 30*time.Second, "how long to look for -want ports")
	flag.Parse()
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
