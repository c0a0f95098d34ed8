/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.ProcessLimits;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;
import io.rdmashuffle.serve.OutputCatalog;
import java.util.ArrayList;
import java.util.List;

/**
 * The bounds of a serving process's catalog: what the operator set, and where they set nothing,
 * what this process's limits allow (each output holds an open file and a mapping or more; pinned
 * outputs count against the memlock limit, beside the process's READ buffers; their partition
 * tables take heap), said in {@link #explanation} for the start log.
 */
final class ServingBounds {
  /** File descriptors and mappings kept for everything else a process holds. */
  private static final long MIN_OPEN_OUTPUTS = 16;

  private final OutputCatalog.Limits limits;
  private final String explanation;

  private ServingBounds(OutputCatalog.Limits limits, String explanation) {
    this.limits = limits;
    this.explanation = explanation;
  }

  OutputCatalog.Limits limits() {
    return limits;
  }

  /** What was derived and from what, for the start log; empty when the operator set every bound. */
  String explanation() {
    return explanation;
  }

  /**
   * @param reading whether the same process holds READ buffers ({@code buffers.maxBytes}), which
   *     share the memlock limit
   */
  static ServingBounds derive(RdmaConf conf, ProcessLimits machine, boolean reading) {
    List<String> said = new ArrayList<>();
    int maxOpen = conf.get(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS);
    if (!isSet(conf, RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS)) {
      long bound = Long.MAX_VALUE;
      if (known(machine.openFiles())) {
        bound = Math.min(bound, machine.openFiles() / 2);
      }
      if (known(machine.maxMapCount())) {
        bound = Math.min(bound, machine.maxMapCount() / 4);
      }
      if (bound != Long.MAX_VALUE) {
        maxOpen = (int) Math.max(MIN_OPEN_OUTPUTS, Math.min(bound, 1 << 20));
        said.add(
            conf.keyOf(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS)
                + "="
                + maxOpen
                + " (RLIMIT_NOFILE="
                + ProcessLimits.text(machine.openFiles())
                + ", vm.max_map_count="
                + ProcessLimits.text(machine.maxMapCount())
                + ")");
      }
    }
    long maxPinned = conf.get(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES);
    if (!isSet(conf, RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES)) {
      long bound = Long.MAX_VALUE;
      if (known(machine.memoryBytes())) {
        bound = machine.memoryBytes() / 4;
      }
      if (known(machine.lockedBytes())) {
        long buffers = reading ? conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES) : 0;
        bound = Math.min(bound, machine.lockedBytes() - buffers);
      }
      if (bound != Long.MAX_VALUE) {
        maxPinned = Math.max(64L << 20, bound);
        said.add(
            conf.keyOf(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES)
                + "="
                + maxPinned
                + " (MemTotal="
                + ProcessLimits.text(machine.memoryBytes())
                + ", RLIMIT_MEMLOCK="
                + ProcessLimits.text(machine.lockedBytes())
                + (reading ? " less the READ buffers" : "")
                + ")");
      }
    }
    long maxTables = conf.get(RdmaShuffleConfig.SERVE_MAX_TABLE_BYTES);
    if (!isSet(conf, RdmaShuffleConfig.SERVE_MAX_TABLE_BYTES) && known(machine.heapBytes())) {
      maxTables = Math.max(1L << 20, machine.heapBytes() / 4);
      said.add(
          conf.keyOf(RdmaShuffleConfig.SERVE_MAX_TABLE_BYTES)
              + "="
              + maxTables
              + " (heap "
              + ProcessLimits.text(machine.heapBytes())
              + ")");
    }
    int perApplication = conf.get(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS_PER_APPLICATION);
    if (perApplication == 0) {
      perApplication = Math.max(1, maxOpen - maxOpen / 4);
    }
    OutputCatalog.Limits limits =
        new OutputCatalog.Limits(
            maxOpen,
            Math.min(perApplication, maxOpen),
            maxPinned,
            maxTables,
            conf.get(RdmaShuffleConfig.PIECE_SIZE),
            conf.get(RdmaShuffleConfig.SERVE_LEASE_TIMEOUT).toNanos(),
            conf.get(RdmaShuffleConfig.SERVE_LOCATE_WAIT).toNanos(),
            Math.max(1, conf.get(ServerConfig.CALL_WORKERS) / 2));
    return new ServingBounds(limits, String.join(", ", said));
  }

  private static boolean known(long v) {
    return v != ProcessLimits.UNKNOWN && v != ProcessLimits.UNLIMITED;
  }

  private static boolean isSet(RdmaConf conf, ConfigEntry<?> e) {
    return conf.explicitlySet().containsKey(conf.keyOf(e));
  }
}
