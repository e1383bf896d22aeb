/* topo: Cartesian, graph and distributed graph topologies (Dims_create,
 * Cart_create/get/rank/coords/shift/sub/map, Graph_create/get/neighbors/
 * map, Dist_graph_create(_adjacent)/neighbors, Topo_test) and their error
 * cases. */
#include "mtest.h"

static int errclass(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, i, rc, st;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Dims_create */
    {
        int d[3] = {0, 0, 0};
        MPI_Dims_create(16, 3, d);
        MTEST_CHECK(errs, d[0] == 4 && d[1] == 2 && d[2] == 2, "dims 16/3 = %d %d %d", d[0], d[1], d[2]);
        d[0] = 0; d[1] = 0;
        MPI_Dims_create(12, 2, d);
        MTEST_CHECK(errs, d[0] == 4 && d[1] == 3, "dims 12/2 = %d %d", d[0], d[1]);
        d[0] = 0; d[1] = 3; d[2] = 0;
        MPI_Dims_create(30, 3, d);
        MTEST_CHECK(errs, d[0] == 5 && d[1] == 3 && d[2] == 2, "dims 30/(0,3,0) = %d %d %d", d[0], d[1], d[2]);
        d[0] = 0; d[1] = 0;
        MPI_Dims_create(7, 2, d);
        MTEST_CHECK(errs, d[0] == 7 && d[1] == 1, "dims 7/2 = %d %d", d[0], d[1]);
        d[0] = 0; d[1] = 4;
        rc = MPI_Dims_create(7, 2, d);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_DIMS, "dims 7/(0,4) gave %d", rc);
        d[0] = -1;
        rc = MPI_Dims_create(7, 1, d);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_DIMS, "dims negative gave %d", rc);
    }

    MPI_Topo_test(MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, st == MPI_UNDEFINED, "world topo %d", st);

    /* 2-D cart over all processes, periodic in dim 0 only */
    {
        int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], d2[2], p2[2], c2[2], nd, r, src, dst, n;
        MPI_Comm cart, row, dup, none;
        MPI_Dims_create(size, 2, dims);
        rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
        MTEST_CHECK(errs, rc == MPI_SUCCESS && cart != MPI_COMM_NULL, "cart_create %d", rc);
        MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
        MPI_Topo_test(cart, &st);
        MTEST_CHECK(errs, st == MPI_CART, "cart topo %d", st);
        MPI_Cartdim_get(cart, &nd);
        MTEST_CHECK(errs, nd == 2, "cartdim %d", nd);
        MPI_Cart_get(cart, 2, d2, p2, c2);
        MTEST_CHECK(errs, d2[0] == dims[0] && d2[1] == dims[1] && p2[0] == 1 && p2[1] == 0, "cart_get");
        MTEST_CHECK(errs, c2[0] == rank / dims[1] && c2[1] == rank % dims[1], "coords %d %d", c2[0], c2[1]);
        MPI_Cart_coords(cart, rank, 2, coords);
        MPI_Cart_rank(cart, coords, &r);
        MTEST_CHECK(errs, r == rank, "cart_rank(coords) %d", r);
        coords[0] += dims[0]; /* periodic wrap */
        MPI_Cart_rank(cart, coords, &r);
        MTEST_CHECK(errs, r == rank, "wrapped cart_rank %d", r);
        coords[0] -= dims[0];
        coords[1] = dims[1];
        rc = MPI_Cart_rank(cart, coords, &r);
        MTEST_CHECK(errs, rc != MPI_SUCCESS, "non-periodic out of range accepted");
        MPI_Cart_shift(cart, 0, 1, &src, &dst);
        MTEST_CHECK(errs, src == ((c2[0] - 1 + dims[0]) % dims[0]) * dims[1] + c2[1] &&
                    dst == ((c2[0] + 1) % dims[0]) * dims[1] + c2[1], "shift dim0 %d %d", src, dst);
        MPI_Cart_shift(cart, 1, 1, &src, &dst);
        MTEST_CHECK(errs, src == (c2[1] == 0 ? MPI_PROC_NULL : rank - 1) &&
                    dst == (c2[1] == dims[1] - 1 ? MPI_PROC_NULL : rank + 1), "shift dim1 %d %d", src, dst);
        rc = MPI_Cart_shift(cart, 2, 1, &src, &dst);
        MTEST_CHECK(errs, rc != MPI_SUCCESS, "shift direction 2 accepted");
        /* sub: keep dim 1 -> rows */
        {
            int remain[2] = {0, 1};
            MPI_Cart_sub(cart, remain, &row);
            MPI_Comm_size(row, &n);
            MPI_Comm_rank(row, &r);
            MTEST_CHECK(errs, n == dims[1] && r == c2[1], "row size %d rank %d", n, r);
            MPI_Cartdim_get(row, &nd);
            MTEST_CHECK(errs, nd == 1, "row ndims %d", nd);
            MPI_Comm_free(&row);
            /* Nothing kept: as in MPICH, rank 0 of the grid gets a 0-d
             * grid of itself, the others MPI_COMM_NULL. */
            remain[1] = 0;
            MPI_Cart_sub(cart, remain, &row);
            MTEST_CHECK(errs, (row != MPI_COMM_NULL) == (rank == 0), "0-d sub on rank %d", rank);
            if (row != MPI_COMM_NULL) {
                MPI_Comm_size(row, &n);
                MPI_Cartdim_get(row, &nd);
                MTEST_CHECK(errs, n == 1 && nd == 0, "0-d sub size %d ndims %d", n, nd);
                MPI_Comm_free(&row);
            }
        }
        MPI_Comm_dup(cart, &dup);
        MPI_Topo_test(dup, &st);
        MTEST_CHECK(errs, st == MPI_CART, "dup topo %d", st);
        MPI_Comm_free(&dup);
        /* errors: graph queries on a cart, cart queries on world */
        rc = MPI_Graphdims_get(cart, &n, &nd);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "graphdims on cart %d", rc);
        rc = MPI_Cartdim_get(MPI_COMM_WORLD, &nd);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "cartdim on world %d", rc);
        MPI_Comm_free(&cart);
        /* too many processes requested */
        d2[0] = size + 1;
        rc = MPI_Cart_create(MPI_COMM_WORLD, 1, d2, periods, 0, &none);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "oversized cart %d", rc); /* MPICH's class */
        d2[0] = 0;
        rc = MPI_Cart_create(MPI_COMM_WORLD, 1, d2, periods, 0, &none);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_DIMS, "zero dim cart %d", rc);
        /* cart over fewer processes: the rest get MPI_COMM_NULL */
        d2[0] = (size + 1) / 2;
        MPI_Cart_create(MPI_COMM_WORLD, 1, d2, periods, 1, &none);
        MTEST_CHECK(errs, (rank < d2[0]) == (none != MPI_COMM_NULL), "partial cart membership");
        if (none != MPI_COMM_NULL)
            MPI_Comm_free(&none);
        MPI_Cart_map(MPI_COMM_WORLD, 1, d2, periods, &r);
        MTEST_CHECK(errs, r == (rank < d2[0] ? rank : MPI_UNDEFINED), "cart_map %d", r);
    }

    /* graph: a ring (each node linked to its two neighbors) */
    {
        int index[64], edges[128], ne = 0, nn, nedges, nb[4], cnt, r;
        MPI_Comm g;
        for (i = 0; i < size; i++) {
            if (size > 1) edges[ne++] = (i + 1) % size;
            if (size > 2) edges[ne++] = (i + size - 1) % size;
            index[i] = ne;
        }
        MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        MPI_Topo_test(g, &st);
        MTEST_CHECK(errs, st == MPI_GRAPH, "graph topo %d", st);
        MPI_Graphdims_get(g, &nn, &nedges);
        MTEST_CHECK(errs, nn == size && nedges == ne, "graphdims %d %d", nn, nedges);
        {
            int ix2[64], e2[128];
            MPI_Graph_get(g, 64, 128, ix2, e2);
            for (i = 0; i < size; i++)
                MTEST_CHECK(errs, ix2[i] == index[i], "graph_get index[%d]", i);
            for (i = 0; i < ne; i++)
                MTEST_CHECK(errs, e2[i] == edges[i], "graph_get edges[%d]", i);
        }
        MPI_Graph_neighbors_count(g, rank, &cnt);
        MTEST_CHECK(errs, cnt == (size > 2 ? 2 : size - 1), "neighbors count %d", cnt);
        MPI_Graph_neighbors(g, rank, 4, nb);
        if (cnt > 0)
            MTEST_CHECK(errs, nb[0] == (rank + 1) % size, "neighbor %d", nb[0]);
        rc = MPI_Graph_neighbors_count(g, size, &cnt);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_RANK, "neighbors of bad rank %d", rc);
        rc = MPI_Cart_shift(g, 0, 1, &cnt, &r);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "cart_shift on graph %d", rc);
        MPI_Comm_free(&g);
        MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &r);
        MTEST_CHECK(errs, r == rank, "graph_map %d", r);
        edges[0] = size; /* not a node */
        rc = MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
        MTEST_CHECK(errs, size == 1 || errclass(rc) == MPI_ERR_ARG, "bad edge accepted %d", rc);
    }

    /* distributed graph: adjacent ring (weighted) and general (unweighted) */
    {
        int src = (rank + size - 1) % size, dst = (rank + 1) % size, w1 = rank, w2 = rank + 100;
        int indeg, outdeg, weighted, s[2], sw[2], d[2], dw[2];
        MPI_Comm dg;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w1, 1, &dst, &w2, MPI_INFO_NULL, 0, &dg);
        MPI_Topo_test(dg, &st);
        MTEST_CHECK(errs, st == MPI_DIST_GRAPH, "dist graph topo %d", st);
        MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
        MTEST_CHECK(errs, indeg == 1 && outdeg == 1 && weighted, "adjacent counts %d %d %d", indeg, outdeg, weighted);
        MPI_Dist_graph_neighbors(dg, 1, s, sw, 1, d, dw);
        MTEST_CHECK(errs, s[0] == src && sw[0] == rank && d[0] == dst && dw[0] == rank + 100, "adjacent neighbors");
        MPI_Comm_free(&dg);
        /* general: each rank declares only its edge to rank+1 */
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, (int[]){1}, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
        MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
        MTEST_CHECK(errs, indeg == 1 && outdeg == 1 && !weighted, "general counts %d %d %d", indeg, outdeg, weighted);
        MPI_Dist_graph_neighbors(dg, 2, s, MPI_UNWEIGHTED, 2, d, MPI_UNWEIGHTED);
        MTEST_CHECK(errs, s[0] == src && d[0] == dst, "general neighbors %d %d", s[0], d[0]);
        MPI_Comm_free(&dg);
        rc = MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &indeg, &outdeg, &weighted);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "dist graph query on world %d", rc);
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
