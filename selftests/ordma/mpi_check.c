// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MPI job whose results are checked: a ping-pong whose every byte is
 * verified on both sides (eager and rendezvous sizes) and an allreduce
 * whose sums are known.  selftests/ordma/mpi_pair.sh runs it with one
 * rank per VM over UCX on the ORDMA device.
 *
 * The ranks run the tests in the runner's own process (MPI is initialised
 * once per process) and make the same MPI calls whatever their checks
 * find, so that a mismatch fails a test instead of hanging the job.
 * Rank 0 prints the TAP results and counts the other ranks' failed
 * checks as its own; the other ranks print to $MPI_CHECK_PEER_LOG
 * (default /dev/null).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"

static int rank, world_size;

/* Rank 0 fails the running test if a check failed in another rank. */
static void check_other_ranks(void)
{
	int mine = rank ? (int)ordma_test_failures() : 0, others = 0;

	MPI_Reduce(&mine, &others, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0 && others)
		NOTE("%d failed check(s) in the other ranks (see their log)",
		     others);
	CHECK_EQ(others, 0);
}

TEST(one_rank_on_each_of_two_hosts)
{
	char names[2][MPI_MAX_PROCESSOR_NAME] = { { 0 } };
	char own[MPI_MAX_PROCESSOR_NAME] = { 0 };
	int len;

	CHECK_EQ(world_size, 2);
	MPI_Get_processor_name(own, &len);
	if (world_size == 2)
		MPI_Allgather(own, sizeof(own), MPI_CHAR, names, sizeof(own),
			      MPI_CHAR, MPI_COMM_WORLD);
	NOTE("rank %d runs on %s", rank, own);
	CHECK(strcmp(names[0], names[1]) != 0);
	check_other_ranks();
}

static uint8_t pattern_byte(size_t i, unsigned int seed)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;

	return (uint8_t)(x >> 13);
}

/*
 * Rank 0 sends a pattern, rank 1 checks it and returns every byte
 * complemented, rank 0 checks the reply: the data went both ways intact.
 */
static void pingpong(size_t size, unsigned int rounds)
{
	uint8_t *buf = malloc(size), *reply = malloc(size);
	size_t bad = 0, i;
	unsigned int r;
	MPI_Status st;
	int count;

	REQUIRE(buf && reply);
	for (r = 0; r < rounds; r++) {
		unsigned int seed = (unsigned int)size + r;

		if (rank == 0) {
			for (i = 0; i < size; i++)
				buf[i] = pattern_byte(i, seed);
			MPI_Send(buf, (int)size, MPI_BYTE, 1, r, MPI_COMM_WORLD);
			memset(reply, 0, size);
			MPI_Recv(reply, (int)size, MPI_BYTE, 1, r, MPI_COMM_WORLD, &st);
			for (i = 0; i < size; i++)
				bad += (uint8_t)(reply[i] ^ buf[i]) != 0xff;
		} else if (rank == 1) {
			memset(buf, 0, size);
			MPI_Recv(buf, (int)size, MPI_BYTE, 0, r, MPI_COMM_WORLD, &st);
			for (i = 0; i < size; i++) {
				bad += buf[i] != pattern_byte(i, seed);
				reply[i] = (uint8_t)~buf[i];
			}
			MPI_Send(reply, (int)size, MPI_BYTE, 0, r, MPI_COMM_WORLD);
		}
		if (rank <= 1) {
			MPI_Get_count(&st, MPI_BYTE, &count);
			CHECK_EQ(count, size);
		}
	}
	if (bad)
		NOTE("rank %d: %zu bad bytes at %zu bytes per message", rank,
		     bad, size);
	CHECK_EQ(bad, 0);
	free(buf);
	free(reply);
}

TEST(pingpong_data_checked)
{
	/* eager (inline and copied) and rendezvous (RDMA READ) sizes */
	static const size_t sizes[] = { 1, 8, 4096, 65536, 1 << 20 };
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		pingpong(sizes[k], sizes[k] >= 65536 ? 4 : 20);
	check_other_ranks();
}

/* Element i of rank r is (r + 1) * i + r: the sum over the ranks is known. */
static void allreduce_sum(size_t count)
{
	int64_t *in = malloc(count * sizeof(*in)), *out = malloc(count * sizeof(*out));
	int64_t n = world_size, i, bad = 0;

	REQUIRE(in && out);
	for (i = 0; i < (int64_t)count; i++) {
		in[i] = (rank + 1) * i + rank;
		out[i] = -1;
	}
	MPI_Allreduce(in, out, (int)count, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* sum of (r + 1) * i + r over r < n */
	for (i = 0; i < (int64_t)count; i++)
		bad += out[i] != n * (n + 1) / 2 * i + n * (n - 1) / 2;
	if (bad)
		NOTE("rank %d: %lld wrong sums of %zu", rank, (long long)bad,
		     count);
	CHECK_EQ(bad, 0);
	free(in);
	free(out);
}

TEST(allreduce_sum_checked)
{
	allreduce_sum(1);
	allreduce_sum(1000);
	allreduce_sum(1 << 17);	/* 1 MiB each way */
	MPI_Barrier(MPI_COMM_WORLD);
	check_other_ranks();
}

int main(int argc, char **argv)
{
	const char *peer_log = getenv("MPI_CHECK_PEER_LOG");
	int rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world_size);
	if (rank != 0 && !freopen(peer_log ? peer_log : "/dev/null", "w", stdout))
		MPI_Abort(MPI_COMM_WORLD, 2);
	setenv("ORDMA_TEST_NOFORK", "1", 1);
	rc = ordma_test_main(argc, argv);
	/* every rank's verdict: the job fails if any rank failed */
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return rc;
}
