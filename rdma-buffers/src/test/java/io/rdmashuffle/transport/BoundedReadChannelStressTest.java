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
import io.rdmashuffle.testing.Stress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bounds and ending rules every transport's channel shares, raced: READs posted (one by one,
 * tried, in batches) while a transport thread completes them, the channel is closed and then ended.
 * Every posted READ ends exactly once, completed or failed; none is issued after the end (it would
 * never end); the bounds hold; every target reference is given back.
 */
@Timeout(120)
class BoundedReadChannelStressTest {
  private static final int MAX_REQUESTS = 8;
  private static final long MAX_BYTES = 16 * 1024;
  private static final int POSTS = 40;

  private final CountingRegistrar registrar = new CountingRegistrar();

  /** Counts each READ's outcomes. */
  private static final class Outcomes implements ReadListener {
    final AtomicInteger completed = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();

    @Override
    public void onReadComplete(ReadOp op) {
      completed.incrementAndGet();
    }

    @Override
    public void onReadFailed(ReadOp op, TransportException cause) {
      failed.incrementAndGet();
    }

    int total() {
      return completed.get() + failed.get();
    }
  }

  private final class Round implements Stress.Round {
    final ModelReadChannel channel = new ModelReadChannel(MAX_REQUESTS, MAX_BYTES);
    final RegisteredRegion target;
    final Queue<Outcomes> posted = new ConcurrentLinkedQueue<>();
    final AtomicInteger refused = new AtomicInteger();

    Round() throws Exception {
      target =
          registrar.register(
              MemoryPiece.of(DirectMemory.allocate(8192)), Access.LOCAL_WRITE, "", () -> {});
    }

    private ReadOp op() {
      Outcomes o = new Outcomes();
      int length = 1 + ThreadLocalRandom.current().nextInt(4096);
      return new ReadOp().set(0, 0, length, target, 0, o).attach(o);
    }

    private void postOneByOne() {
      for (int i = 0; i < POSTS; i++) {
        ReadOp op = op();
        posted.add((Outcomes) op.attachment());
        channel.post(op);
      }
    }

    private void tryPosts() {
      for (int i = 0; i < POSTS; i++) {
        ReadOp op = op();
        if (channel.tryPost(op)) {
          posted.add((Outcomes) op.attachment());
        } else {
          refused.incrementAndGet();
        }
      }
    }

    private void postBatches() {
      for (int i = 0; i < POSTS; i += 5) {
        List<ReadOp> ops = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
          ops.add(op());
          posted.add((Outcomes) ops.get(k).attachment());
        }
        channel.postAll(ops);
      }
    }

    private void complete() {
      while (!channel.over) {
        if (!channel.completeOne()) {
          Thread.onSpinWait();
        }
      }
    }

    private void closeThenEnd() {
      int spins = ThreadLocalRandom.current().nextInt(20_000);
      for (int i = 0; i < spins; i++) {
        Thread.onSpinWait();
      }
      channel.close();
      for (int i = 0; i < spins / 4; i++) {
        Thread.onSpinWait();
      }
      channel.end();
    }

    @Override
    public List<Stress.Loop> actors() {
      return List.of(
          this::postOneByOne,
          this::tryPosts,
          this::postBatches,
          this::complete,
          this::closeThenEnd);
    }

    @Override
    public void check() {
      assertEquals(0, channel.issuedAfterEnd.get(), "READs issued after the end never end");
      assertEquals(0, channel.beyondBounds.get(), "READs in flight beyond the bounds");
      int none = 0;
      int both = 0;
      for (Outcomes o : posted) {
        none += o.total() == 0 ? 1 : 0;
        both += o.total() > 1 ? 1 : 0;
      }
      assertEquals(0, none, "READs that neither completed nor failed");
      assertEquals(0, both, "READs that ended more than once");
      assertEquals(3 * POSTS - refused.get(), posted.size());
      assertEquals(1, target.refCnt(), "every READ gave back its reference to the target");
      assertFalse(channel.isOpen());
      assertEquals(0, channel.inFlight());
      target.close();
    }
  }

  @Test
  void postsRacingWithCompletionsCloseAndEndEachEndExactlyOnce() throws Exception {
    int rounds =
        Stress.rounds(
            Duration.ofSeconds(3),
            5_000,
            () -> {
              try {
                return new Round();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertTrue(rounds > 0);
    assertEquals(0, registrar.accounting().registeredBytes());
  }
}
