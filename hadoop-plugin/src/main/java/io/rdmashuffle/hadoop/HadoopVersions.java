/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import org.apache.hadoop.util.VersionInfo;

/**
 * Which Hadoop releases rdma-shuffle runs on: 3.4 and later (the Netty 4 ShuffleHandler of
 * HADOOP-15327, whose handler context the service hooks into, and the reduce side's Fetcher and
 * scheduler as 3.4 has them). Both the NodeManager service and the reduce side check at start, so a
 * 3.3.x cluster gets a clear refusal rather than a missing class or a wrong behaviour later.
 */
public final class HadoopVersions {
  /** The oldest supported release line. */
  public static final int MIN_MAJOR = 3;

  public static final int MIN_MINOR = 4;

  private HadoopVersions() {}

  /**
   * @throws UnsupportedOperationException naming the running release and the supported ones
   */
  public static void requireSupported(String who) {
    String why = unsupported(VersionInfo.getVersion());
    if (why != null) {
      throw new UnsupportedOperationException(who + " can't run here: " + why);
    }
  }

  /** Why {@code version} is not supported, or null when it is. */
  public static String unsupported(String version) {
    String[] parts = version == null ? new String[0] : version.split("[.-]");
    int major;
    int minor;
    try {
      major = Integer.parseInt(parts[0]);
      minor = Integer.parseInt(parts[1]);
    } catch (RuntimeException e) {
      return "Hadoop version '"
          + version
          + "' is not one rdma-shuffle knows; it supports "
          + MIN_MAJOR
          + "."
          + MIN_MINOR
          + " and later";
    }
    if (major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR)) {
      return "Hadoop "
          + version
          + " is not supported: rdma-shuffle needs "
          + MIN_MAJOR
          + "."
          + MIN_MINOR
          + " or later (3.3 and older use a different shuffle handler)";
    }
    return null;
  }
}
