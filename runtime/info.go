package mpirt

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Limits of info keys and values (MPI_MAX_INFO_KEY, MPI_MAX_INFO_VAL), not
// counting the terminating NUL.
const (
	MaxInfoKey = 255
	MaxInfoVal = 1024
)

// Info is an MPI_Info object: string keys with string values, in the
// order the keys were first set (MPI_Info_get_nthkey).
type Info struct {
	mu   sync.Mutex
	keys []string
	vals map[string]string
}

// NewInfo returns an empty info object.
func NewInfo() *Info { return &Info{vals: map[string]string{}} }

// CheckInfoKey checks a key's length.
func CheckInfoKey(fn, key string) error {
	if key == "" {
		return Errorf(ErrInfoKey, fn, "invalid info key argument key: empty")
	}
	if len(key) > MaxInfoKey {
		return Errorf(ErrInfoKey, fn, "invalid info key argument key: %d characters (MPI_MAX_INFO_KEY is %d)", len(key), MaxInfoKey)
	}
	return nil
}

// Set sets key to val.
func (in *Info) Set(key, val string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		in.keys = append(in.keys, key)
	}
	in.vals[key] = val
}

// Get returns the value of key.
func (in *Info) Get(key string) (string, bool) {
	if in == nil {
		return "", false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	v, ok := in.vals[key]
	return v, ok
}

// Delete removes key; it reports whether key was set.
func (in *Info) Delete(key string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		return false
	}
	delete(in.vals, key)
	for i, k := range in.keys {
		if k == key {
			in.keys = append(in.keys[:i], in.keys[i+1:]...)
			break
		}
	}
	return true
}

// Dup returns a copy of in (an empty info for nil).
func (in *Info) Dup() *Info {
	out := NewInfo()
	if in == nil {
		return out
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	out.keys = append(out.keys, in.keys...)
	for k, v := range in.vals {
		out.vals[k] = v
	}
	return out
}

// NKeys is the number of keys set.
func (in *Info) NKeys() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.keys)
}

// NthKey returns the n-th key (0-based).
func (in *Info) NthKey(n int) (string, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if n < 0 || n >= len(in.keys) {
		return "", false
	}
	return in.keys[n], true
}

// InfoEnv returns MPI_INFO_ENV: how the process was started.
func (w *World) InfoEnv() *Info {
	w.hostsMu.Lock()
	defer w.hostsMu.Unlock()
	if w.infoEnv == nil {
		w.infoEnv = EnvInfo(w.cfg)
	}
	return w.infoEnv
}

// EnvInfo builds the contents of MPI_INFO_ENV (and MPI_Info_create_env):
// command, argv, maxprocs, soft, host, arch, wdir, thread_level.
func EnvInfo(cfg Config) *Info {
	in := NewInfo()
	args := os.Args
	if b, err := os.ReadFile("/proc/self/cmdline"); err == nil && len(b) > 0 {
		args = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if len(args) > 0 {
		in.Set("command", args[0])
		if len(args) > 1 {
			in.Set("argv", strings.Join(args[1:], " "))
		}
	}
	if cfg.Size > 0 { // known once the process is launched (not before MPI_Init)
		in.Set("maxprocs", strconv.Itoa(cfg.Size))
		in.Set("soft", strconv.Itoa(cfg.Size))
	}
	if cfg.Hostname != "" {
		in.Set("host", cfg.Hostname)
	}
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x86_64"
	}
	in.Set("arch", arch)
	if wd, err := os.Getwd(); err == nil {
		in.Set("wdir", wd)
	}
	in.Set("thread_level", "MPI_THREAD_MULTIPLE")
	return in
}
