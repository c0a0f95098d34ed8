/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secrets of the applications this process serves and reads for (Spark: the application's
 * authentication secret; MapReduce: each job's token). A peer proves the secret of the application
 * it names in the handshake; the secret itself never crosses the wire. Thread-safe.
 */
public final class ApplicationSecrets {
  private final Map<String, byte[]> secrets = new ConcurrentHashMap<>();

  public static ApplicationSecrets of(String application, byte[] secret) {
    ApplicationSecrets s = new ApplicationSecrets();
    s.put(application, secret);
    return s;
  }

  public void put(String application, byte[] secret) {
    if (application == null || application.isEmpty()) {
      throw new IllegalArgumentException("application id must not be empty");
    }
    if (secret == null || secret.length < 16) {
      throw new IllegalArgumentException(
          "secret of application " + application + ": must have at least 16 bytes");
    }
    secrets.put(application, secret.clone());
  }

  public void remove(String application) {
    secrets.remove(application);
  }

  /** The secret, or null when this process does not know the application. */
  public byte[] secretOf(String application) {
    return secrets.get(application);
  }
}
