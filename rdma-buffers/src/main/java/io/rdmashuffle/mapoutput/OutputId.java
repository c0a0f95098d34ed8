/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.nio.charset.StandardCharsets;

/**
 * Names one map output, engine-neutrally: the application whose peers may read it, the shuffle it
 * belongs to within that application, and the map that wrote it. Spark: the application id, the
 * shuffle id and the map id (a task attempt id) in decimal. MapReduce: the job id, an empty shuffle
 * (a job has one), and the map attempt id ({@code attempt_..._m_000003_0}).
 */
public record OutputId(String application, String shuffle, String map) {
  /** Longest application, shuffle or map name, in UTF-8 bytes. */
  public static final int MAX_NAME_BYTES = 255;

  public OutputId {
    check("application", application, false);
    check("shuffle", shuffle, true);
    check("map", map, false);
  }

  /** A Spark map output. */
  public static OutputId spark(String application, int shuffleId, long mapId) {
    return new OutputId(application, Integer.toString(shuffleId), Long.toString(mapId));
  }

  private static void check(String field, String value, boolean mayBeEmpty) {
    if (value == null || (!mayBeEmpty && value.isEmpty())) {
      throw new IllegalArgumentException(field + "=" + value + ": must not be empty");
    }
    if (value.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(
          field
              + " of "
              + value.length()
              + " characters: longer than "
              + MAX_NAME_BYTES
              + " bytes");
    }
  }

  @Override
  public String toString() {
    return application + (shuffle.isEmpty() ? "" : "/shuffle " + shuffle) + "/map " + map;
  }
}
