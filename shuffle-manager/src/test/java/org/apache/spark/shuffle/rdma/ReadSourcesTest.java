/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.transport.PeerAddress;
import org.junit.jupiter.api.Test;

/**
 * Which map outputs a reduce task READs and which it leaves to the stock path, from the marker in
 * their map status: in a cluster whose executors run different transports, an output served over
 * another transport goes the stock way (counted under its own cause), never to a READ that fails.
 */
class ReadSourcesTest {
  private static final PeerAddress SELF = new PeerAddress("198.18.100.1", 7000);
  private static final OwnerMarker TCP_ME = new OwnerMarker(TransportKind.TCP, SELF);

  @Test
  void anOutputServedOverAnotherTransportGoesTheStockWay() {
    OwnerMarker verbsPeer =
        new OwnerMarker(TransportKind.VERBS, new PeerAddress("198.18.100.2", 7000));
    ReadSources.Verdict v = ReadSources.judge(verbsPeer.toText(), "3", TCP_ME, SELF);
    assertNull(v.owner());
    assertEquals(FallbackLog.Cause.OTHER_TRANSPORT, v.cause());
    assertEquals("executor 3 serves over VERBS, this executor runs TCP", v.why());
  }

  @Test
  void anOutputOfTheSameTransportIsReadFromItsOwner() {
    OwnerMarker peer = new OwnerMarker(TransportKind.TCP, new PeerAddress("198.18.100.2", 7001));
    ReadSources.Verdict v = ReadSources.judge(peer.toText(), "3", TCP_ME, SELF);
    assertNull(v.cause());
    assertEquals(peer.address(), v.owner().address());
    assertFalse(v.owner().sameHost());
    assertFalse(v.owner().thisProcess());
    ReadSources.Verdict mine = ReadSources.judge(TCP_ME.toText(), "1", TCP_ME, SELF);
    assertTrue(mine.owner().thisProcess());
    assertTrue(mine.owner().sameHost());
  }

  @Test
  void anUnmarkedOrDamagedMarkerGoesTheStockWay() {
    assertEquals(
        FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT,
        ReadSources.judge(null, "2", TCP_ME, SELF).cause());
    ReadSources.Verdict bad = ReadSources.judge(OwnerMarker.PREFIX + "tcp x", "2", TCP_ME, SELF);
    assertNull(bad.owner());
    assertEquals(FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT, bad.cause());
  }
}
