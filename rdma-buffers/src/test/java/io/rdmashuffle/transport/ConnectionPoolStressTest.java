/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Stress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection pool used, broken, replaced and closed at once: after {@link ConnectionPool#close}
 * returns no connection it opened is left open, and no use that starts after it gets one.
 */
@Timeout(120)
class ConnectionPoolStressTest {
  private static final PeerAddress[] PEERS = {
    new PeerAddress("127.0.0.1", 1001), new PeerAddress("127.0.0.1", 1002)
  };
  private static final String APP = "app";
  private static final int USES = 100;

  /** A connection that holds its (imaginary) socket until closed or broken. */
  private static final class FakeChannel implements ReadChannel {
    private final PeerAddress peer;
    private final Set<FakeChannel> holding;
    private volatile boolean open = true;

    FakeChannel(PeerAddress peer, Set<FakeChannel> holding) {
      this.peer = peer;
      this.holding = holding;
      holding.add(this);
    }

    /** The connection broke: the transport released it and failed what was in flight. */
    void breakIt() {
      open = false;
      holding.remove(this);
    }

    @Override
    public PeerAddress peer() {
      return peer;
    }

    @Override
    public String application() {
      return APP;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public boolean tryPost(ReadOp op) {
      throw new UnsupportedOperationException("no READs in this test");
    }

    @Override
    public void post(ReadOp op) {
      throw new UnsupportedOperationException("no READs in this test");
    }

    @Override
    public void postAll(List<ReadOp> ops) {
      throw new UnsupportedOperationException("no READs in this test");
    }

    @Override
    public int inFlight() {
      return 0;
    }

    @Override
    public void close() {
      breakIt();
    }
  }

  /** Opens fake connections and remembers which still hold their socket. */
  private static final class FakeTransport implements Transport {
    final Set<FakeChannel> holding = ConcurrentHashMap.newKeySet();
    final AtomicInteger opened = new AtomicInteger();
    private final MemoryRegistrar registrar = new CountingRegistrar();
    private final TransportMetrics metrics = new TransportMetrics();

    @Override
    public TransportKind kind() {
      return TransportKind.TCP;
    }

    @Override
    public PeerAddress localAddress() {
      return PEERS[0];
    }

    @Override
    public MemoryRegistrar registrar() {
      return registrar;
    }

    @Override
    public ReadChannel connect(PeerAddress peer, String application) {
      opened.incrementAndGet();
      Thread.yield();
      return new FakeChannel(peer, holding);
    }

    @Override
    public TransportMetrics metrics() {
      return metrics;
    }

    @Override
    public void serveCalls(int service, CallHandler handler) {
      throw new UnsupportedOperationException("the pool makes no calls");
    }

    @Override
    public java.util.concurrent.CompletableFuture<java.nio.ByteBuffer> call(
        PeerAddress peer, String application, int service, java.nio.ByteBuffer request) {
      throw new UnsupportedOperationException("the pool makes no calls");
    }

    @Override
    public void close() {}
  }

  private static final class Round implements Stress.Round {
    final FakeTransport transport = new FakeTransport();
    final ConnectionPool pool = new ConnectionPool(transport, 2);
    final List<ReadChannel> handedOut = new CopyOnWriteArrayList<>();
    final AtomicInteger afterClose = new AtomicInteger();
    final AtomicInteger replacedBySelf = new AtomicInteger();
    volatile boolean closeReturned;

    private void use(PeerAddress peer) {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      for (int i = 0; i < USES; i++) {
        boolean closedBefore = closeReturned;
        try {
          ReadChannel c = pool.channel(peer, APP);
          handedOut.add(c);
          if (random.nextInt(4) == 0) {
            ((FakeChannel) c).breakIt();
            ReadChannel fresh = pool.replace(c);
            handedOut.add(fresh);
            if (fresh == c) {
              replacedBySelf.incrementAndGet();
            }
          }
          if (closedBefore) {
            afterClose.incrementAndGet();
          }
        } catch (ConnectionLostException e) {
          // the pool is closed: every later use fails the same way
        } catch (TransportException e) {
          throw new AssertionError(e);
        }
      }
    }

    private void breakSome() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      for (int i = 0; i < USES; i++) {
        int n = handedOut.size();
        if (n > 0) {
          ((FakeChannel) handedOut.get(random.nextInt(n))).breakIt();
        }
        Thread.onSpinWait();
      }
    }

    private void close() {
      int spins = ThreadLocalRandom.current().nextInt(50_000);
      for (int i = 0; i < spins; i++) {
        Thread.onSpinWait();
      }
      pool.close();
      closeReturned = true;
    }

    @Override
    public List<Stress.Loop> actors() {
      return List.of(
          () -> use(PEERS[0]),
          () -> use(PEERS[1]),
          () -> use(PEERS[0]),
          this::breakSome,
          this::close);
    }

    @Override
    public void check() {
      assertEquals(Set.of(), transport.holding, "connections left open after the pool closed");
      assertEquals(0, afterClose.get(), "a connection handed out after close() returned");
      assertEquals(0, replacedBySelf.get(), "replace() returned the broken connection");
      assertThrows(ConnectionLostException.class, () -> pool.channel(PEERS[0], APP));
    }
  }

  @Test
  void replaceAndUseRacingWithCloseLeaveNoConnectionOpen() throws Exception {
    int rounds = Stress.rounds(Duration.ofSeconds(3), 5_000, Round::new);
    assertTrue(rounds > 0);
  }
}
