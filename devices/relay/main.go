package relay

import (
	"bufio"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"gmpi/runtime/param"
	"gmpi/runtime/ports"
)

// Main runs a relay process ("mpirun __relay ARGS"): it reads the job
// secret (hex) as the first line of stdin, listens on -listen (every
// address by default) at a port of -range, prints "listening PORT" on
// stdout, and forwards until the rest of stdin ends (mpirun holds it
// open for the job's lifetime, so the relay never outlives the job).
// Diagnostics go to stderr, prefixed "gmpi relay on NAME:".
func Main(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	name := fs.String("name", "", "the gateway host the relay runs on (for messages)")
	site := fs.String("site", "", "the private site it serves (for messages)")
	listen := fs.String("listen", "", "address to bind (empty: every address)")
	rng := fs.String("range", "", "port range low:high (empty: any port)")
	srcRng := fs.String("source", "", "source port range low:high of onward connections (empty: any port)")
	timeout := fs.Duration("timeout", 30*time.Second, "handshake, dial and keepalive timeout")
	verbose := fs.Bool("v", false, "log refused connections and paths")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, err := ports.Parse(*rng)
	if err != nil {
		return err
	}
	src, err := ports.Parse(*srcRng)
	if err != nil {
		return fmt.Errorf("-source: %w", err)
	}
	in := bufio.NewReader(stdin)
	line, err := in.ReadString('\n')
	if err != nil {
		return errors.New("no job secret on stdin")
	}
	secret, err := hex.DecodeString(line[:len(line)-1])
	if err != nil || len(secret) < 16 {
		return errors.New("the job secret on stdin is not hex of at least 16 bytes")
	}
	what := fmt.Sprintf("the relay of site %s on host %s", *site, *name)
	l, err := ports.Listen(*listen, r, what, "the site's port_range (GMPI_TCP_PORT_RANGE)")
	if err != nil {
		return err
	}
	prefix := "gmpi relay on " + *name + ": "
	s := &Server{Listener: l, Secret: secret, Timeout: *timeout, Name: "relay on host " + *name, Source: src}
	if p, err := param.Env(); err == nil {
		s.AuthTimeout = param.AuthTimeout.Get(p)
	}
	if *verbose {
		s.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, prefix+format+"\n", args...) }
	}
	if s.Kernel, err = ParseKernel(os.Getenv("GMPI_RELAY_KERNEL")); err != nil {
		l.Close()
		return err
	}
	if s.Kernel != KernelOff {
		if kerr := KernelError(); kerr != nil && s.Kernel == KernelOn {
			l.Close()
			return fmt.Errorf("GMPI_RELAY_KERNEL=1, but in-kernel forwarding is refused: %v", kerr)
		}
	}
	if *verbose {
		s.Log("forwarding %s", s.Forwarding())
	}
	if _, err := fmt.Fprintf(stdout, "listening %d\n", l.Addr().(*net.TCPAddr).Port); err != nil {
		l.Close()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	io.Copy(io.Discard, in) // the lifeline: mpirun closes it when the job ends
	s.Close()
	<-done
	return nil
}
