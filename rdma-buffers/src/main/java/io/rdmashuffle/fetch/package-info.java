/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The reading side of the core: Spark's {@link io.rdmashuffle.fetch.BlockFetcher} (locates, READ
 * planning, run, streamed, memory and local-file blocks) over the {@link
 * io.rdmashuffle.fetch.SegmentFetcher} that MapReduce's {@code RdmaFetcher} also uses (bounded
 * admission, retries, the reader's own shortage), and the {@link io.rdmashuffle.fetch.FetchDriver}
 * thread.
 *
 * <p>May import: io.rdmashuffle.counters, io.rdmashuffle.mapoutput, io.rdmashuffle.memory,
 * io.rdmashuffle.serve, io.rdmashuffle.transport. It imports {@code serve} for reading its own
 * process's outputs and for the checksum service that diagnoses a corrupt block; {@code serve},
 * {@code mapoutput}, the transport packages and the floors below must not import it.
 */
package io.rdmashuffle.fetch;
