/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** The short-shuffle-key warning: Hadoop's default warned about, 128 bits and more not. */
class ShuffleKeyLengthTest {
  @Test
  void hadoopsDefaultIsWarnedAboutWithTheSettingToChange() {
    String w = ShuffleKeyLength.warning(ShuffleKeyLength.HADOOP_DEFAULT_BITS, "secrets are");
    assertNotNull(w);
    assertTrue(w.contains("64 bits"), w);
    assertTrue(w.contains("mapreduce.shuffle-key-length=128"), w);
  }

  @Test
  void longEnoughKeysAreNot() {
    assertNull(ShuffleKeyLength.warning(128, "secrets are"));
    assertNull(ShuffleKeyLength.warning(256, "secrets are"));
  }
}
