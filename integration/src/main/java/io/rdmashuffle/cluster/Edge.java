/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import io.rdmashuffle.cluster.net.AddressPlan;
import io.rdmashuffle.cluster.net.Shell;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster's client machine: the root namespace, whose address on the bridge lets the test JVM
 * and the clients it starts (spark-submit, a MapReduce job's client) reach every daemon. A client
 * runs with the cluster's {@code /etc/hosts} bind-mounted in a mount namespace of its own and the
 * host name {@code rs-client}, so it resolves the names hosts report (a MapReduce AM registers as
 * {@code rs-h2}) without touching this machine's {@code /etc/hosts}.
 */
public final class Edge implements Place {
  private static final String BECOME =
      "mount --bind \"$1\" /etc/hosts"
          + " && echo \"$0\" > /proc/sys/kernel/hostname && shift && exec \"$@\"";

  private final String address;
  private final Path hostsFile;
  private final String clusterName;

  Edge(String address, Path hostsFile, String clusterName) {
    this.address = address;
    this.hostsFile = hostsFile;
    this.clusterName = clusterName;
  }

  @Override
  public String name() {
    return AddressPlan.CLIENT_NAME;
  }

  @Override
  public String address() {
    return address;
  }

  @Override
  public List<String> wrap(List<String> argv) {
    List<String> c =
        new ArrayList<>(
            List.of(
                "unshare", "--mount", "--uts", "sh", "-c", BECOME, name(), hostsFile.toString()));
    c.addAll(argv);
    return c;
  }

  /** Starts a client process; the caller waits for it. */
  public Process start(ProcessSpec spec) {
    return Launcher.start(this, spec, clusterName);
  }

  /** Runs a short command here to completion. */
  public Shell.Result exec(List<String> argv, long timeoutSeconds) {
    return Shell.exec(wrap(argv), timeoutSeconds);
  }
}
