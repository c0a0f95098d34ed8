/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.spark;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The secret a Spark application's peers prove in the transport's handshake, derived from the
 * application id and Spark's own authentication secret. Derived the same way in the executors (from
 * Spark's SecurityManager) and in the NodeManager's Spark service (from the secret Spark hands to
 * its shuffle service when an application starts on a node), so both sides agree without anything
 * new travelling.
 *
 * <ul>
 *   <li>With {@code spark.authenticate=true}: from Spark's secret, so only processes of this
 *       application can connect and READ its map outputs.
 *   <li>Without (no secret, or an empty one): nothing secret. Spark itself then lets any process
 *       fetch any block; the application id still keeps applications apart (a peer of another
 *       application proves another secret and is refused).
 * </ul>
 *
 * Always 32 bytes (SHA-256), whatever the length of Spark's secret.
 */
public final class SparkTransportSecret {
  private SparkTransportSecret() {}

  /**
   * @param sparkSecret Spark's authentication secret, or null or empty when authentication is off
   */
  public static byte[] derive(String application, String sparkSecret) {
    String material =
        sparkSecret == null || sparkSecret.isEmpty()
            ? "rdma-shuffle/no-authentication/1\n" + application
            : "rdma-shuffle/spark-authenticate/1\n" + application + "\n" + sparkSecret;
    try {
      return MessageDigest.getInstance("SHA-256").digest(material.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
