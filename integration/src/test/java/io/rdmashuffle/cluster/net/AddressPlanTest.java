/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class AddressPlanTest {
  @Test
  void hostsGetNamesAndAddressesInTheBenchmarkRange() {
    AddressPlan p = new AddressPlan("198.18.100", 3);
    assertEquals("rs-h2", p.hostName(2));
    assertEquals("198.18.100.12", p.hostAddress(2));
    assertEquals("198.18.100.1", p.clientAddress());
    assertEquals("rs-h3-br", p.rootLink(3));
    assertEquals(
        "127.0.0.1 localhost\n198.18.100.1 rs-client\n198.18.100.11 rs-h1\n"
            + "198.18.100.12 rs-h2\n198.18.100.13 rs-h3\n",
        p.hostsFile());
  }

  @Test
  void privateRangesAndOtherPrefixesAreRefusedNamingTheValue() {
    for (String bad : new String[] {"10.0.0", "192.168.1", "198.20.1", "198.18", "198.18.300"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new AddressPlan(bad, 2));
      assertTrue(e.getMessage().startsWith("subnet prefix=" + bad + ":"), e.getMessage());
    }
    assertDoesNotThrow(() -> new AddressPlan("198.19.7", 2));
  }

  @Test
  void hostCountAndIndexAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> new AddressPlan("198.18.100", 0));
    assertThrows(IllegalArgumentException.class, () -> new AddressPlan("198.18.100", 41));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new AddressPlan("198.18.100", 2).hostName(3));
    assertEquals("host=3: must be 1 .. 2", e.getMessage());
  }
}
