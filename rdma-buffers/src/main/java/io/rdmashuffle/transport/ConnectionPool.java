/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps up to {@code perPeer} open connections to each (peer, application), opened on first use and
 * replaced when they break; READs are spread over them round-robin. Connections can be opened
 * ahead, in the background ({@link #prepare}), and asked for without blocking ({@link
 * #channelNow}): a reader that learns its owners early pays their connect and handshake while it
 * does other work, and a thread that must not block (one driving many readers) never waits for a
 * handshake. Thread-safe; one per process, closed with it.
 */
public final class ConnectionPool implements AutoCloseable {
  /** Threads opening connections in the background; each open blocks one for its handshake. */
  private static final int OPENERS = 8;

  private final Transport transport;
  private final int perPeer;
  private final Map<Key, Slots> peers = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor openers;
  private volatile boolean closed;

  private record Key(PeerAddress peer, String application) {}

  /** One (peer, application)'s connections, and the opens under way; guarded by itself. */
  private final class Slots {
    final ReadChannel[] channels = new ReadChannel[perPeer];
    final CompletableFuture<?>[] opening = new CompletableFuture<?>[perPeer];

    /** Why the last background open failed; reported to the next caller that asks. */
    TransportException failed;

    final AtomicInteger next = new AtomicInteger();
  }

  public ConnectionPool(Transport transport, int perPeer) {
    if (perPeer < 1) {
      throw new IllegalArgumentException("perPeer=" + perPeer + ": must be at least 1");
    }
    this.transport = transport;
    this.perPeer = perPeer;
    AtomicInteger n = new AtomicInteger();
    this.openers =
        new ThreadPoolExecutor(
            OPENERS,
            OPENERS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "rdma-connect-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.openers.allowCoreThreadTimeOut(true);
  }

  /** An open connection to {@code peer} for {@code application}, opening one if needed. */
  public ReadChannel channel(PeerAddress peer, String application) throws TransportException {
    Slots s = slots(peer, application);
    int i = Math.floorMod(s.next.getAndIncrement(), perPeer);
    CompletableFuture<?> pending;
    synchronized (s) {
      ReadChannel c = s.channels[i];
      if (c != null && c.isOpen()) {
        return c;
      }
      pending = s.opening[i];
      if (pending == null) {
        c = open(peer, application);
        s.channels[i] = c;
        return c;
      }
    }
    // a background open of this slot is under way: its outcome is this caller's
    pending.exceptionally(t -> null).join();
    ReadChannel c = channelNow(peer, application, () -> {});
    return c != null ? c : channel(peer, application);
  }

  /**
   * Opens connections to {@code peer} for {@code application} in the background, unless they are
   * open or being opened: for a reader that knows whom it will READ from before it READs. Never
   * blocks; a failure is reported to the next caller of {@link #channelNow} or {@link #channel}.
   */
  public void prepare(PeerAddress peer, String application) {
    try {
      Slots s = slots(peer, application);
      synchronized (s) {
        for (int i = 0; i < perPeer; i++) {
          ReadChannel c = s.channels[i];
          if ((c == null || !c.isOpen()) && s.opening[i] == null) {
            openInBackground(s, i, peer, application);
          }
        }
      }
    } catch (TransportException e) {
      // closed: nothing to prepare
    }
  }

  /**
   * An open connection to {@code peer} for {@code application} if there is one now; otherwise null,
   * after starting to open one in the background (if none is being opened) and arranging for {@code
   * onOpened} to run (on another thread) when that open ends, opened or not. Never blocks.
   *
   * @throws TransportException why the last background open failed (reported once; the next call
   *     opens again)
   */
  public ReadChannel channelNow(PeerAddress peer, String application, Runnable onOpened)
      throws TransportException {
    Slots s = slots(peer, application);
    int first = Math.floorMod(s.next.getAndIncrement(), perPeer);
    CompletableFuture<?> pending;
    synchronized (s) {
      for (int k = 0; k < perPeer; k++) {
        ReadChannel c = s.channels[(first + k) % perPeer];
        if (c != null && c.isOpen()) {
          return c;
        }
      }
      if (s.failed != null) {
        TransportException e = s.failed;
        s.failed = null;
        throw e;
      }
      if (s.opening[first] == null) {
        openInBackground(s, first, peer, application);
      }
      pending = s.opening[first];
    }
    pending.whenComplete((x, t) -> onOpened.run());
    return null;
  }

  /** Under {@code s}'s lock: opens slot {@code i} on an opener thread. */
  private void openInBackground(Slots s, int i, PeerAddress peer, String application) {
    CompletableFuture<ReadChannel> f = new CompletableFuture<>();
    s.opening[i] = f;
    try {
      openers.execute(
          () -> {
            ReadChannel c = null;
            TransportException failure = null;
            try {
              c = open(peer, application);
            } catch (TransportException e) {
              failure = e;
            } catch (RuntimeException e) {
              failure =
                  new PeerUnreachableException("could not open a connection: " + e, peer, null, e);
            }
            synchronized (s) {
              s.opening[i] = null;
              if (c != null) {
                ReadChannel old = s.channels[i];
                s.channels[i] = c;
                if (old != null && old != c) {
                  old.close();
                }
              } else {
                s.failed = failure;
              }
            }
            if (c != null) {
              f.complete(c);
            } else {
              f.completeExceptionally(failure);
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      s.opening[i] = null;
      f.completeExceptionally(new CompletionException(e));
    }
  }

  /**
   * A newly opened connection replacing {@code broken} (which is closed): for the one retry a
   * failed READ gets.
   */
  public ReadChannel replace(ReadChannel broken) throws TransportException {
    Slots s = slots(broken.peer(), broken.application());
    broken.close();
    synchronized (s) {
      for (int i = 0; i < perPeer; i++) {
        if (s.channels[i] == broken || s.channels[i] == null || !s.channels[i].isOpen()) {
          ReadChannel c = open(broken.peer(), broken.application());
          s.channels[i] = c;
          return c;
        }
      }
      // every slot holds another open connection already: use one of those
      return s.channels[Math.floorMod(s.next.getAndIncrement(), perPeer)];
    }
  }

  private Slots slots(PeerAddress peer, String application) throws TransportException {
    if (closed) {
      throw new ConnectionLostException("connection pool is closed", peer, null, null);
    }
    return peers.computeIfAbsent(new Key(peer, application), k -> new Slots());
  }

  private ReadChannel open(PeerAddress peer, String application) throws TransportException {
    ReadChannel c = transport.connect(peer, application);
    if (closed) {
      c.close();
      throw new ConnectionLostException("connection pool is closed", peer, null, null);
    }
    return c;
  }

  /** Closes every connection; READs in flight on them fail as connection lost. */
  @Override
  public void close() {
    closed = true;
    openers.shutdownNow();
    for (Slots s : peers.values()) {
      synchronized (s) {
        for (int i = 0; i < perPeer; i++) {
          if (s.opening[i] != null) {
            // an open the shutdown dropped never ends by itself: its waiters must not hang
            s.opening[i].completeExceptionally(
                new ConnectionLostException("connection pool is closed", null, null, null));
            s.opening[i] = null;
          }
          if (s.channels[i] != null) {
            s.channels[i].close();
            s.channels[i] = null;
          }
        }
      }
    }
    peers.clear();
  }
}
