package fileio

import (
	"path/filepath"
	"strings"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Files on a file system that only some processes see (a grid file's
// "filesystems": mpirun tells each process in GMPI_IO_UNSEEN which
// declared directories its machine does not see). Such a file is still
// one MPI file to every process of the communicator:
//   - only the processes that see it open it; the first of them (root)
//     creates it, resizes it, deletes it and keeps the shared pointer;
//   - collective access always goes through two-phase collective
//     buffering with aggregators among the processes that see the file,
//     so a blind process's data travel to (and from) them over the file's
//     communicator;
//   - everything else a blind process does on the file (independent
//     access with data sieving and range locks, the size, sync, the
//     shared pointer) is forwarded to a proxy that sees it (forward.go);
//   - a file no process sees fails to open with MPI_ERR_NO_SUCH_FILE.

// unseenDir returns the declared directory of path that this process's
// machine does not see ("" when it sees path).
func unseenDir(w *mpirt.World, path string) string {
	if w == nil {
		return ""
	}
	list := param.IOUnseen.Get(w.Params())
	if list == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	for _, d := range strings.Split(list, ":") {
		d = filepath.Clean(strings.TrimSpace(d))
		if d == "." || d == "" {
			continue
		}
		if abs == d || strings.HasPrefix(abs, d+"/") {
			return d
		}
	}
	return ""
}

// whereAmI names this process's machine and host for messages.
func whereAmI(w *mpirt.World) string {
	if w == nil {
		return "this process"
	}
	if locs := w.Locations(); w.Rank() < len(locs) {
		l := locs[w.Rank()]
		if l.Machine != "" {
			return "machine " + l.Machine + " (host " + l.Host + ")"
		}
		return "host " + l.Host
	}
	return "this process"
}

// sees reports whether comm rank r has the file open itself.
func (f *File) sees(r int) bool {
	if f.seers == nil {
		return true
	}
	for _, s := range f.seers {
		if s == r {
			return true
		}
	}
	return false
}
