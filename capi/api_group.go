package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

func groupOut(fn string, p *int32, arg string) int32 {
	if p == nil {
		return badPointer(fn, arg)
	}
	return 0
}

func MPI_Group_size(groupH int32, size *int32) int32 {
	const fn = "MPI_Group_size"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	g, rc := groupArg(fn, nil, groupH, "group")
	if rc != 0 {
		return rc
	}
	if rc := groupOut(fn, size, "size"); rc != 0 {
		return rc
	}
	*size = int32(g.Size())
	return 0
}

func MPI_Group_rank(groupH int32, rank *int32) int32 {
	const fn = "MPI_Group_rank"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	g, rc := groupArg(fn, nil, groupH, "group")
	if rc != 0 {
		return rc
	}
	if rc := groupOut(fn, rank, "rank"); rc != 0 {
		return rc
	}
	r := g.RankOf(world.Rank())
	if r < 0 {
		r = mpirt.Undefined
	}
	*rank = int32(r)
	return 0
}

func MPI_Group_free(groupH *int32) int32 {
	const fn = "MPI_Group_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := groupOut(fn, groupH, "group"); rc != 0 {
		return rc
	}
	if _, rc := groupArg(fn, nil, *groupH, "group"); rc != 0 {
		return rc
	}
	if err := world.FreeGroup(mpirt.Handle(*groupH)); err != nil {
		return fail(fn, nil, err)
	}
	*groupH = int32(mpirt.HandleGroupNull)
	return 0
}

// intArray reads n ints from C; arg names the argument in errors.
func intArray(fn string, p *int32, n int32, arg string) ([]int, int32) {
	if n < 0 {
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument n: %d is negative", n)
	}
	if n > 0 && p == nil {
		return nil, badPointer(fn, arg)
	}
	out := make([]int, n)
	if n > 0 {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out, 0
}

func groupSubset(fn string, groupH, n int32, ranks *int32, newgroup *int32, excl bool) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	g, rc := groupArg(fn, nil, groupH, "group")
	if rc != 0 {
		return rc
	}
	rs, rc := intArray(fn, ranks, n, "ranks")
	if rc != 0 {
		return rc
	}
	if rc := groupOut(fn, newgroup, "newgroup"); rc != 0 {
		return rc
	}
	build := g.Incl
	if excl {
		build = g.Excl
	}
	ng, err := build(rs)
	return storeGroup(fn, newgroup, ng, err)
}

func MPI_Group_incl(groupH, n int32, ranks *int32, newgroup *int32) int32 {
	return groupSubset("MPI_Group_incl", groupH, n, ranks, newgroup, false)
}

func MPI_Group_excl(groupH, n int32, ranks *int32, newgroup *int32) int32 {
	return groupSubset("MPI_Group_excl", groupH, n, ranks, newgroup, true)
}

func groupRanges(fn string, groupH, n int32, ranges *int32, newgroup *int32, excl bool) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	g, rc := groupArg(fn, nil, groupH, "group")
	if rc != 0 {
		return rc
	}
	flat, rc := intArray(fn, ranges, 3*n, "ranges")
	if rc != 0 {
		return rc
	}
	if rc := groupOut(fn, newgroup, "newgroup"); rc != 0 {
		return rc
	}
	rs := make([][3]int, n)
	for i := range rs {
		rs[i] = [3]int{flat[3*i], flat[3*i+1], flat[3*i+2]}
	}
	build := g.RangeIncl
	if excl {
		build = g.RangeExcl
	}
	ng, err := build(rs)
	return storeGroup(fn, newgroup, ng, err)
}

func MPI_Group_range_incl(groupH, n int32, ranges *int32, newgroup *int32) int32 {
	return groupRanges("MPI_Group_range_incl", groupH, n, ranges, newgroup, false)
}

func MPI_Group_range_excl(groupH, n int32, ranges *int32, newgroup *int32) int32 {
	return groupRanges("MPI_Group_range_excl", groupH, n, ranges, newgroup, true)
}

func groupSetOp(fn string, g1, g2 int32, newgroup *int32, op func(a, b *mpirt.Group) *mpirt.Group) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	a, rc := groupArg(fn, nil, g1, "group1")
	if rc != 0 {
		return rc
	}
	b, rc := groupArg(fn, nil, g2, "group2")
	if rc != 0 {
		return rc
	}
	if rc := groupOut(fn, newgroup, "newgroup"); rc != 0 {
		return rc
	}
	*newgroup = int32(world.AddGroup(op(a, b)))
	return 0
}

func MPI_Group_union(g1, g2 int32, newgroup *int32) int32 {
	return groupSetOp("MPI_Group_union", g1, g2, newgroup, mpirt.Union)
}

func MPI_Group_intersection(g1, g2 int32, newgroup *int32) int32 {
	return groupSetOp("MPI_Group_intersection", g1, g2, newgroup, mpirt.Intersection)
}

func MPI_Group_difference(g1, g2 int32, newgroup *int32) int32 {
	return groupSetOp("MPI_Group_difference", g1, g2, newgroup, mpirt.Difference)
}

func MPI_Group_translate_ranks(g1, n int32, ranks1 *int32, g2 int32, ranks2 *int32) int32 {
	const fn = "MPI_Group_translate_ranks"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	a, rc := groupArg(fn, nil, g1, "group1")
	if rc != 0 {
		return rc
	}
	b, rc := groupArg(fn, nil, g2, "group2")
	if rc != 0 {
		return rc
	}
	rs, rc := intArray(fn, ranks1, n, "ranks1")
	if rc != 0 {
		return rc
	}
	if n > 0 && ranks2 == nil {
		return badPointer(fn, "ranks2")
	}
	out, err := mpirt.TranslateRanks(a, rs, b)
	if err != nil {
		return fail(fn, nil, err)
	}
	if n > 0 {
		dst := unsafe.Slice(ranks2, n)
		for i, v := range out {
			dst[i] = int32(v)
		}
	}
	return 0
}

func MPI_Group_compare(g1, g2 int32, result *int32) int32 {
	const fn = "MPI_Group_compare"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	a, rc := groupArg(fn, nil, g1, "group1")
	if rc != 0 {
		return rc
	}
	b, rc := groupArg(fn, nil, g2, "group2")
	if rc != 0 {
		return rc
	}
	if rc := groupOut(fn, result, "result"); rc != 0 {
		return rc
	}
	*result = int32(mpirt.CompareGroups(a, b))
	return 0
}

// storeGroup hands the result of a group constructor to the caller.
func storeGroup(fn string, newgroup *int32, ng *mpirt.Group, err error) int32 {
	if err != nil {
		return fail(fn, nil, err)
	}
	*newgroup = int32(world.AddGroup(ng))
	return 0
}
