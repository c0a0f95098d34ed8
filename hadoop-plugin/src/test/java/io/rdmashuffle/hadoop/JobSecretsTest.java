/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class JobSecretsTest {
  @Test
  void aShortShuffleSecretBecomesA32ByteSecretPerJob() {
    byte[] eightBytes = {1, 2, 3, 4, 5, 6, 7, 8}; // MapReduce's default shuffle key: 64 bits
    byte[] a = JobSecrets.transportSecret(eightBytes, "job_1_0001");
    assertEquals(32, a.length);
    assertArrayEquals(a, JobSecrets.transportSecret(eightBytes.clone(), "job_1_0001"));
    assertFalse(java.util.Arrays.equals(a, JobSecrets.transportSecret(eightBytes, "job_1_0002")));
    assertFalse(java.util.Arrays.equals(a, JobSecrets.transportSecret(new byte[8], "job_1_0001")));
    assertThrows(
        IllegalArgumentException.class, () -> JobSecrets.transportSecret(new byte[0], "j"));
  }
}
