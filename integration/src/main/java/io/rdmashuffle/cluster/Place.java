/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.util.List;

/**
 * Where the harness runs a process: inside a host ({@link Host}) or in the root namespace as the
 * cluster's client ({@link Edge}). Each wraps a command so it runs there with that place's own host
 * name and {@code /etc/hosts}.
 */
public interface Place {
  /** The place's host name ({@code rs-h2}, {@code rs-client}). */
  String name();

  /** Its address on the cluster's bridge. */
  String address();

  /** {@code argv} as a command that runs it in this place. */
  List<String> wrap(List<String> argv);
}
