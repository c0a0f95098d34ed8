/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ConnectionTableTest {
  @Test
  void aReusedIndexGetsANewGenerationSoTheOldKeyFindsNothing() {
    ConnectionTable<String> table = new ConnectionTable<>(1);
    int first = table.add("first");
    table.remove(first);
    int second = table.add("second");

    assertEquals(first & 0xffff, second & 0xffff, "the only index, reused");
    assertNotEquals(first, second);
    assertNull(table.get(first));
    assertEquals("second", table.get(second));
  }

  @Test
  void aFullTableRefusesAndAnUnknownKeyFindsNothing() {
    ConnectionTable<String> table = new ConnectionTable<>(2);
    table.add("a");
    table.add("b");

    assertEquals(-1, table.add("c"));
    assertNull(table.get(0x0001_0005), "index out of range");
  }
}
