/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.transport.PeerAddress;
import org.junit.jupiter.api.Test;

class BlockLedgerTest {
  private static BlockSource source(String map, int... partitions) {
    return new BlockSource(
        new Owner(new PeerAddress("198.18.0.1", 1), false, false), "0", map, partitions, null);
  }

  @Test
  void theEndWithABlockOwedIsAnErrorNamingItsMapOutput() {
    BlockLedger ledger = new BlockLedger();
    BlockSource a = source("a", 0, 1, 2);
    BlockSource b = source("b", 5);
    ledger.expect(a);
    ledger.expect(b);
    assertEquals(4, ledger.owed());
    ledger.handedOver(a);
    ledger.handedOver(b);
    ledger.handedOver(a);
    IllegalStateException e = assertThrows(IllegalStateException.class, ledger::checkNothingOwed);
    assertTrue(
        e.getMessage().contains("1 blocks were neither read nor failed, of 1 of map output a"),
        e.getMessage());
    ledger.handedOver(a);
    ledger.checkNothingOwed();
    assertEquals(0, ledger.owed());
  }

  @Test
  void aBlockBeyondThoseWantedIsAnError() {
    BlockLedger ledger = new BlockLedger();
    BlockSource a = source("a", 3);
    ledger.expect(a);
    ledger.handedOver(a);
    assertThrows(IllegalStateException.class, () -> ledger.handedOver(a));
    assertThrows(IllegalStateException.class, () -> ledger.handedOver(source("a", 3)));
  }

  @Test
  void manyOwedSourcesAreSummarized() {
    BlockLedger ledger = new BlockLedger();
    for (int i = 0; i < 10; i++) {
      ledger.expect(source("m" + i, 0, 1));
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, ledger::checkNothingOwed);
    assertTrue(
        e.getMessage().contains("20 blocks") && e.getMessage().contains("and 7 more"),
        e.getMessage());
  }
}
