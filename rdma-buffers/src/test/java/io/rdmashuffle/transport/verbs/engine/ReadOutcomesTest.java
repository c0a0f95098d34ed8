/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.TransportException;
import org.junit.jupiter.api.Test;

class ReadOutcomesTest {
  private static final PeerAddress PEER = new PeerAddress("198.18.0.2", 4000);

  @Test
  void aReadThisSidesDeviceRefusedIsThisSidesFailureNeverThePeers() {
    int local = 0;
    for (int status = 1; status <= 21; status++) {
      String name = Completions.statusName(status).substring("IBV_WC_".length());
      TransportException e = ReadOutcomes.failureOf(status, PEER, null);
      FailureKind want =
          name.startsWith("LOC_") || name.equals("MW_BIND_ERR")
              ? FailureKind.LOCAL_SIDE
              : name.equals("REM_ACCESS_ERR") || name.equals("REM_INV_REQ_ERR")
                  ? FailureKind.REMOTE_ACCESS
                  : FailureKind.CONNECTION_LOST;
      assertEquals(want, e.kind(), name + ": " + e.getMessage());
      assertEquals(PEER, e.peer());
      if (want != FailureKind.REMOTE_ACCESS) {
        assertTrue(e.getMessage().contains(name), e.getMessage());
      }
      if (want == FailureKind.LOCAL_SIDE) {
        local++;
      }
    }
    assertEquals(
        7, local, "LOC_LEN, LOC_QP_OP, LOC_EEC_OP, LOC_PROT, MW_BIND, LOC_ACCESS, LOC_RDD");
  }
}
