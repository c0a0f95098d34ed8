/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.counters.CounterDescriptor;

/**
 * rdma-shuffle's counters in a job's counters (group {@value #GROUP_DISPLAY_NAME}), counted by each
 * reduce task and summed over the job by MapReduce. Each is declared once here with its stable id
 * (500..599) and its label, MapReduce's display name; the counter's name is the constant's.
 * RdmaShuffleCounter.properties, which MapReduce reads for the display names, is generated from
 * these declarations (module {@code conf}, {@code MetricsFiles}).
 */
public enum RdmaShuffleCounter implements CounterDescriptor {
  /** Map outputs (one reduce partition each) copied with one-sided READs. */
  MAPS_READ(500, "Map outputs READ"),
  /** Bytes of map output segments READ (as stored: compressed when map output is). */
  BYTES_READ(501, "Bytes READ"),
  /** Milliseconds copying map outputs with READs, summed over MAPS_READ: the average latency. */
  READ_COPY_MILLIS(502, "READ copy time (ms, summed)"),
  /** Map outputs requests sent to NodeManagers. */
  MAP_OUTPUTS_REQUESTS(503, "Map outputs requests"),
  /** Milliseconds waiting for those answers, summed. */
  MAP_OUTPUTS_REQUEST_MILLIS(504, "Map outputs request time (ms, summed)"),
  /** Nodes whose outputs this task fetched over the stock HTTP shuffle instead (once per node). */
  FALLBACK_NODES(505, "Nodes fetched over HTTP instead"),
  /** Rounds of fetching from a node that went over the stock HTTP shuffle. */
  FALLBACK_FETCHES(506, "Fetches over HTTP instead"),
  /** Map outputs whose READs failed and were reported as fetch failures. */
  READ_FAILURES(507, "READ fetch failures reported"),
  /** Map outputs asked for again because the node had deregistered them meanwhile. */
  ASKED_AGAIN(508, "Map outputs asked for again"),
  /** Map outputs whose READs failed in the transport, fetched over HTTP in that round. */
  READ_RETRIED_OVER_HTTP(509, "Map outputs whose READs failed, fetched over HTTP that round"),
  /**
   * Times a node that could not be reached was left to be tried again later, its maps not reported
   * (the fetch retry for a NodeManager that restarts).
   */
  NODE_RETRIES(510, "Unreachable nodes tried again later (NodeManager restart)"),
  /**
   * Reduce tasks that ran the stock shuffle for the whole job (SSL shuffle, encrypted spills, local
   * runner).
   */
  STOCK_SHUFFLE_TASKS(511, "Reduce tasks on the stock shuffle");

  /** The counter group's display name in a job's counters. */
  public static final String GROUP_DISPLAY_NAME = "rdma-shuffle";

  private final Declaration declaration;

  RdmaShuffleCounter(int id, String label) {
    // exported under the constant's name, as MapReduce names a job's counters
    this.declaration = new Declaration(id, name(), label);
  }

  @Override
  public Declaration declaration() {
    return declaration;
  }
}
