// Package fileio is gmpi's MPI-IO: files opened collectively over a
// communicator, file views, data representations, independent access
// (with data sieving for noncontiguous requests), collective access,
// individual and shared file pointers.
//
// A File owns a private duplicate of the communicator it was opened on,
// so its collective traffic never meets the user's. Positions given to
// the access functions are in etypes of the current view; the view maps
// the stream of data bytes to file offsets (view.go); io.go moves the
// bytes with pread/pwrite.
package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// Access modes (MPI_MODE_*, ROMIO's values).
const (
	ModeCreate        = 1
	ModeRdonly        = 2
	ModeWronly        = 4
	ModeRdwr          = 8
	ModeDeleteOnClose = 16
	ModeUniqueOpen    = 32
	ModeExcl          = 64
	ModeAppend        = 128
	ModeSequential    = 256
	modeAll           = 511
)

// Whence values of MPI_File_seek.
const (
	SeekSet = 600
	SeekCur = 602
	SeekEnd = 604
)

// DisplacementCurrent is MPI_DISPLACEMENT_CURRENT.
const DisplacementCurrent = -54278278

// File is one open MPI file.
type File struct {
	w     *mpirt.World
	comm  *mpirt.Comm // private duplicate of the opening communicator
	reg   *Registry
	path  string
	fd    int
	amode int
	// unseen is the declared directory of path this process does not
	// see ("" when it sees the file; unseen.go); seers are the comm
	// ranks that see it (nil: all) and root the first of them, which
	// creates, resizes and deletes the file.
	unseen string
	seers  []int
	root   int
	// Forwarding (forward.go), when some process does not see the file:
	// its own communicator, this process's client end (when blind) and
	// its servers (when proxy for blind processes).
	fwdComm *mpirt.Comm
	client  *fwdClient
	servers []*fwdServer

	// Errh is the file's error handler (MPI_ERRORS_RETURN initially, or
	// the one MPI_FILE_NULL had when the file was opened).
	Errh mpirt.ErrhandlerSlot

	mu     sync.Mutex // guards the fields below
	view   *view
	pos    int64 // individual file pointer, in etypes
	atomic bool
	hints  hints
	shared sharedPtr
	ordSeq uint32 // ordered calls so far (shmPtr.claimInTurn)
	// split is the pending split collective (MPI_File_*_begin), nil
	// when none.
	split *Split
}

// Split records a split collective between its begin and end.
type Split struct {
	Write  bool
	Buf    uintptr
	Status mpirt.Status
	Err    error
}

// Errno turns an operating-system error into the MPI error class the
// standard names for it (ROMIO's choices).
func Errno(err error) int {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return mpirt.ErrIO
	}
	switch en {
	case unix.ENOENT, unix.ENOTDIR:
		return mpirt.ErrNoSuchFile
	case unix.EEXIST:
		return mpirt.ErrFileExists
	case unix.EACCES, unix.EPERM:
		return mpirt.ErrAccess
	case unix.EROFS:
		return mpirt.ErrReadOnly
	case unix.ENOSPC, unix.EFBIG:
		return mpirt.ErrNoSpace
	case unix.EDQUOT:
		return mpirt.ErrQuota
	case unix.ENAMETOOLONG, unix.EISDIR, unix.ELOOP, unix.EINVAL:
		return mpirt.ErrBadFile
	case unix.ETXTBSY, unix.EBUSY:
		return mpirt.ErrFileInUse
	}
	return mpirt.ErrIO
}

// ioError wraps a system error of what (a path or an operation) in the
// MPI error of its class.
func ioError(fn, what string, err error) error {
	return mpirt.Errorf(Errno(err), fn, "%s: %v", what, err)
}

// CheckAmode checks an access mode alone (MPI-4.1 §14.2.1).
func CheckAmode(fn string, amode int) error {
	rw := 0
	for _, m := range []int{ModeRdonly, ModeWronly, ModeRdwr} {
		if amode&m != 0 {
			rw++
		}
	}
	switch {
	case amode&^modeAll != 0:
		return mpirt.Errorf(mpirt.ErrAmode, fn, "invalid amode %d: unknown bits 0x%x", amode, amode&^modeAll)
	case rw != 1:
		return mpirt.Errorf(mpirt.ErrAmode, fn, "invalid amode %d: exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required", amode)
	case amode&ModeRdonly != 0 && amode&(ModeCreate|ModeExcl) != 0:
		return mpirt.Errorf(mpirt.ErrAmode, fn, "invalid amode %d: MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL", amode)
	case amode&ModeRdwr != 0 && amode&ModeSequential != 0:
		return mpirt.Errorf(mpirt.ErrAmode, fn, "invalid amode %d: MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL", amode)
	}
	return nil
}

// agree combines per-rank error classes: every rank gets the largest
// (0 when all succeeded).
func agree(c *mpirt.Comm, class int) (int, error) {
	v := []int64{int64(class)}
	if err := allreduceInt64(c, v, mpirt.OpMax); err != nil {
		return 0, err
	}
	return int(v[0]), nil
}

// Open opens path on every process of c (collective). info may be nil.
func Open(fn string, c *mpirt.Comm, reg *Registry, path string, amode int, info *mpirt.Info) (*File, error) {
	if c.IsInter() {
		return nil, mpirt.Errorf(mpirt.ErrComm, fn, "invalid communicator argument comm: an intercommunicator")
	}
	local := 0
	if err := CheckAmode(fn, amode); err != nil {
		local = mpirt.ErrAmode
	}
	// Every process must pass the same amode; v[2]: some process does
	// not see the file.
	unseen := unseenDir(c.World(), path)
	blind := int64(0)
	if unseen != "" {
		blind = 1
	}
	v := []int64{int64(amode), -int64(amode), blind}
	if err := allreduceInt64(c, v, mpirt.OpMax); err != nil {
		return nil, err
	}
	if cls, err := agree(c, local); err != nil {
		return nil, err
	} else if cls != 0 {
		if local != 0 {
			return nil, CheckAmode(fn, amode)
		}
		return nil, mpirt.Errorf(cls, fn, "another process passed an invalid amode")
	}
	if v[0] != -v[1] {
		return nil, mpirt.Errorf(mpirt.ErrNotSame, fn, "invalid amode %d: the processes passed different access modes", amode)
	}
	dup, err := c.Dup(nil)
	if err != nil {
		return nil, err
	}
	f := &File{w: c.World(), comm: dup, reg: reg, path: path, fd: -1, amode: amode, unseen: unseen}
	if v[2] != 0 {
		flags, err := allgatherN(dup, []int64{blind})
		if err != nil {
			dup.Free()
			return nil, err
		}
		f.seers = []int{}
		for r, b := range flags {
			if b == 0 {
				f.seers = append(f.seers, r)
			}
		}
		if len(f.seers) == 0 {
			dup.Free()
			return nil, mpirt.Errorf(mpirt.ErrNoSuchFile, fn, "%s: no process of the communicator sees it (grid file filesystems: %s does not see %s, nor do the others)", path, whereAmI(c.World()), unseen)
		}
		f.root = f.seers[0]
	}
	f.hints = defaultHints(f)
	if info != nil {
		f.hints.apply(info)
	}
	fail := func(e error) (*File, error) {
		if f.fd >= 0 {
			unix.Close(f.fd)
		}
		dup.Free()
		return nil, e
	}
	flags := unix.O_CLOEXEC
	switch {
	case amode&ModeRdonly != 0:
		flags |= unix.O_RDONLY
	default:
		// Write-only files are opened for reading too when that is
		// allowed: data sieving reads what it rewrites.
		flags |= unix.O_RDWR
	}
	// The root (process 0 unless it does not see the file) creates the
	// file; the others that see it open what it created.
	var oerr error
	if dup.Rank() == f.root {
		cf := flags
		if amode&ModeCreate != 0 {
			cf |= unix.O_CREAT
		}
		if amode&ModeExcl != 0 {
			cf |= unix.O_EXCL
		}
		f.fd, oerr = openFile(path, cf, amode)
	}
	cls := 0
	if oerr != nil {
		cls = Errno(oerr)
	}
	if all, err := agree(dup, cls); err != nil {
		return fail(err)
	} else if all != 0 {
		if oerr != nil {
			return fail(ioError(fn, path, oerr))
		}
		return fail(mpirt.Errorf(all, fn, "%s: the file could not be opened by process %d", path, f.root))
	}
	if dup.Rank() != f.root && f.unseen == "" {
		f.fd, oerr = openFile(path, flags, amode)
		cls = 0
		if oerr != nil {
			cls = Errno(oerr)
		}
	}
	if all, err := agree(dup, cls); err != nil {
		return fail(err)
	} else if all != 0 {
		if oerr != nil {
			return fail(ioError(fn, path, oerr))
		}
		return fail(mpirt.Errorf(all, fn, "%s: another process could not open the file", path))
	}
	f.view = nativeView()
	if f.shared, err = newSharedPtr(f); err != nil {
		return fail(err)
	}
	if f.seers != nil {
		if err := f.setupForward(flags); err != nil {
			f.shared.close(dup.Rank() == f.root)
			return fail(err)
		}
	}
	if amode&ModeAppend != 0 {
		// Both pointers start at the end of the file.
		size, err := f.collSize(fn)
		if err != nil {
			return fail(err)
		}
		f.pos = size
		if err := f.resetShared(size); err != nil {
			return fail(err)
		}
	}
	return f, nil
}

// openFile opens path, turning a write-only request into read-write and
// falling back to write-only when reading is not permitted.
func openFile(path string, flags, amode int) (int, error) {
	fd, err := unix.Open(path, flags, 0o666)
	if err == unix.EACCES && amode&ModeWronly != 0 && flags&unix.O_RDWR != 0 {
		fd, err = unix.Open(path, flags&^unix.O_RDWR|unix.O_WRONLY, 0o666)
	}
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		unix.Close(fd)
		return -1, unix.EISDIR
	}
	return fd, nil
}

// Comm is the file's private communicator.
func (f *File) Comm() *mpirt.Comm { return f.comm }

// Amode is the access mode the file was opened with.
func (f *File) Amode() int { return f.amode }

// Group is the group of the opening communicator.
func (f *File) Group() *mpirt.Group { return f.comm.Group() }

// Path is the file name given to Open.
func (f *File) Path() string { return f.path }

// Close closes the file on every process (collective) and deletes it
// when it was opened with MPI_MODE_DELETE_ON_CLOSE.
func (f *File) Close(fn string) error {
	f.mu.Lock()
	pending := f.split != nil
	f.mu.Unlock()
	if pending {
		return mpirt.Errorf(mpirt.ErrOther, fn, "a split collective operation is still pending on the file")
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if f.fd >= 0 {
		if err := unix.Close(f.fd); err != nil {
			keep(ioError(fn, f.path, err))
		}
	}
	f.fd = -1
	if f.seers != nil {
		keep(f.stopForward())
	}
	keep(f.comm.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{}))
	f.shared.close(f.comm.Rank() == f.root)
	if f.amode&ModeDeleteOnClose != 0 && f.comm.Rank() == f.root {
		if err := unix.Unlink(f.path); err != nil && err != unix.ENOENT {
			keep(ioError(fn, f.path, err))
		}
	}
	keep(f.comm.Free())
	return first
}

// Delete removes a file (MPI_File_delete).
func Delete(fn, path string) error {
	if err := unix.Unlink(path); err != nil {
		if err == unix.EISDIR || err == unix.EPERM {
			var st unix.Stat_t
			if unix.Stat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
				return mpirt.Errorf(mpirt.ErrBadFile, fn, "%s: is a directory", path)
			}
		}
		return ioError(fn, path, err)
	}
	return nil
}

// size is the current size of the file in bytes.
func (f *File) size() (int64, error) {
	if f.client != nil {
		n, _, err := f.call(opSize, 0, 0, 0, nil, nil)
		return n, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, err
	}
	return st.Size, nil
}

// Size is MPI_File_get_size.
func (f *File) Size(fn string) (int64, error) {
	n, err := f.size()
	if err != nil {
		return 0, ioError(fn, f.path, err)
	}
	return n, nil
}

// collSize is the file's size on every process (collective): the root's,
// broadcast when some process does not see the file.
func (f *File) collSize(fn string) (int64, error) {
	if f.seers == nil {
		n, err := f.size()
		if err != nil {
			return 0, ioError(fn, f.path, err)
		}
		return n, nil
	}
	v := []int64{0}
	var lerr error
	if f.comm.Rank() == f.root {
		if n, err := f.size(); err != nil {
			v[0], lerr = -1, ioError(fn, f.path, err)
		} else {
			v[0] = n
		}
	}
	if err := bcastInt64(f.comm, v, f.root); err != nil {
		return 0, err
	}
	if v[0] < 0 {
		if lerr == nil {
			lerr = mpirt.Errorf(mpirt.ErrIO, fn, "%s: process %d could not get the file size", f.path, f.root)
		}
		return 0, lerr
	}
	return v[0], nil
}

func (f *File) checkWritable(fn string) error {
	if f.amode&ModeRdonly != 0 {
		return mpirt.Errorf(mpirt.ErrReadOnly, fn, "the file %s was opened MPI_MODE_RDONLY", f.path)
	}
	return nil
}

func (f *File) checkReadable(fn string) error {
	if f.amode&ModeWronly != 0 {
		return mpirt.Errorf(mpirt.ErrAccess, fn, "the file %s was opened MPI_MODE_WRONLY", f.path)
	}
	return nil
}

func (f *File) checkNotSequential(fn string) error {
	if f.amode&ModeSequential != 0 {
		return mpirt.Errorf(mpirt.ErrUnsupportedOperation, fn, "the file %s was opened MPI_MODE_SEQUENTIAL: only shared file pointer access is allowed", f.path)
	}
	return nil
}

// sameInt64 checks that every process passed the same v.
func (f *File) sameInt64(fn, arg string, v int64) error {
	a := []int64{v, -v}
	if err := allreduceInt64(f.comm, a, mpirt.OpMax); err != nil {
		return err
	}
	if a[0] != -a[1] {
		return mpirt.Errorf(mpirt.ErrNotSame, fn, "invalid %s argument %d: the processes passed different values", arg, v)
	}
	return nil
}

// SetSize is MPI_File_set_size (collective): the file is truncated or
// extended to size bytes.
func (f *File) SetSize(fn string, size int64) error {
	if err := f.checkWritable(fn); err != nil {
		return err
	}
	if err := f.checkNotSequential(fn); err != nil {
		return err
	}
	if err := f.sameInt64(fn, "size", size); err != nil {
		return err
	}
	var err error
	if f.comm.Rank() == f.root {
		err = unix.Ftruncate(f.fd, size)
	}
	return f.agreeOn(fn, err, "resizing the file failed on process "+itoa(int64(f.root)))
}

// Preallocate is MPI_File_preallocate (collective): storage for the
// first size bytes is allocated; the file grows to size when smaller.
func (f *File) Preallocate(fn string, size int64) error {
	if err := f.checkWritable(fn); err != nil {
		return err
	}
	if err := f.checkNotSequential(fn); err != nil {
		return err
	}
	if err := f.sameInt64(fn, "size", size); err != nil {
		return err
	}
	var err error
	if f.comm.Rank() == f.root && size > 0 {
		err = unix.Fallocate(f.fd, 0, 0, size)
		if err == unix.EOPNOTSUPP {
			// No fallocate on this file system: write zeros past the end.
			err = nil
			if cur, e := f.size(); e != nil {
				err = e
			} else if cur < size {
				err = unix.Ftruncate(f.fd, size)
			}
		}
	}
	return f.agreeOn(fn, err, "preallocation failed on process "+itoa(int64(f.root)))
}

// Sync is MPI_File_sync (collective): every write any process completed
// before is on storage when it returns.
func (f *File) Sync(fn string) error {
	f.mu.Lock()
	pending := f.split != nil
	f.mu.Unlock()
	if pending {
		return mpirt.Errorf(mpirt.ErrOther, fn, "a split collective operation is pending on the file")
	}
	var err error
	if f.amode&ModeRdonly == 0 && f.client != nil {
		_, _, err = f.call(opSync, 0, 0, 0, nil, nil)
	} else if f.amode&ModeRdonly == 0 && f.fd >= 0 {
		err = unix.Fsync(f.fd)
	}
	return f.agreeOn(fn, err, "fsync failed on another process")
}

// agreeOn ends a collective step that some processes did locally (err:
// this process's outcome): every process fails when any did, with its
// own error or else one saying what failed elsewhere (what).
func (f *File) agreeOn(fn string, err error, what string) error {
	cls := 0
	var lerr error
	if err != nil {
		cls, lerr = Errno(err), ioError(fn, f.path, err)
	}
	all, aerr := agree(f.comm, cls)
	if aerr != nil {
		return aerr
	}
	if all != 0 {
		if lerr != nil {
			return lerr
		}
		return mpirt.Errorf(all, fn, "%s: %s", f.path, what)
	}
	return nil
}

// SetAtomicity is MPI_File_set_atomicity (collective).
func (f *File) SetAtomicity(fn string, on bool) error {
	v := int64(0)
	if on {
		v = 1
	}
	if err := f.sameInt64(fn, "flag", v); err != nil {
		return err
	}
	f.mu.Lock()
	f.atomic = on
	f.mu.Unlock()
	return nil
}

// Atomicity is MPI_File_get_atomicity.
func (f *File) Atomicity() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.atomic
}

// tempName returns a name in the file's directory for a hidden helper
// file.
func (f *File) tempName(tag string) string {
	dir, base := filepath.Split(f.path)
	return filepath.Join(dir, "."+base+".gmpi-"+tag+"-"+itoa(int64(os.Getpid())))
}
