/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.ReadResults;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rules every transport's channel shares, one case at a time (the races: the stress test). */
@Timeout(60)
class BoundedReadChannelTest {
  private final CountingRegistrar registrar = new CountingRegistrar();

  private RegisteredRegion target() throws Exception {
    return registrar.register(
        MemoryPiece.of(DirectMemory.allocate(4096)), Access.LOCAL_WRITE, "", () -> {});
  }

  @Test
  void aBatchWithAClosedTargetIsRefusedAndGivesBackTheReferencesItTook() throws Exception {
    ModelReadChannel c = new ModelReadChannel(8, 1 << 20);
    RegisteredRegion open = target();
    RegisteredRegion closed = target();
    closed.close();
    ReadResults results = new ReadResults(2);
    List<ReadOp> batch =
        List.of(
            new ReadOp().set(0, 0, 10, open, 0, results),
            new ReadOp().set(0, 0, 10, closed, 0, results));
    assertThrows(IllegalStateException.class, () -> c.postAll(batch));
    assertEquals(1, open.refCnt(), "the first READ's target reference was given back");
    assertEquals(0, c.inFlight(), "nothing of the refused batch was issued");
    open.close();
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void aReadPostedAfterTheEndFailsAtOnceAsConnectionLost() throws Exception {
    ModelReadChannel c = new ModelReadChannel(8, 1 << 20);
    RegisteredRegion target = target();
    c.close();
    c.end();
    ReadResults results = new ReadResults(1);
    c.post(new ReadOp().set(0, 0, 10, target, 0, results));
    assertEquals(1, results.failures().size());
    assertInstanceOf(ConnectionLostException.class, results.failures().get(0));
    assertEquals(1, target.refCnt());
    assertTrue(
        c.tryPost(new ReadOp().set(0, 0, 10, target, 0, results)),
        "taken, to fail at once: nothing to wait for");
    assertEquals(2, results.failures().size());
    assertEquals(1, target.refCnt());
    assertFalse(c.isOpen());
    target.close();
  }
}
