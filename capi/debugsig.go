package main

import (
	"os"
	"os/signal"
	goruntime "runtime"
	"syscall"
)

// debugSignal is GMPI_DEBUG_SIGNAL=1: on SIGUSR1 the process writes every
// goroutine's stack and the engine's protocol state (posted receives,
// unexpected messages, requests waiting for a reply) to stderr and goes
// on. A Go library inside a C program gets no traceback from SIGQUIT;
// this is how a hung rank is examined (bench/stress_threads.sh uses it).
func debugSignal() {
	if os.Getenv("GMPI_DEBUG_SIGNAL") != "1" {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			buf := make([]byte, 1<<22)
			n := goruntime.Stack(buf, true)
			os.Stderr.Write(buf[:n])
			if w := world; w != nil {
				w.DebugDump(os.Stderr)
			}
		}
	}()
}
