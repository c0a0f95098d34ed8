/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.mapoutput.LocateAnswer;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;

/**
 * Asks a node where to READ this task's partition of some map outputs: the core's {@link
 * LocateAnswer}, whatever carries it ({@link MapOutputsClient}: the stock shuffle port's HTTP).
 */
interface NodeLocator {
  /**
   * @throws Unusable when the node can't serve READs for this task (not our service, refused, not
   *     answering, a bad answer): a matter of the node, never of a map
   * @throws TryLater when the node is busy (HTTP 429): ask again after the backoff
   */
  LocateAnswer request(MapHost host, List<TaskAttemptID> maps) throws Unusable, TryLater;

  /** The node can't serve READs for us now; the message says why. Never a fetch failure. */
  final class Unusable extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean unreachable;

    Unusable(String message, Throwable cause) {
      this(message, cause, false);
    }

    /**
     * @param unreachable the node gave no answer at all (refused, timed out, closed the
     *     connection): not running now, perhaps restarting
     */
    Unusable(String message, Throwable cause, boolean unreachable) {
      super(message, cause);
      this.unreachable = unreachable;
    }

    boolean unreachable() {
      return unreachable;
    }
  }

  /** The node refused for now (too many shuffle connections): penalize it, come back later. */
  final class TryLater extends IOException {
    private static final long serialVersionUID = 1L;
    private final long backoffMillis;

    TryLater(String message, long backoffMillis) {
      super(message);
      this.backoffMillis = backoffMillis;
    }

    long backoffMillis() {
      return backoffMillis;
    }
  }
}
