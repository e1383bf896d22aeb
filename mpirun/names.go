package main

import (
	"net"
	"os"
	"os/signal"
	"syscall"

	"gmpi/runtime/names"
	"gmpi/runtime/param"
)

// serveNames is `mpirun --serve-names HOST:PORT`: a name server in the
// foreground until interrupted (runtime/names). Its key is the file
// GMPI_NAMESERVER_KEY (default ~/.gmpi/nameserver.key), made when missing;
// jobs started with --nameserver read the same file.
func serveNames(addr string) int {
	params, err := param.Env()
	if err != nil {
		logf("%v", err)
		return 2
	}
	path := param.NameServerKey.Get(params)
	if path == "" {
		path = names.DefaultKeyFile()
	}
	key, err := names.LoadKey(path, true)
	if err != nil {
		logf("%v", err)
		return 1
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		logf("name server: %v", err)
		return 1
	}
	s := names.NewServer(key)
	s.Timeout = authTimeout(params)
	if param.MpirunVerbose.Get(params) {
		s.Log = logf
	}
	logf("name server listening on %s (key %s)", l.Addr(), path)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		l.Close()
	}()
	if err := s.Serve(l); err != nil {
		logf("name server: %v", err)
		return 1
	}
	return 0
}
