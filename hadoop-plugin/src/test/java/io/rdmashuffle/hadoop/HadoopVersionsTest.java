/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import static org.junit.jupiter.api.Assertions.*;

import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.Test;

class HadoopVersionsTest {
  @Test
  void hadoop33AndOlderAreRefusedWithAClearMessage() {
    for (String old : new String[] {"3.3.6", "3.3.0", "2.10.2"}) {
      String why = HadoopVersions.unsupported(old);
      assertNotNull(why, old);
      assertTrue(why.contains("Hadoop " + old + " is not supported"), why);
      assertTrue(why.contains("3.4 or later"), why);
    }
    assertNotNull(HadoopVersions.unsupported("not-a-version"));
  }

  @Test
  void hadoop34AndLaterRun() {
    for (String ok : new String[] {"3.4.0", "3.4.2", "3.5.0", "3.5.0-SNAPSHOT", "4.0.0"}) {
      assertNull(HadoopVersions.unsupported(ok), ok);
    }
    assertNull(HadoopVersions.unsupported(VersionInfo.getVersion()), "the release tested on");
    HadoopVersions.requireSupported("test");
  }
}
