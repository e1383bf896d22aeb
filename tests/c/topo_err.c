/* topo_err: process topology calls on bad arguments, with MPICH 4.0's
 * error classes (each message names the function and the argument), and
 * the corner cases next to them: 0-dimensional grids, grids and graphs
 * over fewer processes than the communicator, a distributed graph whose
 * edges are all declared by one process, weighted graphs with
 * MPI_WEIGHTS_EMPTY. Run with 1, 2, 4 and 7 processes. */
#include "mtest_err.h"

int main(int argc, char **argv)
{
    int errs = 0, rank, size, i, n, r, st, src, dst;
    int dims[4], periods[4] = {0, 0, 0, 0}, coords[4];
    MPI_Comm cart, graph, dg, c;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Dims_create */
    dims[0] = 0; dims[1] = 5;
    EXPECT_ERR(errs, MPI_Dims_create(12, 2, dims), MPI_ERR_DIMS, "MPI_Dims_create", "dims");
    dims[0] = 2; dims[1] = 4;
    EXPECT_ERR(errs, MPI_Dims_create(12, 2, dims), MPI_ERR_DIMS, "MPI_Dims_create", "dims");
    dims[0] = 0; dims[1] = -2;
    EXPECT_ERR(errs, MPI_Dims_create(12, 2, dims), MPI_ERR_DIMS, "MPI_Dims_create", "dims");
    EXPECT_ERR(errs, MPI_Dims_create(12, -1, dims), MPI_ERR_ARG, "MPI_Dims_create", "ndims");
    dims[0] = 0;
    EXPECT_ERR(errs, MPI_Dims_create(-4, 1, dims), MPI_ERR_ARG, "MPI_Dims_create", "nnodes");
    EXPECT_ERR(errs, MPI_Dims_create(4, 1, NULL), MPI_ERR_ARG, "MPI_Dims_create", "dims");
    EXPECT_OK(errs, MPI_Dims_create(1, 0, NULL));
    dims[0] = 2; dims[1] = 0; dims[2] = 3; dims[3] = 0;
    EXPECT_OK(errs, MPI_Dims_create(60, 4, dims));
    MTEST_CHECK(errs, dims[0] == 2 && dims[1] == 5 && dims[2] == 3 && dims[3] == 2, "dims 60/(2,0,3,0) = %d %d %d %d",
                dims[0], dims[1], dims[2], dims[3]);

    /* Cart_create */
    dims[0] = size + 1;
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), MPI_ERR_ARG, "MPI_Cart_create", "dims");
    EXPECT_ERR(errs, MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &r), MPI_ERR_DIMS, "MPI_Cart_map", "dims");
    dims[0] = -1;
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), MPI_ERR_DIMS, "MPI_Cart_create", "dims");
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), MPI_ERR_ARG, "MPI_Cart_create",
               "ndims");
    dims[0] = 1;
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_WORLD, 1, NULL, periods, 0, &c), MPI_ERR_ARG, "MPI_Cart_create", "dims");
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_WORLD, 1, dims, NULL, 0, &c), MPI_ERR_ARG, "MPI_Cart_create", "periods");
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, NULL), MPI_ERR_ARG, "MPI_Cart_create",
               "comm_cart");
    EXPECT_ERR(errs, MPI_Cart_create(MPI_COMM_NULL, 1, dims, periods, 0, &c), MPI_ERR_COMM, "MPI_Cart_create", "comm");

    /* 0-dimensional grid: one process (rank 0) gets it. */
    c = MPI_COMM_WORLD;
    EXPECT_OK(errs, MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c));
    MTEST_CHECK(errs, (c != MPI_COMM_NULL) == (rank == 0), "0-d grid membership");
    if (c != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        MPI_Comm_size(c, &n);
        MPI_Cartdim_get(c, &i);
        MTEST_CHECK(errs, n == 1 && i == 0, "0-d grid size %d ndims %d", n, i);
        EXPECT_ERR(errs, MPI_Cart_shift(c, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY, "MPI_Cart_shift", "comm");
        MPI_Comm_free(&c);
    }

    /* A periodic x non-periodic grid over all processes. */
    dims[0] = dims[1] = 0;
    MPI_Dims_create(size, 2, dims);
    periods[0] = 0;
    periods[1] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    coords[0] = dims[0];
    coords[1] = 0;
    EXPECT_ERR(errs, MPI_Cart_rank(cart, coords, &r), MPI_ERR_ARG, "MPI_Cart_rank", "coords");
    coords[0] = -1;
    EXPECT_ERR(errs, MPI_Cart_rank(cart, coords, &r), MPI_ERR_ARG, "MPI_Cart_rank", "coords");
    coords[0] = 0;
    coords[1] = -3 * dims[1] - 1; /* periodic: wraps to dims[1]-1 */
    EXPECT_OK(errs, MPI_Cart_rank(cart, coords, &r));
    MTEST_CHECK(errs, r == dims[1] - 1, "wrapped negative coordinate gave %d", r);
    EXPECT_ERR(errs, MPI_Cart_coords(cart, size, 2, coords), MPI_ERR_RANK, "MPI_Cart_coords", "rank");
    EXPECT_ERR(errs, MPI_Cart_coords(cart, -1, 2, coords), MPI_ERR_RANK, "MPI_Cart_coords", "rank");
    EXPECT_ERR(errs, MPI_Cart_coords(cart, 0, 1, coords), MPI_ERR_ARG, "MPI_Cart_coords", "maxdims");
    EXPECT_ERR(errs, MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG, "MPI_Cart_shift", "direction");
    EXPECT_ERR(errs, MPI_Cart_shift(cart, -1, 1, &src, &dst), MPI_ERR_ARG, "MPI_Cart_shift", "direction");
    EXPECT_ERR(errs, MPI_Cart_shift(cart, 0, 1, NULL, &dst), MPI_ERR_ARG, "MPI_Cart_shift", "rank_source");
    EXPECT_ERR(errs, MPI_Cart_get(cart, -1, dims, periods, coords), MPI_ERR_ARG, "MPI_Cart_get", "maxdims");
    EXPECT_ERR(errs, MPI_Cart_sub(cart, NULL, &c), MPI_ERR_ARG, "MPI_Cart_sub", "remain_dims");
    /* shifts: zero displacement is the caller; a displacement of a whole
     * period wraps to the caller in the periodic dimension */
    EXPECT_OK(errs, MPI_Cart_shift(cart, 0, 0, &src, &dst));
    MTEST_CHECK(errs, src == rank && dst == rank, "shift by 0: %d %d", src, dst);
    EXPECT_OK(errs, MPI_Cart_shift(cart, 1, dims[1], &src, &dst));
    MTEST_CHECK(errs, src == rank && dst == rank, "shift by a period: %d %d", src, dst);
    EXPECT_OK(errs, MPI_Cart_shift(cart, 0, dims[0], &src, &dst));
    MTEST_CHECK(errs, src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "shift off the edge: %d %d", src, dst);
    /* Cart_sub keeping the periodic dimension: a ring along dims[1] */
    {
        int remain[2] = {0, 1}, p2[1], d2[1], c2[1];
        EXPECT_OK(errs, MPI_Cart_sub(cart, remain, &c));
        MPI_Cart_get(c, 1, d2, p2, c2);
        MPI_Comm_rank(c, &r);
        MTEST_CHECK(errs, d2[0] == dims[1] && p2[0] == 1 && c2[0] == rank % dims[1] && r == c2[0],
                    "sub: dims %d periods %d coords %d rank %d", d2[0], p2[0], c2[0], r);
        MPI_Comm_free(&c);
    }

    /* Graph topology calls on a Cartesian communicator, Cartesian calls
     * on a communicator without a topology: MPI_ERR_TOPOLOGY. */
    EXPECT_ERR(errs, MPI_Graph_neighbors_count(cart, 0, &n), MPI_ERR_TOPOLOGY, "MPI_Graph_neighbors_count", "comm");
    EXPECT_ERR(errs, MPI_Graph_get(cart, 1, 1, &n, &r), MPI_ERR_TOPOLOGY, "MPI_Graph_get", "comm");
    EXPECT_ERR(errs, MPI_Dist_graph_neighbors_count(cart, &n, &r, &st), MPI_ERR_TOPOLOGY,
               "MPI_Dist_graph_neighbors_count", "comm");
    MPI_Comm_free(&cart);
    {
        MPI_Comm plain[2];
        int j, remain[1] = {1};
        plain[0] = MPI_COMM_WORLD;
        MPI_Comm_dup(MPI_COMM_WORLD, &plain[1]);
        MPI_Comm_set_errhandler(plain[1], MPI_ERRORS_RETURN);
        for (j = 0; j < 2; j++) {
            MPI_Comm p = plain[j];
            EXPECT_ERR(errs, MPI_Cart_get(p, 1, dims, periods, coords), MPI_ERR_TOPOLOGY, "MPI_Cart_get", "comm");
            EXPECT_ERR(errs, MPI_Cart_rank(p, coords, &r), MPI_ERR_TOPOLOGY, "MPI_Cart_rank", "comm");
            EXPECT_ERR(errs, MPI_Cart_coords(p, 0, 1, coords), MPI_ERR_TOPOLOGY, "MPI_Cart_coords", "comm");
            EXPECT_ERR(errs, MPI_Cart_shift(p, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY, "MPI_Cart_shift", "comm");
            EXPECT_ERR(errs, MPI_Cart_sub(p, remain, &c), MPI_ERR_TOPOLOGY, "MPI_Cart_sub", "comm");
            EXPECT_ERR(errs, MPI_Cartdim_get(p, &n), MPI_ERR_TOPOLOGY, "MPI_Cartdim_get", "comm");
            EXPECT_ERR(errs, MPI_Graphdims_get(p, &n, &r), MPI_ERR_TOPOLOGY, "MPI_Graphdims_get", "comm");
            EXPECT_ERR(errs, MPI_Graph_neighbors(p, 0, 1, &n), MPI_ERR_TOPOLOGY, "MPI_Graph_neighbors", "comm");
            EXPECT_ERR(errs, MPI_Dist_graph_neighbors(p, 1, &n, MPI_UNWEIGHTED, 1, &r, MPI_UNWEIGHTED),
                       MPI_ERR_TOPOLOGY, "MPI_Dist_graph_neighbors", "comm");
            MPI_Topo_test(p, &st);
            MTEST_CHECK(errs, st == MPI_UNDEFINED, "plain communicator has topology %d", st);
        }
        MPI_Comm_free(&plain[1]);
        /* and MPI_COMM_NULL is MPI_ERR_COMM */
        EXPECT_ERR(errs, MPI_Cart_get(MPI_COMM_NULL, 1, dims, periods, coords), MPI_ERR_COMM, "MPI_Cart_get", "comm");
        EXPECT_ERR(errs, MPI_Cart_shift(MPI_COMM_NULL, 0, 1, &src, &dst), MPI_ERR_COMM, "MPI_Cart_shift", "comm");
        EXPECT_ERR(errs, MPI_Cartdim_get(MPI_COMM_NULL, &n), MPI_ERR_COMM, "MPI_Cartdim_get", "comm");
        EXPECT_ERR(errs, MPI_Graphdims_get(MPI_COMM_NULL, &n, &r), MPI_ERR_COMM, "MPI_Graphdims_get", "comm");
        EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_NULL, 0, NULL, NULL, 0, &c), MPI_ERR_COMM, "MPI_Graph_create",
                   "comm");
        EXPECT_ERR(errs, MPI_Dist_graph_neighbors_count(MPI_COMM_NULL, &n, &r, &st), MPI_ERR_COMM,
                   "MPI_Dist_graph_neighbors_count", "comm");
        EXPECT_ERR(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_NULL, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                   MPI_ERR_COMM, "MPI_Dist_graph_create_adjacent", "comm");
    }

    /* Graph_create: bad graphs are MPI_ERR_ARG. */
    {
        int index[8], edges[16];
        /* nnodes beyond the communicator must be refused before index is
         * read: entries a reader would take as a huge edge count (edges
         * has 16) make one that reads index first fault. */
        for (i = 0; i < 8; i++) index[i] = 1 << 29;
        index[0] = 1;
        edges[0] = 0;
        EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &c), MPI_ERR_ARG,
                   "MPI_Graph_create", "nnodes");
        EXPECT_ERR(errs, MPI_Graph_map(MPI_COMM_WORLD, size + 1, index, edges, &r), MPI_ERR_ARG, "MPI_Graph_map",
                   "nnodes");
        if (size >= 2) { /* and a decreasing index before edges is read */
            index[1] = 0;
            EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &c), MPI_ERR_ARG,
                       "MPI_Graph_create", "index");
        }
        EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create",
                   "nnodes");
        edges[0] = 1; /* not a node of a one-node graph */
        EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create",
                   "edges");
        edges[0] = -1;
        EXPECT_ERR(errs, MPI_Graph_map(MPI_COMM_WORLD, 1, index, edges, &r), MPI_ERR_ARG, "MPI_Graph_map", "edges");
        index[0] = -1;
        EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create",
                   "index");
        if (size >= 2) {
            index[0] = 2; index[1] = 1; /* not monotone */
            edges[0] = edges[1] = 0;
            EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &c), MPI_ERR_ARG,
                       "MPI_Graph_create", "index");
        }
        EXPECT_ERR(errs, MPI_Graph_create(MPI_COMM_WORLD, 1, NULL, edges, 0, &c), MPI_ERR_ARG, "MPI_Graph_create",
                   "index");
        /* an empty graph: MPI_COMM_NULL everywhere */
        c = MPI_COMM_WORLD;
        EXPECT_OK(errs, MPI_Graph_create(MPI_COMM_WORLD, 0, index, edges, 0, &c));
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "empty graph gave a communicator");

        /* a star over the first (size+1)/2 processes: node 0 linked to all
         * others and back; the rest of the processes get MPI_COMM_NULL */
        {
            int nn = (size + 1) / 2, ne = 0, nb[8];
            for (i = 1; i < nn; i++) edges[ne++] = i;
            index[0] = ne;
            for (i = 1; i < nn; i++) {
                edges[ne++] = 0;
                index[i] = ne;
            }
            EXPECT_OK(errs, MPI_Graph_create(MPI_COMM_WORLD, nn, index, edges, 1, &graph));
            MTEST_CHECK(errs, (graph != MPI_COMM_NULL) == (rank < nn), "star membership");
            if (graph != MPI_COMM_NULL) {
                MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
                MPI_Graph_neighbors_count(graph, 0, &n);
                MTEST_CHECK(errs, n == nn - 1, "hub has %d neighbors", n);
                MPI_Graph_neighbors(graph, rank, 8, nb);
                MPI_Graph_neighbors_count(graph, rank, &n);
                MTEST_CHECK(errs, rank == 0 ? n == nn - 1 : n == 1 && nb[0] == 0, "node %d: %d neighbors", rank, n);
                EXPECT_ERR(errs, MPI_Graph_neighbors_count(graph, nn, &n), MPI_ERR_RANK, "MPI_Graph_neighbors_count",
                           "rank");
                EXPECT_ERR(errs, MPI_Graph_neighbors(graph, -1, 8, nb), MPI_ERR_RANK, "MPI_Graph_neighbors", "rank");
                EXPECT_ERR(errs, MPI_Graph_neighbors(graph, 0, -1, nb), MPI_ERR_ARG, "MPI_Graph_neighbors",
                           "maxneighbors");
                EXPECT_ERR(errs, MPI_Cart_coords(graph, 0, 1, coords), MPI_ERR_TOPOLOGY, "MPI_Cart_coords", "comm");
                /* a dup keeps the topology */
                MPI_Comm_dup(graph, &c);
                MPI_Topo_test(c, &st);
                MTEST_CHECK(errs, st == MPI_GRAPH, "dup of a graph communicator: topology %d", st);
                MPI_Comm_free(&c);
                MPI_Comm_free(&graph);
            }
        }
    }

    /* Distributed graphs. */
    {
        int bad = size, w = 1, neg = -1;
        EXPECT_ERR(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                   MPI_ERR_RANK, "MPI_Dist_graph_create_adjacent", "sources");
        EXPECT_ERR(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 1, &neg,
                                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                   MPI_ERR_RANK, "MPI_Dist_graph_create_adjacent", "destinations");
        EXPECT_ERR(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, NULL, MPI_UNWEIGHTED, 0, NULL,
                                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                   MPI_ERR_ARG, "MPI_Dist_graph_create_adjacent", "indegree");
        EXPECT_ERR(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &rank, &w, 1, &rank, MPI_UNWEIGHTED,
                                                        MPI_INFO_NULL, 0, &dg),
                   MPI_ERR_TOPOLOGY, "MPI_Dist_graph_create_adjacent", "sourceweights/destweights");
        EXPECT_ERR(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &rank, &neg, 1, &rank, &w,
                                                        MPI_INFO_NULL, 0, &dg),
                   MPI_ERR_ARG, "MPI_Dist_graph_create_adjacent", "sourceweights");
        /* Dist_graph_create is collective: every process passes a bad rank */
        EXPECT_ERR(errs, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &w, &bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                               &dg),
                   MPI_ERR_RANK, "MPI_Dist_graph_create", "destinations");
        EXPECT_ERR(errs, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &bad, &w, &rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                               &dg),
                   MPI_ERR_RANK, "MPI_Dist_graph_create", "sources");
        EXPECT_ERR(errs, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &neg, &rank, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                               0, &dg),
                   MPI_ERR_ARG, "MPI_Dist_graph_create", "degrees");
        EXPECT_ERR(errs, MPI_Dist_graph_create(MPI_COMM_WORLD, -1, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                               &dg),
                   MPI_ERR_ARG, "MPI_Dist_graph_create", "n");

        /* rank 0 declares every edge i -> (i+1)%size with weight i; the
         * others declare nothing (and pass MPI_WEIGHTS_EMPTY). */
        {
            int dsts[64], ws[64], indeg, outdeg, weighted, s[2], sw[2], d[2], dw[2];
            if (rank == 0) {
                /* one source entry per edge */
                int srcv[64], degv[64];
                for (i = 0; i < size; i++) {
                    srcv[i] = i;
                    degv[i] = 1;
                    dsts[i] = (i + 1) % size;
                    ws[i] = i;
                }
                EXPECT_OK(errs, MPI_Dist_graph_create(MPI_COMM_WORLD, size, srcv, degv, dsts, ws, MPI_INFO_NULL, 1,
                                                      &dg));
            } else {
                EXPECT_OK(errs, MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY,
                                                      MPI_INFO_NULL, 1, &dg));
            }
            MPI_Comm_set_errhandler(dg, MPI_ERRORS_RETURN);
            MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
            MTEST_CHECK(errs, indeg == 1 && outdeg == 1 && weighted, "one-declarer counts %d %d %d", indeg, outdeg,
                        weighted);
            MPI_Dist_graph_neighbors(dg, 2, s, sw, 2, d, dw);
            MTEST_CHECK(errs, s[0] == (rank + size - 1) % size && sw[0] == (rank + size - 1) % size &&
                                  d[0] == (rank + 1) % size && dw[0] == rank,
                        "one-declarer neighbors: in %d(%d) out %d(%d)", s[0], sw[0], d[0], dw[0]);
            EXPECT_ERR(errs, MPI_Dist_graph_neighbors(dg, -1, s, sw, 2, d, dw), MPI_ERR_ARG, "MPI_Dist_graph_neighbors",
                       "maxindegree/maxoutdegree");
            EXPECT_ERR(errs, MPI_Cart_shift(dg, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY, "MPI_Cart_shift", "comm");
            EXPECT_ERR(errs, MPI_Graph_neighbors_count(dg, 0, &n), MPI_ERR_TOPOLOGY, "MPI_Graph_neighbors_count", "comm");
            MPI_Comm_free(&dg);
        }
        /* an adjacent graph with no edges at all, weighted with MPI_WEIGHTS_EMPTY */
        EXPECT_OK(errs, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                                       MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg));
        {
            int indeg = -1, outdeg = -1, weighted = -1;
            MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
            MTEST_CHECK(errs, indeg == 0 && outdeg == 0 && weighted == 1, "empty graph counts %d %d %d", indeg, outdeg,
                        weighted);
        }
        MPI_Comm_free(&dg);
    }

    /* Topology constructors left the world usable. */
    {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MTEST_CHECK(errs, sum == size, "allreduce %d", sum);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
