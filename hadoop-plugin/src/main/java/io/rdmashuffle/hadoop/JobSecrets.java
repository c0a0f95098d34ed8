/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret our transport's handshake proves for a MapReduce job. It is derived from the job's
 * shuffle secret, the one the stock shuffle signs its URLs with: the NodeManager service gets it in
 * the job token at {@code initializeApplication}, a reduce task from {@code
 * Task.getShuffleSecret()}. Derived rather than used as is because the shuffle secret can be
 * shorter than the 16 bytes the handshake asks for (MapReduce's default is 64 bits, {@code
 * mapreduce.shuffle-key-length}), and so that the HTTP shuffle's MACs and ours never share a key.
 * The derived secret has the strength of the shuffle secret, no more.
 */
public final class JobSecrets {
  private static final byte[] LABEL =
      "rdma-shuffle transport secret for ".getBytes(StandardCharsets.US_ASCII);

  private JobSecrets() {}

  /** HMAC-SHA256 over a label and the job id, keyed by the job's shuffle secret: 32 bytes. */
  public static byte[] transportSecret(byte[] shuffleSecret, String jobId) {
    if (shuffleSecret == null || shuffleSecret.length == 0) {
      throw new IllegalArgumentException("job " + jobId + " has no shuffle secret");
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(shuffleSecret, "HmacSHA256"));
      mac.update(LABEL);
      return mac.doFinal(jobId.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
