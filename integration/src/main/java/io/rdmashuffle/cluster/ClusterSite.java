/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * What an engine's daemons and clients run on: the hosts, the client's place, the cluster's folders
 * and its spec. {@link Cluster} is one and starts the engines ({@code spark/}, {@code yarn/}) over
 * it; the engines see only this, so they never depend on the class that owns them.
 */
public interface ClusterSite {
  ClusterSpec spec();

  ClusterPaths paths();

  /** The cluster's work folder. */
  Path work();

  /** The folder every host sees at the same path: the {@code file://} stand-in for HDFS. */
  Path shared();

  List<Host> hosts();

  /** Host {@code i}, 1-based ({@code host(1)} is rs-h1). */
  Host host(int i);

  /** The root namespace, as the cluster's client. */
  Edge edge();
}
