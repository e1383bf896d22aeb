package fileio

import (
	"sort"
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// A view (MPI-4.1 §14.3) tiles the file from byte disp on with copies of
// the filetype; the data bytes of the tiles, in order, form the stream
// that positions count in (etypes of it). blocks are the data blocks of
// one filetype element relative to its origin, merged where adjacent;
// prefix[i] is the data bytes before block i.
type view struct {
	disp         int64
	etype, ftype *mpirt.Datatype
	rep          *Datarep
	blocks       []seg
	prefix       []int64
	size, extent int64 // data bytes and extent of one filetype element
	esize        int64 // bytes of one etype in the file
	contiguous   bool  // the stream is the file from disp on
	overlaps     bool  // a block of the etype or filetype overlaps an earlier one
}

// checkViewType checks the data blocks of an etype or filetype (in type
// map order) as ROMIO does, with MPI_ERR_IO: the blocks must start at
// monotonically nondecreasing displacements. Blocks that overlap are
// left to SetView (allowed when the file is read only).
func checkViewType(what string, blocks []seg) error {
	for i := 1; i < len(blocks); i++ {
		if blocks[i].off < blocks[i-1].off {
			return mpirt.Errorf(mpirt.ErrIO, "", "invalid %s argument: its displacements are not monotonically nondecreasing (%d after %d)", what, blocks[i].off, blocks[i-1].off)
		}
	}
	return nil
}

// overlapping reports whether a block starts inside an earlier one
// (blocks sorted by start, as checkViewType requires).
func overlapping(blocks []seg) bool {
	end := int64(-1 << 62)
	for _, b := range blocks {
		if b.n > 0 && b.off < end {
			return true
		}
		end = max(end, b.off+b.n)
	}
	return false
}

// seg is a run of n file bytes at off.
type seg struct{ off, n int64 }

func byteType() *mpirt.Datatype { return predef(mpirt.TypeByte) }

// nativeView is the view a file has after open: bytes from 0, native.
func nativeView() *view {
	b := byteType()
	v, _ := newView(0, b, b, nativeRep)
	return v
}

func newView(disp int64, etype, ftype *mpirt.Datatype, rep *Datarep) (*view, error) {
	v := &view{disp: disp, etype: etype, ftype: ftype, rep: rep}
	v.size, v.extent = int64(ftype.Size()), int64(ftype.Extent())
	v.esize = int64(etype.Size())
	ftype.EachBlock(0, 1, func(off, n int) {
		o := int64(off)
		if k := len(v.blocks) - 1; k >= 0 && v.blocks[k].off+v.blocks[k].n == o {
			v.blocks[k].n += int64(n)
		} else {
			v.blocks = append(v.blocks, seg{o, int64(n)})
		}
	})
	if err := checkViewType("filetype", v.blocks); err != nil {
		return nil, err
	}
	if v.esize > 0 && v.size%v.esize != 0 {
		return nil, mpirt.Errorf(mpirt.ErrArg, "", "invalid filetype argument: its size %d is not a multiple of the etype size %d", v.size, v.esize)
	}
	if len(v.blocks) > 0 && disp+v.blocks[0].off < 0 {
		return nil, mpirt.Errorf(mpirt.ErrIO, "", "invalid view: the filetype's first data byte lies before the start of the file")
	}
	if etype != ftype {
		var eb []seg
		etype.EachBlock(0, 1, func(off, n int) { eb = append(eb, seg{int64(off), int64(n)}) })
		if err := checkViewType("etype", eb); err != nil {
			return nil, err
		}
		v.overlaps = v.overlaps || overlapping(eb)
	}
	v.overlaps = v.overlaps || overlapping(v.blocks)
	// A filetype whose extent is smaller than the span of its data (its
	// tiles would overlap) is accepted, as ROMIO does: parallel HDF5's
	// chunked collective I/O sets views of struct types built from
	// resized hyperslab types, and accesses only the first tile.
	var acc int64
	for _, b := range v.blocks {
		v.prefix = append(v.prefix, acc)
		acc += b.n
	}
	v.contiguous = len(v.blocks) == 1 && v.blocks[0].off == 0 && v.blocks[0].n == v.extent
	return v, nil
}

// each calls f for the file runs that hold stream bytes [pos, pos+n), in
// order, merging adjacent runs; it stops at f's first error.
func (v *view) each(pos, n int64, f func(off, n int64) error) error {
	if n <= 0 {
		return nil
	}
	if v.contiguous {
		return f(v.disp+pos, n)
	}
	if v.size == 0 {
		return mpirt.Errorf(mpirt.ErrIO, "", "the filetype of the view holds no data")
	}
	tile := pos / v.size
	r := pos % v.size
	i := sort.Search(len(v.blocks), func(i int) bool { return v.prefix[i]+v.blocks[i].n > r })
	var cur seg
	flush := func() error {
		if cur.n > 0 {
			return f(cur.off, cur.n)
		}
		return nil
	}
	for n > 0 {
		b := v.blocks[i]
		skip := r - v.prefix[i]
		k := min(b.n-skip, n)
		off := v.disp + tile*v.extent + b.off + skip
		if cur.n > 0 && cur.off+cur.n == off {
			cur.n += k
		} else {
			if err := flush(); err != nil {
				return err
			}
			cur = seg{off, k}
		}
		n -= k
		r += k
		i++
		if i == len(v.blocks) {
			i, r = 0, 0
			tile++
		}
	}
	return flush()
}

// byteOffset is the file offset of stream byte pos (MPI_File_get_byte_offset).
func (v *view) byteOffset(pos int64) int64 {
	if v.contiguous || v.size == 0 {
		return v.disp + pos
	}
	tile := pos / v.size
	r := pos % v.size
	i := sort.Search(len(v.blocks), func(i int) bool { return v.prefix[i]+v.blocks[i].n > r })
	return v.disp + tile*v.extent + v.blocks[i].off + r - v.prefix[i]
}

// streamPos is the number of stream bytes that lie before file offset
// off (the inverse of byteOffset, for MPI_SEEK_END).
func (v *view) streamPos(off int64) int64 {
	off -= v.disp
	if off <= 0 {
		return 0
	}
	if v.contiguous || v.size == 0 {
		return off
	}
	tile, r := int64(0), off
	if v.extent > 0 {
		tile, r = off/v.extent, off%v.extent
	}
	var in int64
	for i, b := range v.blocks {
		switch {
		case r >= b.off+b.n:
			in = v.prefix[i] + b.n
		case r > b.off:
			in = v.prefix[i] + r - b.off
		}
	}
	return tile*v.size + in
}

// Datarep is a data representation: native, internal, external32 or
// one the user registered with conversion functions.
type Datarep struct {
	Name string
	// Read converts count elements of dt from file representation in
	// file into the user buffer at ubuf, starting at element position
	// of the buffer (MPI_Datarep_conversion_function). Nil for the
	// predefined representations.
	Read, Write func(ubuf unsafe.Pointer, dt *mpirt.Datatype, count int, file []byte, position int64) error
	// Extent is the file extent of predefined type dt.
	Extent func(dt *mpirt.Datatype) (int64, error)
	// Native: the file holds memory bytes as they are; External: the
	// built-in external32 conversion.
	Native, External bool
}

var (
	nativeRep     = &Datarep{Name: "native", Native: true}
	internalRep   = &Datarep{Name: "internal", Native: true}
	external32Rep = &Datarep{Name: "external32", External: true}
)

// Registry holds the data representations of a process.
type Registry struct {
	mu   sync.Mutex
	reps map[string]*Datarep
}

// NewRegistry returns a registry of the predefined representations.
func NewRegistry() *Registry {
	return &Registry{reps: map[string]*Datarep{"native": nativeRep, "internal": internalRep, "external32": external32Rep}}
}

// Register is MPI_Register_datarep.
func (r *Registry) Register(fn string, d *Datarep) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.reps[d.Name]; ok {
		return mpirt.Errorf(mpirt.ErrDupDatarep, fn, "invalid datarep argument: %q is registered already", d.Name)
	}
	r.reps[d.Name] = d
	return nil
}

// Lookup finds a representation by name.
func (r *Registry) Lookup(name string) *Datarep {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reps[name]
}

// fileSize is the size in the file of count elements of dt in rep.
func (rep *Datarep) fileSize(dt *mpirt.Datatype, count int64) (int64, error) {
	switch {
	case rep.Native:
		return int64(dt.Size()) * count, nil
	case rep.External:
		return int64(dt.ExternalSize()) * count, nil
	}
	var total int64
	var ferr error
	sizes := map[*mpirt.Datatype]int64{}
	mpirt.EachPredefined(dt, func(pre *mpirt.Datatype, n int) bool {
		s, ok := sizes[pre]
		if !ok {
			var e error
			if s, e = rep.Extent(pre); e != nil {
				ferr = e
				return false
			}
			sizes[pre] = s
		}
		total += s * int64(n)
		return true
	})
	if ferr != nil {
		return 0, ferr
	}
	return total * count, nil
}

// SetView is MPI_File_set_view (collective). Both file pointers go back
// to 0.
func (f *File) SetView(fn string, disp int64, etype, ftype *mpirt.Datatype, repName string, in *mpirt.Info) error {
	f.mu.Lock()
	pending := f.split != nil
	f.mu.Unlock()
	if pending {
		return mpirt.Errorf(mpirt.ErrOther, fn, "a split collective operation is pending on the file")
	}
	rep := f.reg.Lookup(repName)
	local := error(nil)
	switch {
	case rep == nil:
		local = mpirt.Errorf(mpirt.ErrUnsupportedDatarep, fn, "invalid datarep argument: %q is not a data representation", repName)
	case disp == DisplacementCurrent && f.amode&ModeSequential == 0:
		local = mpirt.Errorf(mpirt.ErrArg, fn, "invalid disp argument: MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL")
	case disp < 0 && disp != DisplacementCurrent:
		local = mpirt.Errorf(mpirt.ErrArg, fn, "invalid disp argument: %d is negative", disp)
	}
	var v *view
	if local == nil {
		if disp == DisplacementCurrent {
			f.mu.Lock()
			cur, err := f.shared.get()
			disp = f.view.byteOffset(cur * f.view.esize)
			f.mu.Unlock()
			if err != nil {
				local = err
			}
		}
	}
	if local == nil && !rep.Native {
		// Positions in the file must not depend on the representation:
		// the view's types must be as large in it as in memory.
		for _, t := range []*mpirt.Datatype{etype, ftype} {
			if s, err := rep.fileSize(t, 1); err != nil {
				local = err
			} else if s != int64(t.Size()) {
				local = mpirt.Errorf(mpirt.ErrUnsupportedDatarep, fn, "datarep %q: etype or filetype %s has a different size in the file (%d) than in memory (%d); gmpi supports views whose types keep their size", repName, t, s, t.Size())
			}
		}
	}
	if local == nil {
		var err error
		if v, err = newView(disp, etype, ftype, rep); err != nil {
			e := err.(*mpirt.Error)
			e.Func = fn
			local = e
		} else if v.overlaps && f.amode&ModeRdonly == 0 {
			local = mpirt.Errorf(mpirt.ErrIO, fn, "invalid view: the etype or filetype has overlapping blocks, which a file opened for writing cannot have")
		}
	}
	cls := 0
	if local != nil {
		cls = local.(*mpirt.Error).Class
	}
	all, err := agree(f.comm, cls)
	if err != nil {
		return err
	}
	if local != nil {
		return local
	}
	if all != 0 {
		return mpirt.Errorf(all, fn, "another process passed an invalid view")
	}
	if err := f.resetShared(0); err != nil {
		return err
	}
	f.mu.Lock()
	f.view = v
	f.pos = 0
	f.hints.apply(in)
	f.mu.Unlock()
	return nil
}

// View is MPI_File_get_view.
func (f *File) View() (disp int64, etype, ftype *mpirt.Datatype, rep string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.view
	return v.disp, v.etype, v.ftype, v.rep.Name
}

// TypeExtent is MPI_File_get_type_extent: the extent of dt in the
// file's current representation.
func (f *File) TypeExtent(fn string, dt *mpirt.Datatype) (int64, error) {
	f.mu.Lock()
	rep := f.view.rep
	f.mu.Unlock()
	switch {
	case rep.Native:
		return int64(dt.Extent()), nil
	case rep.External:
		if dt.IsPredefined() {
			return int64(dt.ExternalSize()), nil
		}
		// Derived: scale the extent by the ratio of sizes (exact for
		// types whose elements keep their size).
		if dt.Size() == 0 {
			return int64(dt.Extent()), nil
		}
		return int64(dt.Extent()) * int64(dt.ExternalSize()) / int64(dt.Size()), nil
	}
	if dt.IsPredefined() {
		e, err := rep.Extent(dt)
		if err != nil {
			return 0, err
		}
		return e, nil
	}
	s, err := rep.fileSize(dt, 1)
	if err != nil || dt.Size() == 0 {
		return int64(dt.Extent()), err
	}
	return int64(dt.Extent()) * s / int64(dt.Size()), nil
}

// ByteOffset is MPI_File_get_byte_offset: the absolute byte position of
// offset (etypes) in the view.
func (f *File) ByteOffset(fn string, offset int64) (int64, error) {
	if offset < 0 {
		return 0, mpirt.Errorf(mpirt.ErrArg, fn, "invalid offset argument: %d is negative", offset)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view.byteOffset(offset * f.view.esize), nil
}

// Position is MPI_File_get_position (etypes).
func (f *File) Position(fn string) (int64, error) {
	// Allowed on sequential files too, as in ROMIO.
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pos, nil
}

// endPos is the position (etypes) of the end of the file in the view.
func (f *File) endPosLocked() (int64, error) {
	size, err := f.size()
	if err != nil {
		return 0, err
	}
	v := f.view
	if v.esize == 0 {
		return 0, nil
	}
	return (v.streamPos(size) + v.esize - 1) / v.esize, nil
}

func (f *File) seekTarget(fn string, cur, offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case SeekSet:
		pos = offset
	case SeekCur:
		pos = cur + offset
	case SeekEnd:
		end, err := f.endPosLocked()
		if err != nil {
			return 0, ioError(fn, f.path, err)
		}
		pos = end + offset
	default:
		return 0, mpirt.Errorf(mpirt.ErrArg, fn, "invalid whence argument %d", whence)
	}
	if pos < 0 {
		return 0, mpirt.Errorf(mpirt.ErrArg, fn, "invalid offset argument: the new position %d is negative", pos)
	}
	return pos, nil
}

// Seek is MPI_File_seek.
func (f *File) Seek(fn string, offset int64, whence int) error {
	if err := f.checkNotSequential(fn); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pos, err := f.seekTarget(fn, f.pos, offset, whence)
	if err != nil {
		return err
	}
	f.pos = pos
	return nil
}
