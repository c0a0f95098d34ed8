/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;

/**
 * One fetcher's round of copying from one host, kept as Hadoop's {@code Fetcher} keeps it: every
 * map of the round stays in {@code remaining} until it is copied, and whatever remains at the end
 * is put back to the scheduler, failed maps included (the scheduler fetches them again, and the AM
 * hears of their failures through {@code copyFailed}). The host's failure is counted once per
 * round, however many of its maps failed. Not thread-safe: one fetcher thread's.
 */
final class FetchRound {
  private final ShuffleSchedulerImpl<?, ?> scheduler;
  private final MapHost host;

  /** The maps not copied yet, by name, as the scheduler handed them out. */
  private final Map<String, TaskAttemptID> remaining = new LinkedHashMap<>();

  private boolean hostFailureCounted;
  private boolean overHttp;

  FetchRound(ShuffleSchedulerImpl<?, ?> scheduler, MapHost host, List<TaskAttemptID> maps) {
    this.scheduler = scheduler;
    this.host = host;
    for (TaskAttemptID m : maps) {
      remaining.put(m.toString(), m);
    }
  }

  /**
   * The scheduler's own id of the map named {@code name} in an answer (its class matters to the
   * scheduler: it keys failures by it and hands it to the AM), or the parsed name when the round
   * has no such map.
   */
  TaskAttemptID map(String name) {
    TaskAttemptID m = remaining.get(name);
    return m != null ? m : org.apache.hadoop.mapred.TaskAttemptID.forName(name);
  }

  MapHost host() {
    return host;
  }

  /** {@code map} was copied (the scheduler was told): it leaves the round. */
  void copied(TaskAttemptID map) {
    remaining.remove(map.toString());
  }

  /**
   * Reports {@code map} as failed, as the stock fetcher does: the host's failure (once per round),
   * then the map's ({@code copyFailed}: the AM is told when the stock fetcher would tell it, the
   * reducer's health checked, the host penalized). The map stays in the round and is put back.
   */
  void failed(TaskAttemptID map, boolean readError, boolean connectError) {
    if (!hostFailureCounted) {
      hostFailureCounted = true;
      scheduler.hostFailed(host.getHostName());
    }
    scheduler.copyFailed(map, host, readError, connectError);
  }

  /** What remains of this round goes over HTTP once it is put back. */
  void useHttp() {
    overHttp = true;
  }

  boolean overHttp() {
    return overHttp;
  }

  /** Puts every map not copied back to the scheduler. Once, at the round's end. */
  void putBack() {
    for (TaskAttemptID m : remaining.values()) {
      scheduler.putBackKnownMapOutput(host, m);
    }
    remaining.clear();
  }
}
