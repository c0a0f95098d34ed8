/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

/**
 * rdma-shuffle's counters in a job's counters (group "rdma-shuffle"), counted by each reduce task
 * and summed over the job by MapReduce. Display names: RdmaShuffleCounter.properties.
 */
public enum RdmaShuffleCounter {
  /** Map outputs (one reduce partition each) copied with one-sided READs. */
  MAPS_READ,
  /** Bytes of map output segments READ (as stored: compressed when map output is). */
  BYTES_READ,
  /** Milliseconds copying map outputs with READs, summed over MAPS_READ: the average latency. */
  READ_COPY_MILLIS,
  /** Map outputs requests sent to NodeManagers. */
  MAP_OUTPUTS_REQUESTS,
  /** Milliseconds waiting for those answers, summed. */
  MAP_OUTPUTS_REQUEST_MILLIS,
  /** Nodes whose outputs this task fetched over the stock HTTP shuffle instead (once per node). */
  FALLBACK_NODES,
  /** Rounds of fetching from a node that went over the stock HTTP shuffle. */
  FALLBACK_FETCHES,
  /** Map outputs whose READs failed and were reported as fetch failures. */
  READ_FAILURES,
  /** Map outputs asked for again because the node had deregistered them meanwhile. */
  ASKED_AGAIN,
  /** Map outputs whose READs failed in the transport, fetched over HTTP in that round. */
  READ_RETRIED_OVER_HTTP,
  /**
   * Times a node that could not be reached was left to be tried again later, its maps not reported
   * (the fetch retry for a NodeManager that restarts).
   */
  NODE_RETRIES,
  /**
   * Reduce tasks that ran the stock shuffle for the whole job (SSL shuffle, encrypted spills, local
   * runner).
   */
  STOCK_SHUFFLE_TASKS
}
