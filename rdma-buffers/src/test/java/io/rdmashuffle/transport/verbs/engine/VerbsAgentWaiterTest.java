/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.verbs.engine.VerbsAgentTest.Outcomes;
import io.rdmashuffle.transport.verbs.engine.VerbsAgentTest.Target;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Whoever waits polls: a reader about to block for its READs finds completions itself ({@link
 * VerbsReadChannel#helpUntil}), with a fake completion queue and fake queue pairs.
 */
@Timeout(120)
class VerbsAgentWaiterTest {
  private static final PeerAddress PEER = new PeerAddress("198.18.0.10", 4000);
  private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(30);
  private static final long LONG_SPIN = TimeUnit.SECONDS.toNanos(20);

  private final TransportMetrics metrics = new TransportMetrics();
  private final FakeCompletionQueue cq = new FakeCompletionQueue();
  private final long leakMark = io.rdmashuffle.memory.LeakDetector.mark();

  @AfterEach
  void targetsStillHeldByDesign() {
    io.rdmashuffle.memory.LeakDetector.dismissSince(leakMark);
  }

  private VerbsAgent agent(long timeoutNanos, long spinNanos) {
    return new VerbsAgent(cq, 256, 64, metrics, timeoutNanos, ch -> {}, spinNanos);
  }

  private static VerbsReadChannel channel(VerbsAgent agent, QueuePair qp) throws IOException {
    VerbsReadChannel ch = new VerbsReadChannel(PEER, "app", 16, 1L << 30, qp, agent);
    agent.register(ch);
    return ch;
  }

  private static ReadOp read(Target target, int i, ReadListener listener) {
    return new ReadOp().set(0x9000 + 64L * i, 42, 64, target, 0, listener).attach(i);
  }

  /** Completes (status SUCCESS) the signalled READ of {@code qp}'s {@code i}-th post. */
  private void complete(FakeQueuePair qp, int i) {
    cq.complete(qp.posted().get(i).wrId(), Completions.SUCCESS);
  }

  @Test
  void aWaiterFindsItsOwnCompletionWithoutTheAgentThread() throws Exception {
    VerbsAgent agent = agent(TIMEOUT, LONG_SPIN); // no agent thread at all
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp);
    AtomicReference<Thread> deliveredOn = new AtomicReference<>();
    ReadListener listener =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            deliveredOn.set(Thread.currentThread());
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException cause) {
            throw new AssertionError("failed", cause);
          }
        };
    ch.post(read(new Target(), 0, listener));
    Thread device =
        new Thread(
            () -> {
              sleep(50); // the waiter is polling by now
              complete(qp, 0);
            });
    device.start();

    assertTrue(ch.helpUntil(() -> deliveredOn.get() != null, LONG_SPIN));

    device.join();
    assertSame(Thread.currentThread(), deliveredOn.get(), "the waiter delivered its completion");
    assertEquals(0, cq.awaits, "nobody blocked on the completion channel");
    assertEquals(1, metrics.readsCompleted());
    assertEquals(0, ch.inFlight());
  }

  @Test
  void aWaiterDeliversOtherReadsCompletionsAndRingsWhatTheirListenersPostAfterItsRound()
      throws Exception {
    VerbsAgent agent = agent(TIMEOUT, LONG_SPIN);
    FakeQueuePair mine = new FakeQueuePair();
    FakeQueuePair theirs = new FakeQueuePair();
    VerbsReadChannel myChannel = channel(agent, mine);
    VerbsReadChannel theirChannel = channel(agent, theirs);
    Target target = new Target();
    Outcomes myOutcomes = new Outcomes();
    List<String> theirCalls = new CopyOnWriteArrayList<>();
    ReadListener postsTwoMore =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            theirCalls.add("ok " + op.attachment() + " on " + Thread.currentThread().getName());
            if ((int) op.attachment() == 10) {
              theirChannel.post(read(target, 11, this));
              theirChannel.post(read(target, 12, this));
            }
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException cause) {
            theirCalls.add("failed " + op.attachment());
          }
        };
    theirChannel.post(read(target, 10, postsTwoMore));
    myChannel.post(read(target, 0, myOutcomes));
    complete(theirs, 0);
    complete(mine, 0);

    assertTrue(myChannel.helpUntil(() -> !myOutcomes.calls.isEmpty(), LONG_SPIN));

    String me = Thread.currentThread().getName();
    assertEquals(List.of("ok 0"), myOutcomes.calls);
    assertEquals(List.of("ok 10 on " + me), theirCalls, "the other READ's listener, once");
    assertEquals(List.of(1, 2), theirs.doorbells, "its two posts: one doorbell after the round");
    assertEquals(2, theirChannel.inFlight());
  }

  @Test
  void aWaiterGivesUpAfterItsSpinAndTheAgentThreadFindsTheCompletionThen() throws Exception {
    long spin = TimeUnit.MILLISECONDS.toNanos(20);
    VerbsAgent agent = agent(TIMEOUT, spin);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp);
    Outcomes out = new Outcomes();
    ch.post(read(new Target(), 0, out));

    long t0 = System.nanoTime();
    assertFalse(ch.helpUntil(() -> !out.calls.isEmpty(), LONG_SPIN), "nothing completed");
    long took = System.nanoTime() - t0;
    assertTrue(took >= spin && took < TimeUnit.SECONDS.toNanos(10), "the spin bounds it: " + took);

    VerbsAgentRunner runner = new VerbsAgentRunner(agent, cq, metrics, "test-agent");
    runner.start();
    try {
      complete(qp, 0);
      waitFor(() -> !out.calls.isEmpty());
      assertEquals(List.of("ok 0"), out.calls);
    } finally {
      assertTrue(runner.stop());
    }
  }

  @Test
  void aReaderThatGivesUpArmsTheQueueForTheAgentThreadParkedBesideIt() throws Exception {
    VerbsAgent agent = agent(TIMEOUT, TimeUnit.MILLISECONDS.toNanos(300));
    cq.untilWoken = true; // the agent's short parks end only by a wake-up or an armed completion
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp);
    Outcomes out = new Outcomes();
    ch.post(read(new Target(), 0, out));
    AtomicReference<Boolean> helped = new AtomicReference<>();
    Thread reader =
        new Thread(() -> helped.set(ch.helpUntil(() -> !out.calls.isEmpty(), LONG_SPIN)));
    reader.start();
    sleep(20); // the reader polls: the agent thread parks beside it, the queue not armed
    VerbsAgentRunner runner = new VerbsAgentRunner(agent, cq, metrics, "test-agent");
    runner.start();
    try {
      reader.join();
      assertEquals(false, helped.get(), "nothing completed within the reader's spin");
      assertTrue(cq.arms > 0, "the reader that gave up armed the completion queue");
      complete(qp, 0); // an event: it wakes the agent thread
      waitFor(() -> !out.calls.isEmpty());
      assertEquals(List.of("ok 0"), out.calls);
    } finally {
      assertTrue(runner.stop());
    }
  }

  @Test
  void timeoutsCommandsAndBreaksStillHappenWhileAWaiterPolls() throws Exception {
    VerbsAgent agent = agent(TimeUnit.MILLISECONDS.toNanos(100), LONG_SPIN);
    FakeQueuePair waitedOn = new FakeQueuePair();
    FakeQueuePair closed = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, waitedOn);
    VerbsReadChannel other = channel(agent, closed);
    Outcomes out = new Outcomes();
    Outcomes otherOut = new Outcomes();
    ch.post(read(new Target(), 0, out)); // never completes
    other.post(read(new Target(), 1, otherOut));
    VerbsAgentRunner runner = new VerbsAgentRunner(agent, cq, metrics, "test-agent");
    runner.start();
    try {
      AtomicInteger commandsRun = new AtomicInteger();
      Thread closer =
          new Thread(
              () -> {
                sleep(20); // the waiter polls by now
                agent.submit(commandsRun::incrementAndGet);
                other.close();
              });
      closer.start();

      // the waiter spins for at most LONG_SPIN: only the agent thread's timeout can end it sooner
      long t0 = System.nanoTime();
      assertTrue(ch.helpUntil(() -> !out.calls.isEmpty(), LONG_SPIN));
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
      closer.join();

      assertEquals(List.of("failed 0"), out.calls);
      assertInstanceOf(ReadTimeoutException.class, out.failures.get(0));
      assertTrue(waitedOn.destroyed, "the timed-out channel's queue pair is gone");
      waitFor(() -> closed.destroyed && !otherOut.calls.isEmpty());
      assertEquals(List.of("failed 1"), otherOut.calls, "closed: its READ failed once");
      assertEquals(1, commandsRun.get());
    } finally {
      assertTrue(runner.stop());
    }
  }

  /**
   * While readers find every completion themselves, the agent thread's unarmed parks beside them
   * double up to {@link VerbsAgent#UNARMED_PARK_MAX_MILLIS} (each wake-up of it costs CPU the
   * readers and, in an emulator, the device need); once its own round finds a completion nobody
   * polled for, they are short again.
   */
  @Test
  void theParksBesideReadersGrowWhileReadersFindEveryCompletionAndShrinkWhenTheyMissOne()
      throws Exception {
    VerbsAgent agent = agent(TIMEOUT, LONG_SPIN);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp);
    List<Integer> expected = new ArrayList<>();
    for (int park = VerbsAgent.UNARMED_PARK_MILLIS;
        expected.size() < 6;
        park = Math.min(VerbsAgent.UNARMED_PARK_MAX_MILLIS, 2 * park)) {
      expected.add(park);
      assertEquals(0, agent.doWork(), "the readers found every completion");
      agent.parkBesideReaders();
    }
    assertEquals(expected, cq.awaitTimeouts);
    assertEquals(VerbsAgent.UNARMED_PARK_MAX_MILLIS, expected.get(expected.size() - 1));

    AtomicInteger done = new AtomicInteger();
    ch.post(read(new Target(), 0, counting(done)));
    complete(qp, 0); // nobody polls for it: the agent thread's own round finds it
    assertEquals(1, agent.doWork());
    agent.parkBesideReaders();

    assertEquals(1, done.get());
    assertEquals(VerbsAgent.UNARMED_PARK_MILLIS, cq.awaitTimeouts.get(cq.awaitTimeouts.size() - 1));
  }

  /**
   * The look before a park beside readers is the agent thread's round too: a completion it finds
   * shortens the parks.
   */
  @Test
  void aCompletionFoundByTheLookBeforeAParkShortensTheParks() throws Exception {
    VerbsAgent agent = agent(TIMEOUT, LONG_SPIN);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp);
    for (int i = 0; i < 5; i++) {
      agent.parkBesideReaders(); // 1, 2, 4, 8, 8 ms: readers found everything
    }
    AtomicInteger done = new AtomicInteger();
    ch.post(read(new Target(), 0, counting(done)));
    complete(qp, 0);
    int awaited = cq.awaitTimeouts.size();
    agent.parkBesideReaders(); // its look finds the completion: no wait

    assertEquals(1, done.get());
    assertEquals(awaited, cq.awaitTimeouts.size(), "returned without waiting");
    agent.parkBesideReaders();
    assertEquals(VerbsAgent.UNARMED_PARK_MILLIS, cq.awaitTimeouts.get(awaited));
  }

  private static ReadListener counting(AtomicInteger done) {
    return new ReadListener() {
      @Override
      public void onReadComplete(ReadOp op) {
        done.incrementAndGet();
      }

      @Override
      public void onReadFailed(ReadOp op, TransportException cause) {
        throw new AssertionError("failed", cause);
      }
    };
  }

  @Test
  void afterShutdownAWaiterNoLongerPolls() throws IOException {
    VerbsAgent agent = agent(TIMEOUT, TimeUnit.MILLISECONDS.toNanos(5));
    agent.shutdown("transport closed");
    cq.complete(VerbsAgent.wrId(1, 0), Completions.SUCCESS);

    assertFalse(agent.help(() -> false, LONG_SPIN));

    assertEquals(1, cq.pending(), "the completion queue, maybe destroyed, was not polled");
  }

  /**
   * The agent thread and readers race for completions: several readers, each on its own channel,
   * post READs (one or a few at a time) and wait for them by polling for a random short spin, else
   * parked until the listener wakes them; a device thread completes what was posted in order per
   * queue pair, interleaving queue pairs at random (fixed seed). Every READ is delivered exactly
   * once, none is lost, none fails.
   */
  @Test
  void readersAndTheAgentThreadRacingDeliverEveryCompletionExactlyOnce() throws Exception {
    int readers = 4;
    int perReader = 400;
    VerbsAgent agent = agent(TIMEOUT, TimeUnit.MILLISECONDS.toNanos(2));
    LinkedBlockingQueue<FakeQueuePair.Posted> posted = new LinkedBlockingQueue<>();
    Random deviceRandom = new Random(20261201L);
    Thread device =
        new Thread(
            () -> {
              try {
                while (true) {
                  FakeQueuePair.Posted p = posted.take();
                  if (p.wrId() == -1) {
                    return;
                  }
                  if (deviceRandom.nextInt(4) == 0) {
                    Thread.sleep(0, deviceRandom.nextInt(200_000));
                  }
                  if (p.signaled()) {
                    cq.complete(p.wrId(), Completions.SUCCESS);
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "fake-device");
    device.start();
    VerbsAgentRunner runner = new VerbsAgentRunner(agent, cq, metrics, "test-agent");
    runner.start();
    ConcurrentHashMap<ReadOp, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try {
      for (int r = 0; r < readers; r++) {
        long seed = 1000L + r;
        VerbsReadChannel ch = channel(agent, new FakeQueuePair(posted::addAll));
        Target target = new Target();
        threads.add(
            new Thread(
                () -> {
                  try {
                    readLoop(ch, target, perReader, new Random(seed), deliveries);
                  } catch (Throwable t) {
                    errors.add(t);
                  }
                },
                "reader-" + r));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(100));
        assertFalse(t.isAlive(), t.getName() + " still waits: a completion was lost");
      }
    } finally {
      posted.add(new FakeQueuePair.Posted(-1, false, 0, 0, 0, 0, 0));
      device.join();
      assertTrue(runner.stop());
    }
    assertTrue(errors.isEmpty(), () -> "reader failed: " + errors);
    assertEquals(readers * perReader, deliveries.size());
    deliveries.forEach((op, n) -> assertEquals(1, n.get(), "READ " + op.attachment()));
    assertEquals(readers * perReader, metrics.readsCompleted());
  }

  /** Posts {@code count} READs in batches of 1-3 and waits for each batch as a fetch task does. */
  private static void readLoop(
      VerbsReadChannel ch,
      Target target,
      int count,
      Random random,
      ConcurrentHashMap<ReadOp, AtomicInteger> deliveries)
      throws InterruptedException {
    LinkedBlockingQueue<Object> done = new LinkedBlockingQueue<>();
    ReadListener listener =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            deliveries.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
            done.add(op);
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException cause) {
            deliveries.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
            done.add(cause);
          }
        };
    int i = 0;
    while (i < count) {
      int batch = Math.min(count - i, 1 + random.nextInt(3));
      List<ReadOp> ops = new ArrayList<>();
      for (int k = 0; k < batch; k++) {
        ops.add(read(target, i + k, listener));
      }
      ch.postAll(ops);
      for (int k = 0; k < batch; k++) {
        long spin = random.nextInt(3) == 0 ? 0 : TimeUnit.MICROSECONDS.toNanos(random.nextInt(500));
        ch.helpUntil(() -> !done.isEmpty(), spin);
        Object o = done.poll(60, TimeUnit.SECONDS);
        assertNotNull(o, "READ " + (i + k) + " never ended");
        if (o instanceof TransportException e) {
          throw new AssertionError("READ failed", e);
        }
      }
      i += batch;
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() - until < 0, "condition not met within 20 s");
      sleep(2);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
