/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verbs engine step by step, with a fake completion queue and fake queue pairs: no device, no
 * DiSNI. The agent's duty cycle is driven by the test ({@code doWork}, {@code breakChannel}) except
 * where threads are the point.
 */
@Timeout(60)
class VerbsAgentTest {
  private static final PeerAddress PEER = new PeerAddress("198.18.0.10", 4000);
  private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(30);

  private final TransportMetrics metrics = new TransportMetrics();
  private final FakeCompletionQueue cq = new FakeCompletionQueue();
  private final List<VerbsReadChannel> endedChannels = new CopyOnWriteArrayList<>();
  private final long leakMark = io.rdmashuffle.memory.LeakDetector.mark();

  /**
   * These tests drive the engine step by step over fake queue pairs and often stop with READs in
   * flight, or with targets the engine keeps on purpose (a queue pair it could neither destroy nor
   * flush): their targets are fake regions still retained by design, not leaked memory. The tests
   * assert what the engine gives back themselves (each target's {@code freed}).
   */
  @org.junit.jupiter.api.AfterEach
  void targetsStillHeldByDesign() {
    io.rdmashuffle.memory.LeakDetector.dismissSince(leakMark);
  }

  /** A READ target whose freeing (deregistration) the test can see. */
  static final class Target extends RegisteredRegion {
    final AtomicBoolean freed = new AtomicBoolean();

    Target() {
      super(
          MemoryPiece.of(DirectMemory.allocate(4096)),
          Access.LOCAL_WRITE,
          null,
          0x1000,
          0,
          7,
          () -> {});
    }

    @Override
    protected void withdraw() {}

    @Override
    protected void deregister() {
      freed.set(true);
    }
  }

  /** Records every listener call, in order. */
  static final class Outcomes implements ReadListener {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<TransportException> failures = new CopyOnWriteArrayList<>();
    final ConcurrentHashMap<ReadOp, AtomicInteger> perOp = new ConcurrentHashMap<>();

    @Override
    public void onReadComplete(ReadOp op) {
      perOp.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
      calls.add("ok " + op.attachment());
    }

    @Override
    public void onReadFailed(ReadOp op, TransportException cause) {
      // calls last: tests on other threads wait for it, then read the failure
      failures.add(cause);
      perOp.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
      calls.add("failed " + op.attachment());
    }
  }

  private VerbsAgent agent(long timeoutNanos) {
    return new VerbsAgent(cq, 256, 64, metrics, timeoutNanos, endedChannels::add, 0);
  }

  private static VerbsReadChannel channel(VerbsAgent agent, QueuePair qp, int depth)
      throws IOException {
    VerbsReadChannel ch = new VerbsReadChannel(PEER, "app", depth, 1L << 30, qp, agent);
    agent.register(ch);
    return ch;
  }

  private static ReadOp read(Target target, int i, ReadListener listener) {
    return new ReadOp().set(0x9000 + 64L * i, 42, 64, target, 64L * i, listener).attach(i);
  }

  @Test
  void readsOfOnePostAreOneDoorbellWithOnlyTheLastSignalled() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();

    ch.postAll(List.of(read(target, 0, out), read(target, 1, out), read(target, 2, out)));

    assertEquals(List.of(3), qp.doorbells);
    List<FakeQueuePair.Posted> p = qp.posted();
    assertEquals(
        List.of(false, false, true), p.stream().map(FakeQueuePair.Posted::signaled).toList());
    assertEquals(0x1000 + 64, p.get(1).localAddress(), "target address + offset");
    assertEquals(7, p.get(1).lkey());
    assertEquals(42, p.get(1).rkey());
    assertEquals(3, ch.inFlight());
    assertTrue(out.calls.isEmpty(), "nothing completes before the device says so");
  }

  @Test
  void oneCompletionEndsEveryEarlierReadOfItsQueuePairInPostingOrder() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ch.postAll(List.of(read(target, 0, out), read(target, 1, out), read(target, 2, out)));

    cq.complete(qp.posted().get(2).wrId(), Completions.SUCCESS);
    agent.doWork();

    assertEquals(List.of("ok 0", "ok 1", "ok 2"), out.calls);
    assertEquals(0, ch.inFlight());
    assertEquals(3, metrics.readsCompleted());
    target.close();
    assertTrue(target.freed.get(), "every READ gave its target reference back");
  }

  @Test
  void aLateOrRepeatedCompletionMatchesNoReadOfAnEndedChannelNorOfItsSuccessor()
      throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair first = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, first, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ch.post(read(target, 0, out));
    long oldId = first.posted().get(0).wrId();
    cq.complete(oldId, Completions.SUCCESS);
    agent.doWork();
    cq.complete(oldId, Completions.SUCCESS); // repeated: the READ ended already
    agent.doWork();
    assertEquals(List.of("ok 0"), out.calls);

    ch.close();
    agent.doWork();
    assertEquals(List.of(ch), endedChannels);
    FakeQueuePair second = new FakeQueuePair();
    VerbsReadChannel successor = channel(agent, second, 16);
    Outcomes out2 = new Outcomes();
    successor.post(read(target, 1, out2));
    long newId = second.posted().get(0).wrId();
    assertEquals((int) oldId, (int) newId, "same sequence number in the new channel");
    assertEquals(oldId >>> 32 & 0xffff, newId >>> 32 & 0xffff, "same table index, reused");

    cq.complete(oldId, Completions.WR_FLUSH_ERR); // the old queue pair's late flush
    agent.doWork();

    assertEquals(List.of(), out2.calls, "the successor's READ is not ended by it");
    assertEquals(1, successor.inFlight());
  }

  @Test
  void anErrorCompletionFailsItsReadCompletesEarlierOnesAndBreaksTheChannel() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ch.postAll(List.of(read(target, 0, out), read(target, 1, out)));
    ch.post(read(target, 2, out));

    cq.complete(qp.posted().get(1).wrId(), Completions.REM_ACCESS_ERR);
    agent.doWork();

    assertEquals(List.of("ok 0", "failed 1", "failed 2"), out.calls);
    assertInstanceOf(RemoteAccessException.class, out.failures.get(0));
    assertEquals(FailureKind.CONNECTION_LOST, out.failures.get(1).kind());
    assertTrue(qp.destroyed);
    assertFalse(ch.isOpen());
    target.close();
    assertTrue(target.freed.get());
  }

  @Test
  void aReadPastTheTimeoutFailsAsTimeoutAndClosesItsQueuePair() throws Exception {
    VerbsAgent agent = agent(TimeUnit.MILLISECONDS.toNanos(20));
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ch.post(read(target, 0, out));

    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (out.calls.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(5);
      agent.doWork();
    }

    assertEquals(List.of("failed 0"), out.calls);
    assertInstanceOf(ReadTimeoutException.class, out.failures.get(0));
    assertTrue(qp.destroyed);
  }

  @Test
  void breakingWithReadsInFlightReleasesTargetsOnlyAfterTheQueuePairIsDestroyed()
      throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    AtomicBoolean freedAtDestroy = new AtomicBoolean(true);
    Target target = new Target();
    FakeQueuePair qp =
        new FakeQueuePair() {
          @Override
          public synchronized boolean destroy() {
            freedAtDestroy.set(target.freed.get());
            return super.destroy();
          }
        };
    VerbsReadChannel ch = channel(agent, qp, 16);
    Outcomes out = new Outcomes();
    ch.postAll(List.of(read(target, 0, out), read(target, 1, out)));
    target.close(); // the owner let go: only the READs hold it now

    agent.breakChannel(ch, new ConnectionLostException("test", PEER, null, null));

    assertFalse(freedAtDestroy.get(), "still held while the queue pair was alive");
    assertTrue(target.freed.get(), "released once it was destroyed");
    assertEquals(List.of("failed 0", "failed 1"), out.calls);
    assertEquals(0, metrics.readTargetsLeaked());
  }

  @Test
  void aQueuePairThatCanBeNeitherDestroyedNorFlushedKeepsItsTargetsForeverAndCountsThem()
      throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ch.postAll(List.of(read(target, 0, out), read(target, 1, out)));
    target.close();
    qp.destroyWorks = false;
    qp.errorStateWorks = false;

    agent.breakChannel(ch, new ConnectionLostException("test", PEER, null, null));

    assertFalse(target.freed.get(), "a late READ response could still land in it");
    assertEquals(2, metrics.readTargetsLeaked());
    assertEquals(1, metrics.queuePairsLeaked());
    assertEquals(List.of("failed 0", "failed 1"), out.calls, "the READs still fail, once each");
    assertEquals(List.of(ch), endedChannels);
  }

  @Test
  void aQueuePairInTheErrorStateReleasesEachTargetAsItsFlushCompletes() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target first = new Target();
    Target second = new Target();
    Outcomes out = new Outcomes();
    ch.postAll(List.of(read(first, 0, out), read(second, 1, out)));
    first.close();
    second.close();
    qp.destroyWorks = false;

    agent.breakChannel(ch, new ConnectionLostException("test", PEER, null, null));
    assertTrue(qp.inErrorState);
    assertFalse(first.freed.get());
    assertEquals(List.of(), out.calls, "READs in flight end as the device flushes them");

    cq.complete(qp.posted().get(0).wrId(), Completions.WR_FLUSH_ERR);
    agent.doWork();
    assertTrue(first.freed.get());
    assertFalse(second.freed.get(), "its READ is not flushed yet");
    assertEquals(List.of("failed 0"), out.calls);

    qp.destroyWorks = true;
    cq.complete(qp.posted().get(1).wrId(), Completions.WR_FLUSH_ERR);
    agent.doWork();
    assertTrue(second.freed.get());
    assertEquals(List.of("failed 0", "failed 1"), out.calls);
    assertTrue(qp.destroyed, "the flushed queue pair is destroyed at last");
    assertEquals(0, metrics.readTargetsLeaked());
  }

  @Test
  void aFlushThatNeverComesLeaksTheTargetsAfterTheReadTimeout() throws Exception {
    VerbsAgent agent = agent(TimeUnit.MILLISECONDS.toNanos(20));
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ch.post(read(target, 0, out));
    target.close();
    qp.destroyWorks = false;
    agent.breakChannel(ch, new ConnectionLostException("test", PEER, null, null));

    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (out.calls.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(5);
      agent.doWork();
    }

    assertEquals(List.of("failed 0"), out.calls);
    assertFalse(target.freed.get());
    assertEquals(1, metrics.readTargetsLeaked());
  }

  @Test
  void aFailedPostBreaksTheChannelAndItsReadsFailOnce() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    qp.postFailure = new IOException("ibv_post_send: send queue full");
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();

    ch.post(read(target, 0, out));
    ch.post(read(target, 1, out)); // not posted: a post failed already
    agent.doWork();

    assertEquals(List.of("failed 1", "failed 0"), out.calls);
    assertEquals(List.of(), qp.doorbells, "the one doorbell rung failed");
    assertTrue(qp.destroyed);
    target.close();
    assertTrue(target.freed.get());
  }

  @Test
  void aChannelDeeperThanTheCompletionQueueRoomLeftIsRefused() throws IOException {
    VerbsAgent agent = new VerbsAgent(cq, 40, 32, metrics, TIMEOUT, endedChannels::add, 0);
    channel(agent, new FakeQueuePair(), 32);

    assertEquals(8, agent.depthAvailable(32));
    IOException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IOException.class, () -> channel(agent, new FakeQueuePair(), 16));
    assertTrue(e.getMessage().contains("room for 8"), e.getMessage());
  }

  @Test
  void readsThatListenersPostWhileARoundDeliversShareOneDoorbell() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ReadListener again =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            out.onReadComplete(op);
            if ((int) op.attachment() < 4) {
              ch.post(read(target, (int) op.attachment() + 4, out));
            }
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException cause) {
            out.onReadFailed(op, cause);
          }
        };
    for (int i = 0; i < 4; i++) {
      ch.post(read(target, i, again)); // four posts from this thread: four doorbells
    }
    for (FakeQueuePair.Posted p : qp.posted()) {
      cq.complete(p.wrId(), Completions.SUCCESS);
    }

    agent.doWork();

    assertEquals(List.of(1, 1, 1, 1, 4), qp.doorbells, "the four reposts rang once");
    assertEquals(4, ch.inFlight());
    assertEquals(
        List.of(false, false, false, true),
        qp.posted().subList(4, 8).stream().map(FakeQueuePair.Posted::signaled).toList());
  }

  @Test
  void aListenerThatThrowsIsCountedAsTheListenersErrorNotTheEngines() throws IOException {
    VerbsAgent agent = agent(TIMEOUT);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Target target = new Target();
    Outcomes out = new Outcomes();
    ReadListener throwing =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            throw new IllegalStateException("a bug in the caller");
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException cause) {
            throw new IllegalStateException("a bug in the caller");
          }
        };
    ch.postAll(List.of(read(target, 0, throwing), read(target, 1, out)));

    cq.complete(qp.posted().get(1).wrId(), Completions.SUCCESS);
    agent.doWork();

    assertEquals(List.of("ok 1"), out.calls, "the next READ still completes");
    assertEquals(1, metrics.listenerErrors());
    assertEquals(0, metrics.engineErrors());
    assertTrue(ch.isOpen());
  }

  @Test
  void aFailingPollIsTheEnginesErrorAndTheNextRoundGoesOn() throws IOException {
    CompletionQueue failing =
        new CompletionQueue() {
          int calls;

          @Override
          public int poll(Completions into) throws IOException {
            if (calls++ == 0) {
              throw new IOException("ibv_poll_cq failed");
            }
            return cq.poll(into);
          }

          @Override
          public void arm() {}

          @Override
          public void await(int timeoutMillis) {}

          @Override
          public void wake() {}
        };
    VerbsAgent agent = new VerbsAgent(failing, 256, 64, metrics, TIMEOUT, endedChannels::add, 0);
    FakeQueuePair qp = new FakeQueuePair();
    VerbsReadChannel ch = channel(agent, qp, 16);
    Outcomes out = new Outcomes();
    ch.post(read(new Target(), 0, out));
    cq.complete(qp.posted().get(0).wrId(), Completions.SUCCESS);

    assertEquals(0, agent.doWork());
    agent.doWork();

    assertEquals(1, metrics.engineErrors());
    assertEquals(0, metrics.listenerErrors());
    assertEquals(List.of("ok 0"), out.calls);
  }

  @Test
  void aCommandHandedInWakesTheAgentBlockedOnTheCompletionQueue() throws Exception {
    VerbsAgent agent = agent(TIMEOUT);
    cq.untilWoken = true; // no timeout ends its wait: only the wake-up can
    VerbsAgentRunner runner = new VerbsAgentRunner(agent, cq, metrics, "test-agent");
    runner.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (cq.awaits() == 0 && System.nanoTime() - deadline < 0) {
        Thread.sleep(5); // until it is in its blocking wait
      }
      assertTrue(cq.awaits() > 0, "the agent blocked on the completion queue");
      CountDownLatch ran = new CountDownLatch(1);
      agent.submit(ran::countDown);
      assertTrue(ran.await(10, TimeUnit.SECONDS));
      // it was blocked in await (untilWoken: no timeout ends it), so only the wake-up ended it
    } finally {
      assertTrue(runner.stop());
    }
  }

  @Test
  void aConnectionThatEndsBeforeItIsRegisteredNeitherFreesNorTakesCompletionQueueRoom()
      throws IOException {
    VerbsAgent agent = new VerbsAgent(cq, 32, 32, metrics, TIMEOUT, endedChannels::add, 0);
    VerbsReadChannel early =
        new VerbsReadChannel(PEER, "app", 32, 1L << 30, new FakeQueuePair(), agent);
    agent.breakChannel(early, new ConnectionLostException("peer disconnected", PEER, null, null));

    assertEquals(32, agent.depthAvailable(64), "no room given back that was never taken");
    org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> agent.register(early));
    assertEquals(32, agent.depthAvailable(64));
    channel(agent, new FakeQueuePair(), 32);
    assertEquals(0, agent.depthAvailable(64));
  }

  /**
   * Posters on many threads, a device that completes what is posted, the agent on its own thread,
   * and a close in the middle: every READ's listener is called exactly once and every target
   * reference comes back.
   */
  @Test
  @Timeout(120)
  void concurrentPostersAndACloseEndEveryReadExactlyOnce() throws Exception {
    VerbsAgent agent = agent(TIMEOUT);
    ConcurrentLinkedQueue<FakeQueuePair.Posted> device = new ConcurrentLinkedQueue<>();
    FakeQueuePair qp = new FakeQueuePair(device::addAll);
    VerbsReadChannel ch = channel(agent, qp, 32);
    VerbsAgentRunner runner = new VerbsAgentRunner(agent, cq, metrics, "test-agent");
    AtomicBoolean stopDevice = new AtomicBoolean();
    Thread nic =
        new Thread(
            () -> {
              while (!stopDevice.get()) {
                FakeQueuePair.Posted p = device.poll();
                if (p == null) {
                  Thread.onSpinWait();
                } else if (p.signaled()) {
                  cq.complete(p.wrId(), Completions.SUCCESS);
                }
              }
            });
    nic.start();
    runner.start();
    Target target = new Target();
    Outcomes out = new Outcomes();
    int threads = 4;
    int perThread = 2_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> posters = new ArrayList<>();
    List<ReadOp> all = new CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      int base = t * perThread;
      Thread poster =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < perThread; i++) {
                  ReadOp op = read(target, (base + i) % 60, out);
                  all.add(op);
                  if (i % 3 == 0) {
                    ch.postAll(List.of(op));
                  } else {
                    ch.post(op);
                  }
                }
              });
      posters.add(poster);
      poster.start();
    }
    go.countDown();
    Thread.sleep(50);
    ch.close();
    for (Thread poster : posters) {
      poster.join();
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (out.perOp.size() < all.size() && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertTrue(runner.stop());
    stopDevice.set(true);
    nic.join();

    assertEquals(all.size(), out.perOp.size(), "every READ's listener was called");
    out.perOp.forEach((op, n) -> assertEquals(1, n.get(), "called once: " + op));
    assertFalse(ch.isOpen());
    assertEquals(0, metrics.listenerErrors());
    assertEquals(0, metrics.engineErrors());
    target.close();
    assertTrue(target.freed.get(), "every target reference came back");
  }
}
