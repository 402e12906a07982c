/* Open MPI's own all-reduce bandwidth, the reference for our all-reduce (README, "Many
 * devices"): MPI_Allreduce(MPI_SUM) of n floats per rank, median of 20 runs, for
 * 1 KB .. 64 MB. Build and run:
 *   mpicc -O2 benches/mpi_allreduce_probe.c -o /tmp/mpi_allreduce_probe
 *   mpirun -np 2 /tmp/mpi_allreduce_probe
 * Prints `bytes seconds` per size on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    enum { RUNS = 20 };
    for (long bytes = 1024; bytes <= 64L << 20; bytes *= 4) {
        long n = bytes / 4;
        float *in = malloc(bytes), *out = malloc(bytes);
        for (long i = 0; i < n; i++) in[i] = (float)(i % 7);
        double t[RUNS];
        MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        for (int r = 0; r < RUNS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            t[r] = MPI_Wtime() - t0;
        }
        qsort(t, RUNS, sizeof t[0], cmp);
        if (rank == 0) printf("%ld %.6g\n", bytes, t[RUNS / 2]);
        free(in);
        free(out);
    }
    MPI_Finalize();
    return 0;
}
