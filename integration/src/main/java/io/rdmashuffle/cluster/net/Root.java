/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether this process may build the cluster: network namespaces, veths and bridges need root. */
public final class Root {
  /** Why the harness can't run without root; tests skip with it, the harness refuses with it. */
  public static final String NEEDED =
      "the cluster harness needs root: it creates network"
          + " namespaces (ip netns), veth links, a bridge and tc qdiscs, and runs the hosts'"
          + " processes inside them; run it as root";

  private Root() {}

  public static boolean isRoot() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.split("\\s+")[2].equals("0"); // effective uid
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /** Throws {@link IllegalStateException} with {@link #NEEDED} unless this process is root. */
  public static void require() {
    if (!isRoot()) {
      throw new IllegalStateException(NEEDED);
    }
  }
}
