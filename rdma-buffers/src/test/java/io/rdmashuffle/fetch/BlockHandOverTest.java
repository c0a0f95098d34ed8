/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.transport.PeerAddress;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The blocks between the fetcher and its consumer: handed over in order, released ones dropped from
 * tracking, and everything released at close, at a cost per block that does not grow with the
 * blocks the consumer holds open.
 */
class BlockHandOverTest {
  private static final BlockSource SOURCE =
      new BlockSource(
          new Owner(new PeerAddress("198.18.0.1", 1), false, false),
          "shuffle",
          "map",
          new int[] {0},
          null);

  /** Counts how often anyone asks whether it was released. */
  private static final class CountingBlock extends Block {
    final long[] asked;
    boolean released;

    CountingBlock(long[] asked) {
      super(SOURCE, 0, 1, true);
      this.asked = asked;
    }

    @Override
    public InputStream stream() {
      return InputStream.nullInputStream();
    }

    @Override
    public void release() {
      released = true;
    }

    @Override
    boolean isReleased() {
      asked[0]++;
      return released;
    }
  }

  @Test
  void aConsumerHoldingThousandsOfBlocksOpenCostsAPrunePerDoublingNotPerBlock() throws Exception {
    long[] asked = new long[1];
    BlockHandOver h = new BlockHandOver();
    int n = 40_000;
    List<CountingBlock> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CountingBlock b = new CountingBlock(asked);
      all.add(b);
      h.ready.add(b);
      assertSame(b, h.next());
    }
    assertNull(h.next(), "nothing left");
    assertEquals(n, h.tracked(), "none released: all tracked");
    // a prune per doubling looks at each block a few times; one per block would look 10^8 times
    assertTrue(asked[0] < 4L * n, "released-checks for " + n + " blocks: " + asked[0]);
    h.releaseAll();
    for (CountingBlock b : all) {
      assertTrue(b.released, "every handed-over block is released at close");
    }
  }

  @Test
  void releasedBlocksStopBeingTracked() throws Exception {
    long[] asked = new long[1];
    BlockHandOver h = new BlockHandOver();
    for (int i = 0; i < 10 * BlockHandOver.PRUNE_AT; i++) {
      CountingBlock b = new CountingBlock(asked);
      h.ready.add(b);
      h.next().release();
      assertTrue(h.tracked() <= BlockHandOver.PRUNE_AT, "tracked: " + h.tracked());
    }
  }

  @Test
  void blocksReleasedInTheOrderTheyWereHandedOverAreDroppedAtOnce() throws Exception {
    long[] asked = new long[1];
    BlockHandOver h = new BlockHandOver();
    CountingBlock held = null;
    for (int i = 0; i < 3 * BlockHandOver.PRUNE_AT; i++) {
      CountingBlock b = new CountingBlock(asked);
      h.ready.add(b);
      assertSame(b, h.next());
      if (held != null) {
        held.release(); // the consumer holds one block while it reads the next
      }
      held = b;
      assertTrue(h.tracked() <= 2, "tracked: " + h.tracked());
    }
    assertTrue(asked[0] < 3L * 3 * BlockHandOver.PRUNE_AT, "released-checks: " + asked[0]);
  }

  @Test
  void closingReleasesReadyBlocksNeverHandedOver() {
    long[] asked = new long[1];
    BlockHandOver h = new BlockHandOver();
    CountingBlock ready = new CountingBlock(asked);
    h.ready.add(ready);
    h.releaseAll();
    assertTrue(ready.released);
    assertTrue(h.ready.isEmpty());
  }
}
