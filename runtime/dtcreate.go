package mpirt

import (
	"math"
	"unsafe"
)

// Derived datatype constructors. Every constructor reduces to compose: a
// list of parts, each n contiguous copies of a child type repeated reps
// times stride bytes apart at a displacement. compose computes size,
// bounds (with the MPI_LB/MPI_UB marker rules), the compiled program and
// the element program in one pass over the parts, never over the elements.

// Combiners (MPI_COMBINER_*, MPICH's values).
const (
	CombinerNamed         = 1
	CombinerDup           = 2
	CombinerContiguous    = 3
	CombinerVector        = 4
	CombinerHvector       = 6
	CombinerIndexed       = 7
	CombinerHindexed      = 9
	CombinerIndexedBlock  = 10
	CombinerStruct        = 12
	CombinerSubarray      = 13
	CombinerDarray        = 14
	CombinerResized       = 18
	CombinerHindexedBlock = 19
)

// Array orders and distributions (MPICH's values).
const (
	OrderC              = 56
	OrderFortran        = 57
	DistributeBlock     = 121
	DistributeCyclic    = 122
	DistributeNone      = 123
	DistributeDfltDarg  = -49767
	TypeclassReal       = 1
	TypeclassInteger    = 2
	TypeclassComplex    = 3
	maxDatatypeNameSize = 128 // MPI_MAX_OBJECT_NAME
)

// boundKind says what determines a type's lb or ub.
type boundKind uint8

const (
	boundNone   boundKind = iota // no entries (empty type)
	boundData                    // the data (and nested resized bounds)
	boundMarker                  // an explicit MPI_LB/MPI_UB or resized bound
)

// part is n contiguous copies (t.Extent() apart) of t, repeated reps times
// stride bytes apart, the first copy at byte displacement disp.
type part struct {
	t      *Datatype
	n      int
	reps   int
	stride int
	disp   int
}

// envelope is what MPI_Type_get_envelope/get_contents report.
type envelope struct {
	combiner int
	ints     []int
	addrs    []int
	larges   []int
	types    []*Datatype
}

// Envelope returns the combiner and the numbers of integers, addresses,
// large counts and datatypes of MPI_Type_get_envelope(_c).
func (d *Datatype) Envelope() (combiner, ni, na, nl, nd int) {
	e := &d.env
	return e.combiner, len(e.ints), len(e.addrs), len(e.larges), len(e.types)
}

// Contents returns the constructor arguments (MPI_Type_get_contents).
func (d *Datatype) Contents() (ints, addrs, larges []int, types []*Datatype) {
	e := &d.env
	return e.ints, e.addrs, e.larges, e.types
}

// Clone returns a new, unnamed datatype equal to d with the same envelope:
// what MPI_Type_get_contents hands out for a derived child.
func (d *Datatype) Clone() *Datatype {
	parts := d.parts
	if d.predefined {
		parts = []part{{t: d, n: 1, reps: 1}}
	}
	return &Datatype{
		size: d.size, lb: d.lb, extent: d.extent, trueLB: d.trueLB, trueExtent: d.trueExtent,
		contiguous: d.contiguous, alignment: d.alignment, committed: d.committed,
		prog: d.prog, eprog: d.eprog, Elem: d.Elem, nelems: d.nelems, extSize: d.extSize,
		lbKind: d.lbKind, ubKind: d.ubKind, parts: parts, env: d.env,
		basic: d.basic, group: d.group,
	}
}

// Commit makes d usable for communication (MPI_Type_commit).
func (d *Datatype) Commit() { d.committed = true }

// ExternalSize returns the bytes of one element in external32.
func (d *Datatype) ExternalSize() int { return d.extSize }

func argErr(class int, format string, args ...any) error { return Errorf(class, "", format, args...) }

// mulOK returns a*b and whether it did not overflow (a, b >= 0).
func mulOK(a, b int) (int, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}

// dtFar bounds every byte position of a datatype (displacements,
// bounds, strides times counts): with each term within ±2^60, the sums
// compose forms cannot overflow int64, and no buffer is that large.
const dtFar = 1 << 60

// mulFar returns a*b (any signs) and whether it lies within ±dtFar.
func mulFar(a, b int) (int, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	ua, ub := a, b
	if ua < 0 {
		ua = -ua
	}
	if ub < 0 {
		ub = -ub
	}
	if ua < 0 || ub < 0 || ua > dtFar/ub {
		return 0, false
	}
	return a * b, true
}

func far(v int) bool { return v < -dtFar || v > dtFar }

// errFar is the error of a datatype whose byte positions leave ±dtFar.
func errFar(what string, v ...any) error {
	return argErr(ErrArg, "invalid argument: the datatype's "+what+" would lie beyond ±2^60 bytes", v...)
}

// compose builds the type whose type map is the parts' in order. isStruct
// pads the extent to the children's alignment (the "epsilon" of the
// standard) unless an explicit upper bound is present.
func compose(parts []part, isStruct bool) (*Datatype, error) {
	d := &Datatype{alignment: 1}
	var lbs, ubs [3]int // candidate bounds by boundKind
	var haveLB, haveUB [3]bool
	tlo, thi, haveTrue := 0, 0, false
	elemSet, mixed := false, false
	var kept []part
	for _, p := range parts {
		t := p.t
		if p.n <= 0 || p.reps <= 0 {
			continue
		}
		kept = append(kept, p)
		copies, ok1 := mulOK(p.n, p.reps)
		sz, ok2 := mulOK(copies, t.size)
		if !ok1 || !ok2 || d.size > math.MaxInt64-sz {
			return nil, argErr(ErrCount, "the datatype would be larger than %d bytes", math.MaxInt64)
		}
		d.size += sz
		d.nelems += copies * t.nelems
		d.extSize += copies * t.extSize
		d.alignment = max(d.alignment, t.alignment)
		rs, ok1 := mulFar(p.reps-1, p.stride)
		ns, ok2 := mulFar(p.n-1, t.extent)
		if !ok1 || !ok2 || far(p.disp) {
			return nil, errFar("displacements or strides")
		}
		lo := p.disp + min(0, rs) + min(0, ns)
		hi := p.disp + max(0, rs) + max(0, ns)
		if far(lo) || far(hi) {
			return nil, errFar("bounds")
		}
		if k := t.lbKind; k != boundNone {
			if v := lo + t.lb; !haveLB[k] || v < lbs[k] {
				lbs[k], haveLB[k] = v, true
			}
		}
		if k := t.ubKind; k != boundNone {
			if v := hi + t.UB(); !haveUB[k] || v > ubs[k] {
				ubs[k], haveUB[k] = v, true
			}
		}
		if t.size > 0 {
			l, h := lo+t.trueLB, hi+t.trueLB+t.trueExtent
			if !haveTrue {
				tlo, thi, haveTrue = l, h, true
			} else {
				tlo, thi = min(tlo, l), max(thi, h)
			}
			body := repeat(repeat(t.prog, p.n, t.extent), p.reps, p.stride).shift(p.disp)
			d.prog = appendProg(d.prog, body)
			switch {
			case t.Elem == nil:
				mixed = true
			case !elemSet:
				d.Elem, elemSet = t.Elem, true
			case d.Elem != t.Elem:
				mixed = true
			}
			if !mixed {
				d.eprog = appendProg(d.eprog, repeat(repeat(t.eprog, p.n, t.extent), p.reps, p.stride).shift(p.disp))
			}
		}
	}
	if mixed || !elemSet {
		d.Elem, d.eprog = nil, nil
	}
	d.parts = kept
	switch {
	case haveLB[boundMarker]:
		d.lb, d.lbKind = lbs[boundMarker], boundMarker
	case haveLB[boundData]:
		d.lb, d.lbKind = lbs[boundData], boundData
	}
	// Without data or an upper bound marker the upper bound is 0, as in
	// MPICH: a struct of only an MPI_LB at 8 has lb 8 and extent -8.
	ub := 0
	switch {
	case haveUB[boundMarker]:
		ub, d.ubKind = ubs[boundMarker], boundMarker
	case haveUB[boundData]:
		ub, d.ubKind = ubs[boundData], boundData
	}
	if isStruct && d.ubKind != boundMarker && d.alignment > 1 {
		if r := (ub - d.lb) % d.alignment; r != 0 {
			ub += d.alignment - r
		}
	}
	d.extent = ub - d.lb
	if haveTrue {
		d.trueLB, d.trueExtent = tlo, thi-tlo
	}
	d.finish()
	return d, nil
}

// finish sets the derived flags once size, bounds and prog are known.
func (d *Datatype) finish() {
	single := len(d.prog) == 1 && d.prog[0].body == nil && d.prog[0].count == 1
	d.contiguous = d.size == d.extent && (d.size == 0 || single && d.prog[0].n == d.size)
}

func checkCount(arg string, n int) error {
	if n < 0 {
		return argErr(ErrCount, "invalid count argument %s: %d is negative", arg, n)
	}
	return nil
}

func checkBlocklen(arg string, n int) error {
	if n < 0 {
		return argErr(ErrArg, "invalid argument %s: %d is negative", arg, n)
	}
	return nil
}

func checkOld(arg string, old *Datatype) error {
	if old == nil {
		return argErr(ErrType, "invalid datatype argument %s", arg)
	}
	return nil
}

// env helpers: the regular form keeps counts in ints, the large-count
// form (_c constructors) in larges.
func (d *Datatype) setEnv(combiner int, large bool, counts []int, addrs []int, types ...*Datatype) {
	d.env = envelope{combiner: combiner, types: types}
	if large {
		d.env.larges = append(counts, addrs...)
	} else {
		d.env.ints, d.env.addrs = counts, addrs
	}
}

// TypeContiguous is MPI_Type_contiguous(_c).
func TypeContiguous(count int, old *Datatype, large bool) (*Datatype, error) {
	if err := checkCount("count", count); err != nil {
		return nil, err
	}
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	d, err := compose([]part{{t: old, n: count, reps: 1}}, false)
	if err != nil {
		return nil, err
	}
	d.setEnv(CombinerContiguous, large, []int{count}, nil, old)
	return d, nil
}

// TypeVector is MPI_Type_vector(_c) (stride in extents of old) and, with
// bytes set, MPI_Type_create_hvector(_c) (stride in bytes).
func TypeVector(count, blocklen, stride int, old *Datatype, bytes, large bool) (*Datatype, error) {
	if err := checkCount("count", count); err != nil {
		return nil, err
	}
	if err := checkBlocklen("blocklength", blocklen); err != nil {
		return nil, err
	}
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	bstride := stride
	if !bytes {
		var ok bool
		if bstride, ok = mulFar(stride, old.extent); !ok {
			return nil, errFar("stride")
		}
	}
	d, err := compose([]part{{t: old, n: blocklen, reps: count, stride: bstride}}, false)
	if err != nil {
		return nil, err
	}
	switch {
	case !bytes:
		d.setEnv(CombinerVector, large, []int{count, blocklen, stride}, nil, old)
	case large:
		d.setEnv(CombinerHvector, true, []int{count, blocklen, stride}, nil, old)
	default:
		d.setEnv(CombinerHvector, false, []int{count, blocklen}, []int{stride}, old)
	}
	return d, nil
}

// TypeIndexed is MPI_Type_indexed(_c) and, with bytes set,
// MPI_Type_create_hindexed(_c): block i is blocklens[i] copies of old at
// displacement disps[i] (in extents of old, or bytes).
func TypeIndexed(blocklens, disps []int, old *Datatype, bytes, large bool) (*Datatype, error) {
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	parts := make([]part, len(blocklens))
	for i, bl := range blocklens {
		if err := checkBlocklen("array_of_blocklengths", bl); err != nil {
			return nil, err
		}
		disp := disps[i]
		if !bytes {
			var ok bool
			if disp, ok = mulFar(disp, old.extent); !ok {
				return nil, errFar("displacements")
			}
		}
		parts[i] = part{t: old, n: bl, reps: 1, disp: disp}
	}
	d, err := compose(parts, false)
	if err != nil {
		return nil, err
	}
	n := len(blocklens)
	counts := append(append([]int{n}, blocklens...), disps...)
	switch {
	case !bytes:
		d.setEnv(CombinerIndexed, large, counts, nil, old)
	case large:
		d.setEnv(CombinerHindexed, true, counts, nil, old)
	default:
		d.setEnv(CombinerHindexed, false, append([]int{n}, blocklens...), append([]int(nil), disps...), old)
	}
	return d, nil
}

// TypeIndexedBlock is MPI_Type_create_indexed_block(_c) and, with bytes
// set, MPI_Type_create_hindexed_block(_c).
func TypeIndexedBlock(blocklen int, disps []int, old *Datatype, bytes, large bool) (*Datatype, error) {
	if err := checkBlocklen("blocklength", blocklen); err != nil {
		return nil, err
	}
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	parts := make([]part, len(disps))
	for i, disp := range disps {
		if !bytes {
			var ok bool
			if disp, ok = mulFar(disp, old.extent); !ok {
				return nil, errFar("displacements")
			}
		}
		parts[i] = part{t: old, n: blocklen, reps: 1, disp: disp}
	}
	d, err := compose(parts, false)
	if err != nil {
		return nil, err
	}
	n := len(disps)
	switch {
	case !bytes:
		d.setEnv(CombinerIndexedBlock, large, append([]int{n, blocklen}, disps...), nil, old)
	case large:
		d.setEnv(CombinerHindexedBlock, true, append([]int{n, blocklen}, disps...), nil, old)
	default:
		d.setEnv(CombinerHindexedBlock, false, []int{n, blocklen}, append([]int(nil), disps...), old)
	}
	return d, nil
}

// TypeStruct is MPI_Type_create_struct(_c) (and MPI_Type_struct), MPI_LB
// and MPI_UB markers included.
func TypeStruct(blocklens, disps []int, types []*Datatype, large bool) (*Datatype, error) {
	parts := make([]part, len(blocklens))
	for i, bl := range blocklens {
		if err := checkBlocklen("array_of_blocklengths", bl); err != nil {
			return nil, err
		}
		if types[i] == nil {
			return nil, argErr(ErrType, "invalid datatype argument array_of_types[%d]", i)
		}
		parts[i] = part{t: types[i], n: bl, reps: 1, disp: disps[i]}
	}
	d, err := compose(parts, true)
	if err != nil {
		return nil, err
	}
	n := len(blocklens)
	ts := append([]*Datatype(nil), types...)
	if large {
		d.setEnv(CombinerStruct, true, append(append([]int{n}, blocklens...), disps...), nil, ts...)
	} else {
		d.setEnv(CombinerStruct, false, append([]int{n}, blocklens...), append([]int(nil), disps...), ts...)
	}
	return d, nil
}

// TypeResized is MPI_Type_create_resized(_c).
func TypeResized(old *Datatype, lb, extent int, large bool) (*Datatype, error) {
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	if far(lb) || far(extent) {
		return nil, errFar("lower bound or extent (%d, %d)", lb, extent)
	}
	d, err := compose([]part{{t: old, n: 1, reps: 1}}, false)
	if err != nil {
		return nil, err
	}
	d.lb, d.extent = lb, extent
	d.lbKind, d.ubKind = boundMarker, boundMarker
	d.alignment = old.alignment
	d.finish()
	d.setEnv(CombinerResized, large, nil, []int{lb, extent}, old)
	if large {
		d.env.larges = []int{lb, extent}
	}
	return d, nil
}

// TypeDup is MPI_Type_dup: same type map, new object; a dup of a
// committed type is committed.
func TypeDup(old *Datatype) (*Datatype, error) {
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	d := old.Clone()
	d.committed = old.committed
	d.env = envelope{combiner: CombinerDup, types: []*Datatype{old}}
	return d, nil
}

// arrayPrep validates the sizes of an ndims array type and returns the
// byte stride of every dimension (order says which dimension is fastest).
func arrayStrides(sizes []int, order int, ext int) ([]int, error) {
	nd := len(sizes)
	strides := make([]int, nd)
	s := ext
	for k := range nd {
		i := nd - 1 - k // C: last dimension fastest
		if order == OrderFortran {
			i = k
		}
		strides[i] = s
		var ok bool
		if s, ok = mulOK(s, sizes[i]); !ok {
			return nil, argErr(ErrArg, "invalid argument array_of_sizes: the array is too large")
		}
	}
	return strides, nil
}

func checkOrder(order int) error {
	if order != OrderC && order != OrderFortran {
		return argErr(ErrArg, "invalid argument order: %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order)
	}
	return nil
}

// dimsType builds the type of an ndims selection: dimension i selects the
// index runs sel[i] (start, length) of an array with the given strides,
// the fastest dimension innermost; the result is resized to [0, total).
func dimsType(sel [][][2]int, strides []int, order int, old *Datatype, total int) (*Datatype, error) {
	nd := len(sel)
	t := old
	for k := range nd {
		i := nd - 1 - k
		if order == OrderFortran {
			i = k
		}
		var parts []part
		for _, r := range sel[i] {
			parts = append(parts, part{t: t, n: 1, reps: r[1], stride: strides[i], disp: r[0] * strides[i]})
		}
		var err error
		if t, err = compose(parts, false); err != nil {
			return nil, err
		}
	}
	d, err := compose([]part{{t: t, n: 1, reps: 1}}, false)
	if err != nil {
		return nil, err
	}
	d.lb, d.extent, d.lbKind, d.ubKind = 0, total, boundMarker, boundMarker
	d.alignment = old.alignment
	d.finish()
	return d, nil
}

// TypeSubarray is MPI_Type_create_subarray(_c).
func TypeSubarray(sizes, subsizes, starts []int, order int, old *Datatype, large bool) (*Datatype, error) {
	if len(sizes) <= 0 {
		return nil, argErr(ErrArg, "invalid argument ndims: %d must be positive", len(sizes))
	}
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	sel := make([][][2]int, len(sizes))
	for i := range sizes {
		switch {
		case sizes[i] <= 0:
			return nil, argErr(ErrArg, "invalid argument array_of_sizes[%d]: %d must be positive", i, sizes[i])
		case subsizes[i] <= 0 || subsizes[i] > sizes[i]:
			return nil, argErr(ErrArg, "invalid argument array_of_subsizes[%d]: %d not in 1..%d", i, subsizes[i], sizes[i])
		case starts[i] < 0 || starts[i] > sizes[i]-subsizes[i]:
			return nil, argErr(ErrArg, "invalid argument array_of_starts[%d]: %d not in 0..%d", i, starts[i], sizes[i]-subsizes[i])
		}
		sel[i] = [][2]int{{starts[i], subsizes[i]}}
	}
	strides, err := arrayStrides(sizes, order, old.extent)
	if err != nil {
		return nil, err
	}
	total := old.extent
	for _, s := range sizes {
		total *= s
	}
	d, err := dimsType(sel, strides, order, old, total)
	if err != nil {
		return nil, err
	}
	nd := len(sizes)
	arr := append(append(append([]int(nil), sizes...), subsizes...), starts...)
	if large {
		d.setEnv(CombinerSubarray, true, arr, nil, old)
		d.env.ints = []int{nd, order}
	} else {
		d.setEnv(CombinerSubarray, false, append(append([]int{nd}, arr...), order), nil, old)
	}
	return d, nil
}

// TypeDarray is MPI_Type_create_darray(_c): the part of a block/cyclic
// distributed global array that process rank of size owns, in the order
// of the local array.
func TypeDarray(size, rank int, gsizes, distribs, dargs, psizes []int, order int, old *Datatype, large bool) (*Datatype, error) {
	nd := len(gsizes)
	switch {
	case size <= 0:
		return nil, argErr(ErrArg, "invalid argument size: %d must be positive", size)
	case rank < 0 || rank >= size:
		return nil, argErr(ErrArg, "invalid argument rank: %d not in 0..%d", rank, size-1)
	case nd <= 0:
		return nil, argErr(ErrArg, "invalid argument ndims: %d must be positive", nd)
	}
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	if err := checkOld("oldtype", old); err != nil {
		return nil, err
	}
	prod := 1
	for i, p := range psizes {
		if p <= 0 {
			return nil, argErr(ErrArg, "invalid argument array_of_psizes[%d]: %d must be positive", i, p)
		}
		prod *= p
	}
	if prod != size {
		return nil, argErr(ErrArg, "invalid argument array_of_psizes: the process grid has %d processes, size is %d", prod, size)
	}
	// Process coordinates: row-major in the process grid (MPI-4.1 §5.1.4).
	coords := make([]int, nd)
	r := rank
	for i := nd - 1; i >= 0; i-- {
		coords[i] = r % psizes[i]
		r /= psizes[i]
	}
	sel := make([][][2]int, nd)
	for i := range nd {
		g, p, c, a := gsizes[i], psizes[i], coords[i], dargs[i]
		if g <= 0 {
			return nil, argErr(ErrArg, "invalid argument array_of_gsizes[%d]: %d must be positive", i, g)
		}
		switch distribs[i] {
		case DistributeNone:
			if p != 1 {
				return nil, argErr(ErrArg, "invalid argument array_of_psizes[%d]: %d with MPI_DISTRIBUTE_NONE (must be 1)", i, p)
			}
			sel[i] = [][2]int{{0, g}}
		case DistributeBlock:
			b := (g + p - 1) / p
			if a != DistributeDfltDarg {
				if a <= 0 || a*p < g {
					return nil, argErr(ErrArg, "invalid argument array_of_dargs[%d]: block size %d does not cover %d elements on %d processes", i, a, g, p)
				}
				b = a
			}
			lo, hi := min(c*b, g), min(c*b+b, g)
			if hi > lo {
				sel[i] = [][2]int{{lo, hi - lo}}
			}
		case DistributeCyclic:
			b := 1
			if a != DistributeDfltDarg {
				if a <= 0 {
					return nil, argErr(ErrArg, "invalid argument array_of_dargs[%d]: %d must be positive", i, a)
				}
				b = a
			}
			for lo := c * b; lo < g; lo += p * b {
				sel[i] = append(sel[i], [2]int{lo, min(b, g-lo)})
			}
		default:
			return nil, argErr(ErrArg, "invalid argument array_of_distribs[%d]: %d", i, distribs[i])
		}
	}
	strides, err := arrayStrides(gsizes, order, old.extent)
	if err != nil {
		return nil, err
	}
	total := old.extent
	for _, s := range gsizes {
		total *= s
	}
	d, err := dimsType(sel, strides, order, old, total)
	if err != nil {
		return nil, err
	}
	ints := append([]int{size, rank, nd}, append(append(append(append([]int(nil), distribs...), dargs...), psizes...), order)...)
	if large {
		d.setEnv(CombinerDarray, true, append([]int(nil), gsizes...), nil, old)
		d.env.ints = ints
	} else {
		all := append([]int{size, rank, nd}, gsizes...)
		all = append(append(append(append(all, distribs...), dargs...), psizes...), order)
		d.setEnv(CombinerDarray, false, all, nil, old)
	}
	return d, nil
}

// TypeMatchSize is MPI_Type_match_size: the C type of typeclass with the
// given size.
func TypeMatchSize(typeclass, size int) (*Datatype, error) {
	var list []Handle
	switch typeclass {
	case TypeclassReal:
		list = []Handle{TypeFloat, TypeDouble, TypeLongDouble}
	case TypeclassInteger:
		list = []Handle{TypeSignedChar, TypeShort, TypeInt, TypeLong}
	case TypeclassComplex:
		list = []Handle{TypeCFloatComplex, TypeCDoubleComplex, TypeCLongDoubleComplex}
	default:
		return nil, argErr(ErrArg, "invalid argument typeclass: %d", typeclass)
	}
	for _, h := range list {
		if d, _ := PredefinedDatatype(h); d.size == size {
			return d, nil
		}
	}
	return nil, argErr(ErrArg, "invalid argument size: no type of this class has %d bytes", size)
}

// pairSizes are the two basic elements of the pair types.
var pairSizes = map[Basic][2]int{
	BasicFloatInt: {4, 4}, BasicDoubleInt: {8, 4}, BasicLongInt: {8, 4}, BasicShortInt: {2, 4},
	Basic2Int: {4, 4}, BasicLongDoubleInt: {16, 4}, Basic2Float: {4, 4}, Basic2Double: {8, 8},
}

// Elements returns the number of basic elements in n bytes of data of d
// (MPI_Get_elements); ok is false when n ends inside a basic element.
func (d *Datatype) Elements(n int) (elems int, ok bool) {
	if d.size == 0 {
		return 0, n == 0
	}
	full := n / d.size
	e, ok := d.prefix(n%d.size, true)
	return full*d.nelems + e, ok
}

// ElementBytes is the number of bytes that the first k basic elements
// of a sequence of d take (MPI_Status_set_elements: MPI_Get_elements
// with d then counts k, MPI_Get_count the whole elements of d among
// them); ok is false when k is negative or the result does not fit in 63
// bits. A type without data takes no bytes whatever k.
func (d *Datatype) ElementBytes(k int64) (n int64, ok bool) {
	if k < 0 {
		return 0, false
	}
	if d.nelems == 0 || d.size == 0 {
		return 0, true
	}
	rem, _ := d.prefix(int(k%int64(d.nelems)), false)
	full, part := k/int64(d.nelems), int64(rem)
	if full > (1<<63-1-part)/int64(d.size) {
		return 0, false
	}
	return full*int64(d.size) + part, true
}

// prefix converts a part of one element of d, the first rem units (rem
// less than a whole element), from one measure to the other: from basic
// elements to the bytes they take (fromBytes false: MPI_Status_set_elements),
// or from bytes to the basic elements they hold (fromBytes true:
// MPI_Get_elements). It walks d's parts in type-map order; exact is false
// when rem ends inside a basic element.
func (d *Datatype) prefix(rem int, fromBytes bool) (n int, exact bool) {
	if rem == 0 {
		return 0, true
	}
	if d.predefined {
		// Only a pair type has more than one basic element; its first is
		// one element of ps[0] bytes.
		ps, ok := pairSizes[d.basic]
		in, out := 1, ps[0]
		if fromBytes {
			in, out = ps[0], 1
		}
		if !ok || rem < in {
			return 0, false
		}
		return out, rem == in
	}
	for _, p := range d.parts {
		t := p.t
		in, out := t.nelems, t.size
		if fromBytes {
			in, out = t.size, t.nelems
		}
		if in == 0 {
			continue
		}
		copies := p.n * p.reps
		k := min(rem/in, copies)
		n += k * out
		rem -= k * in
		if rem == 0 {
			return n, true
		}
		if k < copies {
			m, ok := t.prefix(rem, fromBytes)
			return n + m, ok
		}
	}
	return n, rem == 0
}

// World-level table of the datatypes the program creates.

// AddDatatype gives d a handle.
func (w *World) AddDatatype(d *Datatype) Handle {
	h := w.types.Add(d)
	d.Handle = h
	return h
}

// FreeDatatype releases the handle of a derived datatype (MPI_Type_free);
// objects that other types or pending operations use stay alive.
func (w *World) FreeDatatype(h Handle) error {
	if _, ok := PredefinedDatatype(h); ok {
		return argErr(ErrType, "invalid datatype argument datatype: predefined datatypes cannot be freed")
	}
	if !w.types.Remove(h) {
		return argErr(ErrType, "invalid datatype argument datatype: %v is not a datatype", h)
	}
	return nil
}

// DatatypeCount returns the number of live derived datatypes.
func (w *World) DatatypeCount() int { return w.types.Len() }

// Address returns the address of p as MPI_Get_address does.
func Address(p unsafe.Pointer) int { return int(uintptr(p)) }
