package mpirt

// EachBlock calls f for every contiguous data block of count elements of
// d, at byte offsets relative to the buffer origin plus base, in
// type-map order (MPI-IO walks file views with it).
func (d *Datatype) EachBlock(base, count int, f func(off, n int)) {
	if d.size == 0 || count <= 0 {
		return
	}
	d.eachBlock(base, count, f)
}

// EachPredefined calls f for the predefined types one element of d is
// made of, in type-map order, with how many of them follow in a row (n);
// it stops when f returns false.
func EachPredefined(d *Datatype, f func(pre *Datatype, n int) bool) bool {
	return d.eachPredefinedN(1, f)
}

func (d *Datatype) eachPredefinedN(count int, f func(pre *Datatype, n int) bool) bool {
	if d.predefined {
		return d.size == 0 || count == 0 || f(d, count)
	}
	for i := 0; i < count; i++ {
		for _, pt := range d.parts {
			for r := 0; r < pt.reps; r++ {
				if !pt.t.eachPredefinedN(pt.n, f) {
					return false
				}
			}
		}
	}
	return true
}
