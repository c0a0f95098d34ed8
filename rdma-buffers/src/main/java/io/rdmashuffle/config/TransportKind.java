/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

/** Which one-sided transport a node runs. */
public enum TransportKind {
  /** Probe once: {@code verbs} where it can run, otherwise {@code tcp}, with the reason logged. */
  AUTO,
  /** RDMA verbs through DiSNI and our native library: needs an RDMA device. */
  VERBS,
  /** The same one-sided semantics in software over TCP sockets. */
  TCP
}
